"""Runs fuzz cases in a worker process and classifies their outcomes.

Outcomes: ok, engine (a layer refused a damaged batch, naming itself, not the sample),
clean (an error the user can act on: a ConfigError with FILE:LINE, a
DataError naming the sample, an engine/I/O error), internal (an exception the project
did not mean to raise: a TypeError, KeyError, ... from the project's own code, which the
CLI can only print without a place; the "traceback" class), unlocated (a ConfigError
without FILE:LINE), silent (training "succeeded" with non-finite numbers or wrote
outside its directory), crash (the worker died on a signal or abort), hang (timeout).
"""
import glob
import json
import math
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
import traceback

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TOOLS)
BAD = ("internal", "unlocated", "silent", "crash", "hang")
# The error types the project raises on purpose (the CLI prints them as one line).
INTENDED = ("ConfigError", "DataError", "UsageError", "ValueError", "OSError", "RuntimeError",
            "FileNotFoundError", "IsADirectoryError", "NotADirectoryError", "PermissionError",
            "MemoryError", "OverflowError", "YAMLError")
WORKER_MEMORY = 3 << 30  # address-space cap: a huge mutated size fails to allocate instead of swapping


class Outcome(Exception):
    """Raised by a case to report a non-exception outcome (e.g. silent)."""

    def __init__(self, kind, detail):
        super().__init__(detail)
        self.kind = kind


def check_finite(trainer):
    """Raises a "silent" Outcome when a pass "trained" to a non-finite cost or parameter."""
    import numpy as np
    from py_paddle import swig_paddle as api
    cost = trainer.getPassCost()
    if not math.isfinite(cost):
        raise Outcome("silent", "trained with a non-finite cost %r" % cost)
    for p in trainer.getGradientMachine().getParameters():
        v = p.getBuf(api.PARAMETER_VALUE)
        if v is not None and not np.isfinite(v.copyToNumpyArray()).all():
            raise Outcome("silent", "parameter %s is non-finite after training" % p.getName())


def _project_frame(tb):
    """The innermost frame of the traceback, and whether it is in this project's code."""
    frames = traceback.extract_tb(tb)
    if not frames:
        return None, False
    last = frames[-1]
    packages = tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep
                     for m in (sys.modules.get("paddle"), sys.modules.get("py_paddle")) if m is not None)
    return last, os.path.abspath(last.filename).startswith(packages or (ROOT,))


def classify(exc, user_files=()):
    """(outcome, one-line detail) of an exception a case raised."""
    if isinstance(exc, Outcome):
        return exc.kind, str(exc)
    name = type(exc).__name__
    text = "%s: %s" % (name, str(exc).splitlines()[0] if str(exc) else "")
    frame, in_project = _project_frame(exc.__traceback__)
    where = "%s:%d" % (os.path.relpath(frame.filename, ROOT), frame.lineno) if frame else "?"
    if name == "ConfigError":
        return ("clean" if re.match(r"\S+:\d+: ", str(exc)) else "unlocated"), text
    if any(base.__name__ in INTENDED for base in type(exc).__mro__):
        return "clean", text
    if frame is not None and os.path.abspath(frame.filename) in user_files:
        return "clean", text  # the user's own code failed (a NameError in a damaged config)
    if isinstance(exc, RecursionError):
        return "internal", "%s at %s" % (text, where)
    return ("internal" if in_project or frame is None else "clean"), "%s at %s" % (text, where)


# --------------------------------------------------------------------------- worker side
def serve():
    """The worker's loop: one JSON case per stdin line, one JSON outcome per line on the
    original stdout (the engine's own prints go to stderr)."""
    import resource
    if "asan" not in os.environ.get("LD_PRELOAD", ""):  # ASan reserves terabytes of shadow memory
        resource.setrlimit(resource.RLIMIT_AS, (WORKER_MEMORY, WORKER_MEMORY))
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    sys.setrecursionlimit(3000)
    from fuzzlib import batches, configs, files, merged_models, mpi_ranks, swig_calls, tool_inputs
    handlers = {"config": configs.run_case, "probe": configs.probe, "batch": batches.run_case,
                "file": files.run_case, "swig": swig_calls.run_case, "tool": tool_inputs.run_case,
                "mpi": mpi_ranks.run_case, "merged": merged_models.run_case, "selftest": _selftest}
    for line in sys.stdin:
        case = json.loads(line)
        work = tempfile.mkdtemp(prefix="case-", dir=case["tmp"])
        try:
            result = handlers[case["campaign"]](case, work) or {}
            result.setdefault("outcome", "ok")
        except BaseException as e:  # noqa: B902 -- a case's every failure is data
            if isinstance(e, (KeyboardInterrupt, SystemExit)) and not case.get("user_exit_ok"):
                kind, detail = "internal", "%s raised" % type(e).__name__
            else:
                kind, detail = classify(e, {os.path.abspath(p) for p in case.get("user_files", ())})
            result = {"outcome": kind, "detail": detail[:400]}
        finally:
            subprocess.run(["rm", "-rf", work])
        proto.write(json.dumps(result) + "\n")
        proto.flush()


def _selftest(case, work):
    """Outcomes on demand, to test the classification (tests/fuzz)."""
    action = case["action"]
    if action == "kill":  # (not SIGSEGV: under tools/sanitize.sh ASan would report it)
        os.kill(os.getpid(), signal.SIGKILL)
    elif action == "abort":
        os.abort()
    elif action == "sleep":
        time.sleep(3600)
    elif action == "exit":
        os._exit(3)
    elif action == "raise":
        raise {"TypeError": TypeError, "ValueError": ValueError, "KeyError": KeyError}[case["type"]]("selftest")
    return {"outcome": "ok"}


# --------------------------------------------------------------------------- driver side
class Worker(object):
    """A persistent worker process; restarted after a crash or a hang."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.proc = None
        self.restarts = 0

    def _start(self):
        # Which engine the worker imports: as tests/conftest.py chooses it.
        if os.environ.get("PADDLE_ENGINE_DIR"):
            path = [os.environ["PADDLE_ENGINE_DIR"], ROOT]
        elif glob.glob(os.path.join(ROOT, "py_paddle", "_swig_paddle*.so")):
            path = [ROOT]
        else:
            path = []
        path += [TOOLS] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONPATH=os.pathsep.join(path))
        if "asan" not in env.get("LD_PRELOAD", ""):
            # glibc returns freed blocks above 64 KiB to the OS: a read after free faults (the SWIG family)
            env.setdefault("MALLOC_MMAP_THRESHOLD_", "65536")
        self.log = open(os.path.join(self.tmp, "worker-stderr.log"), "w+b")
        self.proc = subprocess.Popen([sys.executable, "-c", "from fuzzlib.runner import serve; serve()"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                     cwd=self.tmp, env=env)
        self.buf = b""

    def _stderr_tail(self):
        self.log.flush()
        self.log.seek(0)
        text = self.log.read()[-600:].decode("utf-8", "replace")
        return " | ".join(l for l in text.splitlines()[-4:] if l.strip())

    def stop(self):
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.log.close()
            self.proc = None

    def run(self, case, timeout):
        if self.proc is None:
            self._start()
        case = dict(case, tmp=self.tmp)
        try:
            self.proc.stdin.write((json.dumps(case) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        deadline = time.time() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.time()
            ready = select.select([fd], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                self.stop()
                self.restarts += 1
                return {"outcome": "hang", "detail": "no answer in %ss" % timeout}
            chunk = os.read(fd, 65536)
            if not chunk:
                code = self.proc.wait()
                tail = self._stderr_tail()
                self.stop()
                self.restarts += 1
                sig = -code if code < 0 else None
                what = ("signal %s" % signal.Signals(sig).name) if sig else "exit status %d" % code
                return {"outcome": "crash", "detail": "worker died (%s): %s" % (what, tail)}
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)
