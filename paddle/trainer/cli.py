"""The `paddle` command: train / test a v1 trainer config, dump configs, print the version.

    paddle train --config=trainer_config.py [--config_args=a=1,b=x] [v1 flags ...]
    paddle dump_config CONFIG [CONFIG_ARGS] [--whole] [--format=text|yaml|json]
    paddle make_diagram CONFIG DOT_FILE [CONFIG_ARGS]
    paddle version

Flags follow v1's gflags spelling (`--name=value`, also `-name=value` and
`--name value`; booleans accept 1/0/true/false). The C++ engine does the math;
this module parses the config, feeds batches from the data provider, logs in
v1's format and writes `save_dir/pass-%05d/` atomically.
"""
import argparse
import logging
import os
import shutil
import sys
import traceback
import time

LOG = logging.getLogger("paddle")

# v1 (v0.10) flags that are accepted but change nothing here, with the reason the
# warning gives (v0.10's `paddle train --help`, its docs and demo scripts).
_CLUSTER = ("there is no parameter server: distributed training runs under mpiexec "
            "(paddle/trainer/distributed.py), ranks come from MPI")
_GPU_LIBS = "CUDA/cuDNN are linked at build time, not loaded at run time"
_GLOG = "logging goes to stderr in v1's format (Python logging, not glog)"
_BARRIER = "barrier statistics belong to multi-machine training"
IGNORED_FLAGS = dict(
    [(f, _CLUSTER) for f in (
        "local", "pservers", "port", "ports_num", "ports_num_for_sparse", "nics", "rdma_tcp",
        "trainer_id", "num_gradient_servers", "start_pserver", "loadsave_parameters_in_pserver",
        "use_old_updater", "distribute_test", "small_messages", "sock_send_buf_size",
        "sock_recv_buf_size", "parameter_block_size", "parameter_block_size_for_sparse",
        "log_period_server", "pserver_num_threads", "async_count", "async_lagged_ratio_min",
        "async_lagged_ratio_default", "check_sparse_distribution_in_pserver",
        "show_check_sparse_distribution_log", "check_sparse_distribution_batches",
        "check_sparse_distribution_ratio", "check_sparse_distribution_unbalance_degree",
        "external", "data_server_port", "comment")]
    + [(f, _GPU_LIBS) for f in ("cudnn_dir", "cuda_dir", "warpctc_dir", "cudnn_version")]
    + [(f, _GLOG) for f in (
        "log_dir", "logtostderr", "alsologtostderr", "colorlogtostderr", "stderrthreshold",
        "minloglevel", "v", "vmodule", "logbuflevel", "logbufsecs", "max_log_size",
        "stop_logging_if_full_disk", "log_prefix", "log_link", "logfile_mode",
        "symbolize_stacktrace")]
    + [(f, _BARRIER) for f in ("log_barrier_abstract", "log_barrier_show_log",
                               "log_barrier_lowest_nodes")]
    + [
        ("test_all_data_in_one_period", "tests always read all the test data"),
        ("gpu_id", "the GPU is the one CUDA_VISIBLE_DEVICES shows first"),
        ("parallel_nn", "layers have no per-layer device; the whole network runs on one device"),
        ("allow_only_one_model_on_one_gpu", "one model runs per process"),
        ("cudnn_conv_workspace_limit_in_mb", "convolutions do not use cuDNN"),
        ("python_path", "providers are imported from the config's folder and sys.path"),
        ("python_bin", "the provider runs in this Python"),
        ("enable_grad_share", "gradients of --trainer_count replicas are summed directly"),
        ("grad_share_block_num", "gradients of --trainer_count replicas are summed directly"),
        ("enable_parallel_vector", "vector math is not split across threads"),
        ("thread_local_rand_use_global_seed", "every random stream derives from --seed"),
        ("show_layer_stat", "per-layer statistics are not collected"),
        ("rnn_use_batch", "recurrent layers always run batched by time step"),
        ("log_clipping", "clipping is not logged"),
        ("log_error_clipping", "clipping is not logged"),
        ("test_wait", "--job=test reads the passes already saved; it does not wait for new ones"),
        ("prev_batch_state", "recurrent state is not carried from one batch to the next"),
        ("beam_size", "the beam size comes from the config (beam_search(beam_size=...))"),
        ("diy_beam_search_prob_so", "no user library is loaded into beam search"),
        ("average_test_period", "averaged parameters (average_window) are tested at pass ends "
                                "only"),
        ("with_cost", "cost layers always run"),
        ("saving_period_by_batches", "parameters are saved at pass ends (--saving_period)"),
        ("feat_file", "v1 read it nowhere"),
        ("memory_threshold_on_load_data", "providers are read by a generator, not loaded whole"),
        ("use_mkldnn", "there are no MKL-DNN kernels"),
        ("use_mkl_packed", "there are no MKL packed kernels"),
    ])


OPTIMIZER_DIR = "optimizer"  # inside pass-%05d: optimizer state for exact --start_pass resumption


class UsageError(Exception):
    pass


def _bool(text):
    value = str(text).strip().lower()
    if value in ("1", "true", "t", "yes", "on"):
        return True
    if value in ("0", "false", "f", "no", "off"):
        return False
    raise argparse.ArgumentTypeError("expected a boolean (1/0/true/false), got %r" % text)


# boolean flags: gflags also takes a bare --flag (true) and --noflag (false)
_BOOL_FLAGS = {"use_gpu", "save_only_one", "version", "local", "test_all_data_in_one_period",
               "parallel_nn", "allow_only_one_model_on_one_gpu", "thread_local_rand_use_global_seed",
               "show_layer_stat", "rnn_use_batch", "log_clipping", "log_error_clipping",
               "loadsave_parameters_in_pserver", "start_pserver", "prev_batch_state",
               "with_cost", "distribute_test", "use_old_updater", "small_messages", "external",
               "check_sparse_distribution_in_pserver", "show_check_sparse_distribution_log",
               "log_barrier_abstract", "log_barrier_show_log", "logtostderr", "alsologtostderr",
               "colorlogtostderr", "stop_logging_if_full_disk", "log_prefix",
               "symbolize_stacktrace", "use_mkldnn", "use_mkl_packed"}


def _normalize(argv):
    """v1 (gflags) accepts -flag=value as well as --flag=value, and --noflag for a boolean."""
    out = []
    for a in argv:
        if a.startswith("-") and not a.startswith("--") and len(a) > 2:
            a = "-" + a
        if a.startswith("--no") and "=" not in a and a[4:] in _BOOL_FLAGS:
            a = "--%s=false" % a[4:]
        out.append(a)
    return out


def _train_parser():
    p = argparse.ArgumentParser(prog="paddle train", description="Train or test a v1 trainer config.")
    p.add_argument("--config", default=None, help="trainer config file (.py or .yaml)")
    p.add_argument("--config_args", default="", help="k1=v1,k2=v2 passed to get_config_arg")
    p.add_argument("--job", default="train", choices=["train", "test", "checkgrad"])
    p.add_argument("--save_dir", default=None, help="output directory (default: the config's, ./output/model)")
    p.add_argument("--num_passes", type=int, default=100)
    p.add_argument("--start_pass", type=int, default=0, help="resume: load save_dir/pass-(N-1)")
    p.add_argument("--init_model_path", default="", help="load parameters from this directory")
    p.add_argument("--load_missing_parameter_strategy", default="fail", choices=["fail", "rand", "zero"])
    p.add_argument("--use_gpu", type=_bool, nargs="?", const=True, default=False)
    p.add_argument("--trainer_count", type=int, default=1)
    p.add_argument("--data_sharding", default="batch", choices=["batch", "files"],
                   help="under mpiexec: every rank reads all data and trains its share of each batch, "
                        "or reads only its entries of the file list (paddle/trainer/distributed.py)")
    p.add_argument("--log_period", type=int, default=100)
    p.add_argument("--dot_period", type=int, default=1)
    p.add_argument("--test_period", type=int, default=0,
                   help="0: test at the end of each pass; N: also every N batches")
    p.add_argument("--saving_period", type=int, default=1, help="save every N passes")
    p.add_argument("--save_only_one", type=_bool, nargs="?", const=True, default=False)
    p.add_argument("--test_pass", type=int, default=-1, help="job=test: first pass to evaluate")
    p.add_argument("--model_list", default="", help="job=test: a file listing model directories to evaluate")
    p.add_argument("--predict_output_dir", default="",
                   help="job=test: write the output layers' values/ids of every sample to DIR/rank-00000")
    p.add_argument("--predict_file", default="",
                   help="auc-validation/pnpair-validation layers write the samples of each pass here")
    p.add_argument("--seed", type=int, default=1, help="0 = seeded from the clock")
    p.add_argument("--show_parameter_stats_period", type=int, default=0,
                   help="log value/gradient magnitudes of every parameter every N batches")
    p.add_argument("--checkgrad_eps", type=float, default=1e-3,
                   help="job=checkgrad: relative step (v1's 1e-5 suits double builds; float32 needs more)")
    p.add_argument("--version", type=_bool, nargs="?", const=True, default=False,
                   help="print the version and exit")
    for flag in sorted(IGNORED_FLAGS):
        if flag in _BOOL_FLAGS:
            p.add_argument("--" + flag, nargs="?", const="true", default=None, help=argparse.SUPPRESS)
        else:
            p.add_argument("--" + flag, default=None, help=argparse.SUPPRESS)
    return p


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


def _pass_dir(save_dir, pass_id):
    return os.path.join(save_dir, "pass-%05d" % pass_id)


class TrainingJob(object):
    """One `paddle train` invocation: config -> engine -> passes."""

    def __init__(self, args):
        from paddle.trainer.config_parser import parse_config
        from py_paddle import swig_paddle as api

        self.args = args
        self.api = api
        # v1's trainer prepends these config args before the user's.
        implicit = "trainer_id=0,local=1,with_cost=1,use_gpu=%d,parallel_nn=0,cudnn_version=0" % (
            1 if args.use_gpu else 0)
        config_args = implicit + ("," + args.config_args if args.config_args else "")
        self.config = parse_config(args.config, config_args)
        tc = self.config
        if args.save_dir is not None:
            tc.save_dir = args.save_dir
        self.save_dir = tc.save_dir or "./output/model"
        if args.init_model_path:
            tc.init_model_path = args.init_model_path
        tc.start_pass = args.start_pass
        self.config_file = os.path.abspath(args.config)

        from paddle.proto import message_to_json
        from paddle.trainer import distributed
        self.cluster = distributed.join(args, api)  # None unless started by mpiexec with N > 1
        api.initPaddle("--use_gpu=%d" % args.use_gpu, "--trainer_count=%d" % args.trainer_count,
                       "--predict_file=" + args.predict_file)
        self.trainer = api.Trainer.create(message_to_json(tc), bool(args.use_gpu), args.trainer_count,
                                          args.seed if args.seed else int(time.time()),
                                          self.cluster is not None)
        self.batch_size = tc.opt_config.batch_size

    # ---------------------------------------------------------------- data
    def _provider(self, for_test):
        from paddle.trainer.data_provider import DataProvider
        has = self.config.HasField("test_data_config" if for_test else "data_config")
        if not has:
            return None
        if for_test and self.cluster and not self.cluster.is_root:
            from paddle.trainer.distributed import NoData
            return NoData()  # rank 0 tests alone; the others go through the same motions
        kwargs = {"seed": self.args.seed}
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

    # ---------------------------------------------------------------- params
    def load_initial_parameters(self):
        a = self.args
        if a.init_model_path:
            self._load(a.init_model_path)
        elif a.start_pass > 0:
            path = _pass_dir(self.save_dir, a.start_pass - 1)
            if not os.path.exists(os.path.join(path, "done")):
                raise UsageError("--start_pass=%d needs a complete %s (with its 'done' file)" % (a.start_pass, path))
            self._load(path)
            state = os.path.join(path, OPTIMIZER_DIR)
            if os.path.isdir(state):
                self.trainer.loadOptimizerState(state)
            else:
                LOG.warning("%s has no optimizer state: momentum and moments restart from zero", path)

    def _load(self, path):
        if not os.path.isdir(path):
            raise UsageError("model directory %s does not exist" % path)
        gm = self.trainer.getGradientMachine()
        for p in gm.getParameters():
            f = os.path.join(path, p.getName())
            if os.path.exists(f):
                p.load(f)
            elif self.args.load_missing_parameter_strategy == "zero":
                p.getBuf(self.api.PARAMETER_VALUE).toNumpyArrayInplace()[:] = 0
            elif self.args.load_missing_parameter_strategy == "fail":
                raise UsageError("parameter file %s is missing (use --load_missing_parameter_strategy=rand|zero)" % f)
        LOG.info("Loaded parameters from %s", path)

    def save(self, pass_id):
        """Writes pass-%05d via a temporary directory renamed into place."""
        if self.cluster and not self.cluster.is_root:
            return  # distributed: every rank holds the same parameters; rank 0 saves them
        final = _pass_dir(self.save_dir, pass_id)
        tmp = final + ".tmp-%d" % os.getpid()
        if os.path.exists(tmp):
            shutil.rmtree(tmp)
        os.makedirs(tmp)
        self.trainer.saveParameters(tmp)
        os.makedirs(os.path.join(tmp, OPTIMIZER_DIR))
        self.trainer.saveOptimizerState(os.path.join(tmp, OPTIMIZER_DIR))
        shutil.copy(self.config_file, tmp)
        with open(os.path.join(tmp, "path.txt"), "w") as f:
            f.write(os.path.basename(self.config_file))
        with open(os.path.join(tmp, "done"), "w") as f:
            f.write(_version_text())
        if os.path.exists(final):
            old = final + ".old-%d" % os.getpid()
            os.rename(final, old)
            os.rename(tmp, final)
            shutil.rmtree(old)
        else:
            os.rename(tmp, final)
        LOG.info("Saving parameters to %s", final)
        period = max(self.args.saving_period, 1)
        if self.args.save_only_one and pass_id - period >= 0:
            shutil.rmtree(_pass_dir(self.save_dir, pass_id - period), ignore_errors=True)

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
                t.testOneDataBatch(batch.size, args)
                if predictions is not None:
                    self._write_predictions(predictions)
        finally:
            t.finishTestPeriod()
        return t.getTestSamples(), t.getTestCost(), t.getTestEval()

    def _write_predictions(self, out):
        """v1's format: per sample one line; per output layer its values ("v v v;") or id ("i;")."""
        gm = self.trainer.getGradientMachine()
        columns = []
        for name in self.config.model_config.output_layer_names:
            arg = gm.getLayerOutput(name)
            value, ids = arg.getSlotValue(0), arg.getSlotIds(0)
            if value is not None:
                columns.append([" ".join("%g" % v for v in row) + ";" for row in value.copyToNumpyMat()])
            elif ids is not None:
                columns.append(["%d;" % i for i in ids.copyToNumpyArray()])
        for row in zip(*columns):
            out.write("".join(row) + "\n")

    def log_test(self, provider):
        n, cost, evals = self.test(provider)
        LOG.info(" Test samples=%d cost=%g Eval: %s", n, cost / max(n, 1), evals)

    def train(self):
        a, t = self.args, self.trainer
        train_data = self._provider(False)
        if train_data is None:
            raise UsageError("the config defines no training data (define_py_data_sources2)")
        test_data = self._provider(True)
        self.load_initial_parameters()
        try:
            for pass_id in range(a.start_pass, a.num_passes):
                t.startTrainPass(pass_id)
                batch_id = 0
                args = None
                stats_period = a.show_parameter_stats_period
                for batch in train_data.batches():
                    args = self._arguments(batch, args)
                    show_stats = stats_period > 0 and (batch_id + 1) % stats_period == 0
                    t.setRecordParameterStats(show_stats)
                    t.trainOneDataBatch(batch.size, args)
                    batch_id += 1
                    if show_stats:
                        for line in t.getParameterStats():
                            LOG.info(" %s", line)
                    if a.dot_period > 0 and batch_id % a.dot_period == 0:
                        sys.stderr.write(".")
                        sys.stderr.flush()
                    if a.log_period > 0 and batch_id % a.log_period == 0:
                        if a.dot_period > 0:
                            sys.stderr.write("\n")
                        n, pn = t.getPassSamples(), t.getPeriodSamples()
                        LOG.info(" Batch=%d samples=%d AvgCost=%g CurrentCost=%g Eval: %s CurrentEval: %s",
                                 batch_id, n, t.getPassCost() / max(n, 1), t.getPeriodCost() / max(pn, 1),
                                 t.getPassEval(), t.getPeriodEval())
                        t.startPeriod()
                    if test_data is not None and a.test_period > 0 and batch_id % a.test_period == 0:
                        self.log_test(test_data)
                if a.dot_period > 0 and batch_id % max(a.log_period, 1):
                    sys.stderr.write("\n")
                t.finishTrainPass()
                n = t.getPassSamples()
                LOG.info(" Pass=%d Batch=%d samples=%d AvgCost=%g Eval: %s",
                         pass_id, batch_id, n, t.getPassCost() / max(n, 1), t.getPassEval())
                if test_data is not None:
                    self.log_test(test_data)
                if (pass_id + 1) % max(a.saving_period, 1) == 0 or pass_id == a.num_passes - 1:
                    self.save(pass_id)
        finally:
            train_data.close()
            if test_data is not None:
                test_data.close()

    def run_test_job(self):
        """--job=test: evaluate --init_model_path, or save_dir/pass-N for N in [test_pass, num_passes)."""
        a = self.args
        data = self._provider(True) or self._provider(False)
        if data is None:
            raise UsageError("the config defines no test data")
        predictions = None
        if a.predict_output_dir:
            if a.trainer_count != 1:
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
                models = [(p, _pass_dir(self.save_dir, p)) for p in range(first, a.num_passes)]
                models = [(p, d) for p, d in models if os.path.isdir(d)]
                if not models:
                    raise UsageError("no saved passes found in %s (use --init_model_path)" % self.save_dir)
            for pass_id, path in models:
                self._load(path)
                n, cost, evals = self.test(data, predictions)
                LOG.info(" Pass=%s samples=%d AvgCost=%g Eval: %s",
                         pass_id if pass_id is not None else os.path.basename(os.path.normpath(path)),
                         n, cost / max(n, 1), evals)
        finally:
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
        self.load_initial_parameters()
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


def _version_text():
    from py_paddle import swig_paddle as api
    return ("paddle version: %s\n\twithGpu: %s\n\twithAvx: true\n\twithPyDataProvider: true\n"
            "\twithTimer: false\n\twithFpga: false\n\treal byte size: 4\n"
            % (api.getVersion(), "true" if api.isGpuVersion() else "false"))


def cmd_train(argv):
    parser = _train_parser()
    args = parser.parse_args(_normalize(argv))
    if args.version:
        sys.stdout.write(_version_text())
        return 0
    if not args.config:
        parser.error("the following arguments are required: --config")
    _setup_logging()
    warn_ignored_flags(args)
    from paddle.trainer.distributed import abort_on_error
    with abort_on_error():
        job = TrainingJob(args)
        if args.job == "train":
            job.train()
        elif args.job == "checkgrad":
            job.check_gradients()
        else:
            job.run_test_job()
    return 0


def cmd_dump_config(argv):
    p = argparse.ArgumentParser(prog="paddle dump_config")
    p.add_argument("config")
    p.add_argument("config_args", nargs="?", default="")
    p.add_argument("--whole", action="store_true", help="print the whole TrainerConfig")
    p.add_argument("--format", default="text", choices=["text", "yaml", "json"])
    args = p.parse_args(argv)
    from paddle.utils.dump_config import dump_config
    sys.stdout.write(dump_config(args.config, args.config_args, whole=args.whole, fmt=args.format))
    return 0


def cmd_make_diagram(argv):
    p = argparse.ArgumentParser(prog="paddle make_diagram",
                                description="write a Graphviz dot diagram of a config's network")
    p.add_argument("config")
    p.add_argument("dot_file")
    p.add_argument("config_args", nargs="?", default="")
    args = p.parse_args(argv)
    from paddle.utils.make_model_diagram import make_diagram
    make_diagram(args.config, args.dot_file, args.config_args)
    return 0


def cmd_version(argv):
    from py_paddle import swig_paddle as api
    sys.stdout.write("PaddlePaddle %s, compiled with\n    with_avx: ON\n    with_gpu: %s\n"
                     "    with_double: OFF\n    with_python: ON\n    with_rdma: OFF\n"
                     "    with_timer: OFF\n    with_mpi: %s\n    visible GPUs: %d\n"
                     % (api.getVersion(), "ON" if api.isGpuVersion() else "OFF",
                        "ON" if api.isMpiVersion() else "OFF", api.getGpuCount()))
    return 0


def cmd_upgrade_config(argv):
    from paddle.utils.upgrade_config import main as upgrade
    return upgrade(argv)


def cmd_merge_model(argv):
    from py_paddle.deploy import main as merge
    return merge(argv)


COMMANDS = {"train": cmd_train, "dump_config": cmd_dump_config, "make_diagram": cmd_make_diagram,
            "version": cmd_version, "upgrade_config": cmd_upgrade_config, "merge_model": cmd_merge_model,
            "build_java": lambda argv: __import__("py_paddle.java_build", fromlist=["main"]).main(argv)}
USAGE = """usage: paddle <command> [args]

commands:
  train        train (or --job=test) a trainer config:  paddle train --config=conf.py
  dump_config  print the ModelConfig of a config:        paddle dump_config conf.py [args] [--whole]
  make_diagram write a Graphviz dot file of the network:  paddle make_diagram conf.py model.dot [args]
  version      print the version and build options
  upgrade_config  rewrite Python 2 configs/providers:  paddle upgrade_config conf.py provider.py [--write]
  merge_model  config + a saved pass in one file:       paddle merge_model --config=conf.py --model_dir=output/pass-00009 --output=model.paddle
  build_java   the engine's Java binding:               paddle build_java --output=DIR  (paddle.jar, libpaddle_jni.so)
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
    cmd = COMMANDS.get(argv[0])
    if cmd is None:
        sys.stderr.write("paddle: unknown command %r\n%s" % (argv[0], USAGE))
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
