"""Running a demo's commands with this tree's paddle (an in-place build when there is one)."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = ["-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())"]
TEST_ERROR = re.compile(r"\]  Test samples=(\d+) cost=\S+ Eval: classification_error_evaluator=(\S+)$", re.M)


def run(args, cwd, blas_threads=None):
    """Runs python ARGS in cwd; returns stdout + stderr (the command must succeed).
    blas_threads sets OPENBLAS_NUM_THREADS (one keeps GEMM-heavy nets from spinning
    threads against the other processes of a loaded machine)."""
    env = dict(os.environ)
    if blas_threads:
        env["OPENBLAS_NUM_THREADS"] = str(blas_threads)
    env.pop("PYTHONPATH", None)
    if any(n.startswith("_swig_paddle") for n in os.listdir(os.path.join(ROOT, "py_paddle"))):
        env["PYTHONPATH"] = ROOT  # in-place developer build
    p = subprocess.run([sys.executable] + args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stdout + p.stderr
