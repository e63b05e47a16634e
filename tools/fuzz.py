#!/usr/bin/env python
"""Fuzzes the config parser, the data path and the model files (issue 18).

    python tools/fuzz.py --configs 2000 --batches 500 --files 200 --seed 1 --timeout 1800

Three campaigns (tools/fuzzlib): damaged v1 Python/YAML configs (parsed and trained one
batch), damaged samples in provider batches, and damaged parameter files, optimizer state
and merged models. Every case runs in a persistent worker process, so a crash (signal,
abort) or a hang (no answer in --case_timeout seconds) is seen, counted and the worker
restarted. Prints a count per campaign and outcome and every bad case (internal error,
unlocated error, silent nonsense, crash, hang); --report writes them all as JSON. Exits 1
when there is a bad case. Same --seed, same cases.
"""
import argparse
import collections
import json
import os
import random
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuzzlib import batches, configs  # noqa: E402
from fuzzlib.runner import BAD, Worker  # noqa: E402


def config_cases(n, rng, worker, timeout, seeds=None):
    """Probes every seed config once (its feed), then yields n damaged copies."""
    feeds, limits = {}, {}
    for seed in seeds or configs.SEEDS:
        r = worker.run({"campaign": "probe", "seed": seed}, timeout * 4)
        feeds[seed] = r.get("kinds") if r["outcome"] == "ok" else None
        # a big model's case (a Trainer, one batch) takes a multiple of its probe's step
        limits[seed] = max(timeout, 20 * r.get("seconds", 0))
        if r["outcome"] != "ok":
            print("seed %s does not run as is: %s" % (os.path.relpath(seed), r.get("detail")), file=sys.stderr)
    usable = sorted(feeds)
    for i in range(n):
        seed = rng.choice(usable)
        yield {"campaign": "config", "seed": seed, "kinds": feeds[seed], "index": i, "timeout": limits[seed],
               "text": configs.mutate(seed, rng)}


def batch_cases(n, rng):
    for i in range(n):
        yield {"campaign": "batch", "setup": rng.choice(sorted(batches.SETUPS)), "seed_value": rng.randrange(2 ** 32)}


def file_cases(n, rng):
    for i in range(n):
        kind = rng.choice(["init_model", "init_model", "start_pass", "start_pass", "merged"])
        yield {"campaign": "file", "kind": kind, "seed_value": rng.randrange(2 ** 32)}


def describe(case):
    """The input of a case, short enough for a report line."""
    if case["campaign"] in ("swig", "tool", "mpi", "merged"):
        return "%s seed %d%s" % (case["campaign"], case["seed_value"], " (%s)" % case["kind"] if "kind" in case else "")
    if case["campaign"] == "config":
        return "%s (mutant %d)" % (os.path.relpath(case["seed"]), case["index"])
    if case["campaign"] == "batch":
        return "setup %s, seed %d" % (case["setup"], case["seed_value"])
    return "%s, seed %d" % (case["kind"], case["seed_value"])


def run(configs_n, batches_n, files_n, seed, timeout, case_timeout=30, report=None, keep_bad=None, log=sys.stdout,
        seeds=None, extra=None, share=None):
    """Runs the campaigns; returns {campaign: Counter(outcome)} and the list of bad cases.
    extra: more campaigns {name: case generator} (tools/fault_suite.py), share: their sizes."""
    rng = random.Random(seed)
    deadline = time.time() + timeout
    tmp = tempfile.mkdtemp(prefix="paddle-fuzz-")
    worker = Worker(tmp)
    counts = collections.defaultdict(collections.Counter)
    bad = []
    try:
        sizes = {"configs": configs_n, "batches": batches_n, "files": files_n}
        campaigns = [("configs", config_cases(configs_n, random.Random(rng.random()), worker, case_timeout, seeds)
                      if configs_n else iter(())),
                     ("batches", batch_cases(batches_n, random.Random(rng.random()))),
                     ("files", file_cases(files_n, random.Random(rng.random())))]
        campaigns += sorted((extra or {}).items())
        sizes.update(share or {})
        # Interleaved, so a time limit cuts every campaign short rather than the last one.
        share = sizes
        live = collections.OrderedDict((k, v) for k, v in campaigns if share[k] > 0)
        while live and time.time() < deadline:
            name = min(live, key=lambda k: sum(counts[k].values()) / share[k])
            case = next(live[name], None)
            if case is None:
                del live[name]
                continue
            result = worker.run(case, case.get("timeout", case_timeout))
            counts[name][result["outcome"]] += 1
            done = sum(sum(c.values()) for c in counts.values())
            if done % 100 == 0:
                print("%d cases, %.0f s: %s" % (done, time.time() + timeout - deadline, " ".join(
                    "%s %s" % (k, dict(v)) for k, v in counts.items())), file=log, flush=True)
            if result["outcome"] in BAD:
                entry = dict(campaign=name, input=describe(case), outcome=result["outcome"],
                             detail=result.get("detail", ""))
                if keep_bad and case["campaign"] == "config":
                    os.makedirs(keep_bad, exist_ok=True)
                    entry["file"] = os.path.join(keep_bad, "%d-%s" % (case["index"], os.path.basename(case["seed"])))
                    with open(entry["file"], "w") as f:
                        f.write(case["text"])
                bad.append(entry)
                print("BAD %(campaign)s %(outcome)s: %(input)s: %(detail)s" % entry, file=log, flush=True)
    finally:
        worker.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    if report:
        with open(report, "w") as f:
            json.dump({"counts": {k: dict(v) for k, v in counts.items()}, "bad": bad}, f, indent=1)
    return counts, bad


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--configs", type=int, default=200, help="damaged configs")
    p.add_argument("--batches", type=int, default=100, help="damaged batches")
    p.add_argument("--files", type=int, default=50, help="damaged parameter/optimizer/merged-model files")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--timeout", type=float, default=3600, help="seconds for the whole run (then it stops)")
    p.add_argument("--case_timeout", type=float, default=30, help="seconds before a case counts as a hang")
    p.add_argument("--report", default=None, help="write counts and bad cases as JSON here")
    p.add_argument("--keep_bad", default=None, help="a directory to keep the damaged configs of bad cases in")
    a = p.parse_args(argv)
    start = time.time()
    counts, bad = run(a.configs, a.batches, a.files, a.seed, a.timeout, a.case_timeout, a.report, a.keep_bad)
    for name in ("configs", "batches", "files"):
        c = counts.get(name, {})
        print("%-8s %5d cases: %s" % (name, sum(c.values()), ", ".join("%s %d" % kv for kv in sorted(c.items()))))
    print("%d bad cases in %.0f s" % (len(bad), time.time() - start))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
