"""Which engine library this process runs: the portable one, or one built for newer x86
instructions (setup.py builds them into py_paddle/cpu/NAME/ beside the portable one).

`load()` runs before the SWIG module is imported: it loads the best engine this CPU can
run, and the module, linked against the engine's soname, then binds to that one instead
of loading the portable file. PADDLE_CPU=baseline|avx2|avx512 forces a choice (tests
compare them); `paddle version` prints `chosen`.
"""
import ctypes
import importlib.util
import os

ENGINE = "libpaddle_engine.so"
# The /proc/cpuinfo flags each build's -march (setup.py CPU_VARIANTS) relies on; best first.
_AVX2 = {"avx", "avx2", "fma", "bmi1", "bmi2", "f16c", "movbe", "abm"}  # x86-64-v3
VARIANTS = {"avx512": _AVX2 | {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}, "avx2": _AVX2}
chosen = None  # "baseline", "avx2" or "avx512" once load() ran


def cpu_flags():
    """This CPU's feature flags (empty where /proc/cpuinfo is missing)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "flags":
                    return set(value.split())
    except OSError:
        pass
    return set()


def engine_dir():
    """Where the compiled module (and so the engines) lives: an in-place build or the installed copy."""
    spec = importlib.util.find_spec("py_paddle._swig_paddle")
    return os.path.dirname(spec.origin) if spec and spec.origin else os.path.dirname(os.path.abspath(__file__))


def built_variants(base):
    return [name for name in VARIANTS if os.path.exists(os.path.join(base, "cpu", name, ENGINE))]


def select(base, flags, forced=""):
    """The engine to run: PADDLE_CPU's (`forced`) or the best built one this CPU supports."""
    built = built_variants(base)
    if forced and forced != "baseline":
        if forced not in VARIANTS:
            raise ImportError("PADDLE_CPU=%s: choose baseline, %s" % (forced, " or ".join(VARIANTS)))
        if forced not in built:
            raise ImportError("PADDLE_CPU=%s: this build has no %s engine (built: %s)"
                              % (forced, forced, " ".join(["baseline"] + built)))
        missing = sorted(VARIANTS[forced] - flags)
        if missing:
            raise ImportError("PADDLE_CPU=%s: this CPU lacks %s" % (forced, " ".join(missing)))
        return forced
    if forced:
        return "baseline"
    return next((name for name in built if VARIANTS[name] <= flags), "baseline")


def load():
    global chosen
    if chosen is not None:
        return chosen
    base = engine_dir()
    name = select(base, cpu_flags(), os.environ.get("PADDLE_CPU", ""))
    if name != "baseline":
        ctypes.CDLL(os.path.join(base, "cpu", name, ENGINE), mode=ctypes.RTLD_GLOBAL)
    chosen = name
    return chosen
