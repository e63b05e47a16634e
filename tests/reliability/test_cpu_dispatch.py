"""Runtime CPU dispatch (py_paddle/cpu_dispatch.py): the portable engine and the ones built for
AVX2 / AVX-512 compute the same results, the portable one uses no AVX instruction, PADDLE_CPU
forces a choice and `paddle version` names the one that runs."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from py_paddle import cpu_dispatch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fake_build(tmp_path, variants):
    for name in variants:
        (tmp_path / "cpu" / name).mkdir(parents=True)
        (tmp_path / "cpu" / name / cpu_dispatch.ENGINE).write_bytes(b"")
    return str(tmp_path)


def test_the_best_built_engine_the_cpu_runs_is_chosen(tmp_path):
    base = fake_build(tmp_path, ["avx2", "avx512"])
    avx2, avx512 = cpu_dispatch.VARIANTS["avx2"], cpu_dispatch.VARIANTS["avx512"]
    assert cpu_dispatch.select(base, avx512) == "avx512"
    assert cpu_dispatch.select(base, avx2 | {"avx512f"}) == "avx2"  # AVX-512 F alone is not x86-64-v4
    assert cpu_dispatch.select(base, {"sse4_2"}) == "baseline"
    assert cpu_dispatch.select(base, avx512, forced="baseline") == "baseline"
    assert cpu_dispatch.select(base, avx512, forced="avx2") == "avx2"
    with pytest.raises(ImportError, match="this CPU lacks .*avx512f"):
        cpu_dispatch.select(base, avx2, forced="avx512")
    with pytest.raises(ImportError, match="choose baseline, avx512 or avx2"):
        cpu_dispatch.select(base, avx512, forced="sse")
    with pytest.raises(ImportError, match="no avx512 engine .*built: baseline avx2"):
        cpu_dispatch.select(fake_build(tmp_path / "b", ["avx2"]), avx512, forced="avx512")


BASE = cpu_dispatch.engine_dir()
BUILT = cpu_dispatch.built_variants(BASE)
RUNNABLE = [v for v in BUILT if cpu_dispatch.VARIANTS[v] <= cpu_dispatch.cpu_flags()]
needs_variants = pytest.mark.skipif(not RUNNABLE, reason="no dispatched engine built for this CPU (PADDLE_MARCH set?)")

# A convolution (the AVX-512 im2col path), batch norm and an fc: one pass each way.
CONFIG = """
from paddle.trainer_config_helpers import *
define_py_data_sources2(train_list='train.list', test_list=None, module='paddle.trainer.readers',
                        obj='synthetic', args={'input_types': {'img': ['dense_vector', 3 * 12 * 12],
                                                               'label': ['integer_value', 5]}})
settings(batch_size=16, learning_rate=1e-3, learning_method=MomentumOptimizer(0.9))
img = data_layer(name='img', size=3 * 12 * 12, height=12, width=12)
conv = img_conv_layer(input=img, filter_size=3, num_filters=8, num_channels=3, padding=1, act=ReluActivation())
pool = img_pool_layer(input=conv, pool_size=2, stride=2)
h = batch_norm_layer(input=fc_layer(input=pool, size=32, act=LinearActivation()), act=TanhActivation())
out = fc_layer(input=h, size=5, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='label', size=5)))
"""


def paddle(args, cwd, engine):
    env = dict(os.environ, PADDLE_CPU=engine,
               PYTHONPATH=os.pathsep.join([os.path.dirname(BASE), ROOT]))  # the build under test
    code = "import sys; from paddle.trainer.cli import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code] + args, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


@needs_variants
def test_every_engine_trains_to_the_same_parameters(tmp_path):
    (tmp_path / "conf.py").write_text(CONFIG)
    (tmp_path / "train.list").write_text("128\n")
    saved = {}
    for engine in ["baseline"] + RUNNABLE:
        run = paddle(["train", "--config=conf.py", "--save_dir=" + engine, "--num_passes=2", "--dot_period=0",
                      "--seed=4"], str(tmp_path), engine)
        assert run.returncode == 0, run.stderr
        path = tmp_path / engine / "pass-00001"
        saved[engine] = {n: np.fromfile(str(path / n), dtype=np.float32, offset=16)
                         for n in sorted(os.listdir(str(path))) if n.startswith("_")}
    for engine in RUNNABLE:
        assert sorted(saved[engine]) == sorted(saved["baseline"])
        for name, value in saved["baseline"].items():
            np.testing.assert_allclose(saved[engine][name], value, rtol=1e-4, atol=1e-5, err_msg=engine + " " + name)


@needs_variants
def test_paddle_version_names_the_engine_that_runs(tmp_path):
    for engine in ["baseline"] + RUNNABLE:
        run = paddle(["version"], str(tmp_path), engine)
        assert run.returncode == 0, run.stderr
        assert "engine: %s of baseline, %s" % (engine, ", ".join(BUILT)) in run.stdout, run.stdout
        simd = re.search(r"build SIMD: (.*)", run.stdout).group(1).split()
        assert ("avx512f" in simd) == (engine == "avx512") and ("avx2" in simd) == (engine != "baseline"), simd
    default = paddle(["version"], str(tmp_path), "")
    assert "engine: %s of" % RUNNABLE[0] in default.stdout  # the best this CPU runs


@needs_variants
@pytest.mark.skipif(not shutil.which("objdump"), reason="needs objdump")
def test_the_portable_engine_uses_no_avx_register():
    lib = os.path.join(BASE, cpu_dispatch.ENGINE)
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", lib], capture_output=True, text=True).stdout
    assert len(text) > 100000
    assert re.findall(r"%[yz]mm\d+", text)[:5] == []
