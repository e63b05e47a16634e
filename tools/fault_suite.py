#!/usr/bin/env python
"""The standing fault suite (issue 28): every fault family, one table.

    python tools/fault_suite.py            # a bounded sample (what tests/fuzz runs)
    python tools/fault_suite.py --long     # >= 10,000 cases over every family (kills: also --steps)
    python tools/fault_suite.py --swig 500 --tools 100 --mpi 6 --kills 2 --seed 3

Families: configs, batches, files (tools/fuzz.py), swig (random py_paddle call sequences and
lifetimes, tools/fuzzlib/swig_calls.py), merged (merged-model mutations, merged_models.py),
tools (the commands on damaged and hostile inputs,
tool_inputs.py), mpi (rank mismatches, killed and stuck ranks, mpi_ranks.py) and kills
(checkpoint kill points, tools/kill_trials.py). Every case runs in a worker process; a
crash (signal) or a hang (no answer in time) is seen and the worker restarted. Per family it
prints cases, crashes, hangs, silent-wrong results and escapes (tracebacks / internal
errors), then every bad case; exits 1 when there is one. Same --seed, same cases.
"""
import argparse
import collections
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz  # noqa: E402
from fuzzlib.runner import BAD  # noqa: E402

FAMILIES = ("configs", "batches", "files", "swig", "merged", "tools", "mpi", "kills")
SAMPLE = dict(configs=12, batches=12, files=6, swig=25, merged=15, tools=15, mpi=0, kills=0)
LONG = dict(configs=3200, batches=3600, files=1600, swig=1000, merged=400, tools=250, mpi=20, kills=20)
COLUMNS = (("crash", "crashes"), ("hang", "hangs"), ("silent", "silent-wrong"), ("escape", "escapes"))


def _escape(outcome):
    return "escape" if outcome in ("internal", "unlocated") else outcome


def swig_cases(n, rng):
    for _ in range(n):
        yield {"campaign": "swig", "seed_value": rng.randrange(2 ** 32)}


def merged_cases(n, rng):
    for _ in range(n):
        yield {"campaign": "merged", "seed_value": rng.randrange(2 ** 32)}


def tool_cases(n, rng):
    for _ in range(n):
        yield {"campaign": "tool", "seed_value": rng.randrange(2 ** 32)}


def mpi_cases(n, rng):
    from fuzzlib.mpi_ranks import KINDS
    for i in range(n):  # every kind in turn, so a small run covers them all
        yield {"campaign": "mpi", "seed_value": rng.randrange(2 ** 32), "kind": KINDS[i % len(KINDS)],
               "timeout": 150}


def kill_trials(n, seed, log, steps=False):
    """n random-delay kill trials of tools/kill_trials.py, and with `steps` one kill before
    each file system step of the saves: (counts, bad cases)."""
    import contextlib
    import io
    import re
    import kill_trials
    counts, bad = collections.Counter(), []
    runs = ([["--trials", str(n)]] if n > 0 else []) + ([["--steps"]] if steps else [])
    for extra in runs:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = kill_trials.main(extra + ["--seed", str(seed)])
        m = re.search(r"trials: (\d+),.* failed: (\d+)", out.getvalue())
        trials, failed = (int(m.group(1)), int(m.group(2))) if m else (0, 1)
        counts["ok"] += trials - failed
        counts["silent"] += failed
        if code or failed:
            bad.append({"campaign": "kills", "outcome": "silent", "input": "kill_trials %s --seed %d" % (
                " ".join(extra), seed), "detail": "a killed save lost data: " + " | ".join(
                l for l in out.getvalue().splitlines() if "FAIL" in l.upper())[:400]})
        print("kill trials %s: %d, %d failed" % (" ".join(extra), trials, failed), file=log, flush=True)
    return counts, bad


def run(counts, seed=1, timeout=3600, case_timeout=30, log=sys.stdout, plant=None):
    """Runs the families: {family: Counter(outcome)} and the bad cases."""
    rng = random.Random(seed)
    extra = {"swig": swig_cases(counts.get("swig", 0), random.Random(rng.random())),
             "tools": tool_cases(counts.get("tools", 0), random.Random(rng.random())),
             "merged": merged_cases(counts.get("merged", 0), random.Random(rng.random())),
             "mpi": mpi_cases(counts.get("mpi", 0), random.Random(rng.random()))}
    if plant:  # every case of the given families carries the planted fault (tests/fuzz)
        extra = {k: _planted(v, plant[k]) if k in plant else v for k, v in extra.items()}
    result, bad = fuzz.run(counts.get("configs", 0), counts.get("batches", 0), counts.get("files", 0), seed,
                           timeout, case_timeout, log=log, extra=extra,
                           share={k: counts.get(k, 0) for k in extra})
    kc, kb = kill_trials(counts.get("kills", 0), seed, log, steps=counts.get("kill_steps", False))
    if kc:
        result["kills"] = kc
    return result, bad + kb


def _planted(cases, fault):
    for case in cases:
        yield dict(case, plant=fault)


def table(result):
    lines = ["%-8s %6s %8s %6s %13s %8s   %s" % ("family", "cases", "crashes", "hangs", "silent-wrong", "escapes",
                                                  "other outcomes")]
    for family in FAMILIES:
        c = result.get(family, collections.Counter())
        mapped = collections.Counter()
        for outcome, n in c.items():
            mapped[_escape(outcome)] += n
        rest = ", ".join("%s %d" % kv for kv in sorted(mapped.items()) if kv[0] not in dict(COLUMNS))
        lines.append("%-8s %6d %8d %6d %13d %8d   %s" % ((family, sum(c.values())) + tuple(
            mapped[k] for k, _ in COLUMNS) + (rest,)))
    total = collections.Counter()
    for c in result.values():
        total.update(c)
    lines.append("%-8s %6d %8d %6d %13d %8d" % (("all", sum(total.values())) + tuple(
        sum(n for o, n in total.items() if _escape(o) == k) for k, _ in COLUMNS)))
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--long", action="store_true", help="the full run: %s" % LONG)
    for family in FAMILIES:
        p.add_argument("--" + family, type=int, default=None, help="cases of this family")
    p.add_argument("--seed", type=int, default=28)
    p.add_argument("--timeout", type=float, default=3 * 3600, help="seconds for the whole run (then it stops)")
    p.add_argument("--case_timeout", type=float, default=30, help="seconds before a case counts as a hang")
    p.add_argument("--report", default=None, help="write the counts and bad cases as JSON here")
    a = p.parse_args(argv)
    counts = dict(LONG if a.long else SAMPLE, kill_steps=a.long)
    counts.update({f: getattr(a, f) for f in FAMILIES if getattr(a, f) is not None})
    start = time.time()
    result, bad = run(counts, a.seed, a.timeout, a.case_timeout)
    print(table(result))
    for entry in bad:
        print("BAD %(campaign)s %(outcome)s: %(input)s: %(detail)s" % entry)
    print("%d bad cases in %.0f s" % (len(bad), time.time() - start))
    if a.report:
        with open(a.report, "w") as f:
            json.dump({"counts": {k: dict(v) for k, v in result.items()}, "bad": bad,
                       "seconds": round(time.time() - start)}, f, indent=1)
    return 1 if bad or any(o in BAD for c in result.values() for o in c) else 0


if __name__ == "__main__":
    sys.exit(main())
