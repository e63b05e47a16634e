// The Python side of Arguments, the config objects, Parameter, Evaluator, GradientMachine
// and Predictor, written into the classes SWIG generates (nothing is patched at import):
// - %pythonprepend / %pythonappend put a check or a reference before / after a C++ call
//   and keep its signature and its docstring (docstrings*.i); in appended code `val` is
//   what the call returned;
// - a method whose Python signature differs from the C++ one is renamed _name here and
//   defined below in an %extend block, with its docstring.
// paddle.i includes this file before PaddleAPI.h, so each directive reaches its declaration.
//
// Lifetimes: the engine aliases numpy arrays it was given with copy=False, and the buffers
// of an Arguments alias each other; the C++ side holds no reference to Python objects. So
// the Python side does: an Arguments holds what was set into its slots, what its getters
// return holds the Arguments (and what the slot aliased), a GradientMachine or Trainer
// holds its last input batch (its data layers alias it until the next forward: backward
// and getLayerOutput read it), and their outputs hold that batch too.
//
// Threads: a GradientMachine's layers keep the state of its last forward and its outputs
// alias them, so two threads sharing one give each other's results. A machine therefore
// belongs to the thread that last ran it until that thread ends or calls releaseThread();
// another thread gets a RuntimeError. (Predictor is the thread-safe way to serve.)

%pythoncode %{
import threading as _threading

import numpy as _np

from paddle import proto as _proto


def _held(args):
    """{(field, slot): object} an Arguments keeps alive because a slot aliases it."""
    h = args.__dict__.get("_held")
    if h is None:
        h = args._held = {}
    return h


def _hold(args, field, idx, obj):
    if obj is None:
        _held(args).pop((field, idx), None)
    else:
        _held(args)[(field, idx)] = obj


def _attach_owner(args, field, idx, out):
    """What a slot getter returned keeps the Arguments and what the slot aliases alive."""
    if out is not None:
        out._owner = (args, args.__dict__.get("_held", {}).get((field, idx)))


def _release(args, idx, *fields):
    """After a bulk copy the slot's fields no longer alias what was set before."""
    for f in fields:
        _held(args).pop((f, idx), None)


def _release_beyond(args, slot_num):
    held = _held(args)
    for key in [k for k in held if k[1] >= slot_num]:
        del held[key]


_claim_lock = _threading.Lock()


def _claim(gm, method):
    """Lets the calling thread use `gm`, or raises naming the thread that uses it."""
    me = _threading.current_thread()
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


def _keep_inputs(gm, in_args, out_args):
    gm._inputs = in_args  # the data layers alias it until the next forward
    if out_args is not None:
        out_args._machine_inputs = in_args


def _json_of(obj, cls):
    """The protobuf JSON of `obj`: a `cls` config object, a protobuf message of the
    same name, or JSON text."""
    if isinstance(obj, cls):
        return obj.toJson()
    if isinstance(obj, str):
        return obj
    if hasattr(obj, "DESCRIPTOR"):
        if obj.DESCRIPTOR.name != cls.__name__:
            raise TypeError("expected a %s message, got %s" % (cls.__name__, obj.DESCRIPTOR.name))
        return _proto.message_to_json(obj)
    raise TypeError("expected a %s (API object, protobuf message or JSON), got %s"
                    % (cls.__name__, type(obj).__name__))


def _arguments_to_dicts(args):
    """v1's forwardTest format: one {'value': ndarray, 'id': ndarray} per slot (missing keys absent)."""
    out = []
    for i in range(args.getSlotNum()):
        value = args.getSlotValue(i)
        ids = args.getSlotIds(i)
        item = {}
        if value is not None and not value.isSparse():
            item["value"] = value.copyToNumpyMat()
        if ids is not None:
            item["id"] = ids.copyToNumpyArray()
        out.append(item)
    return out


def _call_update_callback(gm, callback):
    """v1 calls back once per non-static parameter as its gradient becomes final:
    the last layers' parameters first."""
    if callback is None:
        return
    apply = callback.apply if hasattr(callback, "apply") else callback
    for i in reversed(range(gm.getNonStaticParameterSize())):
        apply(gm.getNonStaticParameter(i))


class _LayerOutput(dict):
    """One layer's output as v0.10's getLayerOutputs gave it: {'value': the dense output
    (ndarray) or None, 'id': the ids (ndarray) or None, 'prob': Argument.in, where a max-id
    layer keeps the probability of each id it chose (ndarray) or None}. v0.9 returned the
    bare 'value' matrix, so anything but a string key, numpy's conversions and array
    attributes (shape, argmax ...) go to 'value'."""

    def __init__(self, args):
        def dense(m):
            return m.copyToNumpyMat() if m is not None and not m.isSparse() else None
        value = ids = prob = None
        if args.getSlotNum():
            value, ids, prob = dense(args.getSlotValue(0)), args.getSlotIds(0), dense(args.getSlotIn(0))
        super().__init__(value=value, id=ids.copyToNumpyArray() if ids is not None else None, prob=prob)

    def _array(self):
        value = dict.get(self, "value")
        if value is None:
            value = dict.get(self, "id")
        if value is None:
            raise ValueError("this layer output has no value and no ids")
        return value

    def __getitem__(self, key):
        return dict.__getitem__(self, key) if isinstance(key, str) else self._array()[key]

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._array(), name)

    def __array__(self, dtype=None, copy=None):
        a = self._array()
        return a.astype(dtype) if dtype is not None else a


def _machine_of_v1_merged_model(path, use_gpu):
    """A GradientMachine of a v1 merged model (py_paddle.v1_merged_model reads the file)."""
    from py_paddle import v1_merged_model
    model, values = v1_merged_model.read(path)
    gm = GradientMachine.createByConfigJson(_proto.message_to_json(model), use_gpu, 1)
    params = list(gm.getParameters())
    names = [p.getName() for p in params]
    if names != [p.name for p in model.parameters]:
        raise ValueError("%s: the machine's parameters %s are not the config's order %s"
                         % (path, names, [p.name for p in model.parameters]))
    for p, v in zip(params, values):
        p.getBuf(PARAMETER_VALUE).copyFromNumpyArray(v)
    return gm


def _is_v1_merged_model(path):
    from py_paddle import v1_merged_model
    return v1_merged_model.is_v1_merged_model(path)


def _predictor_of_v1_merged_model(path, use_gpu):
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as d:  # the engine's Predictor reads this project's layout
        converted = os.path.join(d, "model.paddle")
        _machine_of_v1_merged_model(path, use_gpu).saveMergedModel(converted)
        return Predictor.createFromMergedModel(converted, use_gpu)
%}

// ---------------------------------------------------------------- Arguments: what slots alias
%pythonappend Arguments::setSlotValue %{_hold(self, "Value", idx, mat)%}
%pythonappend Arguments::setSlotGrad %{_hold(self, "Grad", idx, mat)%}
%pythonappend Arguments::setSlotIn %{_hold(self, "In", idx, mat)%}
%pythonappend Arguments::setSlotIds %{_hold(self, "Ids", idx, vec)%}
%pythonappend Arguments::setSlotSequenceStartPositions %{_hold(self, "SequenceStartPositions", idx, vec)%}
%pythonappend Arguments::setSlotSubSequenceStartPositions %{_hold(self, "SubSequenceStartPositions", idx, vec)%}
%pythonappend Arguments::setSlotSequenceDim %{_hold(self, "SequenceDim", idx, vec)%}
%pythonappend Arguments::getSlotValue %{_attach_owner(self, "Value", idx, val)%}
%pythonappend Arguments::getSlotGrad %{_attach_owner(self, "Grad", idx, val)%}
%pythonappend Arguments::getSlotIn %{_attach_owner(self, "In", idx, val)%}
%pythonappend Arguments::getSlotIds %{_attach_owner(self, "Ids", idx, val)%}
%pythonappend Arguments::getSlotSequenceStartPositions %{_attach_owner(self, "SequenceStartPositions", idx, val)%}
%pythonappend Arguments::getSlotSubSequenceStartPositions %{
_attach_owner(self, "SubSequenceStartPositions", idx, val)
%}
%pythonappend Arguments::getSlotSequenceDim %{_attach_owner(self, "SequenceDim", idx, val)%}
%pythonappend Arguments::setSlotValueFromBuffer %{_release(self, idx, "Value")%}
%pythonappend Arguments::setSlotIdsFromBuffer %{_release(self, idx, "Ids")%}
%pythonappend Arguments::setSlotSequenceStartPositionsFromBuffer %{_release(self, idx, "SequenceStartPositions")%}
%pythonappend Arguments::setSlotSubSequenceStartPositionsFromBuffer %{
_release(self, idx, "SubSequenceStartPositions")
%}
%pythonappend Arguments::setSlotSparseFromBuffers %{_release(self, idx, "Value")%}
%pythonappend Arguments::resize %{_release_beyond(self, slotNum)%}

%extend Arguments {
%pythoncode %{
def sumCosts(self):
    """The sum of the first slot's values: a cost output's batch total (what some v1 demos called ``sum``)."""
    return self.sum()

def setFromSlots(self, slots):
    """Copies a batch of the front end's data provider into the slots, one bulk copy per buffer.

    Resized to one slot per SlotData; the arrays are not referenced afterwards.

    Args:
        slots (list of SlotData): ``batch.slots`` of ``paddle.trainer.data_provider``.
    """
    if self.getSlotNum() != len(slots):
        self.resize(len(slots))
    for i, slot in enumerate(slots):
        if getattr(slot, "sparse_rows", None) is not None:
            values = slot.sparse_values
            self.setSlotSparseFromBuffers(
                i, _np.ascontiguousarray(slot.sparse_rows, dtype=_np.int32),
                _np.ascontiguousarray(slot.sparse_cols, dtype=_np.int32),
                _np.zeros(0, dtype=_np.float32) if values is None else _np.ascontiguousarray(values, dtype=_np.float32),
                int(slot.dim))
        if slot.value is not None:
            self.setSlotValueFromBuffer(i, _np.ascontiguousarray(slot.value, dtype=_np.float32))
        if slot.ids is not None:
            self.setSlotIdsFromBuffer(i, _np.ascontiguousarray(slot.ids, dtype=_np.int32))
        if slot.seq_starts is not None:
            self.setSlotSequenceStartPositionsFromBuffer(i, _np.ascontiguousarray(slot.seq_starts, dtype=_np.int32))
        if getattr(slot, "sub_seq_starts", None) is not None:
            self.setSlotSubSequenceStartPositionsFromBuffer(
                i, _np.ascontiguousarray(slot.sub_seq_starts, dtype=_np.int32))
%}
}

// ---------------------------------------------------------------- config objects <-> protobuf
// Each config class has a protobuf message of the same name (paddle.proto).
%define PD_PROTO_CONVERSIONS(CLASS)
%extend CLASS {
%pythoncode %{
@staticmethod
def createFromProto(proto):
    """The config object of a protobuf message of the same name (v1's createFromProto).

    Args:
        proto (message): the message (e.g. from ``parse_config``), or already a config
            object of this class, or its protobuf JSON text.

    Returns:
        The config object, owned by the caller.

    Raises:
        TypeError: a message of another type.
    """
    return CLASS.createFromJson(_json_of(proto, CLASS))

@staticmethod
def createFromProtoString(data):
    """The config object of a serialized protobuf message of the same name.

    Args:
        data (bytes): the message's protobuf wire format (``SerializeToString()``).

    Returns:
        The config object, owned by the caller.
    """
    msg = _proto.get_message_class(CLASS.__name__)()
    msg.ParseFromString(data)
    return CLASS.createFromJson(_proto.message_to_json(msg))

def toProto(self):
    """A new protobuf message of the same name with this config (a copy: changing it changes nothing here)."""
    return _proto.message_from_json(type(self).__name__, self.toJson())

def toProtoString(self):
    """The config as a serialized protobuf message of the same name (bytes)."""
    return self.toProto().SerializeToString()
%}
}
%enddef
PD_PROTO_CONVERSIONS(ParameterConfig)
PD_PROTO_CONVERSIONS(OptimizationConfig)
PD_PROTO_CONVERSIONS(ModelConfig)
PD_PROTO_CONVERSIONS(TrainerConfig)

%extend TrainerConfig {
%pythoncode %{
@staticmethod
def createFromTrainerConfigFile(config_path, config_args=""):
    """Runs a config file through the config parser (in this process) and returns its TrainerConfig.

    Args:
        config_path (str): the config file (a v1 Python config).
        config_args (str, default ""): its ``get_config_arg`` values, "name=value,...".

    Returns:
        TrainerConfig: owned by the caller.
    """
    from paddle.trainer.config_parser import parse_config
    return TrainerConfig.createFromProto(parse_config(config_path, config_args))
%}
}

// ---------------------------------------------------------------- Parameter, Evaluator
%extend Parameter {
%pythoncode %{
def __len__(self):
    return self.getSize()

def getBufs(self):
    """v1: yields a buffer for every ParameterType in order (NUM_PARAMETER_TYPES of them):
    a Vector sharing the engine's memory, or None for those this parameter does not have.
    ``list(parameter.getBufs())`` is what ParameterOptimizer.update also takes."""
    for t in range(NUM_PARAMETER_TYPES):
        yield self.getBuf(t) if self.hasBuf(t) else None
%}
}

%extend Evaluator {
%pythoncode %{
def toString(self):
    """"name=value ..." for every evaluator, as v1 printed it (also ``repr``)."""
    return self.__repr__()
%}
}

// ---------------------------------------------------------------- GradientMachine, Predictor
%pythonprepend GradientMachine::forward %{_claim(self, "forward")%}
%pythonappend GradientMachine::forward %{_keep_inputs(self, inArgs, outArgs)%}
%pythonprepend GradientMachine::getLayerOutput %{_claim(self, "getLayerOutput")%}
%pythonappend GradientMachine::getLayerOutput %{val._machine_inputs = self.__dict__.get("_inputs")%}
%pythonprepend GradientMachine::eval %{_claim(self, "eval")%}
// v1's merged-model files too (the engine reads this project's; py_paddle.v1_merged_model v1's)
%pythonprepend GradientMachine::createFromMergedModel %{
if _is_v1_merged_model(path):
    return _machine_of_v1_merged_model(path, useGpu)
%}
%pythonprepend Predictor::createFromMergedModel %{
if _is_v1_merged_model(path):
    return _predictor_of_v1_merged_model(path, useGpu)
%}
// These take v1's extra arguments in Python (a callback, a protobuf message).
%rename(_backward) GradientMachine::backward;
%rename(_forwardBackward) GradientMachine::forwardBackward;
%rename(_createByModelConfig) GradientMachine::createByModelConfig;

%extend GradientMachine {
%pythoncode %{
@staticmethod
def createFromConfigProto(model_config, createMode=CREATE_MODE_NORMAL, paramTypes=None, **kwargs):
    """A machine of a ModelConfig protobuf message (v1's createFromConfigProto).

    Args:
        model_config (message): a ModelConfig message (``parse_config(...).model_config``),
            a ModelConfig object or its JSON.
        createMode (int, default CREATE_MODE_NORMAL): accepted for v1 scripts
            (buffers are made when first needed).
        paramTypes (list of int, default None): accepted for v1 scripts.
        **kwargs: ``use_gpu`` (default isUsingGpu()) and ``seed`` (default 1) of the
            parameters' initialisation.

    Returns:
        GradientMachine: owned by the caller.
    """
    use_gpu = kwargs.get("use_gpu", isUsingGpu())
    return GradientMachine.createByConfigJson(_json_of(model_config, ModelConfig), use_gpu, kwargs.get("seed", 1))

@staticmethod
def createByConfigProtoStr(proto_str, createMode=CREATE_MODE_NORMAL, paramTypes=None):
    """A machine of a serialized ModelConfig message.

    Args:
        proto_str (bytes): the message's wire format (``SerializeToString()``).
        createMode (int, default CREATE_MODE_NORMAL): accepted for v1 scripts.
        paramTypes (list of int, default None): accepted for v1 scripts.

    Returns:
        GradientMachine: owned by the caller, on the GPU when isUsingGpu().
    """
    return GradientMachine.createFromConfigProto(ModelConfig.createFromProtoString(proto_str), createMode,
                                                 paramTypes)

@staticmethod
def createByModelConfig(conf, createMode=CREATE_MODE_NORMAL, paramTypes=()):
    """A machine of a ModelConfig (v1's createByModelConfig), parameters from seed 1.

    Args:
        conf (ModelConfig): e.g. ``TrainerConfig.getModelConfig()``, or the protobuf message.
        createMode (int, default CREATE_MODE_NORMAL): checked, then ignored
            (buffers are made when an optimizer first needs them).
        paramTypes (list of int, optional): ParameterTypes; checked, then ignored.

    Returns:
        GradientMachine: owned by the caller, on the GPU when isUsingGpu().
    """
    if not isinstance(conf, ModelConfig):
        conf = ModelConfig.createFromProto(conf)
    return GradientMachine._createByModelConfig(conf, createMode, IntVector([int(t) for t in paramTypes]))

@staticmethod
def loadFromConfigFile(config_filename, model_dir=None):
    """A machine of a config file with the parameters of a saved pass (v1's util.loadGradientMachine).

    Args:
        config_filename (str): the config file (parsed in this process).
        model_dir (str, default None): the pass directory; None: the config's directory.

    Returns:
        GradientMachine: owned by the caller.
    """
    import os
    config = TrainerConfig.createFromTrainerConfigFile(config_filename)
    gm = GradientMachine.createByModelConfig(config.getModelConfig())
    gm.loadParameters(model_dir if model_dir is not None else os.path.dirname(config_filename))
    return gm

def backward(self, callback=None):
    """Computes the gradients of the last forward (run with PASS_TRAIN) into the parameters' gradient buffers.

    Args:
        callback (UpdateCallback or callable, default None): called with each
            non-static Parameter, last layer first, once the whole backward is done
            (v1 called it during backward).

    Raises:
        RuntimeError: the machine belongs to another thread.
    """
    _claim(self, "backward")
    self._backward()
    _call_update_callback(self, callback)

def forwardBackward(self, in_args, out_args, pass_type, callback=None):
    """forward, then backward: one training step's gradients (apply them with a ParameterUpdater).

    Args:
        in_args (Arguments): one slot per data layer, labels included.
        out_args (Arguments): filled with the outputs (for cost outputs, each
            sample's cost: ``out_args.sum()`` is the batch's total).
        pass_type (int): PASS_TRAIN (what ``ParameterUpdater.startBatch`` returns).
        callback (UpdateCallback or callable, default None): called with each
            non-static Parameter after backward, last layer first.

    Raises:
        RuntimeError: the machine belongs to another thread.
    """
    _claim(self, "forwardBackward")
    self._forwardBackward(in_args, out_args, pass_type)
    _keep_inputs(self, in_args, out_args)
    _call_update_callback(self, callback)

def forwardTest(self, in_args):
    """Runs a PASS_TEST forward and returns copies of the outputs (v1's forwardTest).

    Args:
        in_args (Arguments): one slot per data layer.

    Returns:
        list of dict: one per output layer, {'value': ndarray} for dense outputs
        and {'id': ndarray} for ids (keys absent when the output has none).
    """
    out = Arguments.createArguments(0)
    self.forward(in_args, out, PASS_TEST)
    return _arguments_to_dicts(out)

def getLayerOutputs(self, layer_names):
    """Copies of some layers' outputs of the last forward (v0.10's getLayerOutputs).

    Args:
        layer_names (str or list of str): the layers.

    Returns:
        dict: {name: LayerOutput}, a dict {'value', 'id', 'prob'} of ndarrays (None
        when absent) that also acts as its 'value' array, as v0.9 returned it.
    """
    if isinstance(layer_names, str):
        layer_names = [layer_names]
    elif not isinstance(layer_names, (list, tuple)):
        raise TypeError("getLayerOutputs takes a layer name or a list of names, got %r" % (layer_names,))
    return {name: _LayerOutput(self.getLayerOutput(name)) for name in layer_names}

def getParameters(self):
    """Yields every Parameter, in the config's order (static ones included)."""
    for i in range(self.getParameterSize()):
        yield self.getParameter(i)

def getNonStaticParameters(self):
    """Yields the Parameters an optimizer updates (the non-static ones)."""
    for i in range(self.getNonStaticParameterSize()):
        yield self.getNonStaticParameter(i)

def asSequenceGenerator(self, dict=None, begin_id=None, end_id=None, max_length=None, beam_size=None):
    """A SequenceGenerator over this machine's beam_search group (v1's names).

    Args:
        dict (list of str, default None): the dictionary, id -> word.
        begin_id (int, default None): the begin id; None keeps the config's.
        end_id (int, default None): the end id; None keeps the config's.
        max_length (int, default None): the most words; None keeps the config's.
        beam_size (int, default None): the beam; None keeps the config's.

    Returns:
        SequenceGenerator: reads this machine's parameters.
    """
    return SequenceGenerator(self, dict, begin_id, end_id, max_length, beam_size)

def releaseThread(self):
    """Hands the machine over: another thread may use it from now on.

    Call it from the thread that last ran the machine (or any thread once that one
    has ended); another thread gets a RuntimeError.
    """
    me = _threading.current_thread()
    with _claim_lock:
        owner = self.__dict__.get("_user_thread")
        if owner is not None and owner is not me and owner.is_alive():
            raise RuntimeError("GradientMachine.releaseThread from thread '%s': the machine is used by "
                               "thread '%s', which alone may release it" % (me.name, owner.name))
        self._user_thread = None
%}
}
