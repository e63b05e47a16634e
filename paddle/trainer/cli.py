"""The `paddle` command: train / test a v1 trainer config, dump configs, print the version.

    paddle train --config=trainer_config.py [--config_args=a=1,b=x] [v1 flags ...]
    paddle dump_config CONFIG [CONFIG_ARGS | --config_args=...] [--whole] [--format=text|yaml|json]
    paddle make_diagram CONFIG DOT_FILE [CONFIG_ARGS | --config_args=...]
    paddle plot METRICS_OR_LOG -o curves.png [KEY ...]
    paddle version

Flags follow v1's gflags spelling (`--name=value`, also `-name=value` and
`--name value`; booleans accept 1/0/true/false). The C++ engine does the math;
this module parses the config and feeds batches from the data provider; `monitor`
reports (v1's log lines, progress bar, metrics file, TensorBoard) and `checkpoints`
saves and keeps the passes.
"""
import argparse
import logging
import os
import sys
import traceback
import time

from paddle.trainer.arguments import ArgumentParser
from paddle.trainer.checkpoints import (UsageError, BestPass, Checkpoints, config_fingerprint, pass_dir,
                                       saved_pass_path, tidy)
from paddle.trainer.monitor import PROGRESS_MODES, Evals, Monitor, summary_lines
from paddle.trainer import preprocessing
from paddle.trainer import v1_flags
from paddle.trainer.v1_flags import IGNORED_FLAGS, normalize as _normalize

LOG = logging.getLogger("paddle")

def _bool(text):
    value = str(text).strip().lower()
    if value in ("1", "true", "t", "yes", "on"):
        return True
    if value in ("0", "false", "f", "no", "off"):
        return False
    raise argparse.ArgumentTypeError("expected a boolean (1/0/true/false), got %r" % text)


def _train_parser():
    p = ArgumentParser(
        prog="paddle train", description="Train or test a v1 trainer config.",
        epilog="Booleans take 1/0/true/false, or stand bare (--use_gpu) or negated (--nouse_gpu). "
               "v1's other flags (cluster, glog, cuDNN, ...) are accepted with a warning that says "
               "why they change nothing.")
    flag = p.add_argument
    flag("--config", default="", help="trainer config file (.py or .yaml); none: the one --init_model_path's "
                                       "(or --start_pass's) path.txt names")
    flag("--config_args", default="", help="k1=v1,k2=v2 passed to get_config_arg")
    flag("--job", default="train", choices=["train", "test", "checkgrad", "time"],
         help="train; test saved models; checkgrad: compare backward() with finite differences; "
              "time: time training steps on one batch (v1's benchmark, see --feed_data)")
    flag("--save_dir", default="", help="where pass-%%05d/ go (empty: the config's save_dir, else ./output/model)")
    flag("--data", default="config", metavar="config|synthetic[:N]",
         help="config: the config's data sources; synthetic[:N]: N random samples per pass (N/4 to test, "
              "default 256) shaped like the model's data layers, to try a config without its data")
    flag("--num_passes", type=int, default=100, help="passes to train (job=test: last pass + 1)")
    flag("--start_pass", type=int, default=0, help="resume: load save_dir/pass-(N-1) and continue at pass N")
    flag("--init_model_path", default="", help="load parameters from this directory")
    flag("--overwrite", type=_bool, nargs="?", const=True, default=False, metavar="0|1",
         help="train into a save_dir holding passes of another config, removing them (else refused)")
    flag("--load_missing_parameter_strategy", default="fail", choices=["fail", "rand", "zero"],
         help="what to do with parameters missing from a loaded model directory")
    flag("--use_gpu", type=_bool, nargs="?", const=True, default=False, metavar="0|1", help="run on the GPU")
    flag("--trainer_count", type=int, default=None,
         help="data-parallel replicas; none: the engine picks one per thread for conv nets "
              "whose convolutions dominate, else 1")
    flag("--precision", default=None, choices=["fp32", "bf16", "fp16"],
         help="arithmetic of the layers' matrix products (overrides settings(precision=...)): bf16 rounds "
              "their operands to bfloat16 and sums in fp32 (AVX512_BF16 CPUs, GPUs); fp16 to IEEE half "
              "(GPUs); weights, optimizer state and checkpoints stay fp32")
    flag("--recompute", default=None, choices=["off", "auto", "marked"],
         help="recomputation in training (overrides settings(recompute=...)): the forward keeps only the "
              "checkpoint layers' outputs and backward recomputes the rest; auto: a checkpoint about every "
              "sqrt(n) layers, marked: the layers with ExtraAttr(recompute_checkpoint=True)")
    flag("--data_sharding", default="batch", choices=["batch", "files"],
         help="under mpiexec: every rank reads all data and trains its share of each batch, "
              "or reads only its entries of the file list (paddle/trainer/distributed.py)")
    from paddle.trainer import distributed
    distributed.add_flags(flag)
    flag("--log_period", type=int, default=100, help="batches between Batch= log lines")
    flag("--dot_period", type=int, default=1, help="print . every N batches between log lines (0: never)")
    flag("--test_period", type=int, default=0, help="0: test at the end of each pass; N: also every N batches")
    flag("--saving_period", type=int, default=1, help="save every N passes (and always the last)")
    flag("--skip_nonfinite_batches", type=int, default=0,
         help="skip (no update) a batch whose cost is NaN or infinite instead of stopping, N times at most")
    flag("--save_only_one", type=_bool, nargs="?", const=True, default=False, metavar="0|1",
         help="keep only the newest pass (--keep_last=1)")
    flag("--keep_last", type=int, default=0, help="keep the last K saved passes (and the best); 0: all")
    flag("--keep_best", default="",
         help="METRIC[:min|:max]: keep the best pass by the test's METRIC (cost or an evaluator name) as "
              "save_dir/best; lower is better for costs and errors, higher for auc/precision/recall/F1")
    flag("--early_stop_patience", type=int, default=0,
         help="stop after N passes without a better --keep_best metric (cost if not given); 0: never")
    flag("--progress", default="auto", choices=PROGRESS_MODES,
         help="bar: a progress bar with rate and ETA; log: v1's dots and lines; auto: bar on a terminal")
    flag("--metrics_file", default="", help="append every log period, pass and test as a JSON line to this file")
    flag("--tensorboard_dir", default="", help="write TensorBoard event files here (needs tensorboardX)")
    flag("--test_pass", type=int, default=-1, help="job=test: first saved pass to evaluate (-1: --start_pass)")
    flag("--model_list", default="", help="job=test: a file listing model directories to evaluate")
    flag("--predict_output_dir", default="",
         help="job=test: write the output layers' values/ids of every sample to DIR/rank-00000")
    flag("--predict_file", default="",
         help="auc-validation/pnpair-validation layers write the samples of each pass here")
    flag("--seed", type=int, default=1, help="random seed; 0: from the clock")
    flag("--show_parameter_stats_period", type=int, default=0,
         help="log value/gradient magnitudes of every parameter every N batches (0: never)")
    flag("--check_health", type=_bool, nargs="?", const=True, default=True, metavar="0|1",
         help="warn once when inputs differ wildly in scale, outputs saturate, gradients vanish or explode, "
              "or the cost stops moving (paddle/trainer/health.py)")
    flag("--profile", type=_bool, nargs="?", const=True, default=False, metavar="0|1",
         help="log at each pass end the time of every layer's forward and backward and of the update "
              "(v1 compiled such timers in with WITH_TIMER)")
    flag("--checkgrad_eps", type=float, default=1e-3,
         help="job=checkgrad: relative step (v1's 1e-5 suits double builds; float32 needs more)")
    flag("--version", type=_bool, nargs="?", const=True, default=False, metavar="0|1", help="print the version and exit")
    v1_flags.add_flags(p, _bool)
    return p


def _check_metric(name, trainer, flag):
    """Fails at start-up, not after the first pass, when the evaluators report no field `name`."""
    # (evaluators report the same fields whatever they have seen, so before any test too)
    known = ["cost"] + sorted({field for field, _, _ in trainer.getTestEvalFields()})
    if name not in known and name != "AvgCost":
        raise UsageError("%s: the config reports no metric %r; choose one of: %s" % (
            flag, name, ", ".join(known)))


def warn_ignored_flags(args):
    """One warning per v1 flag given that this toolkit accepts but does not use."""
    for flag in sorted(IGNORED_FLAGS):
        if getattr(args, flag) is not None:
            LOG.warning("--%s is accepted for v1 compatibility and ignored: %s", flag,
                        IGNORED_FLAGS[flag])


def _setup_logging():
    class GlogFormatter(logging.Formatter):
        def format(self, record):
            t = time.localtime(record.created)
            prefix = "%s%02d%02d %02d:%02d:%02d.%06d %5d %s:%d]" % (
                record.levelname[0], t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec,
                int((record.created % 1) * 1e6), os.getpid(), record.filename, record.lineno)
            return prefix + " " + record.getMessage()

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(GlogFormatter())
    # The library modules install plain handlers on their loggers if nobody
    # did; the command line wants glog-style lines from all of them.
    for name in ("paddle", "paddle.data_provider"):
        lg = logging.getLogger(name)
        lg.handlers[:] = [handler]
        lg.setLevel(logging.INFO)
        lg.propagate = False


class TrainingJob(object):
    """One `paddle train` invocation: config -> engine -> passes."""

    def __init__(self, args):
        from paddle.trainer.config_parser import parse_config
        from py_paddle import swig_paddle as api

        self.args = args
        self.api = api
        # v1's trainer prepends these config args before the user's.
        implicit = v1_flags.implicit_config_args(args)
        config_args = implicit + ("," + args.config_args if args.config_args else "")
        self.config = parse_config(args.config, config_args)
        tc = self.config
        if args.data != "config":
            from paddle.trainer.readers import use_synthetic_data
            use_synthetic_data(tc, args.data)
        if args.save_dir:
            tc.save_dir = args.save_dir
        self.save_dir = tc.save_dir or "./output/model"
        if args.init_model_path:
            tc.init_model_path = args.init_model_path
        tc.start_pass = args.start_pass
        if args.precision:
            tc.opt_config.precision = args.precision
        if args.recompute:
            tc.model_config.recompute = "" if args.recompute == "off" else args.recompute
        self.config_file = os.path.abspath(args.config)

        from paddle.proto import message_to_json
        from paddle.trainer import distributed
        self.cluster = distributed.join(args, api)  # None unless started by mpiexec with N > 1
        self.saves = not self.cluster or self.cluster.is_root  # every rank holds the same parameters
        if self.cluster and args.early_stop_patience:
            raise UsageError("--early_stop_patience is decided by rank 0's tests alone: not under mpiexec")
        # no --trainer_count: the engine chooses (0); --predict_output_dir's rows need one replica
        count = args.trainer_count or (1 if getattr(args, "predict_output_dir", "") else 0)
        api.initPaddle("--use_gpu=%d" % args.use_gpu, "--trainer_count=%d" % max(count, 1),
                       "--predict_file=" + args.predict_file)
        self.shards = distributed.shards_tables(args, self.cluster)  # --local=0: sharded tables
        self.trainer = api.Trainer.create(message_to_json(tc), bool(args.use_gpu), count,
                                          args.seed if args.seed else int(time.time()),
                                          self.cluster is not None, self.shards)
        if self.cluster:
            distributed.configure(self.trainer, args)
        else:
            distributed.configure_replicas(self.trainer, args)
        self.batch_size = tc.opt_config.batch_size
        self.trainer.setSkipNonFiniteBatches(args.skip_nonfinite_batches)
        for name, value in (("--keep_last", args.keep_last), ("--early_stop_patience", args.early_stop_patience)):
            if value < 0:
                raise UsageError("%s must be >= 0, got %d" % (name, value))
        best = None
        if args.keep_best or args.early_stop_patience:
            best = BestPass(args.keep_best or "cost", args.early_stop_patience, self.trainer.getTestEvalFields())
            _check_metric(best.name, self.trainer, "--keep_best=%s%s" % (args.keep_best, (
                " (the metric of --early_stop_patience)" if args.early_stop_patience else "")))
            LOG.info("Keeping the best pass by %s", best.describe())
        self.checkpoints = Checkpoints(api, self.trainer, self.save_dir, self.config_file, _version_text(),
                                       args.load_missing_parameter_strategy,
                                       args.keep_last or (1 if args.save_only_one else 0), best,
                                       config_fingerprint(tc.model_config))

    def _monitor(self):
        a = self.args
        return Monitor(a.progress, a.metrics_file, a.tensorboard_dir, a.dot_period, a.log_period)

    # ---------------------------------------------------------------- data
    def _provider(self, for_test):
        from paddle.trainer.data_provider import DataProvider
        has = self.config.HasField("test_data_config" if for_test else "data_config")
        if not has:
            return None
        if for_test and self.cluster and not self.cluster.is_root and not self.shards:
            from paddle.trainer.distributed import NoData
            return NoData()  # rank 0 tests alone; the others go through the same motions
        kwargs = {"seed": self.args.seed, "config_dir": os.path.dirname(self.config_file)}  # lists beside it
        if for_test or self.args.job == "test":
            kwargs["shuffle"] = False
        else:
            kwargs["start_pass"] = self.args.start_pass
        data = DataProvider.from_trainer_config(self.config, for_test=for_test, **kwargs)
        if self.cluster and not for_test and self.args.data_sharding == "files":
            from paddle.trainer.distributed import ShardedData
            data = ShardedData(data, self.cluster, self.trainer)
        return data

    def _arguments(self, batch, args=None):
        from py_paddle.util import slots_to_arguments
        return slots_to_arguments(batch.slots, args)

    @staticmethod
    def _run_batch(step, provider, batch, args):
        """step(batch.size, args); the engine names a sample (an empty sequence, a label out of
        range) by its place in the batch, so its error is replaced by one naming the provider,
        file and sample."""
        try:
            step(batch.size, args)
        except ValueError as e:
            locate = getattr(provider, "batch_error", None)
            located = locate(batch, str(e)) if locate else None
            if located is None:
                raise
            raise located from None

    # ---------------------------------------------------------------- loops
    def test(self, provider, predictions=None):
        """One pass over `provider`; with `predictions` (an open file), each sample's output
        layers in v1's --predict_output_dir format."""
        t = self.trainer
        t.startTestPeriod()  # under ModelAverage this swaps the averaged weights in
        try:
            args = None
            for batch in provider.batches():
                args = self._arguments(batch, args)
                self._run_batch(t.testOneDataBatch, provider, batch, args)
                if predictions is not None:
                    self._write_predictions(predictions)
        finally:
            t.finishTestPeriod()
        return t.getTestSamples(), t.getTestCost(), Evals.of_test(t)

    def _write_predictions(self, out):
        """v1's format: per sample one line; per output layer its values ("v v v;") or id ("i;")."""
        from paddle.trainer.predict import layer_results, write_text_rows
        gm = self.trainer.getGradientMachine()
        write_text_rows(out, layer_results(gm.getLayerOutput, self.config.model_config.output_layer_names))

    def train(self):
        a = self.args
        train_data = self._provider(False)
        if train_data is None:
            raise UsageError("the config defines no training data (define_py_data_sources2)")
        test_data = self._provider(True)
        monitor = None
        try:
            for line in summary_lines(self.config, train_data, test_data):
                LOG.info("%s", line)
            if self.saves:
                tidy(self.save_dir)  # what runs killed while saving left behind
                self.checkpoints.claim(a.start_pass, a.overwrite)
            self.checkpoints.load_initial(a.init_model_path, a.start_pass)
            monitor = self._monitor()
            self.health = None
            if a.check_health:  # every rank samples the same batches' statistics (a collective
                # under sharded tables); under mpiexec rank 0 speaks for all
                from paddle.trainer.health import Health
                self.health = Health(self.config.model_config, self.trainer,
                                     LOG.warning if self.saves else (lambda *args: None),
                                     fresh=not self.config.init_model_path and a.start_pass == 0)
            with monitor.logging_around_bar():
                for pass_id in range(a.start_pass, a.num_passes):
                    if self._train_pass(pass_id, train_data, test_data, monitor):
                        break
        finally:
            if monitor is not None:
                monitor.close()
            train_data.close()
            if test_data is not None:
                test_data.close()

    def _train_pass(self, pass_id, train_data, test_data, monitor):
        """One pass, its test and its saving; True when early stopping ends the training."""
        a, t = self.args, self.trainer
        t.startTrainPass(pass_id)
        monitor.start_pass(pass_id, getattr(train_data, "expected_samples", None))
        batch_id, args = 0, None
        stats_period = a.show_parameter_stats_period
        if a.profile:
            t.setProfiling(True)
            started = time.perf_counter()
        health = self.health
        for batch in train_data.batches():
            args = self._arguments(batch, args)
            show_stats = stats_period > 0 and (batch_id + 1) % stats_period == 0
            record_stats = show_stats or (health is not None and health.wants_stats())
            t.setRecordParameterStats(record_stats)
            self._run_batch(t.trainOneDataBatch, train_data, batch, args)
            batch_id += 1
            skipped = t.lastSkippedBatch()
            if skipped:
                LOG.warning("Skipped %s (--skip_nonfinite_batches=%d)", skipped, a.skip_nonfinite_batches)
            stats = list(t.getParameterStats()) if record_stats else None
            if show_stats:
                for line in stats:
                    LOG.info(" %s", line)
            if health is not None:
                health.batch_done(batch, train_data, None if skipped else stats)
            monitor.batch_done(t, batch_id, batch.size)
            if a.log_period > 0 and batch_id % a.log_period == 0:
                monitor.log_period_done(t, pass_id, batch_id)
                t.startPeriod()
            if test_data is not None and a.test_period > 0 and batch_id % a.test_period == 0:
                monitor.test_done(pass_id, batch_id, *self.test(test_data), at_pass_end=False)
        if a.profile and batch_id:
            self._log_profile(pass_id, batch_id, 1e3 * (time.perf_counter() - started) / batch_id)
        t.finishTrainPass()
        train = monitor.end_pass(t, pass_id, batch_id)
        if health is not None:
            health.pass_done(train["AvgCost"], batch_id)
        test = None
        if test_data is not None:
            test = monitor.test_done(pass_id, batch_id, *self.test(test_data), at_pass_end=True)
        due = (pass_id + 1) % max(a.saving_period, 1) == 0
        try:
            if not self.saves:
                return False
            return self.checkpoints.end_of_pass(pass_id, train, test, due, pass_id == a.num_passes - 1)
        finally:
            t.serveShards()  # sharded tables: the other ranks send their rows while rank 0 saves

    def _log_profile(self, pass_id, batches, batch_ms):
        from py_paddle import step_profile
        rows = step_profile.layer_rows(self.trainer.getProfile(), batches, batch_ms)
        LOG.info("Profile of pass %d: %.2f ms per batch over %d batches%s ((rest): reading data, evaluators, "
                 "the Python loop)", pass_id, batch_ms, batches,
                 step_profile.replicas_note(self.trainer.getReplicaCount()))
        for table in (step_profile.type_table(rows), step_profile.layer_table(rows)):
            for line in step_profile.plain(*table).splitlines():
                LOG.info("  %s", line)

    def run_test_job(self):
        """--job=test: evaluate --init_model_path, or save_dir/pass-N for N in [test_pass, num_passes)."""
        a = self.args
        predictions = data = None
        if a.predict_output_dir:
            if a.trainer_count not in (None, 1):
                raise UsageError("--predict_output_dir needs --trainer_count=1")
            os.makedirs(a.predict_output_dir, exist_ok=True)
            predictions = open(os.path.join(a.predict_output_dir, "rank-00000"), "w")
        try:
            if a.model_list:
                with open(a.model_list) as f:
                    models = list(enumerate(line.strip() for line in f if line.strip()))
                if not models:
                    raise UsageError("--model_list %s names no model directory" % a.model_list)
            elif a.init_model_path:
                models = [(None, a.init_model_path)]
            else:
                first = a.test_pass if a.test_pass >= 0 else a.start_pass
                # a directory as it is (v1's have no `done`), else a complete copy a killed save left
                models = [(p, pass_dir(self.save_dir, p)) for p in range(first, a.num_passes)]
                models = [(p, d if os.path.isdir(d) else saved_pass_path(self.save_dir, p)) for p, d in models]
                models = [(p, d) for p, d in models if d is not None]
                if not models:
                    raise UsageError("no saved passes found in %s (use --init_model_path)" % self.save_dir)
            # the readers apply the preprocessing fitted when the model trained, not one fitted on the test data
            preprocessing.load_saved(preprocessing.read(models[0][1]))
            data = self._provider(True) or self._provider(False)
            if data is None:
                raise UsageError("the config defines no test data")
            monitor = self._monitor()
            for pass_id, path in models:
                self.checkpoints.load(path)
                n, cost, evals = self.test(data, predictions)
                if predictions is None and n and not cost and not self.config.model_config.evaluators:
                    raise UsageError(
                        "%s computes no cost and has no evaluator (a prediction config, e.g. --config_args="
                        "is_predict=1?), so testing it measures nothing: write its outputs with "
                        "--predict_output_dir=DIR (or use `paddle predict`)" % a.config)
                monitor.model_tested(pass_id if pass_id is not None else os.path.basename(os.path.normpath(path)),
                                     n, cost, evals)
            monitor.close()
        finally:
            if data is not None:
                data.close()
            if predictions is not None:
                predictions.close()

    def check_gradients(self):
        """--job=checkgrad: for every parameter, compare backward() with a central
        difference of the cost along the gradient's sign pattern (a direction that
        keeps the float32 cost change well above rounding) on one training batch."""
        import numpy as np
        api = self.api
        data = self._provider(False)
        if data is None:
            raise UsageError("the config defines no training data")
        try:
            batch = next(iter(data.batches()))
        finally:
            data.close()
        self.checkpoints.load_initial(self.args.init_model_path, self.args.start_pass)
        gm = self.trainer.getGradientMachine()
        args = self._arguments(batch)

        def cost():
            out = api.Arguments.createArguments(0)
            gm.forward(args, out, api.PASS_GC)
            return out.sum()

        out = api.Arguments.createArguments(0)
        gm.forwardBackward(args, out, api.PASS_GC)
        bad = 0
        for p in gm.getParameters():
            if p.isStatic():
                continue
            grad = p.getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray().astype(np.float64)
            value = p.getBuf(api.PARAMETER_VALUE).toNumpyArrayInplace()
            orig = value.copy()
            scale = max(float(np.abs(orig).mean()), 1e-2)
            step = self.args.checkgrad_eps * scale
            direction = np.sign(grad) * step
            value[:] = orig + direction
            cost1 = cost()
            value[:] = orig - direction
            cost2 = cost()
            value[:] = orig
            true_delta = (cost1 - cost2) / 2
            analytic = float(np.dot(grad, direction))
            diff = (true_delta - analytic) / analytic if analytic else true_delta
            flag = " ***" if abs(diff) > 0.01 else ""
            bad += bool(flag)
            LOG.info("parameter %s step=%g cost1=%.10g cost2=%.10g true_delta=%g analytic_delta=%g diff=%g%s",
                     p.getName(), step, cost1, cost2, true_delta, analytic, diff, flag)
        if bad:
            raise UsageError("gradient check failed for %d parameter(s)" % bad)
        LOG.info("gradient check passed")


_SIMD = ("sse4_2", "avx", "avx2", "fma", "avx512f", "neon")


def cpu_features():
    """(SIMD extensions the engine was compiled for, those this CPU has: None if unknown)."""
    from py_paddle import swig_paddle as api
    have = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("flags", "Features"):  # x86, ARM
                    have = set(value.split()) | ({"neon"} if "asimd" in value.split() else set())
                    break
    except OSError:
        pass
    return api.getBuildCpuFeatures().split(), None if have is None else [f for f in _SIMD if f in have]


def _version_text():
    from py_paddle import swig_paddle as api
    return ("paddle version: %s\n\twithGpu: %s\n\twithAvx: %s\n\twithPyDataProvider: true\n"
            "\twithTimer: false\n\twithFpga: false\n\treal byte size: 4\n"
            % (api.getVersion(), "true" if api.isGpuVersion() else "false",
               "true" if "avx" in cpu_features()[0] else "false"))


def cmd_train(argv):
    parser = _train_parser()
    args = parser.parse_args(_normalize(argv))
    if args.version:
        sys.stdout.write(_version_text())
        return 0
    args.config = args.config or v1_flags.config_from_model_dir(args)
    if not args.config:
        parser.error("the following arguments are required: --config (or --init_model_path=DIR "
                     "with DIR/path.txt)")
    if not os.path.isfile(args.config):
        raise UsageError("--config=%s: no such file (in %s)" % (args.config, os.getcwd()))
    _setup_logging()
    warn_ignored_flags(args)
    v1_flags.apply_library_flags(args)
    from paddle.trainer.distributed import abort_on_error
    with abort_on_error():
        job = TrainingJob(args)
        if args.job == "train":
            job.train()
        elif args.job == "checkgrad":
            job.check_gradients()
        elif args.job == "time":
            v1_flags.time_job(job)
        else:
            job.run_test_job()
    return 0


def _config_args(parser, args):
    """v1's positional CONFIG_ARGS or --config_args=, as `paddle train` takes them."""
    if args.config_args and args.config_args_flag:
        parser.error("config args given twice: positionally and with --config_args")
    return args.config_args_flag or args.config_args


def _config_parser(prog, description):
    p = ArgumentParser(prog=prog, description=description)
    p.add_argument("config", help="trainer config file (.py or .yaml)")
    return p


def _add_config_args(p):
    p.add_argument("config_args", nargs="?", default="", help="k1=v1,k2=v2 passed to get_config_arg (v1's form)")
    p.add_argument("--config_args", dest="config_args_flag", default="", help="the same, as paddle train takes it")


def cmd_dump_config(argv):
    p = _config_parser("paddle dump_config", "print the ModelConfig of a config")
    _add_config_args(p)
    p.add_argument("--whole", action="store_true", help="print the whole TrainerConfig")
    p.add_argument("--format", default="text", choices=["text", "yaml", "json"], help="output format")
    args = p.parse_args(argv)
    from paddle.utils.dump_config import dump_config
    sys.stdout.write(dump_config(args.config, _config_args(p, args), whole=args.whole, fmt=args.format))
    return 0


def cmd_make_diagram(argv):
    p = _config_parser("paddle make_diagram", "write a Graphviz dot diagram of a config's network")
    p.add_argument("dot_file", help="the .dot file to write (.png/.svg/.pdf: the picture, drawn by Graphviz)")
    p.add_argument("--expand_groups", action="store_true", help="draw recurrent groups' agent layers too")
    _add_config_args(p)
    args = p.parse_args(argv)
    from paddle.utils.make_model_diagram import DiagramError, make_diagram, written_note
    try:
        make_diagram(args.config, args.dot_file, _config_args(p, args), args.expand_groups)
    except DiagramError as e:
        raise UsageError(str(e)) from None
    sys.stdout.write(written_note(args.dot_file) + "\n")
    return 0


def cmd_plot(argv):
    p = ArgumentParser(prog="paddle plot", description="draw learning curves per pass (end-of-pass tests "
                                                       "dashed) from a --metrics_file or a paddle train log")
    p.add_argument("source", help="a --metrics_file (JSON lines) or a log of paddle train")
    p.add_argument("keys", nargs="*", help="values to draw: AvgCost or evaluator names (default: AvgCost)")
    p.add_argument("-o", "--output", default="curves.png", help="the picture; its extension picks the format")
    args = p.parse_intermixed_args(argv)
    from paddle.trainer.monitor import plot
    if not plot(args.source, args.output, args.keys):
        return 1
    sys.stdout.write("wrote %s\n" % args.output)
    return 0


def _engine_text():
    from py_paddle import cpu_dispatch
    variants = cpu_dispatch.built_variants(cpu_dispatch.engine_dir())
    if not variants:
        return "one, built for the installing machine's CPU (PADDLE_PORTABLE=1 builds dispatched ones)"
    return "%s of %s (PADDLE_CPU=baseline|avx2|avx512 forces one)" % (cpu_dispatch.chosen,
                                                                     ", ".join(["baseline"] + variants))


def cmd_version(argv):
    from py_paddle import swig_paddle as api
    built, cpu = cpu_features()
    text = ("PaddlePaddle %s, compiled with\n    with_avx: %s\n    with_gpu: %s\n"
            "    with_double: OFF\n    with_python: ON\n    with_rdma: OFF\n"
            "    with_timer: OFF\n    with_mpi: %s\n    visible GPUs: %d\n    build SIMD: %s\n    CPU SIMD: %s\n"
            "    engine: %s\n"
            % (api.getVersion(), "ON" if "avx" in built else "OFF", "ON" if api.isGpuVersion() else "OFF",
               "ON" if api.isMpiVersion() else "OFF", api.getGpuCount(), " ".join(built) or "none",
               "unknown" if cpu is None else " ".join(cpu) or "none", _engine_text()))
    missing = [f for f in built if cpu is not None and f not in cpu]
    if missing:
        text += ("    warning: this CPU lacks %s that the build uses; reinstall on this machine (pip install . "
                 "builds for its CPU) or build with PADDLE_PORTABLE=1\n"
                 % " ".join(missing))
    sys.stdout.write(text)
    return 0


def cmd_upgrade_config(argv):
    from paddle.utils.upgrade_config import main as upgrade
    return upgrade(argv)


def cmd_merge_model(argv):
    from py_paddle.deploy import main as merge
    return merge(argv)


def cmd_build_java(argv):
    from py_paddle.java_build import main as build
    return build(argv)


def cmd_predict(argv):
    from paddle.trainer.predict import main as predict
    return predict(argv)


def cmd_serve(argv):
    from paddle.serving.cli import main as serve
    return serve(argv)


def cmd_export_onnx(argv):
    from paddle.utils.export_onnx import main as export
    return export(argv)


COMMANDS = {"train": cmd_train, "dump_config": cmd_dump_config, "make_diagram": cmd_make_diagram,
            "version": cmd_version, "plot": cmd_plot, "upgrade_config": cmd_upgrade_config,
            "merge_model": cmd_merge_model, "build_java": cmd_build_java, "export_onnx": cmd_export_onnx,
            "predict": cmd_predict, "serve": cmd_serve}
USAGE = """usage: paddle <command> [args]      (paddle <command> --help: its flags)

commands:
  train        train (or --job=test) a trainer config:  paddle train --config=conf.py
  dump_config  print the ModelConfig of a config:        paddle dump_config conf.py [--config_args=a=1] [--whole]
  make_diagram write a Graphviz dot file of the network:  paddle make_diagram conf.py model.dot [--config_args=a=1]
  version      print the version, build options and CPU features (also: paddle --version)
  plot         draw learning curves of a metrics file or log: paddle plot metrics.jsonl -o curves.png [KEY ...]
  upgrade_config  rewrite Python 2 configs/providers:  paddle upgrade_config conf.py provider.py [--write]
  predict      write a model's outputs for a data list:  paddle predict --config=conf.py --model_dir=output/pass-00009 --output=pred.txt [--format=text|npy|jsonl]
  merge_model  config + a saved pass in one file:       paddle merge_model --config=conf.py --model_dir=output/pass-00009 --output=model.paddle
  build_java   the engine's Java binding:               paddle build_java --output=DIR  (paddle.jar, libpaddle_jni.so)
  serve        a model behind HTTP with dynamic batching:  paddle serve --model_file=model.paddle [--port=8000]
  export_onnx  a saved pass / merged model as ONNX:     paddle export_onnx --config=conf.py --model_dir=output/pass-00009 --output=model.onnx
"""


def _user_code_frame(exc):
    """The innermost traceback frame in the user's code (a provider or config: not this
    project's packages, the standard library or installed packages), or None when the error
    comes from the engine or the project itself."""
    not_user = tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep
                     for m in (sys.modules.get("paddle"), sys.modules.get("py_paddle")) if m is not None)
    not_user += tuple({os.path.abspath(p) + os.sep for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)})
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if not os.path.abspath(frame.filename).startswith(not_user):
            return frame
    return None


def _describe_error(exc, frame):
    """'FILE:LINE: Type: message' for an error raised in the user's code at `frame`; for an
    engine error naming a layer, 'FILE:LINE: message' with the config line that made the
    layer; else the message."""
    if frame is None:
        import re
        from paddle.parser import state
        m = re.search(r"layer '([^']+)'", str(exc))
        filename, lineno = state.layer_sites.get(m.group(1), (None, None)) if m else (None, None)
        if filename is None:
            return str(exc)
        return "%s:%s: %s" % (filename, lineno, exc)
    return "%s:%d: %s: %s" % (frame.filename, frame.lineno, type(exc).__name__, exc)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help", "usage"):
        sys.stdout.write(USAGE)
        return 0
    if argv[0] == "--version":
        argv[0] = "version"
    cmd = COMMANDS.get(argv[0])
    if cmd is None:
        import difflib
        close = difflib.get_close_matches(argv[0], COMMANDS, n=1)
        sys.stderr.write("paddle: unknown command %r%s\n%s" % (
            argv[0], " (did you mean %r?)" % close[0] if close else "", USAGE))
        return 2
    # v1's wrapper puts the working directory first on the path (providers live there).
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    from paddle.trainer.config_parser import ConfigError
    try:
        from paddle.trainer.PyDataProvider2 import DataError
    except ImportError:  # pragma: no cover
        DataError = ValueError
    try:
        return cmd(argv[1:])
    except ConfigError as e:
        sys.stderr.write("paddle %s: config error: %s\n" % (argv[0], e))
    except DataError as e:
        sys.stderr.write("paddle %s: data error: %s\n" % (argv[0], e))
    except UsageError as e:
        sys.stderr.write("paddle %s: %s\n" % (argv[0], e))
    except (ValueError, OSError, RuntimeError, IndexError) as e:
        # Engine errors (C++ exceptions surfaced through SWIG), I/O problems, and the same
        # errors raised by the user's own code (then with its file:line).
        if os.environ.get("PADDLE_DEBUG"):
            raise
        sys.stderr.write("paddle %s: error: %s\n" % (argv[0], _describe_error(e, _user_code_frame(e))))
    except KeyboardInterrupt:
        sys.stderr.write("paddle %s: interrupted\n" % argv[0])
        return 130
    except Exception as e:  # errors in the user's own code (providers): one line with its place
        if os.environ.get("PADDLE_DEBUG"):
            raise
        from paddle.parser.python2 import python2_hint
        frame = _user_code_frame(e)
        hint = python2_hint(e, frame.filename if frame else None)
        text = _describe_error(e, frame) if frame else "%s: %s" % (type(e).__name__, e)
        sys.stderr.write("paddle %s: error: %s\n  %s\n" % (
            argv[0], text, hint or "(PADDLE_DEBUG=1 shows the whole traceback)"))
    return 1


if __name__ == "__main__":
    sys.exit(main())
