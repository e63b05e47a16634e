"""demos/seq2seq: the README's commands (two passes over 20000 sequences, then beam search
via --job=test and evaluate.py) give >= 98% exact match on the 500 held-out sequences with
one and with two BLAS threads (the float sums, and so the training run, differ between them),
and with bf16 matrix products (--precision=bf16)."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "demos", "seq2seq")


def environment():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if any(n.startswith("_swig_paddle") for n in os.listdir(os.path.join(ROOT, "py_paddle"))):
        env["PYTHONPATH"] = ROOT  # in-place developer build
    return env


def run(args, cwd, threads):
    env = dict(environment(), OPENBLAS_NUM_THREADS=str(threads))
    p = subprocess.run([sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())"]
                       + args, cwd=cwd, env=env, capture_output=True, text=True, timeout=3600)
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stderr


@pytest.mark.slow
@pytest.mark.parametrize("threads,precision", [(1, "fp32"), (2, "fp32"), (2, "bf16")])
def test_reversal_learned_and_decoded_with_beam_search(tmp_path, threads, precision):
    work = str(tmp_path / "seq2seq")
    shutil.copytree(DEMO, work, ignore=shutil.ignore_patterns("output", "gen_result", "__pycache__"))
    run(["train", "--config=train.conf", "--save_dir=output", "--num_passes=2", "--dot_period=0",
         "--precision=" + precision], work, threads)
    log = run(["train", "--config=gen.conf", "--job=test", "--init_model_path=output/pass-00001"], work, threads)
    assert "samples=500" in log
    # evaluate.py in its own process: demo modules named like other demos' never mix
    out = subprocess.run([sys.executable, "evaluate.py", "gen_result"], cwd=work, env=environment(),
                         capture_output=True, text=True, check=True).stdout
    right, total = [int(x) for x in out.split(":")[1].split("=")[0].split("/")]
    assert total == 500
    assert right / total >= 0.98, out
