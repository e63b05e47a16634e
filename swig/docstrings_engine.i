// Reference docstrings: the config objects, Parameter, Evaluator, GradientMachine and
// Predictor (see docstrings.i for the conventions).

// ------------------------------------------------------------------ config objects

%feature("docstring") ParameterConfig %{One parameter's config (v1's ParameterConfig message).

Name, size, dims, initialisation, per-parameter learning rate, ...

Held as the message's protobuf JSON. ``Parameter.getConfig()`` returns one; py_paddle
adds the protobuf conversions (``createFromProto``, ``toProto``, ``createFromProtoString``,
``toProtoString``).

Thread safety: immutable; safe from any thread.

Example:
    >>> machine = fixtures.tiny_mlp()
    >>> config = machine.getParameterByName("_hidden.w0").getConfig()
    >>> proto = config.toProto()
    >>> proto.name, list(proto.dims)
    ('_hidden.w0', [3, 4])
%}

%feature("docstring") ParameterConfig::createFromJson %{
A ParameterConfig from the protobuf JSON of a ParameterConfig message.

Args:
    json (str): the message as protobuf JSON (ValueError when it is not one).

Returns:
    ParameterConfig: owned by the caller.
%}

%feature("docstring") ParameterConfig::toJson %{The message as protobuf JSON text.%}

%feature("docstring") OptimizationConfig %{The optimizer settings of a config (v1's OptimizationConfig message).

Learning rate and its schedule, method, regularisation, batch size, ...

What ``settings(...)`` in a config file writes. ``ParameterUpdater.createLocalUpdater``
and ``ParameterOptimizer.create`` take one. Held as protobuf JSON; py_paddle adds the
protobuf conversions.

Thread safety: immutable; safe from any thread.

Example:
    >>> proto = fixtures.mlp_config().opt_config
    >>> config = swig_paddle.OptimizationConfig.createFromProto(proto)
    >>> config.toProto().learning_rate, config.toProto().learning_method
    (0.1, 'momentum')
%}

%feature("docstring") OptimizationConfig::createFromJson %{
An OptimizationConfig from the protobuf JSON of an OptimizationConfig message.

Args:
    json (str): the message as protobuf JSON (ValueError when it is not one).

Returns:
    OptimizationConfig: owned by the caller.
%}

%feature("docstring") OptimizationConfig::toJson %{The message as protobuf JSON text.%}

%feature("docstring") ModelConfig %{
A network (v1's ModelConfig message): its layers, parameters, inputs, outputs, evaluators and sub-models.

``GradientMachine.createByModelConfig`` builds a machine from one;
``TrainerConfig.getModelConfig()`` returns the one of a parsed config. Held as protobuf
JSON; py_paddle adds the protobuf conversions.

Thread safety: immutable; safe from any thread.

Example:
    >>> config = swig_paddle.ModelConfig.createFromProto(fixtures.mlp_config().model_config)
    >>> [layer.name for layer in config.toProto().layers][:3]
    ['x', 'hidden', 'prob']
%}

%feature("docstring") ModelConfig::createFromJson %{A ModelConfig from the protobuf JSON of a ModelConfig message.

Args:
    json (str): the message as protobuf JSON (ValueError when it is not one).

Returns:
    ModelConfig: owned by the caller.
%}

%feature("docstring") ModelConfig::toJson %{The message as protobuf JSON text.%}

%feature("docstring") TrainerConfig %{A whole parsed config file (v1's TrainerConfig message).

The model, the optimizer settings and the data sources.

``Trainer.create`` trains one. Make it from a config file with
``TrainerConfig.createFromTrainerConfigFile(path)`` or from the message
``parse_config`` returns with ``createFromProto``. Held as protobuf JSON.

Thread safety: immutable; safe from any thread.

Example:
    >>> config = swig_paddle.TrainerConfig.createFromProto(fixtures.mlp_config())
    >>> config.getOptimizationConfig().toProto().batch_size
    4
    >>> len(config.getModelConfig().toProto().parameters)
    4
%}

%feature("docstring") TrainerConfig::createFromJson %{A TrainerConfig from the protobuf JSON of a TrainerConfig message.

Args:
    json (str): the message as protobuf JSON (ValueError when it is not one).

Returns:
    TrainerConfig: owned by the caller.
%}

%feature("docstring") TrainerConfig::toJson %{The message as protobuf JSON text.%}

%feature("docstring") TrainerConfig::getModelConfig %{The config's network.

Returns:
    ModelConfig: a new object owned by the caller.
%}

%feature("docstring") TrainerConfig::getOptimizationConfig %{The config's optimizer settings.

Returns:
    OptimizationConfig: a new object owned by the caller.
%}

// ---------------------------------------------------------------------- Parameter

%feature("docstring") Parameter %{One parameter of a GradientMachine (a weight matrix or bias) and its buffers.

Its buffers (``getBuf``) are Vectors indexed by ParameterType: the value
(PARAMETER_VALUE), the gradient of the last backward (PARAMETER_GRADIENT), and the
optimizer's state (momentum, ...). They share memory with the engine, so writing the
value buffer changes the model.

Ownership: returned by ``GradientMachine.getParameter`` / ``getParameterByName`` /
``getParameters``; it keeps its machine alive.

Thread safety: reading from several threads is safe; writing a buffer while another
thread (or a running forward) reads it is not.

v1: the same class; ``len(parameter)`` and ``getBufs()`` (all 19 buffer types, None
for absent ones) as v1's py_paddle added them.

Example:
    >>> machine = fixtures.tiny_mlp()
    >>> weight = machine.getParameterByName("_hidden.w0")
    >>> weight.getSize(), weight.getDims()
    (12, (3, 4))
    >>> value = weight.getBuf(swig_paddle.PARAMETER_VALUE)
    >>> value.copyFromNumpyArray(np.zeros(12, np.float32))
    >>> again = machine.getParameterByName("_hidden.w0").getBuf(swig_paddle.PARAMETER_VALUE)
    >>> float(np.abs(again.copyToNumpyArray()).sum())  # the machine's weight changed
    0.0
%}

%feature("docstring") Parameter::getName %{
The parameter's name (e.g. ``_hidden.w0``, ``_hidden.wbias``; also its file name in a pass directory).%}
%feature("docstring") Parameter::getID %{Its index among its machine's parameters (the order of ``getParameter(i)``).%}
%feature("docstring") Parameter::getSize %{The number of values (also ``len(parameter)``).%}
%feature("docstring") Parameter::getDims %{Its shape as a tuple, e.g. ``(3, 4)`` for the weight of a 3-to-4 fc layer.%}
%feature("docstring") Parameter::isStatic %{
True for a static parameter (``is_static=True`` in its ParameterAttribute): optimizers leave it alone.%}

%feature("docstring") Parameter::getConfig %{Its config (initialisation, learning rate, decay, ...).

Returns:
    ParameterConfig: a new object owned by the caller.
%}

%feature("docstring") Parameter::getBuf %{One of the parameter's buffers, sharing memory with the engine.

A buffer the parameter does not have yet is made (zero-filled).

Args:
    type (int): a ParameterType: PARAMETER_VALUE, PARAMETER_GRADIENT,
        PARAMETER_MOMENTUM, ...

Returns:
    Vector: aliases the engine's buffer and keeps the parameter alive.
%}

%feature("docstring") Parameter::hasBuf %{
Whether the parameter has this buffer (the value always; the gradient and optimizer states once made).

Args:
    type (int): a ParameterType.
%}

%feature("docstring") Parameter::setValueUpdated %{
v1 told the other copies of the value (GPU replicas, a parameter server) that it changed.

Replicas here read the one value buffer, so there is nothing to tell: accepted and
does nothing.
%}

%feature("docstring") Parameter::save %{Writes the value as a v1 parameter file (16-byte header, then float32 values).

Args:
    path (str): the file to write.

Returns:
    bool: True (a failure raises IOError).
%}

%feature("docstring") Parameter::load %{Reads the value from a v1 parameter file.

Args:
    path (str): the file (IOError when it is missing, not a parameter file, holds
        another number of values than the parameter, or is not finite).

Returns:
    bool: True.
%}

// ---------------------------------------------------------------------- Evaluator

%feature("docstring") Evaluator %{
The evaluators of a config (classification error, AUC, chunk F1, ...) summed over batches.

``GradientMachine.makeEvaluator()`` makes one, started; ``GradientMachine.eval(evaluator)``
adds the batch of the machine's last forward; ``str``/``repr`` give "name=value ..."
as v1 printed it. The values are kept up to date after each eval.

Thread safety: not thread-safe; use it from one thread at a time (nothing checks).

Example:
    >>> machine = fixtures.tiny_mlp(predict=False)
    >>> evaluator = machine.makeEvaluator()
    >>> out = swig_paddle.Arguments.createArguments(0)
    >>> machine.forward(fixtures.batch(rows=4, labels=True), out, swig_paddle.PASS_TEST)
    >>> machine.eval(evaluator)
    >>> evaluator.finish()
    >>> evaluator.getNames()
    ('classification_error_evaluator',)
    >>> 0 <= evaluator.getValue("classification_error_evaluator") <= 1
    True
%}

%feature("docstring") Evaluator::start %{Clears the running values (start of a pass or test period).%}
%feature("docstring") Evaluator::finish %{
Marks the values final (they are already kept up to date; v1 computed them here).%}
%feature("docstring") Evaluator::toString %{"name=value ..." for every evaluator, as v1 printed it (also ``repr``).%}
%feature("docstring") Evaluator::getFields %{What ``toString`` prints, as data: one record per field, in the same order.

Returns:
    list: ``(name, value, higher_is_better)`` tuples; ``higher_is_better`` is True for
    scores such as auc, precision and F1-score, False for errors, edit distances and sums,
    None for counts and settings (chunk counts, positive_label). Printers report none.
%}
%feature("docstring") Evaluator::getNames %{
The evaluators' names (the config's names, or v1's defaults such as ``classification_error_evaluator``).%}

%feature("docstring") Evaluator::getValue %{One evaluator's current value.

Args:
    name (str): one of ``getNames()`` (ValueError otherwise).
%}

// ----------------------------------------------------------------- GradientMachine

%feature("docstring") GradientMachine %{A network built from a ModelConfig: forward, backward and its parameters.

What v1 scripts drive by hand: build it (``createFromConfigProto``, ``createByModelConfig``,
``loadFromConfigFile``, ``createFromMergedModel``), feed ``Arguments`` to ``forward`` /
``forwardBackward``, read outputs and parameters, and train with a ParameterUpdater
(see docs/swig_api.md). Parameters start from the seed it was made with (1 by default).

Memory: the output Arguments of a forward, and ``getLayerOutput``, alias the machine's
layers; the next forward overwrites them, so copy what you keep. The machine holds its
last input batch until the next forward (backward reads it).

Thread safety: not thread-safe. It belongs to the thread that last ran ``forward``,
``forwardBackward``, ``backward``, ``getLayerOutput`` or ``eval`` until that thread ends
or calls ``releaseThread()``; another thread gets a RuntimeError naming both. Use one
machine per thread, or a Predictor to serve from many threads.

v1: ``start``/``finish``/``prefetch``/``onPassEnd`` have nothing to do here (no
background threads or remote rows); the backward callback runs after the whole
backward pass.

Example:
    >>> machine = fixtures.tiny_mlp()
    >>> machine.getInputLayerNames(), machine.getOutputLayerNames()
    (('x',), ('prob',))
    >>> out = swig_paddle.Arguments.createArguments(0)
    >>> machine.forward(fixtures.batch(rows=2), out, swig_paddle.PASS_TEST)
    >>> probs = out.getSlotValue(0).copyToNumpyMat()
    >>> probs.shape, np.allclose(probs.sum(axis=1), 1)
    ((2, 2), True)
%}

%feature("docstring") GradientMachine::createByConfigJson %{
A machine of a ModelConfig given as protobuf JSON, parameters initialised from ``seed``.

Args:
    modelConfigJson (str): the ModelConfig message as protobuf JSON.
    useGpu (bool, default False): run on the GPU.
    seed (int, default 1): the seed of the parameters' initialisation.

Returns:
    GradientMachine: owned by the caller.
%}

%feature("docstring") GradientMachine::createFromMergedModel %{
A machine from a merged model file (``paddle merge_model``; v1's layout too).

The file holds the network and all its parameters; a preprocessing trailer is skipped.

Args:
    path (str): the merged model (IOError when missing or not a merged model).
    useGpu (bool, default False): run on the GPU.

Returns:
    GradientMachine: owned by the caller.
%}

%feature("docstring") GradientMachine::saveMergedModel %{
Writes the network and all its parameters as one merged model file.

Args:
    path (str): the file to write (IOError when it cannot be written).
%}

%feature("docstring") GradientMachine::start %{Accepted for v1 scripts; does nothing.

v1 started its prefetch threads here; nothing runs in the background.%}
%feature("docstring") GradientMachine::finish %{v1 stopped its threads here; nothing to stop. Accepted for v1 scripts.%}

%feature("docstring") GradientMachine::prefetch %{
v1 fetched the remote sparse rows a batch needs; all rows are local here. Does nothing.

Args:
    inArgs (Arguments): the batch.
%}

%feature("docstring") GradientMachine::onPassEnd %{v1's end-of-pass hook; nothing to do here.%}

%feature("docstring") GradientMachine::forward %{Runs the network forward on a batch.

Args:
    inArgs (Arguments): one slot per data layer, in ``getInputLayerNames()`` order.
    outArgs (Arguments): resized and filled with one slot per output layer
        (``getOutputLayerNames()``); its Matrices alias the layers until the next
        forward.
    passType (int): PASS_TEST for inference (dropout off, no statistics updated),
        PASS_TRAIN before a backward; PASS_METRIC runs as PASS_TEST.

Raises:
    ValueError: the batch does not fit the data layers (slot count, width, ids).
    RuntimeError: the machine belongs to another thread.
%}

%feature("docstring") GradientMachine::getParameterSize %{The number of parameters (static ones included).%}

%feature("docstring") GradientMachine::getParameter %{The i-th parameter, in the config's order.

Args:
    i (int): 0 <= i < getParameterSize() (RangeError otherwise).

Returns:
    Parameter: sharing the machine's buffers, keeping the machine alive.
%}

%feature("docstring") GradientMachine::getNonStaticParameterSize %{
The number of parameters an optimizer updates (the non-static ones).%}

%feature("docstring") GradientMachine::getNonStaticParameter %{The i-th non-static parameter.

Args:
    i (int): 0 <= i < getNonStaticParameterSize() (RangeError otherwise).

Returns:
    Parameter: sharing the machine's buffers.
%}

%feature("docstring") GradientMachine::getParameterByName %{The parameter of this name (ValueError when there is none).

Args:
    name (str): e.g. ``_hidden.w0`` (v1's default names: ``_<layer>.w<input>`` and
        ``_<layer>.wbias``).

Returns:
    Parameter: sharing the machine's buffers.
%}

%feature("docstring") GradientMachine::randParameters %{
Initialises every parameter again from its config (initial_mean / initial_std / smart init).%}

%feature("docstring") GradientMachine::loadParameters %{
Loads every parameter from a pass directory (one v1 parameter file per parameter).

Args:
    dir (str): e.g. ``output/pass-00009`` (IOError naming a missing or bad file).
%}

%feature("docstring") GradientMachine::saveParameters %{
Writes every parameter as a v1 parameter file into an existing directory.

Args:
    dir (str): the directory (IOError when a file cannot be written).
%}

%feature("docstring") GradientMachine::getLayerOutput %{One layer's output of the last forward, as a one-slot Arguments.

Args:
    layerName (str): the layer (ValueError when there is none).
    outputName (str, default ""): one of the layer's extra outputs, e.g. a generating
        group's "scores".

Returns:
    Arguments: aliases the layer (overwritten by the next forward).
%}

%feature("docstring") GradientMachine::getModelConfigJson %{The machine's ModelConfig as protobuf JSON.%}
%feature("docstring") GradientMachine::isGpu %{True when the machine runs on the GPU.%}
%feature("docstring") GradientMachine::getInputLayerNames %{The data layers' names, in the order of the input slots.%}
%feature("docstring") GradientMachine::getOutputLayerNames %{
The output layers' names, in the order of the output slots.%}

%feature("docstring") GradientMachine::setNeedInputGradient %{
Whether backward also computes the gradients of the data layers.

Read them with ``getLayerOutput(data_layer_name).getSlotGrad(0)`` after backward.

Args:
    need (bool): True to keep input gradients.
%}

%feature("docstring") GradientMachine::setPrecision %{
Sets the arithmetic of the layers' matrix products (not in v1).

``"bf16"`` (or ``"fp16"``) rounds the operands of the products of weights and activations (fc, mixed,
conv, recurrent layers) to bfloat16 (IEEE half) and sums them in fp32, on CPUs with AVX512_BF16 and GPUs (fp16: GPUs only);
elsewhere the machine stays in fp32 and says so once on stderr. Values, gradients and
parameters stay fp32. ``settings(precision=...)`` sets it for a Trainer.

Args:
    precision (str): ``"fp32"``, ``"bf16"`` or ``"fp16"`` (GPU only); anything else raises.
%}

%feature("docstring") GradientMachine::getPrecision %{
The precision the layers' products run in: ``"bf16"``/``"fp16"`` only where setPrecision asked for it
and the device runs it, else ``"fp32"``.

Returns:
    str: ``"fp32"``, ``"bf16"`` or ``"fp16"``.
%}

%feature("docstring") GradientMachine::getRecomputeCheckpoints %{
The checkpoint layers of recomputation (not in v1), in network order.

Training keeps their outputs; the layers between two of them are freed after the forward
and recomputed in backward. ``settings(recompute=...)`` (the ModelConfig's ``recompute``)
and ``ExtraAttr(recompute_checkpoint=True)`` choose them.

Returns:
    tuple of str: the layer names; empty when recomputation is off.
%}

%feature("docstring") GradientMachine::makeEvaluator %{
The config's evaluators, started (plus one per auc-validation / pnpair-validation layer).

Returns:
    Evaluator: owned by the caller.
%}

%feature("docstring") GradientMachine::eval %{Adds the batch of the last forward to an evaluator's running values.

Args:
    evaluator (Evaluator): one from ``makeEvaluator()`` of this machine.
%}

// ---------------------------------------------------------------------- Predictor

%feature("docstring") Predictor %{Serves a merged model: ``forward`` may be called from many threads at once.

Each call runs on a network of its own that reads one shared copy of the parameters,
and returns outputs the caller owns (not overwritten by later calls). This is the
thread-safe way to serve; a GradientMachine is not.

Thread safety: safe; ``forward`` from any number of threads at once.

Example:
    >>> predictor = swig_paddle.Predictor.createFromMergedModel(fixtures.merged_model())
    >>> predictor.getInputLayerNames(), predictor.getOutputLayerNames()
    (('x',), ('prob',))
    >>> out = predictor.forward(fixtures.batch(rows=3))
    >>> out.getSlotValue(0).copyToNumpyMat().shape
    (3, 2)
%}

%feature("docstring") Predictor::createFromMergedModel %{
A Predictor over a merged model file (``paddle merge_model``; v1's layout too).

Args:
    path (str): the merged model (IOError when missing or not a merged model).
    useGpu (bool, default False): run on the GPU.

Returns:
    Predictor: owned by the caller.
%}

%feature("docstring") Predictor::forward %{
Runs the network forward (test mode) on a batch; safe to call from several threads at once.

Args:
    inArgs (Arguments): one slot per data layer, in ``getInputLayerNames()`` order.

Returns:
    Arguments: the outputs, owned by the caller.
%}

%feature("docstring") Predictor::getInputLayerNames %{The data layers' names, in the order of the input slots.%}
%feature("docstring") Predictor::getOutputLayerNames %{The output layers' names, in the order of the output slots.%}
