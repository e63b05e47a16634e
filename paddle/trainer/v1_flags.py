"""v1 (v0.10) `paddle train` flags beyond this toolkit's own (paddle/trainer/cli.py):

* gflags' --flagfile=FILE, --fromenv=a,b and --tryfromenv=a,b, expanded before parsing;
* flags v1 passed to the config: --trainer_id and --with_cost reach get_config_arg as v1's
  TrainerConfigHelper passed them (with local, use_gpu, parallel_nn, cudnn_version);
* a config read from a model directory's path.txt when --config is not given (v1's
  TrainerConfigHelper::createFromFlags);
* --job=time (v1's TrainerBenchmark: time forward/backward on one batch, or fresh batches
  with --feed_data) and the library flags v1's binary linked in (--profile_signal and
  --profile_data_file toggle a profiler; glog's --log_dir writes the log there too);
* every other v1 flag: accepted, with the reason it changes nothing here (in --help and in
  a warning when given).
"""
import argparse
import logging
import os
import time

from paddle.trainer.checkpoints import UsageError

LOG = logging.getLogger("paddle")

_CLUSTER = ("there is no parameter server: distributed training runs under mpiexec "
            "(paddle/trainer/distributed.py), ranks come from MPI")
_GPU_LIBS = "CUDA/cuDNN are linked at build time, not loaded at run time"
_GLOG = "logging goes to stderr in v1's format (Python logging, not glog)"
_BARRIER = "barrier statistics belong to multi-machine training"
IGNORED_FLAGS = dict(
    [(f, _CLUSTER) for f in (
        "pservers", "port", "ports_num", "ports_num_for_sparse", "nics", "rdma_tcp",
        "num_gradient_servers", "start_pserver", "loadsave_parameters_in_pserver",
        "use_old_updater", "distribute_test", "small_messages", "sock_send_buf_size",
        "sock_recv_buf_size", "parameter_block_size", "parameter_block_size_for_sparse",
        "log_period_server", "pserver_num_threads", "async_count", "async_lagged_ratio_min",
        "async_lagged_ratio_default", "check_sparse_distribution_in_pserver",
        "show_check_sparse_distribution_log", "check_sparse_distribution_batches",
        "check_sparse_distribution_ratio", "check_sparse_distribution_unbalance_degree",
        "external", "data_server_port", "comment")]
    + [(f, _GPU_LIBS) for f in ("cudnn_dir", "cuda_dir", "warpctc_dir", "cudnn_version")]
    + [(f, _GLOG) for f in (
        "logtostderr", "alsologtostderr", "colorlogtostderr", "stderrthreshold",
        "minloglevel", "v", "vmodule", "logbuflevel", "logbufsecs", "max_log_size",
        "stop_logging_if_full_disk", "log_prefix", "log_link", "logfile_mode",
        "symbolize_stacktrace")]
    + [(f, _BARRIER) for f in ("log_barrier_abstract", "log_barrier_show_log",
                               "log_barrier_lowest_nodes")]
    + [
        ("test_all_data_in_one_period", "tests always read all the test data"),
        ("gpu_id", "the GPUs are the first ones CUDA_VISIBLE_DEVICES shows (replica r on the r-th)"),
        ("parallel_nn", "layers have no per-layer device: the whole network runs on one device"),
        ("allow_only_one_model_on_one_gpu", "one model runs per process"),
        ("cudnn_conv_workspace_limit_in_mb", "convolutions do not use cuDNN"),
        ("python_path", "providers are imported from the config's folder and sys.path"),
        ("python_bin", "the provider runs in this Python"),
        ("enable_grad_share", "gradients of --trainer_count replicas are summed directly"),
        ("grad_share_block_num", "gradients of --trainer_count replicas are summed directly"),
        ("enable_parallel_vector", "vector math is not split across threads"),
        ("parallel_thread_num", "v1's thread count for split vector math, and vector math is not "
                                "split across threads here"),
        ("pool_limit_size", "v1's cap on its memory pool, and buffers here are kept per layer "
                            "and reused, with no pool to cap"),
        ("layer_stack_error_only_current_thread", "v1 dumped layer stacks on a crash signal, "
                                                  "and errors here name their layer (and sample) instead"),
        ("thread_local_rand_use_global_seed", "every random stream derives from --seed"),
        ("show_layer_stat", "v1 logged each layer's output statistics per batch, "
                            "--show_parameter_stats_period and --check_health report here"),
        ("rnn_use_batch", "recurrent layers always run batched by time step"),
        ("log_clipping", "v1 logged how many gradient values clipping changed, which "
                         "is not counted here"),
        ("log_error_clipping", "v1 logged how many error values error_clipping_threshold changed, "
                               "which is not counted here"),
        ("test_wait", "--job=test reads the passes already saved and does not wait for new ones"),
        ("prev_batch_state", "v1 carried recurrent state from one batch to the next for "
                             "streaming generation, and recurrent state here starts at each sequence"),
        ("beam_size", "the beam size comes from the config (beam_search(beam_size=...))"),
        ("diy_beam_search_prob_so", "no user library is loaded into beam search"),
        ("average_test_period", "averaged parameters (model_average) are tested at each test, "
                                "not on a period of their own"),
        ("saving_period_by_batches", "parameters are saved at pass ends (--saving_period), where "
                                     "a pass can resume from"),
        ("feat_file", "v1 read it nowhere"),
        ("memory_threshold_on_load_data", "providers are read by a generator, not loaded whole"),
        ("use_mkldnn", "there are no MKL-DNN kernels"),
        ("use_mkl_packed", "there are no MKL packed kernels"),
    ])

# boolean flags: gflags also takes a bare --flag (true) and --noflag (false)
BOOL_FLAGS = {"use_gpu", "save_only_one", "overwrite", "check_health", "version", "local",
              "test_all_data_in_one_period", "parallel_nn", "allow_only_one_model_on_one_gpu",
              "thread_local_rand_use_global_seed", "feed_data", "layer_stack_error_only_current_thread",
              "show_layer_stat", "rnn_use_batch", "log_clipping", "log_error_clipping",
              "loadsave_parameters_in_pserver", "start_pserver", "prev_batch_state",
              "with_cost", "distribute_test", "use_old_updater", "small_messages", "external",
              "check_sparse_distribution_in_pserver", "show_check_sparse_distribution_log",
              "log_barrier_abstract", "log_barrier_show_log", "logtostderr", "alsologtostderr",
              "colorlogtostderr", "stop_logging_if_full_disk", "log_prefix",
              "symbolize_stacktrace", "use_mkldnn", "use_mkl_packed"}


def _flagfile_lines(path, seen):
    """The flags of a gflags flag file: one per line, '#' comments and blank lines skipped;
    a --flagfile inside is read in place (once)."""
    path = os.path.abspath(path)
    if path in seen:
        raise UsageError("--flagfile=%s reads itself again" % path)
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise UsageError("--flagfile=%s: %s" % (path, e.strerror))
    out = []
    for n, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if not line.startswith("-"):
            raise UsageError("%s:%d: expected a flag (--name=value), got %r" % (path, n, line))
        out.extend(_expand([line], seen | {path}))
    return out


def _from_env(names, required):
    out = []
    for name in filter(None, (n.strip() for n in names.split(","))):
        value = os.environ.get("FLAGS_" + name)
        if value is None:
            if required:
                raise UsageError("--fromenv: FLAGS_%s is not set in the environment" % name)
            continue
        out.append("--%s=%s" % (name, value))
    return out


def _expand(argv, seen=frozenset()):
    out = []
    it = iter(argv)
    for a in it:
        name, eq, value = a.lstrip("-").partition("=")
        if a.startswith("-") and name in ("flagfile", "fromenv", "tryfromenv"):
            if not eq:
                value = next(it, "")
            if name == "flagfile":
                out.extend(_flagfile_lines(value, seen))
            else:
                out.extend(_from_env(value, name == "fromenv"))
        else:
            out.append(a)
    return out


def normalize(argv):
    """gflags' spellings as argparse takes them: --flagfile/--fromenv/--tryfromenv expanded in
    place, -flag=value as --flag=value, --noflag as --flag=false for a boolean."""
    out = []
    for a in _expand(argv):
        if a.startswith("-") and not a.startswith("--") and len(a) > 2:
            a = "-" + a
        if a.startswith("--no") and "=" not in a and a[4:] in BOOL_FLAGS:
            a = "--%s=false" % a[4:]
        out.append(a)
    return out


def add_flags(parser, bool_type):
    """v1's flags on the `paddle train` parser: those with an effect, then the accepted and
    ignored ones, whose reasons --help's epilog gives (a warning repeats it when one is given)."""
    flag = parser.add_argument
    flag("--flagfile", metavar="FILE", help="read flags from FILE, one per line (gflags)")
    flag("--fromenv", metavar="a,b", help="read --a, --b from the environment variables FLAGS_a, FLAGS_b "
                                           "(missing: an error)")
    flag("--tryfromenv", metavar="a,b", help="the same, skipping variables that are not set")
    flag("--trainer_id", type=int, default=None,
         help="passed to the config (get_config_arg('trainer_id')) as v1 did (none: the MPI rank, "
              "0 outside mpiexec); under mpiexec it must be the rank")
    flag("--with_cost", type=bool_type, nargs="?", const=True, default=True, metavar="0|1",
         help="passed to the config (get_config_arg('with_cost', bool)) as v1 did, for configs that "
              "drop their cost layers when it is 0")
    flag("--feed_data", type=bool_type, nargs="?", const=True, default=False, metavar="0|1",
         help="job=time: read a fresh batch for every timed step (else the first batch is reused)")
    flag("--profile_signal", type=int, default=12,
         help="`kill -s N PID` starts, then stops, a Python profiler (cProfile) of the trainer")
    flag("--profile_data_file", default="gperf.prof",
         help="where --profile_signal's profile goes (pstats format: python -m pstats FILE)")
    flag("--log_dir", default="", help="also write the log to DIR/paddle_trainer.INFO (glog's file)")
    by_reason = {}
    for name in sorted(IGNORED_FLAGS):
        kwargs = dict(nargs="?", const="true") if name in BOOL_FLAGS else {}
        flag("--" + name, default=None, help=argparse.SUPPRESS, **kwargs)
        by_reason.setdefault(IGNORED_FLAGS[name], []).append("--" + name)
    parser.epilog = (parser.epilog or "") + " v1 flags accepted and ignored, with the reason: " + "; ".join(
        "%s: %s" % (" ".join(names), reason) for reason, names in sorted(by_reason.items(), key=lambda r: r[1])) + "."


def config_from_model_dir(args):
    """v1 without --config: the config named by path.txt in --init_model_path, or (with
    --start_pass=N) in save_dir/pass-(N-1); '' when neither has one."""
    if args.init_model_path:
        model_dir = args.init_model_path
    elif args.start_pass >= 1:
        model_dir = os.path.join(args.save_dir or "./output/model", "pass-%05d" % (args.start_pass - 1))
    else:
        return ""
    return config_in(model_dir) or ""


def config_in(model_dir):
    """The config a model directory's path.txt names (relative to the directory), or None."""
    try:
        with open(os.path.join(model_dir, "path.txt")) as f:
            name = f.readline().strip()
    except OSError:
        return None
    if not name:
        return None
    path = os.path.join(model_dir, name)
    if not os.path.isfile(path):
        raise UsageError("%s/path.txt names %s, which is not there" % (model_dir.rstrip("/"), name))
    return path


def implicit_config_args(args):
    """The config args v1's TrainerConfigHelper put before the user's."""
    from paddle.trainer.distributed import launcher_world
    trainer_id = args.trainer_id if args.trainer_id is not None else launcher_world()[1]
    return "trainer_id=%d,local=%d,with_cost=%d,use_gpu=%d,parallel_nn=0,cudnn_version=0" % (
        trainer_id, 0 if str(args.local).lower() in ("0", "false") else 1, 1 if args.with_cost else 0,
        1 if args.use_gpu else 0)


def apply_library_flags(args):
    """--log_dir's file and --profile_signal's profiler."""
    if args.log_dir:
        os.makedirs(args.log_dir, exist_ok=True)
        handler = logging.FileHandler(os.path.join(args.log_dir, "paddle_trainer.INFO"))
        stderr = next((h for h in LOG.handlers if isinstance(h, logging.StreamHandler)), None)
        if stderr is not None:
            handler.setFormatter(stderr.formatter)
        for name in ("paddle", "paddle.data_provider"):
            logging.getLogger(name).addHandler(handler)
    _install_profiler_switch(args.profile_signal, args.profile_data_file)


def _install_profiler_switch(signum, path):
    import signal
    if not signum or os.name != "posix":
        return
    state = {}

    def switch(_signum, _frame):
        import cProfile
        if "profiler" not in state:
            state["profiler"] = cProfile.Profile()
            state["profiler"].enable()
            LOG.info("Profiler started (signal %d again stops it and writes %s)", signum, path)
        else:
            profiler = state.pop("profiler")
            profiler.disable()
            profiler.dump_stats(path)
            LOG.info("Profiler stopped; profile written to %s (python -m pstats %s)", path, path)

    try:
        signal.signal(signum, switch)
    except (ValueError, OSError) as e:  # not the main thread, or not a signal one may catch
        LOG.warning("--profile_signal=%d: no profiler switch (%s)", signum, e)


def time_job(job):
    """--job=time, v1's TrainerBenchmark: one full batch, 10 untimed steps to warm up, then
    --test_period timed training steps on it (or, with --feed_data, on fresh batches, timing
    the reading too); logs each timer's total/avg/max/min in ms."""
    a, t = job.args, job.trainer
    data = job._provider(False)
    if data is None:
        raise UsageError("the config defines no training data")
    stats = {}

    def timed(name, fn):
        start = time.perf_counter()
        result = fn()
        stats.setdefault(name, []).append(1e3 * (time.perf_counter() - start))
        return result

    try:
        batches = data.batches()
        batch = next(batches, None)
        if batch is None:
            raise UsageError("no data from the data provider")
        if batch.num_samples != job.batch_size:
            raise UsageError("the first batch has %d samples, fewer than batch_size %d"
                             % (batch.num_samples, job.batch_size))
        job.checkpoints.load_initial(a.init_model_path, a.start_pass)
        t.startTrainPass(0)
        args = job._arguments(batch)
        LOG.info("Burning time...")
        for _ in range(10):
            t.trainOneDataBatch(batch.size, args)
        LOG.info("Burning time end.")
        for _ in range(a.test_period):
            if a.feed_data:
                batch = timed("GetData", lambda: next(batches, None))
                if batch is None or batch.num_samples != job.batch_size:
                    break
                args = job._arguments(batch, args)
            timed("FwdBwd", lambda: t.trainOneDataBatch(batch.size, args))
        t.finishTrainPass()
    finally:
        data.close()
    LOG.info("======= StatSet: [GlobalStatInfo] status ======")
    for name in sorted(stats):
        ms = stats[name]
        LOG.info("Stat=%-20s total=%.2f avg=%.2f max=%.2f min=%.2f count=%d", name, sum(ms),
                 sum(ms) / len(ms), max(ms), min(ms), len(ms))
    if not stats:
        LOG.info("no timed steps: give --test_period=N (v1's benchmark scripts used 100)")
    return stats
