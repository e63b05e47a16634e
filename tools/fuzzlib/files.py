"""The files campaign: a pass saved by a short training run (parameters and optimizer
state) and a merged model are damaged (truncated, wrong headers, trailing bytes, huge
declared sizes, empty, flipped bytes, a directory/FIFO/device in place of a file, missing
or extra buffer files, mutated updater.json) and loaded the way `paddle train
--init_model_path` / `--start_pass` and `GradientMachine`/`Predictor.createFromMergedModel`
load them, then used (one pass of training, one forward)."""
import json
import os
import random
import shutil
import struct
import sys

from fuzzlib.runner import Outcome, check_finite

CONFIG = """from paddle.trainer_config_helpers import *
define_py_data_sources2(train_list='train.list', test_list=None, module='fuzz_files_provider', obj='process')
settings(batch_size=4, learning_rate=0.01, learning_method=%s)
x = data_layer(name='x', size=8)
h = fc_layer(input=x, size=5, act=TanhActivation())
out = fc_layer(input=h, size=3, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='label', size=3)))
"""
METHODS = ["AdamOptimizer()", "MomentumOptimizer(0.9)", "RMSPropOptimizer()", "AdaGradOptimizer()"]
PROVIDER = """from paddle.trainer.PyDataProvider2 import *


@provider(input_types=[dense_vector(8), integer_value(3)], should_shuffle=False)
def process(settings, filename):
    for i in range(8):
        yield [(i * 0.1 + k * 0.01) for k in range(8)], i % 3
"""


def _base(tmp, method):
    """tmp/base-<method>: the config, its data and pass-00000 saved by a one-pass run (made once)."""
    base = os.path.join(tmp, "base-%d" % method)
    if os.path.exists(os.path.join(base, "ready")):
        return base
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    with open(os.path.join(base, "conf.py"), "w") as f:
        f.write(CONFIG % METHODS[method])
    with open(os.path.join(base, "fuzz_files_provider.py"), "w") as f:
        f.write(PROVIDER)
    with open(os.path.join(base, "train.list"), "w") as f:
        f.write("dummy\n")
    _train(base, ["--save_dir=" + os.path.join(base, "save")])
    from py_paddle.deploy import merge_model
    merge_model(os.path.join(base, "conf.py"), os.path.join(base, "save", "pass-00000"),
                os.path.join(base, "model.paddle"))
    open(os.path.join(base, "ready"), "w").close()
    return base


def _train(base, extra):
    """One pass of `paddle train` in this process (the command's own job object)."""
    from paddle.trainer import cli
    args = cli._train_parser().parse_args(cli._normalize(
        ["--config=" + os.path.join(base, "conf.py"), "--num_passes=1", "--log_period=0", "--dot_period=0"] + extra))
    cwd = os.getcwd()
    os.chdir(base)
    sys.path.insert(0, base)
    try:
        job = cli.TrainingJob(args)
        job.train()
        return job
    finally:
        sys.path.remove(base)
        os.chdir(cwd)


# --------------------------------------------------------------------------- damage
def _damage_bytes(data, rng):
    op = rng.randrange(9)
    if op == 0:
        return data[:rng.randrange(len(data) + 1)], "truncated"
    if op == 1:
        return b"", "zero bytes"
    if op == 2:
        return data + bytes(rng.randrange(256) for _ in range(rng.choice([1, 4, 100]))), "trailing bytes"
    if op == 3 and len(data) >= 16:  # header fields: version, value size, element count
        field = rng.randrange(3)
        value = rng.choice([1, 8, 0, 2 ** 31 - 1, 2 ** 32 - 1, 2 ** 60, 2 ** 64 - 1, 3])
        if field == 2:
            return data[:8] + struct.pack("<Q", value % 2 ** 64) + data[16:], "element count %d" % value
        return data[:4 * field] + struct.pack("<I", value % 2 ** 32) + data[4 * field + 4:], \
            "header field %d = %d" % (field, value)
    if op == 4 and len(data) > 16:
        pos = rng.randrange(16, len(data) - 3)
        word = rng.choice([b"\x00\x00\xc0\x7f", b"\x00\x00\x80\x7f", b"\xff\xff\xff\xff"])  # NaN, inf, NaN
        return data[:pos] + word + data[pos + 4:], "a non-finite value at byte %d" % pos
    out = bytearray(data)
    for _ in range(rng.choice([1, 2, 8])):
        if out:
            out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out), "flipped bytes"


def _replace_with_node(path, rng):
    os.remove(path)
    kind = rng.randrange(4)
    if kind == 0:
        os.makedirs(path)
        return "a directory"
    if kind == 1:
        os.mkfifo(path)
        return "a FIFO"
    if kind == 2:
        os.symlink("/dev/zero", path)
        return "a link to /dev/zero"
    return "missing"


def _mutate_json(value, rng, depth=0):
    """A damaged copy of a JSON value: one field changed, removed or added."""
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(sorted(value))
        value = dict(value)
        op = rng.randrange(4)
        if op == 0:
            del value[key]
        elif op == 1:
            value["extra_%d" % rng.randrange(9)] = 1
        else:
            value[key] = _mutate_json(value[key], rng, depth + 1)
        return value
    if isinstance(value, list) and value and rng.random() < 0.7:
        value = list(value)
        i = rng.randrange(len(value))
        if rng.random() < 0.3:
            del value[i]
        else:
            value[i] = _mutate_json(value[i], rng, depth + 1)
        return value
    return rng.choice([None, -1, 0, 2 ** 63, -2 ** 63, 2 ** 64, 1e308, 1.5, "x", "", [], {}, True,
                       [[[[[[1]]]]]], "pass-99999", 9007199254740993])


def damage_pass(pass_dir, rng):
    """Damages one file of a saved pass (a parameter or the optimizer state); says what."""
    opt = os.path.join(pass_dir, "optimizer")
    params = sorted(f for f in os.listdir(pass_dir) if f.startswith("_"))
    buffers = sorted(f for f in os.listdir(opt) if f != "updater.json")
    what = rng.randrange(10)
    if what < 4:
        target = os.path.join(pass_dir, rng.choice(params))
    elif what < 6:
        target = os.path.join(opt, rng.choice(buffers))
    elif what < 9:
        target = os.path.join(opt, "updater.json")
        with open(target) as f:
            text = f.read()
        if rng.random() < 0.8:
            new = json.dumps(_mutate_json(json.loads(text), rng))
            how = "mutated JSON"
        else:
            new, how = _damage_bytes(text.encode(), rng)
            new = new.decode("latin-1")
        with open(target, "w", encoding="latin-1") as f:
            f.write(new)
        return "updater.json: " + how
    else:
        extra = os.path.join(opt if rng.random() < 0.5 else pass_dir, rng.choice(params) + rng.choice([".x", ".9", ""]))
        if os.path.exists(extra):
            extra += ".extra"
        with open(extra, "wb") as f:
            f.write(b"\x00" * 16)
        return "extra file " + os.path.relpath(extra, pass_dir)
    name = os.path.relpath(target, pass_dir)
    if rng.random() < 0.2:
        return "%s: %s" % (name, _replace_with_node(target, rng))
    with open(target, "rb") as f:
        data = f.read()
    data, how = _damage_bytes(data, rng)
    with open(target, "wb") as f:
        f.write(data)
    return "%s: %s" % (name, how)


# --------------------------------------------------------------------------- running
def _merged(base, work, rng):
    import numpy as np
    from py_paddle import swig_paddle as api
    path = os.path.join(work, "model.paddle")
    with open(os.path.join(base, "model.paddle"), "rb") as f:
        data, how = _damage_bytes(f.read(), rng)
    with open(path, "wb") as f:
        f.write(data)
    args = api.Arguments.createArguments(2)
    args.setSlotValueFromBuffer(0, np.ones((2, 8), np.float32))
    args.setSlotIdsFromBuffer(1, np.array([0, 1], np.int32))
    if rng.random() < 0.5:
        gm = api.GradientMachine.createFromMergedModel(path)
        out = api.Arguments.createArguments(0)
        gm.forward(args, out, api.PASS_TEST)
    else:
        out = api.Predictor.createFromMergedModel(path).forward(args)
    values = out.getSlotValue(0).copyToNumpyArray()
    if not np.isfinite(values).all():
        raise Outcome("silent", "merged model (%s) loaded and predicts non-finite values" % how)
    return {"outcome": "ok", "detail": "merged model: " + how}


def run_case(case, work):
    rng = random.Random(case["seed_value"])
    base = _base(case["tmp"], rng.randrange(len(METHODS)))
    if case["kind"] == "merged":
        return _merged(base, work, rng)
    save = os.path.join(work, "save")
    shutil.copytree(os.path.join(base, "save"), save, symlinks=True)
    pass_dir = os.path.join(save, "pass-00000")
    how = damage_pass(pass_dir, rng)
    if case["kind"] == "init_model":
        job = _train(base, ["--init_model_path=" + pass_dir, "--save_dir=" + os.path.join(work, "out")])
    else:
        job = _train(base, ["--start_pass=1", "--num_passes=2", "--save_dir=" + save])
    check_finite(job.trainer)
    return {"outcome": "ok", "detail": how}
