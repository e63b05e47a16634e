"""v1's Python-side training API on top of the SWIG classes.

v1's `py_paddle` added these in Python (`util.monkeypatches`): protobuf conversions
of the config objects, callbacks for backward, `Trainer.create(proto, model)`, the
trainer's own data feed (`trainOneBatch`), and friends. The engine keeps configs
as protobuf JSON, so every conversion goes through `paddle.proto`.
"""
import os
import struct

import numpy as np

from paddle.proto import get_message_class, message_from_json, message_to_json
from py_paddle import ownership, swig_paddle as api
from py_paddle.feed import slots_to_arguments

# Flags given to initPaddle ("--config=...", "--config_args=..."), for
# Trainer.createByCommandLine.
_FLAGS = {}

_CONFIG_MESSAGES = {
    api.ParameterConfig: "ParameterConfig",
    api.OptimizationConfig: "OptimizationConfig",
    api.ModelConfig: "ModelConfig",
    api.TrainerConfig: "TrainerConfig",
}


def _json_of(obj, cls):
    """The protobuf JSON of `obj`: an API config object, a protobuf message, or JSON text."""
    if isinstance(obj, cls):
        return obj.toJson()
    if isinstance(obj, str):
        return obj
    if hasattr(obj, "DESCRIPTOR"):
        want = _CONFIG_MESSAGES[cls]
        if obj.DESCRIPTOR.name != want:
            raise TypeError("expected a %s message, got %s" % (want, obj.DESCRIPTOR.name))
        return message_to_json(obj)
    raise TypeError("expected a %s (API object, protobuf message or JSON), got %s"
                    % (cls.__name__, type(obj).__name__))


def _add_proto_conversions(cls, message):
    def create_from_proto(proto):
        return cls.createFromJson(_json_of(proto, cls))

    def create_from_proto_string(data):
        msg = get_message_class(message)()
        msg.ParseFromString(data)
        return cls.createFromJson(message_to_json(msg))

    def to_proto(self):
        return message_from_json(message, self.toJson())

    cls.createFromProto = staticmethod(create_from_proto)
    cls.createFromProtoString = staticmethod(create_from_proto_string)
    cls.toProto = to_proto
    cls.toProtoString = lambda self: self.toProto().SerializeToString()


def _trainer_config_from_file(config_path, config_args=""):
    from paddle.trainer.config_parser import parse_config
    return api.TrainerConfig.createFromProto(parse_config(config_path, config_args))


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


class LayerOutput(dict):
    """One layer's output as v0.10's getLayerOutputs gave it: {'value': the dense output
    (ndarray) or None, 'id': the ids (ndarray) or None, 'prob': Argument.in, where a max-id
    layer keeps the probability of each id it chose (ndarray) or None}. v0.9 returned the bare 'value' matrix, so
    anything but a string key, numpy's conversions and array attributes (shape, argmax ...)
    go to 'value'."""

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


def _call_update_callback(gm, callback):
    """v1 calls back once per non-static parameter as its gradient becomes final:
    the last layers' parameters first."""
    if callback is None:
        return
    apply = callback.apply if hasattr(callback, "apply") else callback
    for i in reversed(range(gm.getNonStaticParameterSize())):
        apply(gm.getNonStaticParameter(i))


def load_parameter_file(path_or_file):
    """A v1 parameter file as a float32 array. A path is read by the engine's own reader
    (regular files only, header and size checked, NaN/inf refused, the file named in every
    error); an open binary file gets the same checks here."""
    if isinstance(path_or_file, (str, bytes, os.PathLike)):
        return api.Vector.createFromParameterFile(os.fsdecode(path_or_file)).copyToNumpyArray()
    name = "'%s'" % getattr(path_or_file, "name", "<parameter stream>")
    header = path_or_file.read(16)
    if len(header) != 16:
        raise api.IOError("%s is too short for a parameter header (%d bytes)" % (name, len(header)))
    version, value_size, count = struct.unpack("<iIQ", header)
    if version != 0 or value_size != 4:
        raise api.IOError("%s is not a v1 float32 parameter file (version %d, value size %d)"
                          % (name, version, value_size))
    data = np.frombuffer(path_or_file.read(), dtype=np.float32)
    if data.size != count:
        raise api.IOError("%s says %d values but holds %d" % (name, count, data.size))
    bad = np.flatnonzero(~np.isfinite(data))
    if bad.size:
        raise api.IOError("%s: value %d is %s (a parameter must be finite)" % (name, bad[0], data[bad[0]]))
    return data.copy()


class ISequenceResults(object):
    """The N best sequences generated for one input, best first (v1's ISequenceResults)."""

    def __init__(self, paths, words):
        self._paths, self._words = paths, words  # [(ids, log probability)]

    def _path(self, i):
        if not 0 <= i < len(self._paths):
            raise api.RangeError("result %d out of range (%d results)" % (i, len(self._paths)))
        return self._paths[i]

    def getSize(self):
        return len(self._paths)

    __len__ = getSize

    def getSequence(self, i):
        return list(self._path(i)[0])

    def getScore(self, i):
        return self._path(i)[1]

    def getSentence(self, i, split=False):
        ids = self._path(i)[0]
        if any(not 0 <= t < len(self._words) for t in ids):
            raise api.RangeError("result %d has an id outside the dictionary of %d words" % (i, len(self._words)))
        return (" " if split else "").join(self._words[t] for t in ids)


class SequenceGenerator(object):
    """v1's GradientMachine.asSequenceGenerator over a beam_search config.

    v1 stepped a one-step network and kept the beam itself; here the config's
    beam_search group does the search inside the engine. The setters override the
    config's bos/eos ids, maximum length and beam size (the machine is rebuilt with
    them and reads the parameters of the original one)."""

    def __init__(self, gm, words, bos, eos, max_length, beam_size):
        self._gm, self._words = gm, list(words or [])
        config = message_from_json("ModelConfig", gm.getModelConfigJson())
        groups = [sm for sm in config.sub_models if sm.HasField("generator")]
        if len(groups) != 1:
            raise api.UnsupportError("asSequenceGenerator needs a config with one beam_search group, found %d"
                                     % len(groups))
        self._config, self._group = config, groups[0].name
        self._result_layer = groups[0].out_links[0].link_name  # the generated ids
        self._overrides = {}
        self._machine = None
        for key, value in (("bos", bos), ("eos", eos), ("max_length", max_length), ("beam_size", beam_size)):
            if value is not None and value != 2 ** 64 - 1 and value != -1:
                self._overrides[key] = int(value)

    def setDict(self, words):
        self._words = list(words)

    def _set(self, key, value):
        self._overrides[key] = int(value)
        self._machine = None

    def setBos(self, bos):
        self._set("bos", bos)

    def setEos(self, eos):
        self._set("eos", eos)

    def setMaxLength(self, max_length):
        self._set("max_length", max_length)

    def setBeamSize(self, beam_size):
        if beam_size not in (-1, 2 ** 64 - 1):  # v1: -1 keeps the current beam
            self._set("beam_size", beam_size)

    def _tuned_machine(self):
        if not self._overrides:
            return self._gm
        if self._machine is None:
            config = type(self._config)()
            config.CopyFrom(self._config)
            sub = next(sm for sm in config.sub_models if sm.name == self._group)
            gen, o = sub.generator, self._overrides
            if "beam_size" in o:
                gen.beam_size = gen.num_results_per_sample = o["beam_size"]
            if "max_length" in o:
                gen.max_num_frames = o["max_length"]
            if "eos" in o:
                for layer in config.layers:
                    if layer.name.split("@")[0] == gen.eos_layer_name.split("@")[0]:
                        layer.eos_id = o["eos"]
            if "bos" in o:
                for memory in sub.memories:
                    if memory.HasField("boot_with_const_id"):
                        memory.boot_with_const_id = o["bos"]
            self._machine = api.GradientMachine.createByConfigJson(message_to_json(config), self._gm.isGpu(), 1)
        for mine, theirs in zip(self._machine.getParameters(), self._gm.getParameters()):
            mine.getBuf(api.PARAMETER_VALUE).copyFrom(theirs.getBuf(api.PARAMETER_VALUE))
        return self._machine

    def generateSequence(self, in_args):
        """in_args: one sample (v1: exactly one input sequence). Returns its N best results."""
        gm = self._tuned_machine()
        out = api.Arguments.createArguments(0)
        gm.forward(in_args, out, api.PASS_TEST)
        gen = gm.getLayerOutput(self._result_layer)
        ids = gen.getSlotIds(0).copyToNumpyArray()
        starts = gen.getSlotSequenceStartPositions(0).copyToNumpyArray()
        if len(starts) != 2:
            raise ValueError("generateSequence takes one input sample, got %d" % (len(starts) - 1))
        sub = gen.getSlotSubSequenceStartPositions(0)
        cuts = sub.copyToNumpyArray() if sub is not None else starts
        scores = gm.getLayerOutput(self._group, "scores").getSlotValue(0)
        scores = scores.copyToNumpyMat().reshape(-1) if scores is not None else np.zeros(len(cuts) - 1)
        return ISequenceResults([(ids[cuts[k]:cuts[k + 1]].tolist(), float(scores[k])) for k in range(len(cuts) - 1)],
                                self._words)


def _patch_gradient_machine():
    gm_cls = api.GradientMachine
    raw_backward, raw_forward_backward = gm_cls.backward, gm_cls.forwardBackward
    raw_by_model_config = gm_cls.createByModelConfig

    def create_from_config_proto(model_config, createMode=api.CREATE_MODE_NORMAL, paramTypes=None, **kwargs):
        use_gpu = kwargs.get("use_gpu", api.isUsingGpu())
        return gm_cls.createByConfigJson(_json_of(model_config, api.ModelConfig), use_gpu, kwargs.get("seed", 1))

    def create_by_config_proto_str(proto_str, createMode=api.CREATE_MODE_NORMAL, paramTypes=None):
        return create_from_config_proto(api.ModelConfig.createFromProtoString(proto_str), createMode, paramTypes)

    def create_by_model_config(conf, createMode=api.CREATE_MODE_NORMAL, paramTypes=()):
        if not isinstance(conf, api.ModelConfig):
            conf = api.ModelConfig.createFromProto(conf)
        return raw_by_model_config(conf, createMode, api.IntVector([int(t) for t in paramTypes]))

    def load_from_config_file(config_filename, model_dir=None):
        gm = create_by_model_config(_trainer_config_from_file(config_filename).getModelConfig())
        gm.loadParameters(model_dir if model_dir is not None else os.path.dirname(config_filename))
        return gm

    def backward(self, callback=None):
        raw_backward(self)
        _call_update_callback(self, callback)

    def forward_backward(self, in_args, out_args, pass_type, callback=None):
        raw_forward_backward(self, in_args, out_args, pass_type)
        _call_update_callback(self, callback)

    def forward_test(self, in_args):
        out = api.Arguments.createArguments(0)
        self.forward(in_args, out, api.PASS_TEST)
        return _arguments_to_dicts(out)

    def get_layer_outputs(self, layer_names):
        """v0.10: {name: LayerOutput} ({'value', 'id', 'prob'}; also usable as the 'value'
        array, as v0.9 returned it)."""
        if isinstance(layer_names, str):
            layer_names = [layer_names]
        elif not isinstance(layer_names, (list, tuple)):
            raise TypeError("getLayerOutputs takes a layer name or a list of names, got %r" % (layer_names,))
        return {name: LayerOutput(self.getLayerOutput(name)) for name in layer_names}

    def get_parameters(self):
        for i in range(self.getParameterSize()):
            yield self.getParameter(i)

    def get_non_static_parameters(self):
        for i in range(self.getNonStaticParameterSize()):
            yield self.getNonStaticParameter(i)

    def as_sequence_generator(self, dict=None, begin_id=None, end_id=None, max_length=None, beam_size=None):
        """v1's names; a value left out (None) keeps the config's."""
        return SequenceGenerator(self, dict, begin_id, end_id, max_length, beam_size)

    gm_cls.asSequenceGenerator = as_sequence_generator
    gm_cls.createFromConfigProto = staticmethod(create_from_config_proto)
    gm_cls.createByConfigProtoStr = staticmethod(create_by_config_proto_str)
    gm_cls.createByModelConfig = staticmethod(create_by_model_config)
    gm_cls.loadFromConfigFile = staticmethod(load_from_config_file)
    gm_cls.backward = backward
    gm_cls.forwardBackward = forward_backward
    gm_cls.forwardTest = forward_test
    gm_cls.getLayerOutputs = get_layer_outputs
    gm_cls.getParameters = get_parameters
    gm_cls.getNonStaticParameters = get_non_static_parameters


def _patch_parameter():
    def get_bufs(self):
        """v1: every buffer type in order; None for those this parameter does not have."""
        for t in range(api.NUM_PARAMETER_TYPES):
            yield self.getBuf(t) if self.hasBuf(t) else None

    api.Parameter.__len__ = api.Parameter.getSize
    api.Parameter.getBufs = get_bufs


def _patch_optimizers():
    upd, opt = api.ParameterUpdater, api.ParameterOptimizer
    raw_local, raw_opt_create = upd.createLocalUpdater, opt.create

    def create_local_updater(config):
        if isinstance(config, (str, api.OptimizationConfig)):
            return raw_local(config)
        return raw_local(api.OptimizationConfig.createFromProto(config))

    def optimizer_create(config):
        if not isinstance(config, api.OptimizationConfig):
            config = api.OptimizationConfig.createFromProto(config)
        return raw_opt_create(config)

    upd.createLocalUpdater = staticmethod(create_local_updater)
    upd.createFromConfigProto = staticmethod(create_local_updater)
    opt.create = staticmethod(optimizer_create)
    # v1 returned a callback for optimizers that visit parameters outside update();
    # these update rules need none.
    opt.needSpecialTraversal = lambda self, config: None


def _patch_trainer():
    tr = api.Trainer
    raw_create, raw_start_pass, raw_finish_train = tr.create, tr.startTrainPass, tr.finishTrain

    def create(config, model=None, *args):
        """v1: Trainer.create(trainer_config_proto, gradient_machine=None); also the
        engine's Trainer.create(json, use_gpu, trainer_count, seed)."""
        if isinstance(config, str):
            trainer = raw_create(config, *((model,) + args if model is not None else args))
            proto = None
        else:
            proto = config if hasattr(config, "DESCRIPTOR") else config.toProto()
            tc = config if isinstance(config, api.TrainerConfig) else api.TrainerConfig.createFromProto(config)
            trainer = raw_create(tc, model)
        trainer._config_proto, trainer._provider, trainer._train_batches = proto, None, None
        return trainer

    def create_from_config_proto(trainer_config, use_gpu=None, trainer_count=None, seed=1):
        use_gpu = api.isUsingGpu() if use_gpu is None else use_gpu
        trainer_count = api.getTrainerCount() if trainer_count is None else trainer_count
        trainer = raw_create(message_to_json(trainer_config), use_gpu, trainer_count, seed)
        trainer._config_proto, trainer._provider, trainer._train_batches = trainer_config, None, None
        return trainer

    def create_by_command_line():
        """v1: the trainer of initPaddle's --config (and --config_args)."""
        if not _FLAGS.get("config"):
            raise api.IOError("Trainer.createByCommandLine: initPaddle was given no --config=FILE")
        from paddle.trainer.config_parser import parse_config
        return create(parse_config(_FLAGS["config"], _FLAGS.get("config_args", "")))

    def next_batch(self):
        """The next batch of the config's training data (None at the end of the pass)."""
        pending = getattr(self, "_prepared", None)
        if pending is not None:
            self._prepared = None
            return pending
        if getattr(self, "_provider", None) is None:
            proto = getattr(self, "_config_proto", None)
            if proto is None or not proto.HasField("data_config"):
                raise api.UnsupportError("this trainer's config defines no training data "
                                         "(define_py_data_sources2): feed batches with trainOneDataBatch")
            from paddle.trainer.data_provider import DataProvider
            self._provider = DataProvider.from_trainer_config(proto, for_test=False)
        if getattr(self, "_batch_size", None):
            self._provider.batch_size = self._batch_size  # from the provider's next pass
        if getattr(self, "_train_batches", None) is None:
            self._train_batches = iter(self._provider.batches())  # the provider's next pass
        return next(self._train_batches, None)

    def set_batch_size(self, batch_size):
        """v1: the batch size of trainOneBatch / prepareBatchData, from the next pass on."""
        if batch_size not in (None, -1, 2 ** 64 - 1):
            self._batch_size = int(batch_size)

    def start_train_pass(self, pass_id=-1):
        raw_start_pass(self, pass_id)
        self._train_batches = self._prepared = None  # the data starts over each pass

    def finish_train(self):
        raw_finish_train(self)
        if getattr(self, "_provider", None) is not None:
            self._provider.close()
            self._provider = self._train_batches = None

    def prepare_batch_data(self, batchSize=None):
        """v1 (2016): fetches the next batch for finishTrainOneBatch / forwardOneBatch;
        True once the pass's data is used up."""
        set_batch_size(self, batchSize)
        self._prepared = next_batch(self)
        return self._prepared is None

    def finish_train_one_batch(self):
        """v1 (2016): trains on the batch prepareBatchData fetched."""
        batch = getattr(self, "_prepared", None)
        if batch is None:
            raise api.UnsupportError("finishTrainOneBatch: no batch prepared (call prepareBatchData first)")
        self._prepared = None
        self.trainOneDataBatch(batch.size, slots_to_arguments(batch.slots))

    def train_one_batch(self, batchSize=None):
        """v1: trains on the next batch of the config's data; True once the pass's data is used up."""
        set_batch_size(self, batchSize)
        batch = next_batch(self)
        if batch is None:
            return True
        self.trainOneDataBatch(batch.size, slots_to_arguments(batch.slots))
        return False

    def forward_one_batch(self, batchSize=None):
        """v1: forward (test mode) on the prepared or the next batch of the config's data;
        read getForwardOutput(). True once the pass's data is used up."""
        set_batch_size(self, batchSize)
        batch = next_batch(self)
        if batch is None:
            return True
        self.forwardOneDataBatch(slots_to_arguments(batch.slots))
        return False

    raw_forward_output = tr.getForwardOutput
    tr.create = staticmethod(create)
    tr.createFromConfigProto = staticmethod(create_from_config_proto)
    tr.createByCommandLine = staticmethod(create_by_command_line)
    tr.startTrainPass = start_train_pass
    tr.finishTrain = finish_train
    tr.trainOneBatch = train_one_batch
    tr.setBatchSize = set_batch_size
    tr.prepareBatchData = prepare_batch_data
    tr.finishTrainOneBatch = finish_train_one_batch
    tr.getNetworkOutput = raw_forward_output
    tr.forwardOneBatch = forward_one_batch
    tr.getForwardOutput = lambda self: _arguments_to_dicts(raw_forward_output(self))


def _patch_init_paddle():
    raw = api.initPaddle

    def init_paddle(*args):
        """v1 style: initPaddle("--use_gpu=0", "--trainer_count=2", "--config=trainer_config.py")."""
        for a in args:
            key, _, value = str(a).lstrip("-").partition("=")
            _FLAGS[key] = value
        raw(*args)

    api.initPaddle = init_paddle


def install():
    ownership.install()  # first: the patches below wrap its checked calls
    api.SequenceGenerator, api.ISequenceResults = SequenceGenerator, ISequenceResults
    for cls, message in _CONFIG_MESSAGES.items():
        _add_proto_conversions(cls, message)
    api.TrainerConfig.createFromTrainerConfigFile = staticmethod(_trainer_config_from_file)
    api.Evaluator.toString = api.Evaluator.__repr__
    api.Arguments.sumCosts = api.Arguments.sum  # the name some v1 demos used
    _patch_gradient_machine()
    _patch_parameter()
    _patch_optimizers()
    _patch_trainer()
    _patch_init_paddle()
