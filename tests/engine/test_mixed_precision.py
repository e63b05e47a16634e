"""Mixed precision: bf16 matrix products (engine/math/GemmBf16.cpp; settings(precision='bf16'),
Layer::runForward) and fp16's dynamic loss scaling (trainer/Optimizers.cpp; GPUs, here on the
stand-in GPU).

- fc's forward and backward in bf16 (and fp16 on GPUs) equal a NumPy emulation (operands
  rounded to bfloat16 or half, products summed in fp32) within fp32 summation error, on shapes that cross every edge
  of the kernel's tiles and blocks; the fp32 path is far outside that bound.
- every layer type that takes part stays within a stated tolerance of its fp32 run, and
  differs from it (bf16 really ran); layers kept in fp32 (ExtraAttr(precision='fp32'), and
  the types that never take part) give the fp32 bits exactly.
- a bf16 run gives the same bits at 1 and 2 threads and from run to run, also where
  lstmemory and grumemory run their steps by groups of sequences on the pool's threads.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

from netbuilder import ON_GPU, Net, _run_and_collect, api, rand, sum_cost_net_output


def bf16(x):
    """x rounded to bfloat16 (ties to even; denormals to signed zero; NaN kept), as float32."""
    u = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7fff + ((u >> 16) & 1)) & 0xffff0000
    rounded = np.where((u & 0x7f800000) == 0, u & 0x80000000, rounded)
    rounded = np.where((u & 0x7fffffff) > 0x7f800000, (u | 0x400000) & 0xffff0000, rounded)
    return rounded.astype(np.uint32).view(np.float32)


def _machine_supports_bf16():
    net = Net()
    net.fc("y", [(net.data("x", 2), 2)], 2)
    gm = net.build(use_gpu=False)
    gm.setPrecision("bf16")
    return gm.getPrecision() == "bf16"


BF16 = ON_GPU or _machine_supports_bf16()  # (the GPU path, stand-in or real, always runs it)
needs_bf16 = pytest.mark.skipif(not BF16, reason="this CPU has no AVX512_BF16 (bf16 runs fp32 there)")
ROUND = {"bf16": bf16, "fp16": lambda x: np.asarray(x, np.float32).astype(np.float16).astype(np.float32)}


def test_bf16_rounding_reference():
    # bf16 keeps 7 bits after the point: 1 + 2^-8 and 1 + 3 * 2^-8 are ties (to the even
    # neighbour: 1 and 1 + 2^-6), 1 + 2^-7 + 2^-9 rounds down; a denormal becomes 0
    x = np.array([1.0, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -7 + 2 ** -9, -2.5, 1e-40, np.inf], np.float32)
    np.testing.assert_array_equal(bf16(x), [1.0, 1.0, 1 + 2 ** -6, 1 + 2 ** -7, -2.5, 0.0, np.inf])
    assert np.isnan(bf16(np.float32(np.nan)))


def _fc_net(k, n):
    net = Net()
    x = net.data("x", k)
    y = net.fc("y", [(x, k)], n, act="", std=0.5)
    sum_cost_net_output(net, y, n)
    return net


def _sum_bound(a, b):
    """A bound on fp32 summation error of the K products of a @ b (each exact in fp32)."""
    return a.shape[1] * 2.0 ** -23 * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)) + 1e-30


SHAPES = [(37, 781, 75), (9, 3, 1100), (1, 17, 33), (130, 64, 40)]
CASES = [("bf16",) + s for s in SHAPES] + [("fp16",) + s for s in SHAPES[:2]]


@pytest.mark.parametrize("precision,batch,k,n", CASES)
def test_fc_forward_and_backward_equal_the_emulation(precision, batch, k, n):
    if precision == "bf16" and not BF16:
        pytest.skip("this CPU has no AVX512_BF16")
    if precision == "fp16" and not ON_GPU:
        pytest.skip("fp16 products run on GPUs (the stand-in GPU run covers them)")
    rng = np.random.RandomState(batch + k + n)
    gm = _fc_net(k, n).build()
    slots = [rand(rng, batch, k), rand(rng, batch, n)]
    fp32 = _run_and_collect(gm, slots, ["x", "y"])
    gm.setPrecision(precision)
    assert gm.getPrecision() == precision
    got = _run_and_collect(gm, slots, ["x", "y"])
    w = gm.getParameterByName("_y.w0").getBuf(api.PARAMETER_VALUE).copyToNumpyArray().reshape(k, n)
    b = gm.getParameterByName("_y.wbias").getBuf(api.PARAMETER_VALUE).copyToNumpyArray()
    r = ROUND[precision]
    x, dy = r(slots[0]), r(got["y.grad"])
    checks = [("y.value", x, r(w), got["y.value"] - b, fp32["y.value"] - b),
              ("_y.w0.grad", x.T, dy, got["_y.w0.grad"].reshape(k, n), None),
              ("x.grad", dy, r(w).T, got["x.grad"], None)]
    for name, a, bm, value, unrounded in checks:
        ref = a.astype(np.float64) @ bm.astype(np.float64)
        bound = _sum_bound(a, bm) + 1e-6 * np.abs(b).max()
        assert np.all(np.abs(value - ref) <= bound), name
        if unrounded is not None and k > 8:  # the fp32 path is far from what was computed
            assert np.abs(value - ref).max() < 0.1 * np.abs(unrounded - ref).max(), name


def _parity_configs():
    """(name, config body, data slots builder) for every layer type bf16 runs."""
    from paddle.trainer_config_helpers import (
        AvgPooling, LinearActivation, SigmoidActivation, TanhActivation, data_layer, fc_layer,
        full_matrix_projection, grumemory, img_conv_layer, lstmemory, mixed_layer, pooling_layer,
        recurrent_layer, regression_cost, outputs)

    def seq(rng, dim):
        starts = np.array([0, 3, 7, 8], np.int32)
        from netbuilder import Seq
        return Seq(rand(rng, 8, dim), starts)

    def fc():
        x = data_layer(name="x", size=20)
        h = fc_layer(input=x, size=24, act=TanhActivation())
        outputs(regression_cost(input=fc_layer(input=h, size=5, act=LinearActivation()),
                                label=data_layer(name="t", size=5)))
        return lambda rng: [rand(rng, 6, 20), rand(rng, 6, 5)]

    def mixed():
        x = data_layer(name="x", size=20)
        m = mixed_layer(size=12, input=[full_matrix_projection(input=x)], act=TanhActivation())
        outputs(regression_cost(input=fc_layer(input=m, size=5, act=LinearActivation()),
                                label=data_layer(name="t", size=5)))
        return lambda rng: [rand(rng, 6, 20), rand(rng, 6, 5)]

    def conv():
        x = data_layer(name="x", size=3 * 8 * 8, height=8, width=8)
        c = img_conv_layer(input=x, filter_size=3, num_channels=3, num_filters=8, padding=1,
                           act=TanhActivation())
        outputs(regression_cost(input=fc_layer(input=c, size=4, act=LinearActivation()),
                                label=data_layer(name="t", size=4)))
        return lambda rng: [rand(rng, 4, 192), rand(rng, 4, 4)]

    def recurrent(kind):
        def body():
            x = data_layer(name="x", size=12)
            if kind == "lstm":
                r = lstmemory(input=fc_layer(input=x, size=4 * 8, act=LinearActivation()))
            elif kind == "gru":
                r = grumemory(input=fc_layer(input=x, size=3 * 8, act=LinearActivation()))
            else:
                r = recurrent_layer(input=fc_layer(input=x, size=8, act=LinearActivation()),
                                    act=SigmoidActivation())
            p = pooling_layer(input=r, pooling_type=AvgPooling())
            outputs(regression_cost(input=fc_layer(input=p, size=3, act=LinearActivation()),
                                    label=data_layer(name="t", size=3)))
            return lambda rng: [seq(rng, 12), rand(rng, 3, 3)]
        return body

    return [("fc", fc), ("mixed", mixed), ("exconv", conv), ("lstmemory", recurrent("lstm")),
            ("gated_recurrent", recurrent("gru")), ("recurrent", recurrent("rnn"))]


def _build(body):
    from paddle.proto import message_to_json
    from paddle.trainer_config_helpers import parse_network_config
    made = {}

    def net():
        made["slots"] = body()
    model = parse_network_config(net)
    gm = api.GradientMachine.createByConfigJson(message_to_json(model), ON_GPU, 3)
    return gm, made["slots"], [l.name for l in model.layers]


PARITY = _parity_configs()


@needs_bf16
@pytest.mark.parametrize("name,body", PARITY, ids=[p[0] for p in PARITY])
def test_layer_in_bf16_stays_within_tolerance_of_fp32(name, body):
    """|bf16 - fp32| <= 3% of the array's largest |fp32| value, for every output and gradient
    (bf16 keeps 8 significant bits: 0.4% per operand; a few layers compound it)."""
    gm, slots_of, layers = _build(body)
    assert any(l["type"] == name for l in __import__("json").loads(gm.getModelConfigJson())["layers"])
    slots = slots_of(np.random.RandomState(5))
    fp32 = _run_and_collect(gm, slots, layers)
    gm.setPrecision("bf16")
    got = _run_and_collect(gm, slots, layers)
    differs = False
    for key, ref in fp32.items():
        scale = max(np.abs(ref).max(), 1e-6)
        assert np.abs(got[key] - ref).max() <= 0.03 * scale, key
        differs |= not np.array_equal(got[key], ref)
    assert differs, "bf16 changed nothing: it did not run"


def test_layers_kept_in_fp32_give_the_fp32_bits():
    """ExtraAttr(precision='fp32') keeps an fc in fp32; the other layers (costs, pooling,
    activations) never take part: with every product layer marked, bf16 == fp32 exactly."""
    from paddle.trainer_config_helpers import (ExtraAttr, LinearActivation, TanhActivation, data_layer,
                                               fc_layer, outputs, regression_cost)

    def body():
        keep = ExtraAttr(precision="fp32")
        x = data_layer(name="x", size=20)
        h = fc_layer(input=x, size=24, act=TanhActivation(), layer_attr=keep)
        outputs(regression_cost(input=fc_layer(input=h, size=5, act=LinearActivation(), layer_attr=keep),
                                label=data_layer(name="t", size=5)))
        return lambda rng: [rand(rng, 6, 20), rand(rng, 6, 5)]
    gm, slots_of, layers = _build(body)
    slots = slots_of(np.random.RandomState(5))
    fp32 = _run_and_collect(gm, slots, layers)
    gm.setPrecision("bf16")
    got = _run_and_collect(gm, slots, layers)
    for key in fp32:
        np.testing.assert_array_equal(got[key], fp32[key], err_msg=key)


def test_precision_names_are_checked():
    gm = _fc_net(3, 2).build(use_gpu=False)
    with pytest.raises(Exception, match="precision must be 'fp32', 'bf16' or 'fp16'"):
        gm.setPrecision("fp8")
    from paddle.parser import ConfigError
    from paddle.trainer_config_helpers import ExtraAttr
    with pytest.raises(ConfigError, match="precision may only be 'fp32'"):
        ExtraAttr(precision="bf16")


def run_at_threads(script, threads):
    """Runs `script` (its %s: this folder) in a fresh process on `threads` engine threads; its stdout."""
    env = dict(os.environ, PADDLE_THREADS=threads, OMP_NUM_THREADS=threads)
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run([sys.executable, "-c", script % here], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


SAME_BITS = r"""
import hashlib, sys
import numpy as np
sys.path[:0] = [%r]
from netbuilder import Net, _run_and_collect, rand, sum_cost_net_output
net = Net()
x = net.data("x", 300)
h = net.fc("h", [(x, 300)], 700, act="tanh")
y = net.fc("y", [(h, 700)], 90)
sum_cost_net_output(net, y, 90)
gm = net.build(use_gpu=False)
gm.setPrecision("bf16")
rng = np.random.RandomState(0)
got = _run_and_collect(gm, [rand(rng, 200, 300), rand(rng, 200, 90)], ["x", "h", "y"])
print(hashlib.sha256(b"".join(got[k].tobytes() for k in sorted(got))).hexdigest())
"""


@needs_bf16
def test_bf16_runs_give_the_same_bits_at_1_and_2_threads():
    digests = {run_at_threads(SAME_BITS, threads).strip() for threads in ("1", "2", "2")}
    assert len(digests) == 1


LSTM_BITS = r"""
import hashlib, sys
import numpy as np
sys.path[:0] = [%r]
from netbuilder import Seq, _run_and_collect, api, rand
from paddle.proto import message_to_json
from paddle.trainer_config_helpers import (AvgPooling, LinearActivation, data_layer, fc_layer, grumemory,
                                           lstmemory, outputs, parse_network_config, pooling_layer,
                                           regression_cost)


def net():
    x = data_layer(name="x", size=12)
    fwd = lstmemory(input=fc_layer(input=x, size=4 * 16, act=LinearActivation()), name="fwd")
    bwd = lstmemory(input=fc_layer(input=x, size=4 * 16, act=LinearActivation()), name="bwd", reverse=True)
    gru = grumemory(input=fc_layer(input=x, size=3 * 16, act=LinearActivation()), name="gru")
    gru_bwd = grumemory(input=fc_layer(input=x, size=3 * 16, act=LinearActivation()), name="gru_bwd", reverse=True)
    pools = [pooling_layer(input=r, pooling_type=AvgPooling()) for r in (fwd, bwd, gru, gru_bwd)]  # (a max could flip)
    outputs(regression_cost(input=fc_layer(input=pools, size=3, act=LinearActivation()),
                            label=data_layer(name="t", size=3)))


model = parse_network_config(net)
gm = api.GradientMachine.createByConfigJson(message_to_json(model), False, 3)
rng = np.random.RandomState(7)
lengths = rng.randint(1, 26, size=40)  # 40 sequences: the steps run by groups of them at 2 threads
slots = [Seq(rand(rng, int(lengths.sum()), 12), np.concatenate([[0], np.cumsum(lengths)])), rand(rng, 40, 3)]
layers = [l.name for l in model.layers]
fp32 = _run_and_collect(gm, slots, layers)
gm.setPrecision("bf16")
got = _run_and_collect(gm, slots, layers)
err = max(np.abs(got[k] - fp32[k]).max() / max(np.abs(fp32[k]).max(), 1e-6) for k in fp32)
same = all(np.array_equal(got[k], fp32[k]) for k in fp32)
print(gm.getPrecision(), hashlib.sha256(b"".join(got[k].tobytes() for k in sorted(got))).hexdigest(), err, same)
"""


@needs_bf16
def test_recurrent_layers_in_bf16_by_groups_of_sequences_give_the_same_bits_at_1_and_2_threads():
    """At 2 threads the bf16 steps of lstmemory and grumemory run by groups of sequences on the
    pool's threads (weights packed once per pass; lstmemory's peephole gradients summed
    afterwards): the same bits as one group at 1 thread, both directions, within 3% of fp32."""
    results = set()
    for threads in ("1", "2", "2"):
        out = run_at_threads(LSTM_BITS, threads)
        precision, digest, err, same = out.split()
        assert precision == "bf16" and same == "False", out
        assert float(err) <= 0.03, out
        results.add(digest)
    assert len(results) == 1


FP16_CONFIG = """
from paddle.trainer_config_helpers import *
settings(batch_size=16, learning_rate=1e-3, learning_method=AdamOptimizer(), precision='fp16', loss_scale=%r)
x = data_layer(name='x', size=20)
h = fc_layer(input=x, size=32, act=TanhActivation())
outputs(regression_cost(input=fc_layer(input=h, size=4, act=LinearActivation()), label=data_layer(name='t', size=4)))
"""


def _fp16_trainer(tmp_path, loss_scale):
    from paddle.proto import message_to_json
    from paddle.trainer.config_parser import parse_config
    path = tmp_path / "fp16.py"
    path.write_text(FP16_CONFIG % loss_scale)
    conf = parse_config(str(path), "")
    conf.opt_config.loss_scale_growth_interval = 3
    trainer = api.Trainer.create(message_to_json(conf), True, 1, 1)
    trainer.startTrainPass(0)
    return trainer


def _values(trainer):
    gm = trainer.getGradientMachine()
    return {p.getName(): p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray() for p in gm.getParameters()}


def _saved_loss_scale(trainer, tmp_path, name):
    import json
    out = tmp_path / name
    out.mkdir()
    trainer.saveOptimizerState(str(out))
    state = json.loads((out / "updater.json").read_text())
    return state["loss_scale"], state["loss_scale_clean_steps"]


@pytest.mark.skipif(not ON_GPU, reason="fp16 runs on GPUs (the stand-in GPU run covers it without one)")
def test_fp16_loss_scaling_skips_overflowing_steps_halves_then_grows_the_scale(tmp_path):
    """fp16 GEMM operands overflow past 65504: with an initial loss scale of 2^24 the cost
    gradients overflow, each such step leaves the parameters as they were and halves the
    scale, until it fits; then steps update, and 3 clean steps in a row double it."""
    rng = np.random.RandomState(0)
    trainer = _fp16_trainer(tmp_path, 2.0 ** 24)
    assert trainer.getGradientMachine().getPrecision() == "fp16"
    batch = [rand(rng, 16, 20), rand(rng, 16, 4) * 100]  # large errors: large cost gradients
    from netbuilder import make_args
    before = _values(trainer)
    trainer.trainOneDataBatch(16, make_args(batch))
    assert all(np.array_equal(before[k], v) for k, v in _values(trainer).items())  # skipped
    assert _saved_loss_scale(trainer, tmp_path, "after1") == (2.0 ** 23, 0)
    scales = []
    for step in range(40):
        trainer.trainOneDataBatch(16, make_args(batch))
        scales.append(_saved_loss_scale(trainer, tmp_path, "s%d" % step)[0])
    assert min(scales) < 2.0 ** 16  # halved down to where dY * scale fits in half precision
    assert any(b == 2 * a for a, b in zip(scales, scales[1:]))  # and grown after clean steps
    assert any(not np.array_equal(before[k], v) for k, v in _values(trainer).items())  # steps did update


def test_fp16_on_the_cpu_runs_fp32_without_loss_scaling(tmp_path):
    """The CPU has no fp16 products: the machine runs fp32 (and says so), and with no loss
    scaling even a huge configured scale skips nothing."""
    from paddle.proto import message_to_json
    from paddle.trainer.config_parser import parse_config
    path = tmp_path / "fp16.py"
    path.write_text(FP16_CONFIG % 2.0 ** 24)
    trainer = api.Trainer.create(message_to_json(parse_config(str(path), "")), False, 1, 1)
    assert trainer.getGradientMachine().getPrecision() == "fp32"
    trainer.startTrainPass(0)
    rng = np.random.RandomState(0)
    from netbuilder import make_args
    before = _values(trainer)
    trainer.trainOneDataBatch(16, make_args([rand(rng, 16, 20), rand(rng, 16, 4) * 100]))
    assert any(not np.array_equal(before[k], v) for k, v in _values(trainer).items())  # no scale, no skip
