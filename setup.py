"""Builds the C++ engine and its SWIG module py_paddle._swig_paddle.

When nvcc and cuBLAS are found and WITH_CUDA is not "0", the CUDA kernels (*.cu)
and the engine's .cpp sources (whose PD_HD loop bodies double as kernels) are
compiled with nvcc; otherwise the engine is CPU-only and GPU entry points raise
"built without CUDA". Environment knobs:
  WITH_CUDA=0|1      force CUDA off / require it
  PADDLE_MARCH=...   the -march of the one engine (e.g. native); by default on x86-64 the best
                     x86-64 level this machine runs (x86-64-v4 with AVX-512, v3 with AVX2, else v2)
  PADDLE_PORTABLE=1  for wheels that ship to other machines: a portable engine (x86-64-v2) plus one
                     per PADDLE_CPU_VARIANTS, of which py_paddle/cpu_dispatch.py loads the best this
                     CPU runs (PADDLE_CPU forces one); three engines, so three times the build
  PADDLE_CPU_VARIANTS=avx2,avx512  the portable build's extra engines (default both; none in CUDA
                     builds, where each would be a whole nvcc pass more)
  PADDLE_BUILD_JOBS=N  parallel compiler processes (default: the cores)
  CUBLAS_HOME=DIR    a directory with include/cublas_v2.h and lib/libcublas.so.*
  WITH_NCCL=0|1      CUDA builds: force NCCL off / require it (default: on when nccl.h and libnccl are
                     found: NCCL_HOME, the nvidia-nccl-cu13 wheel, the CUDA toolkit or the system; only
                     trainer/GpuCollective.cpp sees nccl.h). Without it --use_gpu=1 --trainer_count > 1
                     says "built without NCCL"
  WITH_MPI=0|1       force MPI off / require it (default: on when mpicxx is found, e.g. from
                     `pip install mpich`; only MPI_SOURCES, the distributed strategies, see mpi.h,
                     and a build without MPI leaves them out)
  PADDLE_FAKE_GPU=1  tests only: a CPU build whose GPU paths run on a stand-in GPU that
                     traps host access to device memory (engine/FakeGpu.cpp)
  PADDLE_SANITIZE=1  tests only: a CPU build with AddressSanitizer and UBSan (tools/sanitize.sh);
                     build it into a directory of its own (--build-temp/--build-lib)
"""
import functools
import glob
import importlib.metadata
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import nlohmann_json
import scipy_openblas32 as openblas
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext as _build_ext
from setuptools.command.build_py import build_py as _build_py

ROOT = os.path.dirname(os.path.abspath(__file__))
VERSION = "0.1.0"
ENGINE_SOURCES = sorted(
    glob.glob("engine/*.cpp") + glob.glob("engine/math/*.cpp") + glob.glob("layers/*.cpp") + glob.glob("trainer/*.cpp")
) + ["swig/PaddleAPI.cpp", "swig/PaddleAPITraining.cpp"]
CUDA_SOURCES = sorted(glob.glob("engine/*.cu") + glob.glob("engine/math/*.cu") + glob.glob("layers/*.cu")
                      + glob.glob("trainer/*.cu"))
CUDA_ARCHS = ["80", "90"]
ENGINE_LIB = "paddle_engine"  # py_paddle/libpaddle_engine.so: the engine without Python
FAKE_GPU = os.environ.get("PADDLE_FAKE_GPU") == "1"
# The engine sources of the distributed strategies (trainer/MpiSync.h; those that include mpi.h
# among them), built only with MPI: a build without it has the single-process GradientSync alone.
MPI_SOURCES = ("trainer/AllReduceSync.cpp", "trainer/Collective.cpp", "trainer/DgcSync.cpp",
               "trainer/LocalSgdSync.cpp", "trainer/MpiSync.cpp", "trainer/ShardedTables.cpp")
NCCL_SOURCES = ("trainer/GpuCollective.cpp",)  # the engine source that includes nccl.h
# The GPU replicas of --use_gpu=1 --trainer_count > 1 (trainer/Replicas.h), built only with CUDA
# (the stand-in GPU included): a CPU build has the CPU replicas alone.
GPU_SOURCES = ("trainer/GpuCollective.cpp", "trainer/GpuReplicas.cpp")
HOST_ONLY_SOURCES = ("engine/math/GemmBf16.cpp", "engine/math/GemmPacked.cpp")  # CPU intrinsics nvcc's front end need not parse
SANITIZE = os.environ.get("PADDLE_SANITIZE") == "1"
SANITIZE_FLAGS = ["-fsanitize=address,undefined", "-fsanitize=float-cast-overflow", "-fno-omit-frame-pointer"]


def find_nvcc():
    for cand in (os.environ.get("NVCC"), shutil.which("nvcc"),
                 os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")):
        if cand and os.path.exists(cand):
            return cand
    return None


def find_installed(prefixes, header, library, libdirs=("lib", "lib64")):
    """(include dir, lib dir, library file) under the first prefix that has include/HEADER and
    LIBDIR/LIBRARY.so*, or None."""
    for base in filter(None, prefixes):
        inc = os.path.join(base, "include")
        if not os.path.exists(os.path.join(inc, header)):
            continue
        for libdir in libdirs:
            libs = sorted(glob.glob(os.path.join(base, libdir, library + ".so*")))
            if libs:
                return inc, os.path.join(base, libdir), os.path.basename(libs[-1])
    return None


def find_cublas():
    """Returns (include_dir, lib_dir, soname) of cuBLAS, or None."""
    candidates = [os.environ.get("CUBLAS_HOME")]
    try:
        import nvidia
        candidates += [os.path.join(p, "cu13") for p in nvidia.__path__]
        candidates += [os.path.join(p, "cublas") for p in nvidia.__path__]
    except ImportError:
        pass
    candidates.append(os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    return find_installed(candidates, "cublas_v2.h", "libcublas")


def cuda_config():
    wanted = os.environ.get("WITH_CUDA", "auto")
    if wanted == "0":
        return None
    nvcc, cublas = find_nvcc(), find_cublas()
    if not (nvcc and cublas):
        if wanted == "1":
            sys.exit("WITH_CUDA=1 but nvcc=%s cublas=%s" % (nvcc, cublas))
        print("paddle build: CUDA disabled (nvcc=%s, cuBLAS=%s)" % (nvcc, cublas and cublas[1]))
        return None
    print("paddle build: CUDA enabled (nvcc=%s, cuBLAS in %s)" % (nvcc, cublas[1]))
    return nvcc, cublas


def find_nccl():
    """(include dir, lib dir, library file) of NCCL, or None: NCCL_HOME, the nvidia-nccl-cu13 wheel
    (nvidia/nccl/), the CUDA toolkit, then the system's (Debian's libnccl-dev)."""
    candidates = [os.environ.get("NCCL_HOME")]
    try:
        import nvidia
        candidates += [os.path.join(p, "nccl") for p in nvidia.__path__]
    except ImportError:
        pass
    candidates += [os.environ.get("CUDA_HOME", "/usr/local/cuda"), "/usr/local", "/usr"]
    return find_installed(candidates, "nccl.h", "libnccl",
                          ("lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"))


def nccl_config():
    """NCCL for a CUDA build (multi-GPU --trainer_count), or None."""
    wanted = os.environ.get("WITH_NCCL", "auto")
    nccl = None if wanted == "0" else find_nccl()
    if wanted == "1" and not nccl:
        sys.exit("WITH_NCCL=1 but no NCCL was found (pip install nvidia-nccl-cu13, or set NCCL_HOME)")
    print("paddle build: %s" % ("NCCL in " + nccl[1] if nccl else "without NCCL (one GPU per process)"))
    return nccl


def mpi_config():
    """(include dir, lib dir) of the MPI whose mpicxx is on PATH or beside this Python (the
    mpich wheel installs it in the environment's bin/), or None for a build without MPI."""
    wanted = os.environ.get("WITH_MPI", "auto")
    if wanted == "0":
        return None
    beside = os.path.join(os.path.dirname(sys.executable), "mpicxx")
    mpicxx = shutil.which("mpicxx") or (beside if os.path.exists(beside) else None)
    if mpicxx:
        base = os.path.dirname(os.path.dirname(os.path.realpath(mpicxx)))
        inc, lib = os.path.join(base, "include"), os.path.join(base, "lib")
        if os.path.exists(os.path.join(inc, "mpi.h")) and glob.glob(os.path.join(lib, "libmpi.so*")):
            return inc, lib
    if wanted == "1":
        sys.exit("WITH_MPI=1 but no MPI was found (pip install mpich, or put mpicxx on PATH)")
    return None


X86 = platform.machine().lower() in ("x86_64", "amd64")
BASELINE_MARCH = "x86-64-v2"  # SSE4.2 and POPCNT: every x86-64 CPU of the last fifteen years
CPU_VARIANTS = {"avx2": "x86-64-v3", "avx512": "x86-64-v4"}  # py_paddle/cpu/NAME/, see cpu_dispatch.py
PORTABLE = os.environ.get("PADDLE_PORTABLE") == "1"


@functools.lru_cache(maxsize=None)
def this_machines_march():
    """The best x86-64 level this CPU runs: the -march of the dispatched engine a portable build
    would load here, so both builds compute the same bits."""
    spec = importlib.util.spec_from_file_location("cpu_dispatch", os.path.join(ROOT, "py_paddle", "cpu_dispatch.py"))
    dispatch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dispatch)
    flags = dispatch.cpu_flags()
    return next((CPU_VARIANTS[name] for name, needs in dispatch.VARIANTS.items() if needs <= flags), BASELINE_MARCH)


def cpu_variants(cuda):
    """{name: -march} of the extra engines a portable build puts beside its baseline one."""
    if not PORTABLE or "PADDLE_MARCH" in os.environ or SANITIZE or FAKE_GPU or not X86:
        return {}
    names = [n for n in os.environ.get("PADDLE_CPU_VARIANTS", "" if cuda else "avx2,avx512").split(",") if n]
    unknown = sorted(set(names) - set(CPU_VARIANTS))
    if unknown:
        sys.exit("PADDLE_CPU_VARIANTS: unknown %s (known: %s)" % (", ".join(unknown), ", ".join(CPU_VARIANTS)))
    return {n: CPU_VARIANTS[n] for n in names}


def remove_stale_variants(package_dir, keep):
    """An engine of an earlier build that this one did not rebuild would be loaded in place of it."""
    for path in glob.glob(os.path.join(package_dir, "cpu", "*")):
        if os.path.relpath(path, package_dir) not in keep:
            shutil.rmtree(path)


def default_march():
    """The main engine's -march: PADDLE_MARCH's; the tests' own builds (sanitizer, stand-in GPU)
    and other CPUs: native."""
    if "PADDLE_MARCH" in os.environ:
        return os.environ["PADDLE_MARCH"]
    if X86 and not (SANITIZE or FAKE_GPU):
        return BASELINE_MARCH if PORTABLE else this_machines_march()
    return "native"


def compile_flags(march=None):
    march = march or default_march()
    # -fno-trapping-math: nothing reads the FP exception flags, and GCC vectorises the
    # clamped exp/tanh of ActivationFunctors.h only without them. -g0 overrides Python's own
    # CFLAGS (-g): debug info tripled the engine's size and its build time.
    flags = ["-std=c++17", "-O3", "-g0", "-fno-math-errno", "-fno-trapping-math", "-Wall", "-Wno-sign-compare"]
    if march:
        flags.append("-march=" + march)
    if SANITIZE:  # -O1 -g: readable reports at a bearable speed
        flags = [f for f in flags if f not in ("-O3", "-g0")] + ["-O1", "-g"] + SANITIZE_FLAGS
    return flags


# nvcc flags shared by the .cu kernels and, in CUDA builds, the engine's .cpp
# sources (their PD_HD lambdas become kernels; see engine/math/Kernel.h).
# Per-thread default streams give every trainer thread its own CUDA stream.
NVCC_FLAGS = ["-std=c++17", "-O3", "-DWITH_CUDA=1", "--extended-lambda", "--expt-relaxed-constexpr",
              "--default-stream", "per-thread", "-Werror", "cross-execution-space-call"]


def progress(message):
    """One line per build step, at once (`pip install -v .` shows them)."""
    print("paddle build: " + message, flush=True)


class build_ext(_build_ext):
    """Compiles sources in parallel (2-core CI), each only when it is out of date
    (see ObjectCache); with CUDA, the engine with nvcc."""

    def build_extension(self, ext):
        cuda = None if FAKE_GPU or SANITIZE else cuda_config()
        if FAKE_GPU:  # tests only: GPU code paths on a stand-in GPU (engine/FakeGpu.cpp)
            ext.define_macros += [("WITH_CUDA", "1"), ("PADDLE_FAKE_GPU", "1")]
        cache = ObjectCache(self.build_temp)
        sources = [self.run_swig(src, ext, cache) if src.endswith(".i") else src for src in ext.sources]
        macros = ext.define_macros + [(m,) for m in ext.undef_macros]
        gpu_sources, nccl = [], None
        mpi = mpi_config()
        print("paddle build: %s" % ("MPI from " + mpi[1] if mpi else "without MPI"))
        if not mpi:
            sources = [s for s in sources if s not in MPI_SOURCES]
        if not (cuda or FAKE_GPU):
            sources = [s for s in sources if s not in GPU_SOURCES]
        if mpi:
            # $ORIGIN/../../..: site-packages/py_paddle -> the environment's lib/, where the mpich wheel
            # puts libmpi; the build-time lib dir serves in-place builds.
            ext.extra_link_args += ["-L" + mpi[1], "-lmpi", "-Wl,-rpath,$ORIGIN/../../..", "-Wl,-rpath," + mpi[1]]
        if cuda:
            nvcc, (cu_inc, cu_lib, soname) = cuda
            gpu_sources = CUDA_SOURCES + [s for s in sources if s.startswith(("engine/", "layers/", "trainer/"))
                                          and s not in MPI_SOURCES + HOST_ONLY_SOURCES]
            sources = [s for s in sources if s not in gpu_sources]
            ext.define_macros.append(("WITH_CUDA", "1"))
            macros.append(("WITH_CUDA", "1"))
            cudart = self.static_cudart_dir(nvcc)
            ext.extra_link_args += ["-L" + cu_lib, "-l:" + soname, "-lcudart_static" if cudart else "-lcudart",
                                    "-Wl,-rpath," + cu_lib, "-Wl,-rpath,$ORIGIN/../nvidia/cu13/lib"]
            ext.library_dirs.append(cudart or os.path.join(os.path.dirname(os.path.dirname(nvcc)), "lib64"))
            nccl = nccl_config()
            if nccl:  # $ORIGIN/../nvidia/nccl/lib: the nvidia-nccl-cu13 wheel beside an installed py_paddle
                ext.extra_link_args += ["-L" + nccl[1], "-l:" + nccl[2], "-Wl,-rpath," + nccl[1],
                                        "-Wl,-rpath,$ORIGIN/../nvidia/nccl/lib"]

        def compile_one(src, march=None, temp=self.build_temp):
            if src in gpu_sources:
                extra = ["-DWITH_NCCL=1", "-isystem", nccl[0]] if nccl and src in NCCL_SOURCES else []
                return self.compile_cuda(nvcc, cu_inc, src, ext, cache, march, temp, extra)
            obj = self.compiler.object_filenames([src], output_dir=temp)[0]
            src_macros, includes = macros, ext.include_dirs
            if mpi and src in MPI_SOURCES:
                src_macros, includes = macros + [("PADDLE_WITH_MPI", "1")], includes + [mpi[0]]
            flags = compile_flags(march)
            signature = self.compiler.compiler_so + [str(m) for m in src_macros] + includes + flags
            if cache.stale(obj, signature):
                started = time.time()
                self.compiler.compile([src], output_dir=temp, macros=src_macros, include_dirs=includes,
                                      extra_postargs=flags + ["-MMD", "-MF", cache.depfile(obj)])
                cache.record(obj, signature)
                progress("compiled %s (%.0f s)" % (src, time.time() - started))
            return obj

        jobs = int(os.environ.get("PADDLE_BUILD_JOBS", os.cpu_count() or 1))
        progress("%d sources, %d at a time, -march=%s (only those out of date recompile)"
                 % (len(sources + gpu_sources), jobs, default_march()))
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            objects = list(pool.map(compile_one, sources + gpu_sources))
        print("paddle build: %d of %d objects compiled" % (len([o for o in cache.compiled if o in objects]), len(objects)))
        # The engine is its own shared library (no Python in it: Java and C++ programs
        # link it too); the Python module is the SWIG wrapper linked against it.
        wrapper = [o for o, s in zip(objects, sources + gpu_sources) if s.endswith("_wrap.cpp")]
        engine_objects = [o for o in objects if o not in wrapper]
        out_dir = os.path.dirname(self.get_ext_fullpath(ext.name))
        self.link_engine(engine_objects, out_dir, ext, cache)
        # The same engine for newer instruction sets, in cpu/NAME/ (same soname: py_paddle/cpu_dispatch.py
        # loads the one this CPU runs before the module, which then links against it).
        engine_sources = [s for s in sources + gpu_sources if not s.endswith("_wrap.cpp")]
        self.variant_dirs = [os.path.join("cpu", name) for name in cpu_variants(cuda)]
        remove_stale_variants(out_dir, self.variant_dirs)
        for name, march in cpu_variants(cuda).items():
            started = time.time()
            temp = os.path.join(self.build_temp, "cpu-" + name)
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                variant = list(pool.map(lambda src: compile_one(src, march, temp), engine_sources))
            self.link_engine(variant, os.path.join(out_dir, "cpu", name), ext, cache, depth=2)
            progress("the %s engine (-march=%s) in %.0f s" % (name, march, time.time() - started))
        # distutils only links, and only when an object is newer than the module.
        ext.extra_objects += wrapper
        ext.depends = objects
        ext.sources = []
        ext.libraries, ext.library_dirs = [], []
        ext.extra_link_args = ["-L" + out_dir, "-l" + ENGINE_LIB, "-Wl,-rpath,$ORIGIN"] + (SANITIZE_FLAGS if SANITIZE else [])
        ext.runtime_library_dirs = []
        module = self.get_ext_fullpath(ext.name)
        link = self.compiler.linker_so + ext.extra_link_args
        if cache.stale(module, link) and os.path.exists(module):
            os.remove(module)  # its link command changed: distutils only compares times
        super().build_extension(ext)
        if not os.path.exists(cache.depfile(module)):
            with open(cache.depfile(module), "w") as f:
                f.write(module + ":\n")
        cache.record(module, link)

    def copy_extensions_to_source(self):
        """--inplace: the engine library goes beside the module too."""
        super().copy_extensions_to_source()
        for ext in self.extensions:
            package = os.path.join(*ext.name.split(".")[:-1])
            name = "lib%s.so" % ENGINE_LIB
            remove_stale_variants(package, self.variant_dirs)
            for sub in [""] + self.variant_dirs:
                os.makedirs(os.path.join(package, sub), exist_ok=True)
                self.copy_file(os.path.join(self.build_lib, package, sub, name), os.path.join(package, sub, name),
                               level=self.verbose)

    def link_engine(self, objects, out_dir, ext, cache, depth=0):
        """lib<ENGINE_LIB>.so from the engine's objects, when one is newer or the command changed;
        `depth` directories below the module (its $ORIGIN-relative run paths follow)."""
        target = os.path.join(out_dir, "lib%s.so" % ENGINE_LIB)
        args = (["-L" + d for d in ext.library_dirs] + ["-l" + lib for lib in ext.libraries]
                + ["-Wl,-rpath," + d for d in ext.runtime_library_dirs] + ext.extra_link_args
                + ["-Wl,-soname,lib%s.so" % ENGINE_LIB])
        args = [a.replace("$ORIGIN", "$ORIGIN" + "/.." * depth) for a in args]
        signature = self.compiler.linker_so + args
        newest = max(os.path.getmtime(o) for o in objects)
        if cache.stale(target, signature) or os.path.getmtime(target) < newest:
            os.makedirs(out_dir, exist_ok=True)
            if os.path.exists(target):
                os.remove(target)  # distutils skips a link whose output is newer than its objects
            self.compiler.link_shared_object(objects, target, extra_postargs=args, target_lang="c++")
            with open(cache.depfile(target), "w") as f:
                f.write(target + ":\n")
            cache.record(target, signature)

    def run_swig(self, interface, ext, cache):
        """SWIG writes the C++ wrapper and py_paddle/swig_paddle.py, when out of date."""
        wrapper = os.path.splitext(interface)[0] + "_wrap.cpp"
        cmd = [self.swig or "swig", "-python"] + ext.swig_opts
        if cache.stale(wrapper, cmd) or not os.path.exists("py_paddle/swig_paddle.py"):
            self.spawn(cmd + ["-MMD", "-MF", cache.depfile(wrapper), "-o", wrapper, interface])
            cache.record(wrapper, cmd)
        return wrapper

    @staticmethod
    def static_cudart_dir(nvcc):
        """The lib64 with libcudart_static.a: the toolkit's beside nvcc, else /usr/local/cuda's (an
        nvcc on PATH may be a wrapper script), or None."""
        for lib in (os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))), "lib64"),
                    "/usr/local/cuda/lib64"):
            if os.path.exists(os.path.join(lib, "libcudart_static.a")):
                return lib
        return None

    def compile_cuda(self, nvcc, cublas_inc, src, ext, cache, march=None, temp=None, extra=()):
        """One source through nvcc (a .cpp as CUDA C++), when out of date; `extra`: its own flags."""
        temp = temp or self.build_temp
        obj = os.path.join(temp, src.replace("/", "_") + ".o")
        gencode = []
        for arch in CUDA_ARCHS:
            gencode += ["-gencode", "arch=compute_%s,code=sm_%s" % (arch, arch)]
        gencode += ["-gencode", "arch=compute_%s,code=compute_%s" % (CUDA_ARCHS[-1], CUDA_ARCHS[-1])]
        host = ",".join(f for f in compile_flags(march) if f.startswith(("-O", "-march", "-fno-math", "-fno-trapping")))
        cmd = ([nvcc] + NVCC_FLAGS + ["-Xcompiler", "-fPIC," + host, "-isystem", cublas_inc]
               + ["-I" + d for d in ext.include_dirs] + ["-D%s=%s" % m for m in ext.define_macros if len(m) == 2]
               + list(extra)
               + (["-x", "cu"] if src.endswith(".cpp") else []) + ["-c", src, "-o", obj] + gencode)
        if cache.stale(obj, cmd):
            os.makedirs(temp, exist_ok=True)
            print(" ".join(cmd))
            subprocess.check_call(cmd + ["-MD", "-MF", cache.depfile(obj)])
            cache.record(obj, cmd)
        return obj


# The build requirements whose headers the engine includes: their versions, not the paths or
# times of pip's fresh build environment, decide whether an object is out of date.
BUILD_PACKAGES = ("scipy-openblas32", "nlohmann-json", "mpich", "swig")


def environment_roots():
    """The Python environments the build requirements live in (pip's temporary one, or a venv)."""
    roots = {path.split(os.sep + "lib" + os.sep + "python")[0]
             for path in (openblas.get_include_dir(), str(nlohmann_json.get_include()))}
    mpi = mpi_config()
    if mpi:
        roots.add(os.path.dirname(mpi[0]))
    return sorted(roots, key=len, reverse=True)


def installed_version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "none"


class ObjectCache:
    """Decides whether a build output is out of date, as make would: it is when the
    command that made it changed, or when it is older than one of the project's files
    the compiler said it read (its -MMD dependency file). pip builds in a fresh
    temporary environment each time: paths inside one are compared from the
    environment on, and the packages' versions stand for their files' times."""

    def __init__(self, build_temp):
        self.build_temp = build_temp
        self.compiled = []  # outputs rebuilt in this run (list.append is thread-safe)
        self.roots = environment_roots()
        self.versions = ["python=" + sys.version] + ["%s=%s" % (name, installed_version(name))
                                                     for name in BUILD_PACKAGES]

    def _meta(self, output):
        """Where an output's dependency list and command stamp live: beside it, or, for
        a file generated into the source tree (the SWIG wrapper), under build_temp."""
        path = os.path.abspath(output)
        if not path.startswith(os.path.abspath(self.build_temp) + os.sep):
            path = os.path.join(os.path.abspath(self.build_temp), os.path.relpath(path, ROOT))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return path

    def depfile(self, output):
        return self._meta(output) + ".d"

    def _in_environment(self, path):
        """A file of a build requirement: in this build's environment or in an earlier build's
        (pip's temporary ones are gone by now)."""
        return any(part in path for part in self.roots + ["site-packages", "pip-build-env-"])

    def _stable(self, words):
        for root in self.roots:
            words = [w.replace(root, "<env>") for w in words]
        return words + self.versions

    def stale(self, output, command):
        stamp = self._meta(output) + ".cmd"
        if not (os.path.exists(output) and os.path.exists(stamp) and os.path.exists(self.depfile(output))):
            return True
        with open(stamp) as f:
            if f.read() != repr(self._stable(command)):
                return True
        built = os.path.getmtime(output)
        for dep in self._dependencies(self.depfile(output)):
            if self._in_environment(dep):
                continue  # a package's header (OpenBLAS, JSON, MPI, SWIG): its version is in the signature
            if not os.path.exists(dep) or os.path.getmtime(dep) > built:
                return True  # changed, or a header was removed or renamed
        return False

    def record(self, output, command):
        with open(self._meta(output) + ".cmd", "w") as f:
            f.write(repr(self._stable(command)))
        self.compiled.append(output)

    @staticmethod
    def _dependencies(depfile):
        with open(depfile) as f:
            text = f.read().replace("\\\n", " ")
        deps = []
        for line in text.splitlines():
            if ":" in line:
                deps += line.split(":", 1)[1].split()
        return deps


# What other languages need to use the installed engine (`paddle build_java`, C++
# programs): the API header, the exception types and the Java SWIG interface. They keep their
# paths under py_paddle/include, as their root-relative #include lines name them.
API_FILES = ["swig/PaddleAPI.h", "engine/Errors.h", "swig/paddle_common.i", "swig/paddle_java.i"]


class build_py(_build_py):
    # SWIG writes py_paddle/swig_paddle.py during build_ext: run it first.
    def run(self):
        self.run_command("build_ext")
        super().run()
        include = os.path.join(self.build_lib, "py_paddle", "include")
        for path in API_FILES:
            self.mkpath(os.path.join(include, os.path.dirname(path)))
            self.copy_file(path, os.path.join(include, path))


engine = Extension(
    "py_paddle._swig_paddle",
    sources=["swig/paddle.i"] + ENGINE_SOURCES,
    swig_opts=["-c++", "-threads", "-outdir", "py_paddle", "-I."],  # %include lines are root-relative
    include_dirs=[ROOT, openblas.get_include_dir(), str(nlohmann_json.get_include())],
    library_dirs=[openblas.get_lib_dir()],
    libraries=[openblas.get_library()],
    runtime_library_dirs=["$ORIGIN/../scipy_openblas32/lib"],
    define_macros=[("PADDLE_VERSION", '"%s"' % VERSION)],
    extra_compile_args=compile_flags(),  # the module's; build_ext picks each engine object's
    extra_link_args=SANITIZE_FLAGS if SANITIZE else [],
    # Headers, for source distributions; rebuilds follow the compiler's own dependency lists.
    depends=glob.glob("engine/**/*.h", recursive=True) + glob.glob("layers/*.h") + glob.glob("trainer/*.h")
    + ["swig/PaddleAPI.h", "engine/ConfigSchema.inc"] + API_FILES + glob.glob("swig/docstrings*.i") + glob.glob("swig/python_*.i"),
    language="c++",
)

setup(ext_modules=[engine], cmdclass={"build_ext": build_ext, "build_py": build_py})
