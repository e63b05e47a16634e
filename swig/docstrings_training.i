// Reference docstrings: ParameterOptimizer, ParameterUpdater and Trainer (see
// docstrings.i for the conventions).

// ------------------------------------------------------------- ParameterOptimizer

%feature("docstring") ParameterOptimizer %{
v1's optimizer on buffers (2016 API): one update rule applied to Vectors the caller passes.

Lower level than ParameterUpdater: the caller keeps each parameter's buffers and passes
them to ``update`` in ``getParameterTypes()`` order (value, gradient, then the rule's
state such as momentum), or as v1's list indexed by ParameterType
(``list(parameter.getBufs())``). The calls follow v1's order: ``init`` per parameter,
then ``startPass``, and per batch ``startBatch``, ``update`` per parameter,
``finishBatch``; ``finishPass``.

Thread safety: not thread-safe; use it from one thread at a time (nothing checks).

Example:
    >>> config = swig_paddle.OptimizationConfig.createFromProto(fixtures.mlp_config().opt_config)
    >>> optimizer = swig_paddle.ParameterOptimizer.create(config)
    >>> optimizer.getParameterTypes()  # value, gradient, momentum
    (0, 1, 2)
    >>> param = fixtures.tiny_mlp().getParameterByName("_prob.wbias")
    >>> optimizer.init(1, param.getConfig())
    >>> value = swig_paddle.Vector.create([1.0, 1.0])
    >>> grad = swig_paddle.Vector.create([1.0, -1.0])
    >>> momentum = swig_paddle.Vector.createZero(2)
    >>> optimizer.startPass(); optimizer.startBatch(4)
    >>> optimizer.update([value, grad, momentum], param.getConfig())
    >>> optimizer.finishBatch(); optimizer.finishPass()
    >>> [round(x, 3) for x in value.getData()]  # one SGD step at learning rate 0.1
    [0.9, 1.1]
%}

%feature("docstring") ParameterOptimizer::init %{
Prepares the optimizer for one parameter (call once per parameter before the first pass).

Args:
    numRows (int): the parameter's rows (its first dimension; 1 for a bias).
    config (ParameterConfig): the parameter's config (learning rate, decay, ...).
%}

%feature("docstring") ParameterOptimizer::startPass %{Starts a pass (learning-rate schedules by pass count from here).%}
%feature("docstring") ParameterOptimizer::finishPass %{Ends a pass (after its last finishBatch).%}

%feature("docstring") ParameterOptimizer::startBatch %{Starts a batch.

Args:
    numSamplesProcessed (int): the samples seen so far, this batch included (v1's
        cumulative count; learning-rate schedules read it).
%}

%feature("docstring") ParameterOptimizer::finishBatch %{Ends a batch (after the update of every parameter).%}

%feature("docstring") ParameterOptimizer::getParameterTypes %{
The buffer types ``update`` takes, in order, as a tuple of ParameterType.

PARAMETER_VALUE, PARAMETER_GRADIENT, then the rule's state (e.g. PARAMETER_MOMENTUM).%}

// -------------------------------------------------------------- ParameterUpdater

%feature("docstring") ParameterUpdater %{
v1's local updater: applies a config's optimizer to a GradientMachine's parameters.

The optimizer with its learning-rate schedule, regularisation, clipping and model
averaging.

The training loop of a v1 script (docs/swig_api.md): ``init(machine)``; per pass
``startPass``; per batch ``startBatch`` (returns the pass type for forwardBackward),
``update`` each parameter after backward, ``finishBatch(cost)``; then ``catchUpWith``
and ``finishPass``. The same loop over the same batches gives the parameters
``paddle train`` gives. There is no parameter server: the remote updaters raise
UnsupportError.

Thread safety: not thread-safe; use it from one thread at a time (nothing checks).

Example:
    >>> conf = fixtures.mlp_config()
    >>> machine = swig_paddle.GradientMachine.createFromConfigProto(conf.model_config)
    >>> updater = swig_paddle.ParameterUpdater.createLocalUpdater(conf.opt_config)
    >>> updater.init(machine)
    >>> updater.startPass()
    >>> before = machine.getParameter(0).getBuf(swig_paddle.PARAMETER_VALUE).copyToNumpyArray()
    >>> out = swig_paddle.Arguments.createArguments(0)
    >>> pass_type = updater.startBatch(4)
    >>> machine.forwardBackward(fixtures.batch(rows=4, labels=True), out, pass_type)
    >>> for parameter in machine.getParameters():
    ...     updater.update(parameter)
    >>> updater.finishBatch(out.sum() / 4)
    >>> updater.finishPass()
    >>> after = machine.getParameter(0).getBuf(swig_paddle.PARAMETER_VALUE).copyToNumpyArray()
    >>> bool((before != after).any()), updater.getLearningRate()
    (True, 0.1)
%}

%feature("docstring") ParameterUpdater::createRemoteUpdater %{
v1's parameter-server updater: always raises UnsupportError.

Multi-process training is data parallel over MPI (``Trainer.create(..., distributed=True)``).

Args:
    config (OptimizationConfig): the optimizer settings.
    passCount (int): v1's number of passes.
    useSparseUpdater (bool): v1's sparse remote update.
%}

%feature("docstring") ParameterUpdater::createNewRemoteUpdater %{
v1's Go parameter-server updater: always raises UnsupportError.

Args:
    config (OptimizationConfig): the optimizer settings.
    pserverSpec (str): v1's parameter servers.
%}

%feature("docstring") ParameterUpdater::init %{Attaches the updater to a machine: remembers its non-static parameters.

Call it once before the first pass; global-norm clipping reads all of them.

Args:
    gm (GradientMachine): the machine to train.
%}

%feature("docstring") ParameterUpdater::startPass %{Starts a pass (v1's ParameterUpdater.startPass).

Args:
    _pass (int, default -1): the pass number; -1 for the pass after the last one.
%}

%feature("docstring") ParameterUpdater::startBatch %{Starts a batch; returns the pass type to run it with (PASS_TRAIN).

Args:
    batchSize (int): the batch's samples (learning-rate schedules count them).
%}

%feature("docstring") ParameterUpdater::update %{
Applies the optimizer to one parameter, from the gradient of the last backward.

Args:
    param (Parameter): one of the machine's parameters (None raises ValueError;
        static ones are left alone).
%}

%feature("docstring") ParameterUpdater::finishBatch %{Ends a batch.

Args:
    cost (float, default 0): the batch's mean cost; accepted for v1 scripts (v1's
        remote updaters sent it on) and not used.
%}

%feature("docstring") ParameterUpdater::finishPass %{Ends a pass.

Args:
    batchesInPass (int, default -1): the batches of the pass; -1 counts those since
        startPass.
%}

%feature("docstring") ParameterUpdater::getParametersRemote %{
v1 fetched the values from the parameter servers; local values are always current. Does nothing.

Args:
    fullSize (bool, default False): v1's fetch of all rows.
    apply (bool, default False): v1's fetch of the averaged values.
%}

%feature("docstring") ParameterUpdater::apply %{
Model averaging (``settings(model_average=...)``): swaps the averaged weights in, e.g. to test with them.%}
%feature("docstring") ParameterUpdater::restore %{Model averaging: swaps the trained weights back after ``apply``.%}
%feature("docstring") ParameterUpdater::catchUpWith %{
Sparse updates: applies the decay the rows no batch touched still owe (call before saving or testing).%}
%feature("docstring") ParameterUpdater::catchUp %{The same as ``catchUpWith`` (v1 had both names).%}
%feature("docstring") ParameterUpdater::getLearningRate %{The current learning rate, after the schedule.%}

// ------------------------------------------------------------------------ Trainer

%feature("docstring") Trainer %{
The training engine behind ``paddle train``: a config's machine, its updater, evaluators and statistics.

Feed it batches (``trainOneDataBatch``), or let it read the config's own data
(``trainOneBatch``, v1's loop). Statistics are kept per pass (``getPassCost``, summed
over the samples of ``getPassSamples``), per log period and per test period. With
``trainer_count`` > 1 the batch is split over replicas of the machine; with MPI
(``distributed=True``) over ranks.

Ownership: ``getGradientMachine`` gives the trainer's machine (parameters shared);
``getForwardOutput`` / ``getLayerOutput`` alias its layers until the next batch.

Thread safety: not thread-safe; use it from one thread at a time (nothing checks).

Example:
    >>> trainer = fixtures.tiny_trainer()
    >>> trainer.startTrain()
    >>> trainer.startTrainPass()
    >>> trainer.trainOneDataBatch(4, fixtures.batch(rows=4, labels=True))
    >>> trainer.getPassSamples(), trainer.getPassCost() > 0
    (4, True)
    >>> trainer.getEvaluatorNames()
    ('classification_error_evaluator',)
    >>> trainer.finishTrainPass()
    >>> trainer.finishTrain()
%}

%feature("docstring") Trainer::getGradientMachine %{
The trainer's machine (the first replica), sharing the trained parameters.

Returns:
    GradientMachine: keeps the trainer's machine alive.
%}

%feature("docstring") Trainer::randParameters %{Initialises every parameter again from its config.%}

%feature("docstring") Trainer::loadParameters %{Loads every parameter from a pass directory.

Args:
    dir (str): e.g. ``output/pass-00009`` (IOError naming a missing or bad file).
%}

%feature("docstring") Trainer::saveParameters %{
Writes every parameter into an existing directory (the averaged weights under model averaging).

Args:
    dir (str): the directory.
%}

%feature("docstring") Trainer::saveOptimizerState %{
Writes the optimizer's state (momentum, ..., counters) so training can resume.

Args:
    dir (str): the directory (usually the pass directory).
%}

%feature("docstring") Trainer::loadOptimizerState %{Reads the optimizer's state written by saveOptimizerState.

Args:
    dir (str): the directory.
%}

%feature("docstring") Trainer::getBatchSize %{The config's batch size (``settings(batch_size=...)``).%}
%feature("docstring") Trainer::getReplicaCount %{The number of machine replicas, each training its share of a batch.%}
%feature("docstring") Trainer::startTrain %{Starts training: pass numbers count from 0 again.%}
%feature("docstring") Trainer::finishTrainPass %{Ends the pass: the optimizer's end-of-pass step.

The pass statistics (getPassCost, getPassEval) stay final until the next startTrainPass.%}

%feature("docstring") Trainer::trainOneDataBatch %{
Trains on one batch: forward, backward and an update (statistics added to the pass and period).

Args:
    batchSize (int): the batch's samples (sequences, for sequence data): what the
        statistics and the learning-rate schedule count.
    args (Arguments): one slot per data layer, labels included.
%}

%feature("docstring") Trainer::forwardOneDataBatch %{
Runs the network forward in test mode on a batch without touching the statistics (v1's forwardOneBatch).

Read the results with getForwardOutput / getNetworkOutput / getLayerOutput.

Args:
    args (Arguments): one slot per data layer.
%}

%feature("docstring") Trainer::getForwardOutput %{
The outputs of the last batch, as Arguments (one slot per output layer).

Returns:
    Arguments: aliases the machine's layers until the next batch.
%}

%feature("docstring") Trainer::getLayerOutput %{One layer's output of the last batch, as a one-slot Arguments.

Args:
    layerName (str): the layer (ValueError when there is none).

Returns:
    Arguments: aliases the layer until the next batch.
%}

%feature("docstring") Trainer::startPeriod %{Restarts the "since last log" statistics (getPeriodCost, ...).%}
%feature("docstring") Trainer::getPassCost %{
The summed cost of this pass's batches (divide by getPassSamples for the mean).%}
%feature("docstring") Trainer::getPassSamples %{The samples trained on in this pass.%}
%feature("docstring") Trainer::getPassEval %{The evaluators over this pass, as "name=value ..." (v1's log line).%}
%feature("docstring") Trainer::getPassEvalFields %{The fields getPassEval prints, as data.

Returns:
    list: ``(name, value, higher_is_better)`` tuples, one per field in log order
    (see ``Evaluator.getFields``).
%}
%feature("docstring") Trainer::getPeriodCost %{The summed cost since the last startPeriod.%}
%feature("docstring") Trainer::getPeriodSamples %{The samples since the last startPeriod.%}
%feature("docstring") Trainer::getPeriodEval %{The evaluators since the last startPeriod, as "name=value ...".%}
%feature("docstring") Trainer::getPeriodEvalFields %{The fields getPeriodEval prints, as data.

Returns:
    list: ``(name, value, higher_is_better)`` tuples, one per field in log order
    (see ``Evaluator.getFields``).
%}
%feature("docstring") Trainer::getEvaluatorNames %{
The evaluators' names, in the order of getPassEvalValues / getTestEvalValues.%}
%feature("docstring") Trainer::getPassEvalValues %{The evaluators' values over this pass, in getEvaluatorNames order.%}
%feature("docstring") Trainer::getLearningRate %{The current learning rate, after the schedule.%}

%feature("docstring") Trainer::setRecordParameterStats %{
Records value and gradient magnitudes during the next batch (v1's --show_parameter_stats_period).

Args:
    on (bool): True to record; read the lines with getParameterStats.
%}

%feature("docstring") Trainer::getParameterStats %{
One line per parameter: "name avg_abs_val=... max_val=... avg_abs_grad=... max_grad=...".%}

%feature("docstring") Trainer::setProfiling %{
Turns the per-layer timers of the first replica on (from zero) or off (``paddle train --profile``).

Args:
    on (bool): True to time forward, backward and the update.
%}

%feature("docstring") Trainer::getProfile %{The timers since setProfiling(True), one tab-separated line each.

One line per layer, then the update (and, with replicas, their gradient sum).

Each line: name, type, forward seconds, backward seconds, calls. UnsupportError when
profiling is off.
%}

%feature("docstring") Trainer::startTestPeriod %{Starts a test period: clears the test statistics.

Also catches sparse rows up and, under model averaging, tests with the averaged weights
(until finishTestPeriod or the next training batch).%}

%feature("docstring") Trainer::testOneDataBatch %{
Tests on one batch: forward in test mode, cost and evaluators added to the test statistics.

Args:
    batchSize (int): the batch's samples.
    args (Arguments): one slot per data layer, labels included.
%}

%feature("docstring") Trainer::finishTestPeriod %{Ends the test period (the test statistics are final).%}
%feature("docstring") Trainer::getTestCost %{
The summed cost of the test period (divide by getTestSamples for the mean).%}
%feature("docstring") Trainer::getTestSamples %{The samples tested in the test period.%}
%feature("docstring") Trainer::getTestEval %{The evaluators over the test period, as "name=value ...".%}
%feature("docstring") Trainer::getTestEvalFields %{The fields getTestEval prints, as data (every field, also
before any test: what ``--keep_best`` may name).

Returns:
    list: ``(name, value, higher_is_better)`` tuples, one per field in log order
    (see ``Evaluator.getFields``).
%}
%feature("docstring") Trainer::getTestEvalValues %{
The evaluators' values over the test period, in getEvaluatorNames order.%}

%feature("docstring") Trainer::takeCollectiveTraffic %{
The gradient traffic since the last call (which restarts the count): under MPI what this
rank sent the others; in one process what GPUs 1..N-1 of ``--use_gpu=1 --trainer_count=N``
sent to GPU 0 (``steps`` and ``denseBytes``).

Returns:
    CollectiveTraffic: zeros for a single process with CPU replicas or one GPU.
%}

%feature("docstring") Trainer::setCollectiveOptions %{
How gradients travel between ranks and, in one process, between GPU replicas (GPU
replicas take ``bf16Gradients`` alone). ``bf16Gradients`` in a single process without GPU
replicas raises an error: nothing is sent there.

Args:
    options (CollectiveOptions): buckets, overlap, LocalSGD or DGC, and the timeout.
%}

%feature("docstring") CollectiveOptions %{
How a distributed trainer's gradients travel between the ranks (``Trainer.setCollectiveOptions``).

Fields (paddle train's flags): ``bucketMb`` (--bucket_cap_mb, the size of the all-reduce
buckets in MB), ``overlap`` (--overlap_allreduce, all-reduce buckets during backward),
``localSgdSteps`` (--local_sgd_steps, > 0: average the parameters every this many local
steps instead of exchanging gradients), ``dgcSparsity`` (--dgc_sparsity, < 0: no deep
gradient compression), ``dgcRampupBeginStep``, ``dgcMomentum``, ``timeoutSeconds``
(--collective_timeout, > 0: a longer wait in one MPI exchange ends the job) and
``bf16Gradients`` (--allreduce_precision=bf16: dense gradient all-reduces, and the gradients
GPUs 1..N-1 of one process send to GPU 0, travel as bfloat16).

Example:
    >>> options = swig_paddle.CollectiveOptions()
    >>> options.bucketMb, options.overlap, options.dgcSparsity
    (1.0, True, -1.0)
    >>> options.localSgdSteps = 4
%}

%feature("docstring") CollectiveTraffic %{
One rank's gradient traffic (``Trainer.takeCollectiveTraffic``).

Fields: ``steps`` (gradient exchanges), ``denseBytes`` (all-reduced), ``sparseBytes``
(row ids and rows all-gathered), ``mpiSeconds`` (the training thread's wait on MPI),
``dgcBytes`` (DGC's index and value pairs) and ``earlyBytes`` (dense bytes whose
all-reduce started during backward).

Example:
    >>> traffic = swig_paddle.CollectiveTraffic()
    >>> traffic.steps, traffic.denseBytes
    (0, 0.0)
%}

%feature("docstring") ShardedTableRows %{
The sharded tables of a distributed trainer (``Trainer.getShardedRows``), one entry per table in each column.

Fields: ``names``, ``rows`` (the whole table's), ``resident`` (rows of the table this rank
holds in memory: its own) and ``fetched`` (rows fetched from their owners for the last batch).

Example:
    >>> tables = swig_paddle.ShardedTableRows()
    >>> list(tables.names), list(tables.fetched)
    ([], [])
%}

%feature("docstring") Trainer::setShardedData %{
Distributed: each rank reads its own files, so batches are not split and may differ.

Args:
    on (bool): True when every rank reads its own share of the data.
%}

%feature("docstring") Trainer::anyRankHasData %{
Distributed, sharded data: whether some rank still has a batch this step.

A collective: every rank calls it.

Args:
    mine (bool): whether this rank has one.
%}

%feature("docstring") Trainer::getConfigJson %{
The TrainerConfig as the engine holds it (protobuf JSON); ranks compare it at start.%}

%feature("docstring") Trainer::serveShards %{Sharded tables: every rank calls this after each pass's saving.

Rank 0 says saving is over; the others serve it their rows until then.%}

%feature("docstring") Trainer::getShardedRows %{Sharded tables: each one's rows, those in this rank's memory, and those fetched.

Returns:
    ShardedTableRows: empty columns without sharded tables.%}

%feature("docstring") Trainer::setSkipNonFiniteBatches %{
Skips (no update) up to ``limit`` batches whose cost is not finite, instead of stopping.

Args:
    limit (int): >= 0 (ValueError otherwise); 0 stops at the first one.
%}

%feature("docstring") Trainer::lastSkippedBatch %{
Why the last trainOneDataBatch skipped its batch; "" when it trained on it.%}
