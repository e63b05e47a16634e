"""Lifetimes and threads across the SWIG API.

Memory: the engine aliases numpy arrays it was given with copy=False, and the buffers of
an Arguments alias each other; the C++ side holds no reference to Python objects. So
the Python side does: an Arguments holds what was set into its slots, what its getters
return holds the Arguments (and what the slot aliased), a GradientMachine or Trainer
holds its last input batch (its data layers alias it until the next forward: backward
and getLayerOutput read it), and their outputs hold that batch too.

Threads: a GradientMachine's layers keep the state of its last forward and its outputs
alias them, so two threads sharing one give each other's results. A machine therefore
belongs to the thread that last ran it until that thread ends or calls releaseThread();
another thread gets a RuntimeError. (Predictor is the thread-safe way to serve.)
"""
import threading

from py_paddle import swig_paddle as api

_SLOT_FIELDS = ("Value", "Grad", "In", "Ids", "SequenceStartPositions", "SubSequenceStartPositions",
                "SequenceDim")
# bulk copies: after them the slot field no longer aliases what was set before
_COPYING_SETTERS = {"setSlotValueFromBuffer": ("Value",), "setSlotIdsFromBuffer": ("Ids",),
                    "setSlotSequenceStartPositionsFromBuffer": ("SequenceStartPositions",),
                    "setSlotSubSequenceStartPositionsFromBuffer": ("SubSequenceStartPositions",),
                    "setSlotSparseFromBuffers": ("Value",)}


def _documented_as(raw, wrapper):
    """`wrapper` with the reference docstring of the SWIG method it wraps (swig/docstrings*.i)."""
    wrapper.__doc__ = raw.__doc__
    return wrapper


def _held(args):
    h = args.__dict__.get("_held")
    if h is None:
        h = args._held = {}
    return h


def _patch_arguments():
    cls = api.Arguments

    def setter(raw, field):
        def set_slot(self, idx, obj):
            raw(self, idx, obj)
            if obj is None:
                _held(self).pop((field, idx), None)
            else:
                _held(self)[(field, idx)] = obj
        return _documented_as(raw, set_slot)

    def getter(raw, field):
        def get_slot(self, idx):
            out = raw(self, idx)
            if out is not None:
                out._owner = (self, self.__dict__.get("_held", {}).get((field, idx)))
            return out
        return _documented_as(raw, get_slot)

    def copying(raw, fields):
        def set_from_buffer(self, *args):  # (idx, buffers...): the SWIG signature
            raw(self, *args)
            for f in fields:
                _held(self).pop((f, args[0]), None)
        return _documented_as(raw, set_from_buffer)

    for field in _SLOT_FIELDS:
        setattr(cls, "setSlot" + field, setter(getattr(cls, "setSlot" + field), field))
        setattr(cls, "getSlot" + field, getter(getattr(cls, "getSlot" + field), field))
    for name, fields in _COPYING_SETTERS.items():
        setattr(cls, name, copying(getattr(cls, name), fields))
    raw_resize = cls.resize

    def resize(self, n):
        raw_resize(self, n)
        held = _held(self)
        for key in [k for k in held if k[1] >= n]:
            del held[key]
    cls.resize = _documented_as(raw_resize, resize)


_claim_lock = threading.Lock()


def _claim(gm, method):
    """Lets the calling thread use `gm`, or raises naming the thread that uses it."""
    me = threading.current_thread()
    with _claim_lock:
        owner = gm.__dict__.get("_user_thread")
        if owner is None or owner is me or not owner.is_alive():
            gm._user_thread = me
            return
    raise RuntimeError(
        "GradientMachine.%s from thread '%s': this GradientMachine is used by thread '%s', and it is not "
        "thread-safe (its outputs alias its layers, which the next forward overwrites). Use one machine per "
        "thread, a Predictor (Predictor.createFromMergedModel) for concurrent inference, or call "
        "releaseThread() in '%s' when it is done with the machine." % (method, me.name, owner.name, owner.name))


def _patch_gradient_machine():
    cls = api.GradientMachine

    def claimed(raw, name):
        def call(self, *args):
            _claim(self, name)
            return raw(self, *args)
        call.__name__ = name
        return _documented_as(raw, call)

    raw_forward, raw_forward_backward = cls.forward, cls.forwardBackward

    def keep_inputs(self, in_args, out_args):
        self._inputs = in_args  # the data layers alias it until the next forward
        if out_args is not None:
            out_args._machine_inputs = in_args

    def forward(self, in_args, out_args, pass_type):
        _claim(self, "forward")
        raw_forward(self, in_args, out_args, pass_type)
        keep_inputs(self, in_args, out_args)

    def forward_backward(self, in_args, out_args, pass_type):
        _claim(self, "forwardBackward")
        raw_forward_backward(self, in_args, out_args, pass_type)
        keep_inputs(self, in_args, out_args)

    raw_layer_output = cls.getLayerOutput

    def get_layer_output(self, *args):
        _claim(self, "getLayerOutput")
        out = raw_layer_output(self, *args)
        out._machine_inputs = self.__dict__.get("_inputs")
        return out

    def release_thread(self):
        """Hands the machine over: another thread may use it from now on.

        Call it from the thread that last ran the machine (or any thread once that one
        has ended); another thread gets a RuntimeError.
        """
        me = threading.current_thread()
        with _claim_lock:
            owner = self.__dict__.get("_user_thread")
            if owner is not None and owner is not me and owner.is_alive():
                raise RuntimeError("GradientMachine.releaseThread from thread '%s': the machine is used by "
                                   "thread '%s', which alone may release it" % (me.name, owner.name))
            self._user_thread = None

    cls.forward = _documented_as(raw_forward, forward)
    cls.forwardBackward = _documented_as(raw_forward_backward, forward_backward)
    cls.getLayerOutput = _documented_as(raw_layer_output, get_layer_output)
    cls.backward = claimed(cls.backward, "backward")
    cls.eval = claimed(cls.eval, "eval")
    cls.releaseThread = release_thread


def _patch_trainer():
    cls = api.Trainer

    def keeping(raw):
        def call(self, *args):
            self._inputs = args[-1]  # the batch's Arguments
            return raw(self, *args)
        return _documented_as(raw, call)

    def holding(raw):
        def call(self, *args):
            out = raw(self, *args)
            if out is not None:
                out._machine_inputs = self.__dict__.get("_inputs")
            return out
        return _documented_as(raw, call)

    for name in ("trainOneDataBatch", "forwardOneDataBatch", "testOneDataBatch"):
        setattr(cls, name, keeping(getattr(cls, name)))
    for name in ("getForwardOutput", "getLayerOutput"):
        setattr(cls, name, holding(getattr(cls, name)))


def install():
    _patch_arguments()
    _patch_gradient_machine()
    _patch_trainer()
