"""The MPI family: two ranks of `paddle train` under mpiexec, started alike or differently
(issue 28's six mismatches: batch size, --num_passes, activation, learning rate, layer
size, a shorter data file; plus same-length data with other values), or with a rank that
dies (SIGKILL) or stops answering mid-pass. Oracles: a mismatch or a dead/stuck rank that
ends with exit 0 is "silent"; one that does not end in time is a "hang"; an error without
a message naming the ranks, or with a traceback or MPICH's own stack, is an escape
("internal"); ranks started alike must train (exit 0)."""
import os
import random
import shutil
import signal
import subprocess
import sys

from fuzzlib.runner import ROOT, Outcome

CONFIG = """from paddle.trainer_config_helpers import *
bs = get_config_arg('bs', int, 8)
size = get_config_arg('size', int, 6)
act = get_config_arg('act', str, 'tanh')
lr = get_config_arg('lr', float, 0.01)
define_py_data_sources2(train_list='train.list', test_list=None, module='mpi_fuzz_provider', obj='process')
settings(batch_size=bs, learning_rate=lr)
h = fc_layer(input=data_layer(name='x', size=4), size=size,
             act=TanhActivation() if act == 'tanh' else ReluActivation())
out = fc_layer(input=h, size=2, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='y', size=2)))
"""
PROVIDER = """import os, signal, time
from paddle.trainer.PyDataProvider2 import *
MODE, AT, N = %r, %d, %d


@provider(input_types=[dense_vector(4), integer_value(2)], should_shuffle=False)
def process(settings, filename):
    rank1 = os.environ.get('PMI_RANK') == '1'
    for i in range(N - 8 if MODE == 'short' and rank1 else N):
        if rank1 and i == AT and MODE == 'kill':
            os.kill(os.getpid(), signal.SIGKILL)
        if rank1 and i == AT and MODE == 'stuck':
            time.sleep(600)
        v = 0.5 if MODE == 'other' and rank1 and i == AT else 0.25
        yield [v, -v, float(i %% 5), 1.0], i %% 2
"""
SETTINGS = {"bs": ([8, 16, 4], "batch_size"), "act": (["tanh", "relu"], "active_type"),
            "lr": ([0.01, 0.02, 0.5], "learning_rate"), "size": ([6, 7, 3], ".size")}
KINDS = ["alike", "bs", "num_passes", "act", "lr", "size", "short", "other", "kill", "stuck"]


def _mpiexec():
    return shutil.which("mpiexec") or os.path.join(os.path.dirname(sys.executable), "mpiexec")


def _env():
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    for var in ("PMI_SIZE", "PMI_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE"):
        env.pop(var, None)
    return env


def plan(rng, kind=None):
    """(kind, rank 0's flags, rank 1's flags, provider mode, what the error must name)."""
    kind = kind or rng.choice(KINDS)
    r0, r1, mode, expect = ["--num_passes=1"], ["--num_passes=1"], "same", None
    if kind in SETTINGS:
        values, expect = SETTINGS[kind]
        a, b = rng.sample(values, 2)
        r0.append("--config_args=%s=%s" % (kind, a))
        r1.append("--config_args=%s=%s" % (kind, b))
    elif kind == "num_passes":
        a, b = rng.sample([1, 2, 3], 2)
        r0, r1, expect = ["--num_passes=%d" % a], ["--num_passes=%d" % b], "--num_passes"
    elif kind != "alike":
        mode = kind
        expect = {"short": "data differ", "other": "data differ", "kill": "rank", "stuck": "collective_timeout"}[kind]
    return kind, r0, r1, mode, expect


def run_case(case, work):
    rng = random.Random(case["seed_value"])
    kind, r0, r1, mode, expect = plan(rng, case.get("kind"))
    n = rng.choice([24, 40, 56])
    with open(os.path.join(work, "conf.py"), "w") as f:
        f.write(CONFIG)
    with open(os.path.join(work, "mpi_fuzz_provider.py"), "w") as f:
        f.write(PROVIDER % (mode, rng.randrange(9, n - 8), n))
    with open(os.path.join(work, "train.list"), "w") as f:
        f.write("data\n")
    if case.get("plant"):  # an engine whose check misses the mismatch: rank 1 runs as rank 0 (tests/fuzz)
        r1 = r0
    base = [sys.executable, "-m", "paddle.trainer.cli", "train", "--config=conf.py", "--dot_period=0", "--seed=3",
            "--save_dir=out", "--collective_timeout=%d" % case.get("collective_timeout", 4)]
    if case.get("plant") == "hang":  # no collective timeout and a stuck rank: the job never ends
        base, mode = base[:-1] + ["--collective_timeout=100000"], "stuck"
        with open(os.path.join(work, "mpi_fuzz_provider.py"), "w") as f:
            f.write(PROVIDER % ("stuck", 9, n))
    cmd = [_mpiexec(), "-n", "1"] + base + r0 + [":", "-n", "1"] + base + r1
    env = _env()
    env["PYTHONPATH"] = os.pathsep.join([p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p] + [work])
    p = subprocess.Popen(cmd, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True)
    try:
        out = p.communicate(timeout=case.get("job_timeout", 90))[0].decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise Outcome("hang", "%s: the job did not end in %ss" % (kind, case.get("job_timeout", 90)))
    last = [l for l in out.splitlines() if l.strip()][-1:] or [""]
    if kind == "alike":
        if p.returncode != 0:
            raise Outcome("internal", "ranks started alike failed (exit %d): %s" % (p.returncode, last[0][:300]))
        return {"outcome": "ok", "detail": "alike: trained"}
    if p.returncode == 0:
        raise Outcome("silent", "%s: ranks %s / %s ended with exit 0" % (kind, " ".join(r0), " ".join(r1)))
    if "Traceback (most recent call last)" in out or "Message truncated" in out:
        raise Outcome("internal", "%s: %s" % (kind, "a traceback" if "Traceback" in out else "MPICH's own stack"))
    if "rank" not in out.lower() or expect not in out:
        raise Outcome("internal", "%s: the error does not name the ranks and %r: %s" % (kind, expect, last[0][:300]))
    return {"outcome": "clean", "detail": "%s: %s" % (kind, last[0][:200])}
