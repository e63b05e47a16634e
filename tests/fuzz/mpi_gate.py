"""Whether this machine can run MPI jobs (for the fault suite's MPI family)."""
import os
import shutil
import sys


def mpi_missing():
    """Why MPI jobs cannot run here, or '' when they can."""
    try:
        import mpi4py  # noqa: F401
        from py_paddle import swig_paddle
    except ImportError as e:
        return "needs mpi4py and the engine (%s)" % e
    if not swig_paddle.isMpiVersion():
        return "the engine was built without MPI"
    if not (shutil.which("mpiexec") or os.path.exists(os.path.join(os.path.dirname(sys.executable), "mpiexec"))):
        return "no mpiexec"
    return ""
