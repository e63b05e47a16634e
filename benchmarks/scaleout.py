#!/usr/bin/env python3
"""Data-parallel scale-out over MPI ranks: samples/s of benchmarks/run.py's mlp, lstm_text
and sparse_ctr models on 1 and 2 ranks (one thread each), the share of step time the
training thread spends waiting on communication, the share of the dense bytes whose
all-reduce started while backward still ran ("early"), and the bytes each rank sends per step
(dense all-reduce vs the touched rows of sparse_update tables vs DGC's pairs). On more
than one rank, each exchange mode runs: `after` (all-reduce once backward is done),
`overlap` (buckets all-reduced while backward runs, the default), `bf16` (overlapped, the
dense gradients sent as bfloat16: --allreduce_precision=bf16), `dgc` (1% of the
dense gradient travels, --dgc_sparsity=0.99) and, for models with a sparse_update table,
`sharded` (--local=0: each row on one rank, fetched and updated there). Each configuration
also reports the peak memory (VmHWM) of its largest rank and how many rows of each sparse
table are in memory on each rank. With --gpus N > 1 every process trains on N GPUs
(--use_gpu=1 --trainer_count=N) and one rank runs `overlap` (fp32 sums onto GPU 0) and `bf16`
(GPUs 1..N-1 send bfloat16: --allreduce_precision=bf16); its dense bytes are those sent to GPU 0.

    python benchmarks/scaleout.py                       # needs an MPI build + mpiexec + mpi4py
    python benchmarks/scaleout.py --bench mlp --ranks 1,2,4 --modes overlap
    python benchmarks/scaleout.py --bench sparse_ctr --modes overlap,sharded   # the 1M x 64 table
    python benchmarks/scaleout.py --bench mlp --ranks 1 --gpus 2              # 2 GPUs, fp32 vs bf16 sums

Each configuration runs in fresh processes (`mpiexec -n R python scaleout.py --worker ...`).
Every rank gets the same synthetic batch of the model's batch size and trains on its share
(the global batch stays the same, as in `mpiexec -n R paddle train`); a step is timed from
the first rank's point of view, over a fixed number of steps so that all ranks run alike.
The machine is shared and noisy: compare ratios from one run.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run  # noqa: E402  (benchmarks/run.py: models and synthetic batches)

BENCHES = ("mlp", "lstm_text", "sparse_ctr")
SHARDABLE = ("sparse_ctr",)  # the models with a sparse_update table
STEPS = {"mlp": 40, "lstm_text": 6, "sparse_ctr": 20}  # timed steps per repeat (about 1-2 s)
MODES = {  # paddle.trainer.distributed.collective_options' arguments per mode
    "after": dict(overlap=False),
    "overlap": dict(overlap=True),
    "bf16": dict(overlap=True, bf16_gradients=True),  # --allreduce_precision=bf16
    "dgc": dict(overlap=False, dgc_sparsity=0.99, dgc_momentum=0.9),
    "sharded": dict(overlap=True),
}


def peak_rss_mb():
    """This process's peak resident memory (VmHWM), in MB."""
    with open("/proc/self/status") as f:
        return [int(line.split()[1]) for line in f if line.startswith("VmHWM:")][0] / 1024.0


def worker(name, ranks, mode, timed_steps, gpus=0):
    """Times one benchmark on this rank; rank 0 prints one JSON line."""
    distributed = ranks > 1
    comm = None
    if distributed:
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
    from paddle.proto import message_to_json
    from paddle.trainer.distributed import collective_options
    from py_paddle import swig_paddle as api

    conf = run.paddle_config(name)
    trainer = api.Trainer.create(message_to_json(conf), gpus > 0, max(gpus, 1), 1, distributed,
                                 distributed and mode == "sharded")
    trainer.setCollectiveOptions(collective_options(api, **MODES[mode]))
    trainer.startTrainPass(0)
    args = run.paddle_arguments(name, conf, api)
    batch = run.BENCHES[name]["batch"]

    def steps(n):
        for i in range(n):
            trainer.trainOneDataBatch(batch, args[i % len(args)])

    steps(3)  # warm-up
    trainer.takeCollectiveTraffic()
    times = []
    for _ in range(3):
        if comm is not None:
            comm.Barrier()
        t = time.perf_counter()
        steps(timed_steps)
        times.append((time.perf_counter() - t) / timed_steps)
    traffic = trainer.takeCollectiveTraffic()
    # rows of the sparse tables in memory (all of an unsharded one; a sharded one's own rows and
    # the last batch's fetched rows) and peak memory, by rank
    tables = trainer.getShardedRows()
    sharded = list(zip(tables.resident, tables.fetched))
    params = [conf.model_config.parameters[i] for i in range(len(conf.model_config.parameters))]
    resident = sum(map(sum, sharded)) if sharded else sum(p.dims[0] for p in params
                                                          if p.sparse_update and len(p.dims) == 2)
    fetched = sum(f for _, f in sharded)
    by_rank = [resident] if comm is None else comm.gather(resident, root=0)
    fetched_by_rank = [fetched] if comm is None else comm.gather(fetched, root=0)
    peak = [peak_rss_mb()] if comm is None else comm.gather(peak_rss_mb(), root=0)
    if comm is None or comm.Get_rank() == 0:
        step = statistics.median(times)
        print(json.dumps({"bench": name, "ranks": ranks, "mode": mode, "ms_per_step": step * 1e3,
                          "samples_per_s": batch / step,
                          "wait_fraction": traffic.mpiSeconds / sum(t * timed_steps for t in times),
                          "dense_bytes_per_step": traffic.denseBytes / max(traffic.steps, 1),
                          "sparse_bytes_per_step": traffic.sparseBytes / max(traffic.steps, 1),
                          "dgc_bytes_per_step": traffic.dgcBytes / max(traffic.steps, 1),
                          "started_during_backward": (traffic.earlyBytes / traffic.denseBytes
                                                      if traffic.denseBytes else 0.0),
                          "table_rows_resident": by_rank, "table_rows_fetched": fetched_by_rank,
                          "peak_rss_mb": max(peak)}))


def measure(name, ranks, mode, gpus=0):
    mpiexec = shutil.which("mpiexec") or os.path.join(os.path.dirname(sys.executable), "mpiexec")
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", name, "--ranks", str(ranks), "--modes", mode,
           "--gpus", str(gpus)]
    if ranks > 1:
        cmd = [mpiexec, "-n", str(ranks)] + cmd
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        raise RuntimeError("%s on %d ranks failed:\n%s" % (name, ranks, p.stderr[-2000:]))
    return json.loads([line for line in p.stdout.splitlines() if line.startswith("{")][-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", default=",".join(BENCHES))
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--modes", default=",".join(MODES), help="exchange modes on more than one rank")
    ap.add_argument("--gpus", type=int, default=0, help="GPUs per process (--use_gpu=1 --trainer_count=N); 0: CPU")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--steps", type=int, default=0, help=argparse.SUPPRESS)  # timed steps per repeat (worker)
    a = ap.parse_args()
    if a.worker:
        worker(a.worker, int(a.ranks), a.modes, a.steps or STEPS[a.worker], a.gpus)
        return
    print("%-11s %5s %-8s %9s %10s %8s %8s %9s %13s %13s %13s %9s %s" % (
        "bench", "ranks", "mode", "ms/step", "samples/s", "speedup", "waiting", "early", "dense B/step",
        "sparse B/step", "DGC B/step", "peak MB", "table rows in memory by rank"))
    for name in a.bench.split(","):
        base = None
        for ranks in [int(r) for r in a.ranks.split(",")]:
            modes = [m for m in a.modes.split(",") if m != "sharded" or name in SHARDABLE]
            alone = [m for m in modes if m in ("overlap", "bf16")] if a.gpus > 1 else ["overlap"]
            for mode in modes if ranks > 1 else alone:
                r = measure(name, ranks, mode, a.gpus)
                base = base or r["samples_per_s"]
                print("%-11s %5d %-8s %9.2f %10.0f %7.2fx %7.0f%% %8.0f%% %13.0f %13.0f %13.0f %9.0f %s" % (
                    name, ranks, mode if ranks > 1 or a.gpus > 1 else "-", r["ms_per_step"], r["samples_per_s"],
                    r["samples_per_s"] / base, 100 * r["wait_fraction"], 100 * r["started_during_backward"],
                    r["dense_bytes_per_step"],
                    r["sparse_bytes_per_step"], r["dgc_bytes_per_step"], r["peak_rss_mb"],
                    " ".join(map(str, r["table_rows_resident"]))))
                sys.stdout.flush()


if __name__ == "__main__":
    main()
