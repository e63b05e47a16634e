"""`mpiexec -n 2 paddle train`: two ranks train what one process with --trainer_count=2
trains (dense and sparse_update parameters), every rank holds the same parameters after
every pass, and a rank that fails or dies ends the job quickly with a loadable last pass."""
import glob
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from paddle.trainer import distributed

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MNIST = os.path.join(ROOT, "demos", "mnist")
MPIEXEC = shutil.which("mpiexec") or os.path.join(os.path.dirname(sys.executable), "mpiexec")


def _mpi_ready():
    try:
        import mpi4py  # noqa: F401
        from py_paddle import swig_paddle
    except ImportError as e:
        return "needs mpi4py and the engine (%s)" % e
    if not swig_paddle.isMpiVersion():
        return "the engine was built without MPI (pip install mpich mpi4py, then rebuild)"
    if not os.path.exists(MPIEXEC):
        return "no mpiexec (pip install mpich)"
    return None


needs_mpi = pytest.mark.skipif(_mpi_ready() is not None, reason=str(_mpi_ready()))


def _env(save_dir):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", SAVE_DIR=str(save_dir))
    for var in ("PMI_SIZE", "PMI_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE"):
        env.pop(var, None)
    in_place = glob.glob(os.path.join(ROOT, "py_paddle", "_swig_paddle*"))  # a developer build: test it
    engine = os.environ.get("PADDLE_ENGINE_DIR")  # another build (tests/conftest.py), e.g. tools/sanitize.sh's
    env["PYTHONPATH"] = os.pathsep.join(([engine, ROOT] if engine else [ROOT] if in_place else []) + [HERE])
    return env


def _command(ranks, args):
    script = [sys.executable, os.path.join(HERE, "every_rank_saves.py"), "train"] + args
    return ([MPIEXEC, "-n", str(ranks)] if ranks > 1 else []) + script


def train(ranks, args, cwd, save_dir, timeout=300):
    """Runs `paddle train` (under mpiexec for ranks > 1); each rank saves into save_dir/rank-R."""
    p = subprocess.run(_command(ranks, args), cwd=cwd, env=_env(save_dir), capture_output=True, text=True,
                       timeout=timeout)
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stderr


def parameters(pass_dir):
    out = {}
    for path in sorted(glob.glob(os.path.join(pass_dir, "*"))):
        name = os.path.basename(path)
        if os.path.isfile(path) and name not in ("done", "path.txt", "metrics.json") and not name.endswith(".py"):
            out[name] = np.fromfile(path, dtype=np.float32)[4:]  # after the 16-byte header
    return out


def assert_same_parameters(a, b, exact):
    assert sorted(a) == sorted(b) and a
    for name in a:
        if exact:
            assert a[name].tobytes() == b[name].tobytes(), name
        else:
            # summation orders differ (ranks x threads vs threads): rounding, amplified a little by the
            # optimizer over a pass
            np.testing.assert_allclose(a[name], b[name], rtol=1e-5, atol=1e-5, err_msg=name)


def pass_numbers(log):
    """Every number of the log's Pass= lines (samples, costs, evaluators; not the timings)."""
    lines = [line.split("]", 1)[1].split(" time=")[0] for line in log.splitlines() if " Pass=" in line]
    assert lines, log[-2000:]
    return [float(w.split("=")[1]) for line in lines for w in line.split() if "=" in w and w.split("=")[1]]


def compare_with_threads(tmp_path, config, cwd, passes, extra=(), threads=2):
    common = ["--config=" + config, "--num_passes=%d" % passes, "--seed=7", "--dot_period=0",
              "--log_period=5"] + list(extra)
    ranks_log = train(2, common, cwd, tmp_path / "ranks")
    threads_log = train(1, common + ["--trainer_count=%d" % threads], cwd, tmp_path / "threads")
    # rank 0 logs the cost and evaluators of the whole batches, as the one process does
    assert pass_numbers(ranks_log) == pytest.approx(pass_numbers(threads_log), rel=1e-5)
    for p in range(passes):
        pass_dir = "pass-%05d" % p
        rank0 = parameters(tmp_path / "ranks" / "rank-0" / pass_dir)
        # (2) both ranks hold the very same bits after every pass
        assert_same_parameters(rank0, parameters(tmp_path / "ranks" / "rank-1" / pass_dir), exact=True)
        # (1) two ranks train what two threads of one process train
        assert_same_parameters(rank0, parameters(tmp_path / "threads" / "rank-0" / pass_dir), exact=False)
    return ranks_log


@needs_mpi
def test_mlp_on_two_ranks_equals_two_threads(tmp_path):
    log = compare_with_threads(tmp_path, "mlp.py", MNIST, passes=2)
    # rank 0 alone logs, with the samples and costs of both ranks
    passes = [line for line in log.splitlines() if " Pass=" in line]
    assert len(passes) == 2 and all("samples=1437 " in line for line in passes), log[-2000:]
    assert log.count(" Test samples=360 ") == 2


@needs_mpi
def test_threads_inside_ranks_compose(tmp_path):
    """2 ranks x 2 threads train what 4 threads do (the batch splits coincide here)."""
    compare_with_threads(tmp_path, "mlp.py", MNIST, passes=1, extra=["--trainer_count=2"], threads=4)


@needs_mpi
def test_lstm_text_on_two_ranks_equals_two_threads(tmp_path):
    compare_with_threads(tmp_path, "lstm_text.py", HERE, passes=2)


@needs_mpi
def test_sparse_update_embedding_on_two_ranks_equals_one_process(tmp_path):
    """Only touched rows travel and are updated, their lazy L2 decay caught up first: as in
    one single-threaded process (--trainer_count replicas do not catch up the rows they read)."""
    # rank 0 also tests every 5 batches: testing catches the lazy decay up, on every rank alike
    compare_with_threads(tmp_path, "lstm_text.py", HERE, passes=2, extra=["--config_args=sparse=1",
                                                                         "--test_period=5"], threads=1)


@needs_mpi
def test_each_rank_reads_its_own_files_with_data_sharding_files(tmp_path):
    """3 files on 2 ranks: rank 0 reads a and c (24 batches of 8), rank 1 reads b (12), then
    trains on empty batches until rank 0 is done; the log counts every rank's samples."""
    (tmp_path / "train.list").write_text("a\nb\nc\n")
    log = train(2, ["--config=" + os.path.join(HERE, "lstm_text.py"), "--num_passes=2", "--seed=7",
                    "--dot_period=0", "--data_sharding=files"], str(tmp_path), tmp_path / "out")
    passes = [line for line in log.splitlines() if " Pass=" in line]
    assert len(passes) == 2 and all(" Batch=24 samples=288 " in line for line in passes), log[-2000:]
    for p in ("pass-00000", "pass-00001"):
        assert_same_parameters(parameters(tmp_path / "out" / "rank-0" / p), parameters(tmp_path / "out" / "rank-1" / p),
                               exact=True)


@needs_mpi
def test_an_error_on_one_rank_ends_every_rank_naming_it(tmp_path):
    conf = tmp_path / "failing.py"
    conf.write_text(open(os.path.join(HERE, "lstm_text.py")).read().replace("'seq_provider'", "'failing_provider'"))
    (tmp_path / "failing_provider.py").write_text(
        "import os\nfrom seq_provider import *\n"
        "@provider(input_types={'words': integer_value_sequence(50), 'label': integer_value(2)})\n"
        "def process(settings, filename):\n"
        "    if os.environ.get('PMI_RANK') == '1':\n"
        "        raise IOError('disk gone on this rank')\n"
        "    yield [1, 2], 0\n")
    shutil.copy(os.path.join(HERE, "train.list"), tmp_path)
    start = time.time()
    p = subprocess.run(_command(2, ["--config=" + str(conf), "--num_passes=3"]), cwd=str(tmp_path),
                       env=_env(tmp_path / "out"), capture_output=True, text=True, timeout=120)
    assert p.returncode != 0
    assert "rank 1 of 2 failed" in p.stderr and "disk gone on this rank" in p.stderr, p.stderr[-2000:]
    assert time.time() - start < 60


@needs_mpi
def test_killing_a_rank_mid_pass_ends_the_job_and_leaves_a_loadable_pass(tmp_path):
    last = kill_rank_1_mid_pass(tmp_path, MNIST, ["--config=mlp.py", "--num_passes=200", "--seed=7", "--dot_period=0",
                                                  "--log_period=0"])
    code = subprocess.run([sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())",
                           "train", "--config=mlp.py", "--job=test", "--init_model_path=" + last],
                          cwd=MNIST, env=_env(tmp_path), capture_output=True, text=True, timeout=120)
    assert code.returncode == 0 and " samples=360 " in code.stderr, code.stderr[-2000:]


def kill_rank_1_mid_pass(tmp_path, cwd, args):
    """Kills rank 1 of a 2-rank job once pass 1 is saved: the job must end within 30 s naming
    it, and every pass directory rank 0 left must be complete. Returns the last one."""
    out = tmp_path / "out"
    job = subprocess.Popen(_command(2, args), cwd=cwd, env=_env(out), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.time() + 120
        while not glob.glob(str(out / "rank-1" / "pass-00001" / "done")):
            assert job.poll() is None and time.time() < deadline, "training did not reach pass 1"
            time.sleep(0.2)
        plain = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}  # (pgrep hangs with tools/sanitize.sh's ASan)
        worker = [int(line.split()[0]) for line in subprocess.run(
            ["pgrep", "-a", "-f", "every_rank_saves.py"], capture_output=True, text=True, env=plain).stdout.splitlines()
            if "mpiexec" not in line]
        pmi_ranks = {pid: open("/proc/%d/environ" % pid, "rb").read().split(b"\0") for pid in worker}
        rank1 = [pid for pid, env in pmi_ranks.items() if b"PMI_RANK=1" in env and b"SAVE_DIR=" + bytes(out) in env]
        assert len(rank1) == 1
        killed = time.time()
        os.kill(rank1[0], signal.SIGKILL)
        out_text, err = job.communicate(timeout=60)
        assert time.time() - killed < 30
    finally:
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
    assert job.returncode != 0
    # mpiexec names a dead process by pid (rank 0's first line maps pids to ranks): rank 1, or rank 0
    # when its cleanup's SIGKILL is reaped first; when rank 0's MPI call fails first, MPICH aborts with
    # its own fatal error instead (which comes first is a race)
    said = out_text + err
    named = any("PID %d " % pid in said for pid, env in pmi_ranks.items() if b"SAVE_DIR=" + bytes(out) in env)
    assert ("BAD TERMINATION" in said and named) or "Fatal error" in err, \
        "stdout:\n%s\nstderr:\n%s" % (out_text[-2000:], err[-2000:])
    assert "(pids by rank: %d %d)" % (job_pids(err)[0], rank1[0]) in err, err[-2000:]
    # every pass directory under its final name is complete (a half-written one keeps its .tmp name)
    passes = sorted(glob.glob(str(out / "rank-0" / "pass-?????")))
    assert len(passes) >= 2 and all(os.path.exists(os.path.join(d, "done")) for d in passes)
    return passes[-1]


def job_pids(log):
    line = [l for l in log.splitlines() if "pids by rank:" in l][0]
    return [int(p) for p in line.split("pids by rank: ")[1].split(")")[0].split()]


class _Api(object):
    def __init__(self, mpi):
        self.mpi = mpi

    def isMpiVersion(self):
        return self.mpi


class _Args(object):
    job, seed, dot_period, trainer_id, num_gradient_servers = "train", 1, 0, None, None


def test_several_processes_without_an_mpi_build_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("PMI_SIZE", "2")
    monkeypatch.setenv("PMI_RANK", "0")
    with pytest.raises(distributed.DistributedError, match="built without MPI"):
        distributed.join(_Args(), _Api(False))


def test_gradient_servers_without_an_mpi_build_is_a_clear_error(monkeypatch):
    for var in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE"):
        monkeypatch.delenv(var, raising=False)
    args = _Args()
    args.num_gradient_servers = "2"
    with pytest.raises(distributed.DistributedError, match="2 processes were asked for .* built without MPI"):
        distributed.join(args, _Api(False))


def _mpi_sources():
    """setup.py's MPI_SOURCES (the engine sources a build without MPI leaves out)."""
    import ast
    tree = ast.parse(open(os.path.join(ROOT, "setup.py")).read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "MPI_SOURCES" for t in node.targets):
            return set(ast.literal_eval(node.value))
    raise AssertionError("setup.py has no MPI_SOURCES")


def test_the_engine_compiles_without_mpi():
    """A build without MPI (WITH_MPI=0) leaves out exactly the sources that include mpi.h or the
    strategies' headers (the distributed strategies): no other source uses them or stands in for
    them with stubs, and the
    trainer and the single-process GradientSync compile without it (the whole engine built so
    once, see docs/distributed.md, trains in one process and refuses several). The MPI sources
    compile against mpi.h."""
    import sysconfig
    engine = glob.glob(os.path.join(ROOT, "engine", "**", "*.[ch]*"), recursive=True) + \
        glob.glob(os.path.join(ROOT, "layers", "*.[ch]*")) + glob.glob(os.path.join(ROOT, "trainer", "*.[ch]*")) + glob.glob(os.path.join(ROOT, "swig", "PaddleAPI*"))
    mpi_includes = ("#include <mpi.h>", '#include "trainer/MpiSync.h"', '#include "trainer/Collective.h"')
    including = {os.path.relpath(f, ROOT) for f in engine
                 if f.endswith(".cpp") and any(i in open(f).read() for i in mpi_includes)}
    assert including == _mpi_sources()
    assert not [f for f in engine if "PADDLE_WITH_MPI" in open(f).read()]  # no stand-ins
    nlohmann = glob.glob(os.path.join(sysconfig.get_paths()["purelib"], "nlohmann_json", "include"))
    cxx = shutil.which("g++") or shutil.which("c++")
    if not cxx:
        pytest.skip("no C++ compiler")
    base = [cxx, "-std=c++17", "-fsyntax-only", "-I" + ROOT] + ["-I" + d for d in nlohmann]
    for src in ("trainer/GradientSync.cpp", "trainer/Trainer.cpp"):
        p = subprocess.run(base + [os.path.join(ROOT, src)], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr[-3000:]
    mpi_h = glob.glob(os.path.join(sys.prefix, "include", "mpi.h"))
    for src in sorted(_mpi_sources()) if mpi_h else []:
        p = subprocess.run(base + ["-I" + os.path.dirname(mpi_h[0]), os.path.join(ROOT, src)],
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr[-3000:]


def test_one_process_is_not_distributed(monkeypatch):
    for var in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE"):
        monkeypatch.delenv(var, raising=False)
    assert distributed.launcher_world() == (1, 0)
    assert distributed.join(_Args(), _Api(False)) is None


def test_v1_cluster_flags_must_agree_with_the_launcher(monkeypatch):
    monkeypatch.setenv("PMI_SIZE", "2")
    monkeypatch.setenv("PMI_RANK", "1")
    args = _Args()
    args.num_gradient_servers = "4"
    with pytest.raises(distributed.DistributedError, match="num_gradient_servers=4 but 2 processes"):
        distributed.join(args, _Api(True))
    args.num_gradient_servers, args.trainer_id = "2", "3"
    with pytest.raises(distributed.DistributedError, match="trainer_id=3 but this process is rank 1"):
        distributed.join(args, _Api(True))
