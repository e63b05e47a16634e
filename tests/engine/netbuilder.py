"""Builds v1 ModelConfig dicts directly (no config parser) for engine tests.

GPU runs of the engine tests:
  - with a visible GPU, every gradient_check first runs the same network on the
    CPU and on the GPU and compares outputs and gradients (check_gpu_parity);
  - PADDLE_TEST_USE_GPU=1 builds every test's network on the GPU, so the whole
    gradient-check suite runs there (tests/engine/conftest.py skips it all when
    no GPU is visible).
"""
import json
import os

import numpy as np

from py_paddle import swig_paddle as api


GPU_COUNT = api.getGpuCount()
ON_GPU = os.environ.get("PADDLE_TEST_USE_GPU", "0") == "1"


class Net(object):
    def __init__(self):
        self.layers, self.params, self.inputs, self.outputs = [], [], [], []

    def data(self, name, size):
        self.layers.append({"name": name, "type": "data", "size": size, "active_type": ""})
        self.inputs.append(name)
        return name

    def param(self, name, dims, std=0.3, mean=0.0, **extra):
        size = int(np.prod(dims))
        self.params.append(dict({"name": name, "size": size, "dims": list(dims),
                                 "initial_mean": mean, "initial_std": std}, **extra))
        return name

    def fc(self, name, inputs, size, act="", bias=True, std=0.3, mean=0.0, drop_rate=None):
        ins = []
        for i, (in_name, in_size) in enumerate(inputs):
            ins.append({"input_layer_name": in_name,
                        "input_parameter_name": self.param("_%s.w%d" % (name, i), [in_size, size], std, mean)})
        layer = {"name": name, "type": "fc", "size": size, "active_type": act, "inputs": ins}
        if bias:
            layer["bias_parameter_name"] = self.param("_%s.wbias" % name, [1, size], 0.1)
        if drop_rate:
            layer["drop_rate"] = drop_rate
        self.layers.append(layer)
        return name

    def layer(self, name, type_, size, inputs, **fields):
        self.layers.append(dict({"name": name, "type": type_, "size": size, "active_type": "",
                                 "inputs": [{"input_layer_name": i} for i in inputs]}, **fields))
        return name

    def classifier(self, in_size, hidden, classes, act="tanh"):
        """x -> fc(hidden, act) -> softmax over `classes`, with a cross-entropy cost
        against integer labels; returns (probabilities, label) layer names."""
        x = self.data("x", in_size)
        label = self.data("label", classes)
        h = self.fc("h", [(x, in_size)], hidden, act=act)
        prob = self.fc("p", [(h, hidden)], classes, act="softmax")
        self.output(self.layer("cost", "multi-class-cross-entropy", 1, [prob, label], coeff=1.0))
        return prob, label

    def output(self, *names):
        self.outputs.extend(names)

    def config(self):
        return {"type": "nn", "layers": self.layers, "parameters": self.params,
                "input_layer_names": self.inputs, "output_layer_names": self.outputs}

    def build(self, seed=1, use_gpu=None):
        config = json.dumps(self.config())
        gm = api.GradientMachine.createByConfigJson(config, ON_GPU if use_gpu is None else use_gpu, seed)
        gm.config_json = config  # for check_gpu_parity's twin
        return gm


class Seq(object):
    """A sequence slot: data (float32 [rows, dim] or int32 ids [rows]) cut by
    starts (row offsets, len #seq+1) and optionally sub_starts (nested)."""

    def __init__(self, data, starts, sub_starts=None):
        self.data = data
        self.starts = np.asarray(starts, dtype=np.int32)
        self.sub_starts = None if sub_starts is None else np.asarray(sub_starts, dtype=np.int32)

    def with_data(self, data):
        return Seq(data, self.starts, self.sub_starts)


class Sparse(object):
    """A sparse slot in CSR form: rows (offsets, len #rows+1), cols, values (None: binary)."""

    def __init__(self, rows, cols, values, width, starts=None):
        self.rows = np.asarray(rows, dtype=np.int32)
        self.cols = np.asarray(cols, dtype=np.int32)
        self.values = None if values is None else np.asarray(values, dtype=np.float32)
        self.width = width
        self.starts = None if starts is None else np.asarray(starts, dtype=np.int32)

    def dense(self):
        out = np.zeros((len(self.rows) - 1, self.width), np.float32)
        for i in range(len(self.rows) - 1):
            for k in range(self.rows[i], self.rows[i + 1]):
                out[i, self.cols[k]] += 1.0 if self.values is None else self.values[k]
        return out


def seq_of_lengths(rng, lengths, dim=None, sub_lengths=None, vocab=None):
    """A Seq of random float data [sum(lengths), dim] (or ids < vocab).
    sub_lengths: per sequence, the list of its sub-sequence lengths (nested)."""
    if sub_lengths is not None:
        lengths = [sum(s) for s in sub_lengths]
    starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    sub = None
    if sub_lengths is not None:
        sub = np.concatenate([[0], np.cumsum([l for s in sub_lengths for l in s])]).astype(np.int32)
    rows = int(starts[-1])
    data = (rng.randint(0, vocab, rows).astype(np.int32) if vocab else
            rng.randn(rows, dim).astype(np.float32))
    return Seq(data, starts, sub)


def _slot_data(s):
    return s.data if isinstance(s, Seq) else s


def _with_data(s, data):
    return s.with_data(data) if isinstance(s, Seq) else data


def make_args(slots):
    """slots: float32 2-D arrays (dense), int32 1-D arrays (ids), Seq or Sparse."""
    args = api.Arguments.createArguments(len(slots))
    for i, s in enumerate(slots):
        if isinstance(s, Sparse):
            args.setSlotSparseFromBuffers(i, s.rows, s.cols,
                                          np.zeros(0, np.float32) if s.values is None else s.values, s.width)
            if s.starts is not None:
                args.setSlotSequenceStartPositionsFromBuffer(i, s.starts)
            continue
        if isinstance(s, Seq):
            args.setSlotSequenceStartPositionsFromBuffer(i, s.starts)
            if s.sub_starts is not None:
                args.setSlotSubSequenceStartPositionsFromBuffer(i, s.sub_starts)
            s = s.data
        if s.dtype == np.int32:
            args.setSlotIdsFromBuffer(i, np.ascontiguousarray(s))
        else:
            args.setSlotValueFromBuffer(i, np.ascontiguousarray(s, dtype=np.float32))
    return args


def total_cost(gm, slots, pass_type=None):
    """Sum of the output costs; PASS_GC (the default) is deterministic (no dropout)."""
    out = api.Arguments.createArguments(0)
    gm.forward(make_args(slots), out, api.PASS_GC if pass_type is None else pass_type)
    return out.sum()


def gradient_check(gm, slots, input_slots=(), samples=12, eps=1e-3, rtol=2e-2, atol=2e-3, seed=0,
                   grad_scale=1.0):
    """Compares backward() with central finite differences of the total cost.

    Checks `samples` random entries (None: every entry) of every parameter and of the dense
    input slots listed in `input_slots` (plain arrays or Seq). Cost layers' `coeff` scales only
    the gradient (v1), so backward is compared with grad_scale * the numeric derivative.
    Raises AssertionError naming the first entry off by more than atol + rtol * the larger
    magnitude (tests/engine/test_gradient_check_fails.py); returns the worst relative error seen.
    """
    if GPU_COUNT and not ON_GPU and hasattr(gm, "config_json"):
        check_gpu_parity(gm, slots)
    rng = np.random.RandomState(seed)
    gm.setNeedInputGradient(True)
    out = api.Arguments.createArguments(0)
    gm.forwardBackward(make_args(slots), out, api.PASS_GC)
    analytic = {}
    for p in gm.getParameters():
        if not p.isStatic():
            analytic[p.getName()] = p.getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray()
    names = list(gm.getInputLayerNames())
    in_grads = {}
    for k in input_slots:
        g = gm.getLayerOutput(names[k]).getSlotGrad(0)
        assert g is not None, "input %s has no gradient" % names[k]
        in_grads[k] = g.copyToNumpyMat()
    worst = 0.0

    def compare(what, num, ana):
        nonlocal worst
        num *= grad_scale
        err = abs(num - ana) / max(abs(num) + abs(ana), 1e-12)
        if not abs(num - ana) <= atol + rtol * max(abs(num), abs(ana)):  # (raised under -O too)
            raise AssertionError("%s: numeric %.6g vs backward %.6g" % (what, num, ana))
        worst = max(worst, err)

    def entries(size):
        return range(size) if samples is None else rng.choice(size, min(samples, size), replace=False)

    for p in gm.getParameters():
        if p.isStatic():
            continue
        buf = p.getBuf(api.PARAMETER_VALUE)
        value = buf.copyToNumpyArray()  # (a GPU buffer has no host view: perturb a copy)

        def cost_with(j, v):
            value[j] = v
            buf.copyFromNumpyArray(value)
            return total_cost(gm, slots)

        for j in entries(value.size):
            old = value[j]
            up, down = cost_with(j, old + eps), cost_with(j, old - eps)
            cost_with(j, old)
            compare("%s[%d]" % (p.getName(), j), (up - down) / (2 * eps), analytic[p.getName()][j])
    for k in input_slots:
        x = _slot_data(slots[k]).astype(np.float64)
        flat = x.reshape(-1)
        for j in entries(flat.size):
            old = flat[j]
            perturbed = list(slots)
            flat[j] = old + eps
            perturbed[k] = _with_data(slots[k], x.astype(np.float32))
            up = total_cost(gm, perturbed)
            flat[j] = old - eps
            perturbed[k] = _with_data(slots[k], x.astype(np.float32))
            down = total_cost(gm, perturbed)
            flat[j] = old
            compare("input %s[%d]" % (names[k], j), (up - down) / (2 * eps), in_grads[k].reshape(-1)[j])
    return worst


def _run_and_collect(gm, slots, layers):
    """forwardBackward (PASS_GC); the cost, every named layer's value/ids/grad and
    every parameter's gradient, as host arrays."""
    gm.setNeedInputGradient(True)
    out = api.Arguments.createArguments(0)
    gm.forwardBackward(make_args(slots), out, api.PASS_GC)
    got = {"cost": np.array([out.sum()])}
    for name in layers:
        a = gm.getLayerOutput(name)
        for what, get in (("value", a.getSlotValue), ("grad", a.getSlotGrad), ("ids", a.getSlotIds)):
            m = get(0)
            if m is not None:
                got["%s.%s" % (name, what)] = m.copyToNumpyMat() if what != "ids" else m.copyToNumpyArray()
    for p in gm.getParameters():
        if not p.isStatic():
            got[p.getName() + ".grad"] = p.getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray()
    return got


def assert_alone_equals_shared(results):
    """results: [the runs of a net whose reader alone reads a layer, the same runs with a second,
    unused reader of it], each a list of _run_and_collect dicts: the same bits everywhere (the
    unused reader's own arrays left out)."""
    for alone, shared in zip(*results):
        shared = {k: v for k, v in shared.items() if "unused" not in k}
        assert alone.keys() == shared.keys()
        for k in alone:
            np.testing.assert_array_equal(alone[k], shared[k], err_msg=k)


def check_gpu_parity(gm, slots, rtol=1e-3, atol=1e-4):
    """Runs gm's network on the GPU with gm's parameter values and asserts that the
    cost, every top-level layer's output and gradient and every parameter gradient
    agree with the CPU within |gpu - cpu| <= atol * scale + rtol * |cpu| (scale: the
    largest |cpu| of that array, at least 1). Sums run in another order on the GPU."""
    twin = api.GradientMachine.createByConfigJson(gm.config_json, True, 1)
    for p, q in zip(gm.getParameters(), twin.getParameters()):
        q.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray())
    config = json.loads(gm.config_json)
    root = [sm["layer_names"] for sm in config.get("sub_models", []) if sm["name"] == "root"]
    layers = root[0] if root else [l["name"] for l in config["layers"]]
    cpu, gpu = _run_and_collect(gm, slots, layers), _run_and_collect(twin, slots, layers)
    assert sorted(cpu) == sorted(gpu), "CPU and GPU runs produced different outputs"
    for key in cpu:
        if key.endswith(".ids"):
            np.testing.assert_array_equal(gpu[key], cpu[key], err_msg=key)
            continue
        scale = max(1.0, float(np.abs(cpu[key]).max(initial=0)))
        np.testing.assert_allclose(gpu[key], cpu[key], rtol=rtol, atol=atol * scale,
                                   err_msg="GPU/CPU parity: " + key)


# Weight dims of each projection type, as the config parser writes them (v1 §6.4).
PROJ_DIMS = {"fc": lambda i, o: [i, o], "trans_fc": lambda i, o: [o, i], "table": lambda i, o: [i, o],
             "dot_mul": lambda i, o: [1, o], "scaling": lambda i, o: [1, 1]}


def _mixed(net, name, type_, size, projs, ops=(), act="", bias=False, std=0.3, **fields):
    """projs: (input_name, input_size, proj_type, output_size, extra proj_conf fields);
    ops: (op_type, [input names], [input sizes], output_size, extra operator fields)."""
    inputs = []
    for i, (in_name, in_size, ptype, out_size, extra) in enumerate(projs):
        pname = "_%s.w%d" % (name, i)
        entry = {"input_layer_name": in_name,
                 "proj_conf": dict({"type": ptype, "name": pname, "input_size": in_size,
                                    "output_size": out_size}, **extra)}
        if ptype in PROJ_DIMS:
            entry["input_parameter_name"] = net.param(pname, PROJ_DIMS[ptype](in_size, out_size), std)
        inputs.append(entry)
    op_confs = []
    for op_type, names, sizes, out_size, extra in ops:
        idx = []
        for n in names:
            idx.append(len(inputs))
            inputs.append({"input_layer_name": n})
        op_confs.append(dict({"type": op_type, "input_indices": idx, "input_sizes": sizes,
                              "output_size": out_size}, **extra))
    layer = dict({"name": name, "type": type_, "size": size, "active_type": act, "inputs": inputs}, **fields)
    if op_confs:
        layer["operator_confs"] = op_confs
    if bias:
        layer["bias_parameter_name"] = net.param("_%s.wbias" % name, [1, size], 0.1)
    net.layers.append(layer)
    return name


def _mixed_method(self, name, size, projs, ops=(), act="", bias=False, std=0.3, **fields):
    return _mixed(self, name, "mixed", size, projs, ops, act, bias, std, **fields)


def _concat2_method(self, name, size, projs, act="", bias=False, std=0.3, **fields):
    return _mixed(self, name, "concat2", size, projs, (), act, bias, std, **fields)


def _layer_with_params(self, name, type_, size, inputs, params=(), bias_dims=None, act="", **fields):
    """inputs: names, or (name, extra input fields) pairs; params: per input, dims or None;
    bias_dims: dims of the bias, or None for no bias."""
    ins = []
    for i, spec in enumerate(inputs):
        in_name, extra = (spec, {}) if isinstance(spec, str) else spec
        entry = dict({"input_layer_name": in_name}, **extra)
        if i < len(params) and params[i] is not None:
            spec_p = params[i]
            dims, kw = spec_p if isinstance(spec_p, tuple) and isinstance(spec_p[-1], dict) else (spec_p, {})
            entry["input_parameter_name"] = self.param("_%s.w%d" % (name, i), dims, **kw)
        ins.append(entry)
    layer = dict({"name": name, "type": type_, "size": size, "active_type": act, "inputs": ins}, **fields)
    if bias_dims is not None:
        layer["bias_parameter_name"] = self.param("_%s.wbias" % name, bias_dims, 0.1)
    self.layers.append(layer)
    return name


Net.mixed = _mixed_method
Net.concat2 = _concat2_method
Net.layer_p = _layer_with_params


def forward_values(gm, slots, layer, pass_type=None):
    """Forward (PASS_GC unless told) and return the named layer's output value as a numpy array."""
    out = api.Arguments.createArguments(0)
    gm.forward(make_args(slots), out, api.PASS_GC if pass_type is None else pass_type)
    return gm.getLayerOutput(layer).getSlotValue(0).copyToNumpyMat()


def forward_output(gm, slots, layer, pass_type=None):
    """Forward, then (value, seq_starts or None, sub_seq_starts or None) of the named layer."""
    out = api.Arguments.createArguments(0)
    gm.forward(make_args(slots), out, api.PASS_GC if pass_type is None else pass_type)
    a = gm.getLayerOutput(layer)
    starts = a.getSlotSequenceStartPositions(0)
    sub = a.getSlotSubSequenceStartPositions(0)
    return (a.getSlotValue(0).copyToNumpyMat(), None if starts is None else starts.copyToNumpyArray(),
            None if sub is None else sub.copyToNumpyArray())


def sum_cost_net_output(net, name, size):
    """Puts a square_error cost against a data target after `name` (so any layer can be checked)."""
    target = net.data("target_" + name, size)
    net.output(net.layer("cost_" + name, "square_error", 1, [name, target], coeff=1.0))
    return target


def rand(rng, *shape):
    """Standard normal float32 test data."""
    return rng.randn(*shape).astype(np.float32)


def out_size(img, f, p, s, caffe=True):
    """v1's output size of a conv or pool window (caffe_mode rounds down, else up)."""
    num = 2 * p + img - f
    return 1 + (num // s if caffe else -(-num // s))
