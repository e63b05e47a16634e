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
from py_paddle.sequence_generator import ISequenceResults, SequenceGenerator

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
        """The config object of a protobuf message (v1's createFromProto).

        Args:
            proto (message): a %(m)s message (e.g. from ``parse_config``), or
                already a %(c)s, or its protobuf JSON text.

        Returns:
            %(c)s: owned by the caller.

        Raises:
            TypeError: a message of another type.
        """
        return cls.createFromJson(_json_of(proto, cls))

    def create_from_proto_string(data):
        """The config object of a serialized %(m)s message.

        Args:
            data (bytes): the message's protobuf wire format (``SerializeToString()``).

        Returns:
            %(c)s: owned by the caller.
        """
        msg = get_message_class(message)()
        msg.ParseFromString(data)
        return cls.createFromJson(message_to_json(msg))

    def to_proto(self):
        """A new %(m)s protobuf message with this config (a copy: changing it changes nothing here)."""
        return message_from_json(message, self.toJson())

    def to_proto_string(self):
        """The config as a serialized %(m)s message (bytes)."""
        return self.toProto().SerializeToString()

    for fn in (create_from_proto, create_from_proto_string, to_proto, to_proto_string):
        fn.__doc__ = fn.__doc__ % {"m": message, "c": cls.__name__}
    cls.createFromProto = staticmethod(create_from_proto)
    cls.createFromProtoString = staticmethod(create_from_proto_string)
    cls.toProto = to_proto
    cls.toProtoString = to_proto_string


def _trainer_config_from_file(config_path, config_args=""):
    """Runs a config file through the config parser (in this process) and returns its TrainerConfig.

    Args:
        config_path (str): the config file (a v1 Python config).
        config_args (str, default ""): its ``get_config_arg`` values, "name=value,...".

    Returns:
        TrainerConfig: owned by the caller.
    """
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


def _patch_gradient_machine():
    gm_cls = api.GradientMachine
    raw_backward, raw_forward_backward = gm_cls.backward, gm_cls.forwardBackward
    raw_by_model_config = gm_cls.createByModelConfig

    def create_from_config_proto(model_config, createMode=api.CREATE_MODE_NORMAL, paramTypes=None, **kwargs):
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
        use_gpu = kwargs.get("use_gpu", api.isUsingGpu())
        return gm_cls.createByConfigJson(_json_of(model_config, api.ModelConfig), use_gpu, kwargs.get("seed", 1))

    def create_by_config_proto_str(proto_str, createMode=api.CREATE_MODE_NORMAL, paramTypes=None):
        """A machine of a serialized ModelConfig message.

        Args:
            proto_str (bytes): the message's wire format (``SerializeToString()``).
            createMode (int, default CREATE_MODE_NORMAL): accepted for v1 scripts.
            paramTypes (list of int, default None): accepted for v1 scripts.

        Returns:
            GradientMachine: owned by the caller, on the GPU when isUsingGpu().
        """
        return create_from_config_proto(api.ModelConfig.createFromProtoString(proto_str), createMode, paramTypes)

    def create_by_model_config(conf, createMode=api.CREATE_MODE_NORMAL, paramTypes=()):
        """A machine of a ModelConfig (v1's createByModelConfig), parameters from seed 1.

        Args:
            conf (ModelConfig): e.g. ``TrainerConfig.getModelConfig()``, or the protobuf message.
            createMode (int, default CREATE_MODE_NORMAL): checked, then ignored
                (buffers are made when an optimizer first needs them).
            paramTypes (list of int, optional): ParameterTypes; checked, then ignored.

        Returns:
            GradientMachine: owned by the caller, on the GPU when isUsingGpu().
        """
        if not isinstance(conf, api.ModelConfig):
            conf = api.ModelConfig.createFromProto(conf)
        return raw_by_model_config(conf, createMode, api.IntVector([int(t) for t in paramTypes]))

    def load_from_config_file(config_filename, model_dir=None):
        """A machine of a config file with the parameters of a saved pass (v1's util.loadGradientMachine).

        Args:
            config_filename (str): the config file (parsed in this process).
            model_dir (str, default None): the pass directory; None: the config's directory.

        Returns:
            GradientMachine: owned by the caller.
        """
        gm = create_by_model_config(_trainer_config_from_file(config_filename).getModelConfig())
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
        raw_backward(self)
        _call_update_callback(self, callback)

    def forward_backward(self, in_args, out_args, pass_type, callback=None):
        """forward, then backward: one training step's gradients (apply them with a ParameterUpdater).

        Args:
            in_args (Arguments): one slot per data layer, labels included.
            out_args (Arguments): filled with the outputs (for cost outputs, each
                sample's cost: ``out_args.sum()`` is the batch's total).
            pass_type (int): PASS_TRAIN (what ``ParameterUpdater.startBatch`` returns).
            callback (UpdateCallback or callable, default None): called with each
                non-static Parameter after backward, last layer first.
        """
        raw_forward_backward(self, in_args, out_args, pass_type)
        _call_update_callback(self, callback)

    def forward_test(self, in_args):
        """Runs a PASS_TEST forward and returns copies of the outputs (v1's forwardTest).

        Args:
            in_args (Arguments): one slot per data layer.

        Returns:
            list of dict: one per output layer, {'value': ndarray} for dense outputs
            and {'id': ndarray} for ids (keys absent when the output has none).
        """
        out = api.Arguments.createArguments(0)
        self.forward(in_args, out, api.PASS_TEST)
        return _arguments_to_dicts(out)

    def get_layer_outputs(self, layer_names):
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
        return {name: LayerOutput(self.getLayerOutput(name)) for name in layer_names}

    def get_parameters(self):
        """Yields every Parameter, in the config's order (static ones included)."""
        for i in range(self.getParameterSize()):
            yield self.getParameter(i)

    def get_non_static_parameters(self):
        """Yields the Parameters an optimizer updates (the non-static ones)."""
        for i in range(self.getNonStaticParameterSize()):
            yield self.getNonStaticParameter(i)

    def as_sequence_generator(self, dict=None, begin_id=None, end_id=None, max_length=None, beam_size=None):
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
        """v1: yields a buffer for every ParameterType in order (NUM_PARAMETER_TYPES of them):
        a Vector sharing the engine's memory, or None for those this parameter does not have.
        ``list(parameter.getBufs())`` is what ParameterOptimizer.update also takes."""
        for t in range(api.NUM_PARAMETER_TYPES):
            yield self.getBuf(t) if self.hasBuf(t) else None

    api.Parameter.__len__ = api.Parameter.getSize
    api.Parameter.getBufs = get_bufs


def _patch_optimizers():
    upd, opt = api.ParameterUpdater, api.ParameterOptimizer
    raw_local, raw_opt_create = upd.createLocalUpdater, opt.create

    def create_local_updater(config):
        """An updater applying a config's optimizer (v1's createLocalUpdater).

        Args:
            config (OptimizationConfig): or its protobuf message
                (``parse_config(...).opt_config``), or its JSON.

        Returns:
            ParameterUpdater: owned by the caller; call ``init(machine)`` next.
        """
        if isinstance(config, (str, api.OptimizationConfig)):
            return raw_local(config)
        return raw_local(api.OptimizationConfig.createFromProto(config))

    def optimizer_create(config):
        """The optimizer of a config's settings (v1's ParameterOptimizer.create).

        Args:
            config (OptimizationConfig): or its protobuf message.

        Returns:
            ParameterOptimizer: owned by the caller.
        """
        if not isinstance(config, api.OptimizationConfig):
            config = api.OptimizationConfig.createFromProto(config)
        return raw_opt_create(config)

    upd.createLocalUpdater = staticmethod(create_local_updater)
    upd.createFromConfigProto = staticmethod(create_local_updater)
    opt.create = staticmethod(optimizer_create)
    # v1 returned a callback for optimizers that visit parameters outside update();
    # these update rules need none.
    def need_special_traversal(self, config):
        """v1: a ParameterTraverseCallback for rules that visit parameters outside update(); always None here.

        Args:
            config (ParameterConfig): the parameter.
        """
        return None

    opt.needSpecialTraversal = need_special_traversal


def _patch_trainer():
    tr = api.Trainer
    raw_create, raw_start_pass, raw_finish_train = tr.create, tr.startTrainPass, tr.finishTrain

    def create(config, model=None, *args):
        """A Trainer of a config: v1's ``create(config, gradient_machine=None)`` or the engine's
        ``create(json, useGpu, trainerCount, seed, distributed, shardTables)``.

        Args:
            config (TrainerConfig or message or str): the parsed config (a TrainerConfig,
                the message ``parse_config`` returns), or its JSON for the engine's form.
            model (GradientMachine or bool, default None): v1: a machine to train (its
                parameters as they are); None makes one from the seed. With JSON:
                useGpu.
            *args: with JSON: trainerCount (0: chosen from the model and the CPUs),
                seed, distributed (MPI ranks), shardTables.

        Returns:
            Trainer: owned by the caller. With a message, ``trainOneBatch`` reads the
            config's own data.
        """
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
        """A Trainer of a TrainerConfig message.

        Args:
            trainer_config (message): what ``parse_config`` returns.
            use_gpu (bool, optional): train on the GPU; default: isUsingGpu().
            trainer_count (int, optional): machine replicas per batch; default: getTrainerCount().
            seed (int, default 1): the parameters' initialisation.

        Returns:
            Trainer: owned by the caller.
        """
        use_gpu = api.isUsingGpu() if use_gpu is None else use_gpu
        trainer_count = api.getTrainerCount() if trainer_count is None else trainer_count
        trainer = raw_create(message_to_json(trainer_config), use_gpu, trainer_count, seed)
        trainer._config_proto, trainer._provider, trainer._train_batches = trainer_config, None, None
        return trainer

    def create_by_command_line():
        """v1: the Trainer of initPaddle's --config (and --config_args), parsed in this process;
        IOError when initPaddle was given no --config."""
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
        """v1: the batch size of trainOneBatch / prepareBatchData, from the data's next pass on.

        Args:
            batch_size (int): the samples per batch; None or -1 keeps the current one.
        """
        if batch_size not in (None, -1, 2 ** 64 - 1):
            self._batch_size = int(batch_size)

    def start_train_pass(self, pass_id=-1):
        """Starts a training pass (statistics cleared; the config's data starts over).

        Args:
            pass_id (int, default -1): the pass number; -1 for the pass after the last one.
        """
        raw_start_pass(self, pass_id)
        self._train_batches = self._prepared = None  # the data starts over each pass

    def finish_train(self):
        """Ends training (closes the config's data provider if trainOneBatch opened it)."""
        raw_finish_train(self)
        if getattr(self, "_provider", None) is not None:
            self._provider.close()
            self._provider = self._train_batches = None

    def prepare_batch_data(self, batchSize=None):
        """v1 (2016): fetches the next batch of the config's data for finishTrainOneBatch / forwardOneBatch.

        Args:
            batchSize (int, default None): see setBatchSize.

        Returns:
            bool: True once the pass's data is used up.
        """
        set_batch_size(self, batchSize)
        self._prepared = next_batch(self)
        return self._prepared is None

    def finish_train_one_batch(self):
        """v1 (2016): trains on the batch prepareBatchData fetched (UnsupportError when none is prepared)."""
        batch = getattr(self, "_prepared", None)
        if batch is None:
            raise api.UnsupportError("finishTrainOneBatch: no batch prepared (call prepareBatchData first)")
        self._prepared = None
        self.trainOneDataBatch(batch.size, slots_to_arguments(batch.slots))

    def train_one_batch(self, batchSize=None):
        """v1: trains on the next batch of the config's own data (its data provider).

        Args:
            batchSize (int, default None): see setBatchSize.

        Returns:
            bool: True once the pass's data is used up (nothing trained).
        """
        set_batch_size(self, batchSize)
        batch = next_batch(self)
        if batch is None:
            return True
        self.trainOneDataBatch(batch.size, slots_to_arguments(batch.slots))
        return False

    def forward_one_batch(self, batchSize=None):
        """v1: forward (test mode) on the prepared or the next batch of the config's data; read getForwardOutput().

        Args:
            batchSize (int, default None): see setBatchSize.

        Returns:
            bool: True once the pass's data is used up.
        """
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
    def get_forward_output(self):
        """Copies of the last batch's outputs (v1): a list of {'value': ndarray, 'id': ndarray}
        dicts, one per output layer (keys absent when the output has none).
        ``getNetworkOutput()`` gives them as Arguments."""
        return _arguments_to_dicts(raw_forward_output(self))

    tr.getForwardOutput = get_forward_output


def _patch_init_paddle():
    raw = api.initPaddle

    def init_paddle(*args):
        """Initialises the engine from v1's command-line flags; call it once before anything else.

        The engine reads ``--use_gpu`` (0/1; 1 on a CPU build raises UnsupportError),
        ``--trainer_count`` (machine replicas per batch, >= 1) and ``--predict_file``;
        ``--config`` and ``--config_args`` are kept for ``Trainer.createByCommandLine``.
        Other v1 flags (``--log_period``, ...) are accepted and ignored (they concerned
        v1's trainer loop). Settings are process-wide.

        Args:
            *args (str): the flags, "--name=value".

        Example:
            >>> swig_paddle.initPaddle("--use_gpu=0", "--trainer_count=1")
            >>> swig_paddle.isUsingGpu(), swig_paddle.getTrainerCount()
            (False, 1)
        """
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
