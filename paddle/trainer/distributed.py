"""Data-parallel training over MPI processes: ``mpiexec -n N paddle train --config=...``.

Every rank runs the same ``paddle train``. The engine (``trainer/MpiSync.h``) sums
the gradients of each batch over the ranks with MPI after backward, so all ranks apply
the same update and hold the same parameters. What this module decides:

* **Ranks** come from the launcher (``mpiexec``/hydra, Open MPI, ``srun --mpi=pmi2``);
  MPI itself is initialised by ``mpi4py`` (``MPI_THREAD_MULTIPLE``) before the engine joins.
* **Data** (``--data_sharding=batch``, the default): every rank runs the config's data
  provider over the whole file list with the same seed, so all ranks see the same
  batches; of each batch of B samples (sequences), rank r of N trains on samples
  [B*r/N, B*(r+1)/N). The global batch is the config's ``batch_size``: N ranks train
  exactly what one process with ``--trainer_count=N`` trains (gradients summed over the
  same samples, the same dropout streams). With ``--data_sharding=files`` each rank reads
  only its entries of the file list (see ShardedData): no rank reads all the data, but
  the run no longer equals a single process.
* **Output**: rank 0 logs (costs and evaluators summed over ranks) and saves the passes;
  the other ranks log only warnings and errors. Testing (``--test_period``, end of pass)
  runs on rank 0 alone, over the whole test data (the others test on no data, so that
  everything testing changes in the parameters changes on every rank).
* **Sharded tables** (``--local=0``, v1's switch to its parameter servers): every
  ``sparse_remote_update`` table (``ParamAttr(sparse_update=True)`` sets it, as in v1) keeps
  each row on one rank only (``trainer/ShardedTables.cpp``); every rank then also runs the tests
  (the rows they read are fetched from all ranks), and rank 0 saves whole v1 files.
* **Agreement**: at start the ranks compare their TrainerConfig (every field, layers and
  parameters by name) and the flags that must match (``MUST_AGREE``); and before each batch
  of ``--data_sharding=batch`` (and at each pass end) whether each has a batch, its size and a
  hash of its data (``Trainer::agreeOnBatch``). A difference is an error naming the field or
  the batch and the ranks, not a hang or a silent training on different data.
* **Faults**: an error on any rank prints ``rank R of N: ...`` and calls ``MPI_Abort``;
  a rank that dies makes the launcher kill the others. A pass directory is renamed into
  place only when complete, so the last one on disk is always loadable.
"""
import contextlib
import hashlib
import json
import logging
import os
import sys
import time

LOG = logging.getLogger("paddle")
_joined = None  # this process's Cluster once join() made one

# Variables launchers set for each process: (world size, rank).
_LAUNCHER_ENV = (("PMI_SIZE", "PMI_RANK"), ("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"),
                 ("PMIX_SIZE", "PMIX_RANK"))


class DistributedError(RuntimeError):
    """Distributed training cannot start (no MPI build, mpi4py missing, inconsistent flags)."""


def launcher_world():
    """(size, rank) that the MPI launcher gave this process; (1, 0) outside one."""
    for size_var, rank_var in _LAUNCHER_ENV:
        if size_var in os.environ:
            return int(os.environ[size_var]), int(os.environ.get(rank_var, "0"))
    return 1, 0


class Cluster(object):
    """This process's place among the ranks of one distributed training."""

    def __init__(self, comm):
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()

    @property
    def is_root(self):
        return self.rank == 0

    def agree(self, value):
        """Rank 0's value of a setting (e.g. a seed drawn from the clock), on every rank."""
        return self.comm.bcast(value, root=0)

    def abort(self, exc):
        sys.stderr.write("paddle train: rank %d of %d failed: %s: %s\n"
                         % (self.rank, self.size, type(exc).__name__, exc))
        sys.stderr.flush()
        time.sleep(0.5)  # the launcher forwards output asynchronously: let it pass this line before the kill
        self.comm.Abort(1)


class _NoBatch(object):
    """What a rank whose files are used up trains on while other ranks still have data."""
    size = 0
    slots = []


class ShardedData(object):
    """--data_sharding=files: this rank's training data. Rank r of N reads the entries i of
    the file list with i % N == r, in batches of its share of batch_size (rank r:
    B*(r+1)//N - B*r//N samples), so the global batch is still batch_size. Ranks run out
    of data at different steps; until the last one does, the others train on empty
    batches (one small all-reduce per step decides), so every rank takes the same steps."""

    def __init__(self, provider, cluster, trainer):
        n, r = cluster.size, cluster.rank
        if len(provider.file_list) < n:
            raise DistributedError("--data_sharding=files needs at least one file list entry per rank: %s "
                                   "has %d for %d ranks" % (provider.file_list_path, len(provider.file_list), n))
        provider.file_list = provider.file_list[r::n]
        provider.batch_size = provider.batch_size * (r + 1) // n - provider.batch_size * r // n
        trainer.setShardedData(True)
        self.provider, self.trainer = provider, trainer

    def batches(self):
        mine = iter(self.provider.batches())
        while True:
            batch = next(mine, None)
            if not self.trainer.anyRankHasData(batch is not None):
                return
            yield batch if batch is not None else _NoBatch()

    def batch_error(self, batch, detail):
        return self.provider.batch_error(batch, detail)

    def close(self):
        self.provider.close()


class NoData(object):
    """The test data of ranks other than 0: no batches. Those ranks still start and finish
    each test period, where pending lazy decay of sparse_update rows is caught up, so all
    ranks keep the same bits."""

    def batches(self):
        return iter(())

    def close(self):
        pass


def join(args, api):
    """The Cluster of this `paddle train` when it runs under an MPI launcher with more
    than one process, else None. Fixes args.seed to one value for all ranks and keeps
    the other ranks' logs to warnings."""
    size, rank = launcher_world()
    servers = int(getattr(args, "num_gradient_servers", None) or 1)
    if max(size, servers) > 1 and not api.isMpiVersion():
        raise DistributedError("%d processes were %s, but this paddle was built without MPI "
                               "(pip install mpich mpi4py, then rebuild)"
                               % (max(size, servers), "started" if size > 1 else "asked for (--num_gradient_servers)"))
    _check_v1_flags(args, size, rank)
    if size == 1:
        return None
    if args.job != "train":
        raise DistributedError("only --job=train runs on several processes (got --job=%s)" % args.job)
    try:
        from mpi4py import MPI
    except ImportError:
        raise DistributedError("distributed training needs mpi4py (pip install mpi4py)")
    global _joined
    cluster = _joined = Cluster(MPI.COMM_WORLD)
    if cluster.size != size:
        raise DistributedError("the launcher started %d processes but MPI_COMM_WORLD has %d: "
                               "is mpi4py built against the same MPI as mpiexec?" % (size, cluster.size))
    args.seed = cluster.agree(args.seed or int(time.time()))
    if not cluster.is_root:
        args.dot_period = 0  # the progress dots too
        for name in ("paddle", "paddle.data_provider"):
            logging.getLogger(name).setLevel(logging.WARNING)
    # the launcher names a dead process by its pid: this line maps pids to ranks
    pids = cluster.comm.allgather(os.getpid())
    LOG.info("distributed training: %d ranks (pids by rank: %s); batch_size is the global batch, "
             "each rank trains on its share", cluster.size, " ".join(map(str, pids)))
    return cluster


def add_flags(flag):
    """paddle train's flags for how gradients travel between ranks (engine: trainer/GradientSync.h)."""
    flag("--bucket_cap_mb", type=float, default=1.0,
         help="under mpiexec: dense gradients are all-reduced in buckets of about this many MB")
    flag("--overlap_allreduce", type=int, default=1, choices=[0, 1],
         help="under mpiexec: start a bucket's all-reduce as soon as backward has finished its layers")
    flag("--allreduce_precision", default="fp32", choices=["fp32", "bf16"],
         help="under mpiexec: bf16 sends dense gradients as bfloat16 (half the bytes; each pair of "
              "contributions is added in fp32); LocalSGD's parameter averages stay fp32. With --use_gpu=1 "
              "--trainer_count=N > 1 GPUs 1..N-1 also send theirs to GPU 0 as bfloat16, added there in fp32 "
              "in replica order; parameters are still copied in fp32")
    flag("--local_sgd_steps", type=int, default=0,
         help="under mpiexec: LocalSGD: each rank updates on its own gradient and the parameters are "
              "averaged every K steps (and at each pass end); 0: off")
    flag("--dgc_sparsity", type=float, default=None,
         help="under mpiexec: deep gradient compression: the fraction of each step's accumulated dense "
              "gradient that stays behind (0.99: the largest 1%% travel as index/value pairs); unset: off")
    flag("--local", nargs="?", const="1", default=None,
         help="under mpiexec, 0: shard every sparse_remote_update table (ParamAttr(sparse_update=True)) over "
              "the ranks, each row on one rank (v1: such tables lived on the parameter servers)")
    flag("--collective_timeout", type=float, default=1800,
         help="under mpiexec: seconds a rank may wait in one MPI exchange before the job ends naming the rank and "
              "the exchange (a rank stuck or gone); raise it when rank 0's tests or saves take longer; 0: no limit")
    flag("--dgc_rampup_begin_step", type=int, default=0, help="with --dgc_sparsity: plain all-reduce before this step")
    flag("--dgc_momentum", type=float, default=0.0,
         help="with --dgc_sparsity: DGC's local momentum correction; while DGC runs it replaces the "
              "optimizer's momentum (the optimizer then takes plain SGD steps), as in the DGC paper")


def shards_tables(args, cluster):
    """Whether --local=0 asks for sharded tables (v1: sparse_remote_update tables on the
    parameter servers); under one process there is nothing to shard."""
    local = getattr(args, "local", None)
    if local is None or str(local).lower() not in ("0", "false", "f", "no", "n"):
        return False
    if cluster is None:
        LOG.warning("--local=0: one process holds every row: sparse_update tables are not sharded")
        return False
    return True


# paddle train's flags that every rank must be given alike (the config is compared whole).
MUST_AGREE = ("num_passes", "start_pass", "data_sharding", "trainer_count", "use_gpu", "data", "test_period",
              "saving_period", "show_parameter_stats_period", "skip_nonfinite_batches", "bucket_cap_mb",
              "overlap_allreduce", "allreduce_precision", "local_sgd_steps", "dgc_sparsity", "dgc_rampup_begin_step", "dgc_momentum",
              "local", "load_missing_parameter_strategy", "job")


def _leaves(value, path, out):
    """{'opt_config.batch_size': 64, "model_config.layers['fc1'].size": 10, ...} of a JSON value
    (list items with a name are keyed by it)."""
    if isinstance(value, dict):
        for key, item in value.items():
            _leaves(item, "%s.%s" % (path, key) if path else key, out)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            named = isinstance(item, dict) and isinstance(item.get("name"), str)
            _leaves(item, "%s[%s]" % (path, repr(item["name"]) if named else i), out)
    else:
        out[path] = value
    return out


def _short(value):
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_agreement(cluster, trainer, args):
    """Raises DistributedError naming each field (config or flag) on which some rank differs
    from rank 0: ranks that disagree would otherwise hang in a collective or train silently
    on different settings."""
    mine = _leaves(json.loads(trainer.getConfigJson()), "", {})
    mine.update(("--" + name, getattr(args, name, None)) for name in MUST_AGREE)
    digest = hashlib.sha256(json.dumps(sorted(mine.items()), default=str).encode()).hexdigest()
    if len(set(cluster.comm.allgather(digest))) == 1:
        return
    everyone = cluster.comm.allgather(mine)
    unset = object()
    differences = []
    for key in sorted(set().union(*everyone)):
        values = [d.get(key, unset) for d in everyone]
        others = [r for r in range(1, len(values)) if values[r] != values[0]]
        if others:
            show = lambda v: "it unset" if v is unset else _short(v)  # noqa: E731
            differences.append("%s: rank 0 has %s, %s" % (key, show(values[0]), ", ".join(
                "rank %d has %s" % (r, show(values[r])) for r in others)))
    more = " (and %d more)" % (len(differences) - 5) if len(differences) > 5 else ""
    raise DistributedError("the ranks were started with different settings (every rank must run the same config "
                           "and flags): %s%s" % ("; ".join(differences[:5]), more))


def configure(trainer, args):
    """Checks that every rank was started alike, then hands the communication flags to a
    distributed trainer."""
    if _joined is not None:
        check_agreement(_joined, trainer, args)
    dgc = -1.0 if args.dgc_sparsity is None else args.dgc_sparsity
    if args.dgc_sparsity is not None and not 0 <= dgc < 1:
        raise DistributedError("--dgc_sparsity must be in [0, 1), got %s" % args.dgc_sparsity)
    if dgc >= 0 and args.dgc_momentum > 0:
        LOG.info("DGC corrects momentum locally (--dgc_momentum=%g): from step %d on the optimizer's own "
                 "momentum is off, so the gradient gets momentum once", args.dgc_momentum,
                 args.dgc_rampup_begin_step + 1)
    from py_paddle import swig_paddle as api
    trainer.setCollectiveOptions(collective_options(
        api, bucket_mb=args.bucket_cap_mb, overlap=bool(args.overlap_allreduce), local_sgd_steps=args.local_sgd_steps,
        dgc_sparsity=dgc, dgc_rampup_begin_step=args.dgc_rampup_begin_step, dgc_momentum=args.dgc_momentum,
        timeout_seconds=float(getattr(args, "collective_timeout", 0) or 0),
        bf16_gradients=getattr(args, "allreduce_precision", "fp32") == "bf16"))


def configure_replicas(trainer, args):
    """One process: hands --allreduce_precision to its replicas (GPU replicas send bfloat16
    gradients to GPU 0; the engine refuses bf16 where nothing is sent)."""
    from py_paddle import swig_paddle as api
    trainer.setCollectiveOptions(collective_options(
        api, bf16_gradients=getattr(args, "allreduce_precision", "fp32") == "bf16"))


def collective_options(api, bucket_mb=1.0, overlap=True, local_sgd_steps=0, dgc_sparsity=-1.0, dgc_rampup_begin_step=0,
                       dgc_momentum=0.0, timeout_seconds=0.0, bf16_gradients=False):
    """The engine's CollectiveOptions (how gradients travel between ranks) from paddle train's flags."""
    options = api.CollectiveOptions()
    options.bucketMb = float(bucket_mb)
    options.overlap = bool(overlap)
    options.localSgdSteps = int(local_sgd_steps)
    options.dgcSparsity = float(dgc_sparsity)
    options.dgcRampupBeginStep = int(dgc_rampup_begin_step)
    options.dgcMomentum = float(dgc_momentum)
    options.timeoutSeconds = float(timeout_seconds)
    options.bf16Gradients = bool(bf16_gradients)
    return options


def _check_v1_flags(args, size, rank):
    """v1's cluster flags, when given, must agree with what the launcher says."""
    servers = getattr(args, "num_gradient_servers", None)
    if servers is not None and int(servers) != size:
        raise DistributedError("--num_gradient_servers=%s but %d processes were started" % (servers, size))
    trainer_id = getattr(args, "trainer_id", None)
    # (0 is the flag's default: only another id can be told from "not given")
    if trainer_id not in (None, 0, "0") and size > 1 and int(trainer_id) != rank:
        raise DistributedError("--trainer_id=%s but this process is rank %d" % (trainer_id, rank))


@contextlib.contextmanager
def abort_on_error():
    """Any exception on one rank (once joined) ends every rank (MPI_Abort), so none waits
    forever in a collective."""
    try:
        yield
    except BaseException as exc:
        if _joined is not None:
            _joined.abort(exc)
        raise
