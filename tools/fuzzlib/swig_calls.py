"""The SWIG family: random sequences of py_paddle calls (issue 28).

A case is a seeded sequence of calls on a small pool of live objects: GradientMachines,
Arguments, Matrix/Vector/IVector objects (zero-copy or copied), their numpy views and the
numpy arrays they alias. Calls create, overwrite (set, copyFrom*, writes through views),
resize, wire (setSlot*), run (forward, backward) and drop objects; some pass wrong types,
shapes or indices. Every object has a shadow: the numpy contents it must hold. Oracles:
- a call raises only an API error (TypeError, ValueError, IndexError, RuntimeError, ...);
  anything else (AttributeError, SystemError, KeyError ...) is an escape ("internal");
- every object, view and output still holds its shadow after its owners are dropped and
  their memory reused ("silent" otherwise; a dangling read may also crash the worker);
- forward outputs and backward gradients equal a reference machine's on fresh copies of
  the same inputs and parameters ("silent" otherwise).
"""
import ctypes
import gc
import os
import random
import signal
import time

from fuzzlib.runner import Outcome

CONFIG = """from paddle.trainer_config_helpers import *
settings(batch_size=4, learning_rate=0.01)
x = data_layer(name='x', size=%(width)d)
h = fc_layer(input=x, size=5, act=TanhActivation())
out = fc_layer(input=h, size=3, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='label', size=3)))
"""
WIDTH = 6
API_ERRORS = (TypeError, ValueError, IndexError, RuntimeError, OverflowError, MemoryError, OSError,
              NotImplementedError)
_CACHE = {}


def _model(work):
    """The ModelConfig proto, fixed parameter values and a reference machine (made once per worker)."""
    if "model" not in _CACHE:
        import numpy as np
        from paddle.trainer.config_parser import parse_config
        from py_paddle import swig_paddle as api
        api.initPaddle("--use_gpu=0")
        path = os.path.join(work, "swig_conf.py")
        with open(path, "w") as f:
            f.write(CONFIG % {"width": WIDTH})
        proto = parse_config(path, "").model_config
        ref = api.GradientMachine.createFromConfigProto(proto)
        rng = np.random.RandomState(28)
        params = [rng.uniform(-1, 1, p.getSize()).astype(np.float32) for p in ref.getParameters()]
        _CACHE.update(model=proto, params=params, ref=ref)
    return _CACHE["model"], _CACHE["params"], _CACHE["ref"]


class Pool(object):
    """The live objects of a case and what each must hold."""

    def __init__(self, rng, np, api):
        self.rng, self.np, self.api = rng, np, api
        self.objs = {}     # key -> object
        self.kind = {}     # key -> "mat" | "vec" | "ivec" | "view" | "array" | "args" | "gm"
        self.shadow = {}   # key -> ndarray (mat/vec/ivec/view/array); args: {(slot, field): ([sources], [candidates])}
        self.group = {}    # key -> id of the memory it shares with other keys
        self.volatile = {}  # key -> the gm whose next forward may overwrite it (its outputs and their views)
        self.param_of = {}  # view key -> (gm key, parameter index) it shows
        self.next = 0
        self.refused = 0

    def add(self, kind, obj, shadow, share_with=None):
        key = "%s%d" % (kind, self.next)
        self.next += 1
        self.objs[key], self.kind[key], self.shadow[key] = obj, kind, shadow
        self.group[key] = self.group[share_with] if share_with in self.group else key
        if share_with in self.volatile:
            self.volatile[key] = self.volatile[share_with]
        return key

    def pick(self, *kinds):
        keys = sorted(k for k in self.objs if self.kind[k] in kinds)
        return self.rng.choice(keys) if keys else None

    def members(self, key):
        return sorted(k for k, g in self.group.items() if g == self.group.get(key) and k in self.objs)

    def drop(self, key):
        """Forgets the object (Python frees it when nothing else holds it) and reuses memory."""
        for table in (self.objs, self.kind, self.shadow, self.group, self.volatile):
            table.pop(key, None)
        for k, gm in list(self.volatile.items()):
            if gm == key:  # outputs outlive their machine: nothing overwrites them now
                del self.volatile[k]
        gc.collect()
        junk = [self.np.full(20000, -7.5, dtype=self.np.float32) for _ in range(16)]
        del junk

    def wrote(self, key):
        """key's contents changed: so did those of every key sharing its memory."""
        for k in self.members(key):
            if k != key:  # sharers start at the same address: the common prefix is shared
                n = min(self.shadow[k].size, self.shadow[key].size)
                self.shadow[k].reshape(-1)[:n] = self.shadow[key].reshape(-1)[:n]
        for k in self.members(key):
            self.changed(k)
            gm, i = self.param_of.get(k, (None, 0))
            if gm in self.objs:
                self.shadow[gm][i][...] = self.shadow[k]

    def changed(self, key):
        """key's contents changed: so may have those of the Arguments slots over its memory."""
        if self.kind[key] in ("args", "gm"):
            return
        mine = _inplace(self, key)
        for k, kind in list(self.kind.items()):
            if kind != "args":
                continue
            for (slot, field), (_, cands) in [(sf, e) for sf, e in self.shadow[k].items() if sf != "n"]:
                obj = (self.objs[k].getSlotIds if field == "ids" else self.objs[k].getSlotValue)(slot)
                if obj is None or not self.np.shares_memory(
                        obj.toNumpyArrayInplace() if field == "ids" else obj.toNumpyMatInplace(), mine):
                    continue
                # the slot shows the new contents, or keeps its own size over the shared buffer
                new, last = self.shadow[key], cands[-1].copy()
                n = min(new.size, last.size)
                last.reshape(-1)[:n] = new.reshape(-1)[:n]
                cands += [new.copy(), last]
                del cands[:-6]


def _inplace(pool, key):
    """A numpy array over the memory key's object holds now."""
    obj, kind = pool.objs[key], pool.kind[key]
    if kind == "mat":
        return obj.toNumpyMatInplace()
    if kind in ("vec", "ivec"):
        return obj.toNumpyArrayInplace()
    return obj


# --------------------------------------------------------------------------- buffers
def _content(pool, key):
    np, obj, kind = pool.np, pool.objs[key], pool.kind[key]
    if kind == "mat":
        return obj.copyToNumpyMat()
    if kind in ("vec", "ivec"):
        return obj.copyToNumpyArray()
    return np.array(obj)


def _random_array(pool, kind, shape=None):
    np, rng = pool.np, pool.rng
    if shape is None:
        shape = (rng.choice([1, 2, 3, 4, 7]), rng.choice([WIDTH, WIDTH, 1, 3, 9])) if kind == "mat" else \
            (rng.choice([1, 2, 4, 5, 40]),)
    if kind == "ivec":
        return np.array([rng.randrange(-1, 4) for _ in range(int(np.prod(shape)))], dtype=np.int32).reshape(shape)
    return np.array([round(rng.uniform(-2, 2), 3) for _ in range(int(np.prod(shape)))],
                    dtype=np.float32).reshape(shape)


def op_new_buffer(pool):
    api, rng = pool.api, pool.rng
    kind = rng.choice(["mat", "mat", "vec", "ivec"])
    arr = _random_array(pool, kind)
    how = rng.randrange(4)
    if how == 0:  # a zero-copy object over an array the pool keeps (and may drop)
        if kind == "mat":
            obj = api.Matrix.createCpuDenseFromNumpy(arr, copy=False)
        else:
            obj = (api.Vector if kind == "vec" else api.IVector).createCpuVectorFromNumpy(arr, copy=False)
        pool.add("array", arr, arr.copy(), share_with=pool.add(kind, obj, arr.copy()))
        return
    if how == 1:
        obj = api.Matrix.createCpuDenseFromNumpy(arr, copy=True) if kind == "mat" else \
            (api.Vector if kind == "vec" else api.IVector).createCpuVectorFromNumpy(arr, copy=True)
    elif how == 2:
        if kind == "mat":
            obj = api.Matrix.createZero(*arr.shape)
        else:
            obj = (api.Vector if kind == "vec" else api.IVector).createZero(arr.size)
        arr = arr * 0
    else:
        if kind == "mat":
            obj = api.Matrix.createDense([float(v) for v in arr.ravel()], *arr.shape)
        else:
            obj = (api.Vector if kind == "vec" else api.IVector).create([v.item() for v in arr])
    pool.add(kind, obj, arr.copy())


def op_set(pool):
    key = pool.pick("mat", "vec", "ivec")
    if key is None:
        return
    rng, shadow, obj = pool.rng, pool.shadow[key], pool.objs[key]
    index = tuple(rng.randrange(-1, n + 2) for n in shadow.shape)
    value = rng.randrange(-3, 4) if pool.kind[key] == "ivec" else round(rng.uniform(-3, 3), 2)
    if pool.kind[key] == "mat":
        obj.set(*(index + (value,)))  # an index outside the shape must be refused
    else:
        obj[index[0]] = value  # (-1: the last, as in Python)
    if any(i < (0 if pool.kind[key] == "mat" else -n) or i >= n for i, n in zip(index, shadow.shape)):
        raise Outcome("silent", "%s.set%r outside its shape %r was accepted" % (key, index, shadow.shape))
    shadow[index] = value
    pool.wrote(key)


def op_copy_from(pool):
    key = pool.pick("mat", "vec", "ivec")
    if key is None:
        return
    np, kind, obj = pool.np, pool.kind[key], pool.objs[key]
    shape = pool.shadow[key].shape if pool.rng.random() < 0.5 else None
    arr = _random_array(pool, kind, shape)
    if pool.rng.random() < 0.1:
        arr = arr.astype(np.float64 if kind == "ivec" else np.int32)  # the wrong dtype
    others = [k for k in pool.members(key) if k != key]
    if kind == "mat":
        obj.copyFromNumpyMat(arr)
    else:
        obj.copyFromNumpyArray(arr)
    pool.shadow[key] = arr.astype(pool.shadow[key].dtype).reshape(arr.shape)
    # What shared the old buffer either still shares it (same size) and shows the new contents,
    # or keeps the old buffer, untouched: which one is the engine's choice, a mix is wrong.
    fresh = _inplace(pool, key)
    pool.group[key] = "copy%d" % pool.next
    pool.next += 1
    for k in others:
        if np.shares_memory(_inplace(pool, k), fresh):
            pool.group[k] = pool.group[key]
    pool.wrote(key)


def op_view(pool):
    key = pool.pick("mat", "vec", "ivec")
    if key is None:
        return
    obj = pool.objs[key]
    view = obj.toNumpyMatInplace() if pool.kind[key] == "mat" else obj.toNumpyArrayInplace()
    pool.add("view", view, pool.shadow[key].copy(), share_with=key)


def op_write(pool):
    """A write through a view or through an array a zero-copy object aliases."""
    key = pool.pick("view", "array")
    if key is None:
        return
    arr, shadow = pool.objs[key], pool.shadow[key]
    value = pool.rng.randrange(-3, 4)
    index = tuple(pool.rng.randrange(n) for n in shadow.shape) if shadow.size else None
    if index is None:
        return
    arr[index] = value
    shadow[index] = value
    pool.wrote(key)


def op_check(pool):
    key = pool.pick("mat", "vec", "ivec", "view", "array")
    if key is not None:
        _check(pool, key)


def _check(pool, key):
    np = pool.np
    got, want = _content(pool, key), pool.shadow[key]
    if got.shape != want.shape or not np.array_equal(got, want):
        raise Outcome("silent", "%s holds %s, expected %s" % (key, _short(got), _short(want)))


def _short(a):
    return "%s%s" % (a.shape, a.ravel()[:6].tolist())


def op_drop(pool):
    key = pool.pick("mat", "vec", "ivec", "view", "array", "args", "gm")
    if key is not None:
        pool.drop(key)


def op_new_args(pool):
    n = pool.rng.choice([0, 1, 2, 2, 3])
    pool.add("args", pool.api.Arguments.createArguments(n), {"n": n})


def op_set_slot(pool):
    args = pool.pick("args")
    if args is None:
        return
    rng, shadow = pool.rng, pool.shadow[args]
    slot = rng.choice([0, 0, 1, 1, 2, -1])
    use_ids = rng.random() < 0.5
    key = pool.pick(*(("ivec", "mat") if use_ids else ("mat", "ivec")))
    obj = pool.objs[key] if key is not None else None
    if rng.random() < 0.1:
        obj, key = rng.choice([3, "x", pool.np.ones(3)]), None
    if use_ids:
        pool.objs[args].setSlotIds(slot, obj)
    else:
        pool.objs[args].setSlotValue(slot, obj)
    field = "ids" if use_ids else "value"
    if obj is None and 0 <= slot < shadow["n"]:  # None empties the slot
        shadow.pop((slot, field), None)
        return
    if not (0 <= slot < shadow["n"]) or key is None or pool.kind[key] != ("ivec" if use_ids else "mat"):
        raise Outcome("silent", "setSlot%s(%d, %s) on %d slots was accepted" % (
            "Ids" if use_ids else "Value", slot, key, shadow["n"]))
    shadow[(slot, field)] = ([key], [pool.shadow[key].copy()])


def op_good_batch(pool):
    """An Arguments the model takes: zero-copy or copied inputs, kept or dropped by the caller."""
    np, api, rng = pool.np, pool.api, pool.rng
    n = rng.choice([1, 2, 4])
    x = _random_array(pool, "mat", (n, WIDTH))
    ids = np.array([rng.randrange(3) for _ in range(n)], np.int32)
    copy = rng.random() < 0.5
    mat, ivec = api.Matrix.createCpuDenseFromNumpy(x, copy=copy), api.IVector.createCpuVectorFromNumpy(ids, copy=copy)
    args = api.Arguments.createArguments(2)
    args.setSlotValue(0, mat)
    args.setSlotIds(1, ivec)
    keys = []
    if rng.random() < 0.5:  # the caller keeps handles (and may overwrite them later)
        keys = [pool.add("mat", mat, x.copy()), pool.add("ivec", ivec, ids.copy())]
        if not copy:
            pool.add("array", x, x.copy(), share_with=keys[0])
            pool.add("array", ids, ids.copy(), share_with=keys[1])
    shadow = {"n": 2, (0, "value"): (keys[:1], [x.copy()]), (1, "ids"): (keys[1:], [ids.copy()])}
    del mat, ivec, x, ids
    pool.add("args", args, shadow)
    gc.collect()


def op_resize(pool):
    args = pool.pick("args")
    if args is None:
        return
    n = pool.rng.choice([0, 1, 2, 3])
    pool.objs[args].resize(n)
    shadow = pool.shadow[args]
    for slot_field in [k for k in shadow if k != "n" and k[0] >= n]:
        del shadow[slot_field]
    shadow["n"] = n


def op_read_slot(pool):
    """A slot's contents (through a getter that must outlive its Arguments)."""
    args = pool.pick("args")
    entries = [k for k in pool.shadow[args] if k != "n"] if args else []
    if not entries:
        return
    slot, field = pool.rng.choice(sorted(entries))
    getter = pool.objs[args].getSlotIds if field == "ids" else pool.objs[args].getSlotValue
    obj = getter(slot)
    got = obj.copyToNumpyArray() if field == "ids" else obj.copyToNumpyMat()
    if not any(got.shape == c.shape and pool.np.array_equal(got, c) for c in pool.shadow[args][(slot, field)][1]):
        raise Outcome("silent", "%s slot %d %s holds %s, not one of %s" % (
            args, slot, field, _short(got), [_short(c) for c in pool.shadow[args][(slot, field)][1]]))
    kind = "ivec" if field == "ids" else "mat"
    new = pool.add(kind, obj, got.copy())
    mine = _inplace(pool, new)
    for k in sorted(pool.objs):  # the getter shares the slot's memory, and so whatever else does
        if k != new and pool.kind[k] in ("mat", "vec", "ivec", "view", "array") and \
                pool.np.shares_memory(_inplace(pool, k), mine):
            pool.group[new] = pool.group[k]
            break


def op_new_machine(pool):
    proto, params, _ = _model(None)
    gm = pool.api.GradientMachine.createFromConfigProto(proto)
    for p, value in zip(gm.getParameters(), params):
        p.getBuf(pool.api.PARAMETER_VALUE).copyFromNumpyArray(value)
    pool.add("gm", gm, [v.copy() for v in params])


def op_param_view(pool):
    gm = pool.pick("gm")
    if gm is None:
        return
    i = pool.rng.randrange(len(pool.shadow[gm]))
    view = pool.objs[gm].getParameter(i).getBuf(pool.api.PARAMETER_VALUE).toNumpyArrayInplace()
    key = pool.add("view", view, pool.shadow[gm][i].copy())
    pool.group[key] = "%s/p%d" % (gm, i)
    pool.param_of[key] = (gm, i)
    if pool.rng.random() < 0.5:  # a write through it is a write to the machine's parameter
        j = pool.rng.randrange(view.size)
        view[j] = pool.shadow[key][j] = 0.5
        pool.wrote(key)


def _inputs(pool, args):
    """Copies of the batch an Arguments holds now (value slot 0, ids slot 1), or None."""
    a = pool.objs[args]
    if a.getSlotNum() != 2:
        return None
    if a.getSlotIds(0) is not None or a.getSlotValue(1) is not None:
        return "other"  # slots the reference does not copy: no comparison
    try:
        return a.getSlotValue(0).copyToNumpyMat(), a.getSlotIds(1).copyToNumpyArray()
    except API_ERRORS + (AttributeError,):
        return None


def _reference(pool, gm, inputs, train):
    """The same forward (and backward) on the reference machine, on copies: (outputs, grads) or the error."""
    api, np = pool.api, pool.np
    _, _, ref = _model(None)
    for p, value in zip(ref.getParameters(), pool.shadow[gm]):
        p.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(value)
        p.getBuf(api.PARAMETER_GRADIENT).copyFromNumpyArray(np.zeros_like(value))
    args = api.Arguments.createArguments(2)
    args.setSlotValue(0, api.Matrix.createCpuDenseFromNumpy(inputs[0].copy()))
    args.setSlotIds(1, api.IVector.createCpuVectorFromNumpy(inputs[1].copy()))
    out = api.Arguments.createArguments(0)
    try:
        ref.forward(args, out, api.PASS_TRAIN if train else api.PASS_TEST)
        if train:
            ref.backward()
    except API_ERRORS as e:
        return e
    return (out.getSlotValue(0).copyToNumpyMat(),
            [p.getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray() for p in ref.getParameters()] if train else None)


def op_forward(pool):
    gm, args = pool.pick("gm"), pool.pick("args")
    if gm is None or args is None:
        return
    api, np = pool.api, pool.np
    train = pool.rng.random() < 0.4
    inputs = _inputs(pool, args)
    machine = pool.objs[gm]
    for p in machine.getParameters():
        g = p.getBuf(api.PARAMETER_GRADIENT)
        g.copyFromNumpyArray(np.zeros(g.getSize(), np.float32))
    out = api.Arguments.createArguments(0)
    for k in [k for k, owner in pool.volatile.items() if owner == gm]:
        pool.drop(k)  # this forward overwrites the last one's outputs (and views of them)
    if inputs == "other":
        machine.forward(pool.objs[args], out, api.PASS_TEST)
        return
    ref = _reference(pool, gm, inputs, train) if inputs is not None else None
    try:
        machine.forward(pool.objs[args], out, api.PASS_TRAIN if train else api.PASS_TEST)
        if pool.rng.random() < 0.3:  # drop the caller's handles before backward reads the batch
            pool.drop(args)
        if train:
            machine.backward()
    except API_ERRORS as e:
        if isinstance(ref, tuple):
            raise Outcome("silent", "forward refused a batch the reference machine takes: %s: %s" % (
                type(e).__name__, e))
        raise
    if not isinstance(ref, tuple):
        raise Outcome("silent", "forward took a batch the reference refuses (%s)" % (ref or "unreadable slots"))
    value = out.getSlotValue(0)
    got = value.copyToNumpyMat()
    if got.shape != ref[0].shape or not np.array_equal(got, ref[0]):
        raise Outcome("silent", "forward of %s gave %s, the reference %s" % (gm, _short(got), _short(ref[0])))
    if train:
        for i, (p, want) in enumerate(zip(machine.getParameters(), ref[1])):
            g = p.getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray()
            if not np.array_equal(g, want):
                raise Outcome("silent", "backward of %s: gradient %d differs from the reference's" % (gm, i))
    # An output may alias the machine's layer buffer until its next forward: kept only until
    # then, and after the machine is dropped.
    pool.volatile[pool.add("mat", value, got.copy())] = gm


def op_wrong_call(pool):
    """Calls the API with a wrong type, shape or size: each must be refused."""
    api, rng, np = pool.api, pool.rng, pool.np
    calls = [lambda: api.Matrix.createZero(-1, 3), lambda: api.Matrix.createDense([1.0, 2.0, 3.0], 1, 2),
             lambda: api.Matrix.createCpuDenseFromNumpy(np.ones((2, 2, 2), np.float32)),
             lambda: api.Arguments.createArguments(-2), lambda: api.Vector.create(["a"]),
             lambda: api.Matrix.createCpuDenseFromNumpy("not an array")]
    key = pool.pick("mat")
    if key is not None:
        m = pool.objs[key]
        calls += [lambda: m.get(10 ** 6, 0), lambda: m.copyFromNumpyMat(np.ones(5, np.float32)),
                  lambda: m.set(0, 0, "x"), lambda: m.set(-1, 0, 1.0)]
    gm = pool.pick("gm")
    if gm is not None:
        g = pool.objs[gm]
        calls += [lambda: g.getParameter(99), lambda: g.forward(None, api.Arguments.createArguments(0), api.PASS_TEST),
                  lambda: g.forward(api.Arguments.createArguments(2), api.Arguments.createArguments(0), api.PASS_TEST)]
    before = {k: _content(pool, k).copy() for k in pool.objs if pool.kind[k] in ("mat", "vec", "ivec")}
    which = rng.randrange(len(calls))
    try:
        result = calls[which]()
    except API_ERRORS:
        for k, content in before.items():  # a refused call changes nothing
            _check(pool, k)
        raise
    raise Outcome("silent", "wrong call %d was accepted and returned %r" % (which, result))


OPS = [(op_new_buffer, 6), (op_set, 4), (op_copy_from, 4), (op_view, 4), (op_write, 3), (op_check, 4),
       (op_drop, 5), (op_new_args, 3), (op_set_slot, 6), (op_resize, 1), (op_read_slot, 3), (op_new_machine, 2),
       (op_param_view, 2), (op_forward, 6), (op_wrong_call, 3), (op_good_batch, 4)]


def _plant(pool, kind):
    """A deliberate fault, to show the oracles catch each kind (tests/fuzz)."""
    if kind == "crash":
        if "asan" in os.environ.get("LD_PRELOAD", ""):
            os.kill(os.getpid(), signal.SIGKILL)  # (ASan would report a real segfault)
        ctypes.string_at(0)
    elif kind == "hang":
        time.sleep(3600)
    elif kind == "escape":
        raise AttributeError("'SwigPyObject' object has no attribute 'planted'")
    elif kind == "silent":  # an engine that writes into a machine's parameters behind the caller's back
        op_new_machine(pool)
        gm = pool.pick("gm")
        p = pool.objs[gm].getParameter(0).getBuf(pool.api.PARAMETER_VALUE)
        p[0] = p[0] + 0.25
        pool.add("mat", pool.api.Matrix.createCpuDenseFromNumpy(_random_array(pool, "mat", (2, WIDTH))), None)
        key = pool.add("args", pool.api.Arguments.createArguments(2), {"n": 2})
        a = pool.objs[key]
        a.setSlotValue(0, pool.api.Matrix.createCpuDenseFromNumpy(_random_array(pool, "mat", (2, WIDTH))))
        a.setSlotIds(1, pool.api.IVector.createCpuVectorFromNumpy(pool.np.array([0, 1], pool.np.int32)))
        for k in [k for k in pool.objs if pool.kind[k] in ("gm", "args") and k not in (gm, key)]:
            pool.drop(k)
        op_forward(pool)


def run_case(case, work):
    import numpy as np
    from py_paddle import swig_paddle as api
    _model(work)
    rng = random.Random(case["seed_value"])
    pool = Pool(rng, np, api)
    ops, weights = zip(*OPS)
    steps = case.get("steps", 30)
    plant_at = rng.randrange(steps) if case.get("plant") else -1
    for step in range(steps):
        op = rng.choices(ops, weights)[0]
        if step == plant_at:
            op = lambda pool: _plant(pool, case["plant"])  # noqa: E731
        if os.environ.get("FUZZ_TRACE"):
            print(step, op.__name__, sorted(pool.objs), flush=True)
        try:
            op(pool)
        except Outcome as e:
            raise Outcome(e.kind, "step %d %s: %s" % (step, op.__name__, e))
        except API_ERRORS:
            pool.refused += 1
        except Exception as e:  # noqa: B902 -- anything else escaped the API
            raise Outcome("internal", "step %d %s: %s: %s" % (step, op.__name__, type(e).__name__, e))
    # The end: every object still holds what it should, also after the rest is dropped.
    for key in sorted(pool.objs):
        if pool.kind[key] in ("mat", "vec", "ivec", "view", "array") and pool.shadow[key] is not None:
            _check(pool, key)
    for key in sorted(k for k in pool.objs if pool.kind[k] in ("gm", "args", "array", "mat", "vec", "ivec")):
        pool.drop(key)
    for key in sorted(pool.objs):
        _check(pool, key)
    return {"outcome": "clean" if pool.refused else "ok", "detail": "%d calls refused" % pool.refused}
