// The Python side of initPaddle, ParameterOptimizer, ParameterUpdater and Trainer, written
// into the classes SWIG generates (see python_engine.i for the conventions): v1's
// protobuf arguments, its optimizer buffers, Trainer.create(proto, machine) and the
// trainer's own data feed (trainOneBatch). paddle.i includes it before PaddleAPI.h.

%pythoncode %{
# Flags given to initPaddle ("--config=...", "--config_args=..."), for Trainer.createByCommandLine.
_FLAGS = {}


def _optimizer_state(optimizer, value, kind):
    """An optimizer state buffer (momentum ...) the parameter lacks: v1's machine had one for
    every type the optimizer named; this one is the optimizer's, kept per parameter."""
    if value is None:
        return None
    states = optimizer.__dict__.setdefault("_v1_states", {})
    key = (value.devicePointer() if value.isGpu() else value.dataPointer(), kind)
    if key not in states:
        states[key] = Vector.createZero(len(value), value.isGpu())
    return states[key]


def _hold_machine_inputs(trainer, out):
    if out is not None:
        out._machine_inputs = trainer.__dict__.get("_inputs")
%}

// ---------------------------------------------------------------- optimizers
%rename(_update) ParameterOptimizer::update;
%rename(_create) ParameterOptimizer::create;
%rename(_createLocalUpdater) ParameterUpdater::createLocalUpdater;

%extend ParameterOptimizer {
%pythoncode %{
@staticmethod
def create(config):
    """The optimizer of a config's settings (v1's ParameterOptimizer.create).

    Args:
        config (OptimizationConfig): or its protobuf message.

    Returns:
        ParameterOptimizer: owned by the caller.
    """
    if not isinstance(config, OptimizationConfig):
        config = OptimizationConfig.createFromProto(config)
    return ParameterOptimizer._create(config)

def update(self, vecs, conf, sparseId=NO_SPARSE_ID):
    """Applies one update step to a parameter's buffers, in place.

    Args:
        vecs (list of Vector): the buffers in ``getParameterTypes()`` order, or v1's
            list indexed by ParameterType (``list(parameter.getBufs())``, None for
            absent buffers: state buffers the parameter lacks are then kept by the
            optimizer).
        conf (ParameterConfig): the parameter's config (learning rate, decay, ...),
            the one given to ``init``.
        sparseId (int, default NO_SPARSE_ID): NO_SPARSE_ID updates the whole
            parameter; a row id updates only that row.
    """
    vecs = list(vecs)
    types = list(self.getParameterTypes())
    if len(vecs) == NUM_PARAMETER_TYPES and len(types) != len(vecs):
        vecs = [vecs[t] if vecs[t] is not None or t in (PARAMETER_VALUE, PARAMETER_GRADIENT)
                else _optimizer_state(self, vecs[PARAMETER_VALUE], t) for t in types]
    return self._update(vecs, conf, sparseId)

def needSpecialTraversal(self, config):
    """v1: a ParameterTraverseCallback for rules that visit parameters outside update(); always None here.

    Args:
        config (ParameterConfig): the parameter.
    """
    return None
%}
}

%extend ParameterUpdater {
%pythoncode %{
@staticmethod
def createLocalUpdater(config):
    """An updater applying a config's optimizer (v1's createLocalUpdater).

    Args:
        config (OptimizationConfig): or its protobuf message
            (``parse_config(...).opt_config``), or its JSON.

    Returns:
        ParameterUpdater: owned by the caller; call ``init(machine)`` next.
    """
    if not isinstance(config, (str, OptimizationConfig)):
        config = OptimizationConfig.createFromProto(config)
    return ParameterUpdater._createLocalUpdater(config)

createFromConfigProto = createLocalUpdater
%}
}

// ---------------------------------------------------------------- Trainer
// What the batch's outputs alias: the trainer keeps the batch, its outputs keep both.
%pythonprepend Trainer::trainOneDataBatch %{self._inputs = args%}
%pythonprepend Trainer::forwardOneDataBatch %{self._inputs = args%}
%pythonprepend Trainer::testOneDataBatch %{self._inputs = args%}
%pythonappend Trainer::getLayerOutput %{_hold_machine_inputs(self, val)%}
%pythonappend Trainer::getForwardOutput %{_hold_machine_inputs(self, val)%}
// v1's getForwardOutput gives copies as dicts (below); the Arguments keep this name.
%rename(getNetworkOutput) Trainer::getForwardOutput;
%rename(_create) Trainer::create;
%rename(_startTrainPass) Trainer::startTrainPass;
%rename(_finishTrain) Trainer::finishTrain;

%extend Trainer {
%pythoncode %{
@staticmethod
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
        trainer = Trainer._create(config, *((model,) + args if model is not None else args))
        proto = None
    else:
        proto = config if hasattr(config, "DESCRIPTOR") else config.toProto()
        tc = config if isinstance(config, TrainerConfig) else TrainerConfig.createFromProto(config)
        trainer = Trainer._create(tc, model)
    trainer._config_proto, trainer._provider, trainer._train_batches = proto, None, None
    return trainer

@staticmethod
def createFromConfigProto(trainer_config, use_gpu=None, trainer_count=None, seed=1):
    """A Trainer of a TrainerConfig message.

    Args:
        trainer_config (message): what ``parse_config`` returns.
        use_gpu (bool, optional): train on the GPU; default: isUsingGpu().
        trainer_count (int, optional): machine replicas per batch; default: getTrainerCount().
        seed (int, default 1): the parameters' initialisation.

    Returns:
        Trainer: owned by the caller.
    """
    use_gpu = isUsingGpu() if use_gpu is None else use_gpu
    trainer_count = getTrainerCount() if trainer_count is None else trainer_count
    trainer = Trainer._create(_proto.message_to_json(trainer_config), use_gpu, trainer_count, seed)
    trainer._config_proto, trainer._provider, trainer._train_batches = trainer_config, None, None
    return trainer

@staticmethod
def createByCommandLine():
    """v1: the Trainer of initPaddle's --config (and --config_args), parsed in this process;
    IOError when initPaddle was given no --config."""
    if not _FLAGS.get("config"):
        raise IOError("Trainer.createByCommandLine: initPaddle was given no --config=FILE")
    from paddle.trainer.config_parser import parse_config
    return Trainer.create(parse_config(_FLAGS["config"], _FLAGS.get("config_args", "")))

def _next_batch(self):
    """The next batch of the config's training data (None at the end of the pass)."""
    pending = getattr(self, "_prepared", None)
    if pending is not None:
        self._prepared = None
        return pending
    if getattr(self, "_provider", None) is None:
        proto = getattr(self, "_config_proto", None)
        if proto is None or not proto.HasField("data_config"):
            raise UnsupportError("this trainer's config defines no training data "
                                 "(define_py_data_sources2): feed batches with trainOneDataBatch")
        from paddle.trainer.data_provider import DataProvider
        self._provider = DataProvider.from_trainer_config(proto, for_test=False)
    if getattr(self, "_batch_size", None):
        self._provider.batch_size = self._batch_size  # from the provider's next pass
    if getattr(self, "_train_batches", None) is None:
        self._train_batches = iter(self._provider.batches())  # the provider's next pass
    return next(self._train_batches, None)

def _arguments_of(self, batch):
    args = Arguments.createArguments(0)
    args.setFromSlots(batch.slots)
    return args

def setBatchSize(self, batch_size):
    """v1: the batch size of trainOneBatch / prepareBatchData, from the data's next pass on.

    Args:
        batch_size (int): the samples per batch; None or -1 keeps the current one.
    """
    if batch_size not in (None, -1, 2 ** 64 - 1):
        self._batch_size = int(batch_size)

def startTrainPass(self, pass_id=-1):
    """Starts a training pass (statistics cleared; the config's data starts over).

    Args:
        pass_id (int, default -1): the pass number; -1 for the pass after the last one.
    """
    self._startTrainPass(pass_id)
    self._train_batches = self._prepared = None  # the data starts over each pass

def finishTrain(self):
    """Ends training (closes the config's data provider if trainOneBatch opened it)."""
    self._finishTrain()
    if getattr(self, "_provider", None) is not None:
        self._provider.close()
        self._provider = self._train_batches = None

def prepareBatchData(self, batchSize=None):
    """v1 (2016): fetches the next batch of the config's data for finishTrainOneBatch / forwardOneBatch.

    Args:
        batchSize (int, default None): see setBatchSize.

    Returns:
        bool: True once the pass's data is used up.
    """
    self.setBatchSize(batchSize)
    self._prepared = self._next_batch()
    return self._prepared is None

def finishTrainOneBatch(self):
    """v1 (2016): trains on the batch prepareBatchData fetched (UnsupportError when none is prepared)."""
    batch = getattr(self, "_prepared", None)
    if batch is None:
        raise UnsupportError("finishTrainOneBatch: no batch prepared (call prepareBatchData first)")
    self._prepared = None
    self.trainOneDataBatch(batch.size, self._arguments_of(batch))

def trainOneBatch(self, batchSize=None):
    """v1: trains on the next batch of the config's own data (its data provider).

    Args:
        batchSize (int, default None): see setBatchSize.

    Returns:
        bool: True once the pass's data is used up (nothing trained).
    """
    self.setBatchSize(batchSize)
    batch = self._next_batch()
    if batch is None:
        return True
    self.trainOneDataBatch(batch.size, self._arguments_of(batch))
    return False

def forwardOneBatch(self, batchSize=None):
    """v1: forward (test mode) on the prepared or the next batch of the config's data; read getForwardOutput().

    Args:
        batchSize (int, default None): see setBatchSize.

    Returns:
        bool: True once the pass's data is used up.
    """
    self.setBatchSize(batchSize)
    batch = self._next_batch()
    if batch is None:
        return True
    self.forwardOneDataBatch(self._arguments_of(batch))
    return False

def getForwardOutput(self):
    """Copies of the last batch's outputs (v1): a list of {'value': ndarray, 'id': ndarray}
    dicts, one per output layer (keys absent when the output has none).
    ``getNetworkOutput()`` gives them as Arguments."""
    return _arguments_to_dicts(self.getNetworkOutput())
%}
}
