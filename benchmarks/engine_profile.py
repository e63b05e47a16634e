"""Where our engine's training step goes, per benchmark (`python benchmarks/run.py --profile`).

Two views, each from its own fresh process:
  layers:  the engine's opt-in timers (Trainer.setProfiling: each layer's forward and backward
           and the parameter update, summed over the timed steps) against the step's wall time;
           "(rest)" is what no timer covers (the cost check, evaluators, the Python loop);
  kernels: `perf record` of the same steps with the timers off (when perf is installed and
           allowed): the hottest functions (engine kernels, OpenBLAS, libc) by share of CPU samples.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import harness
from py_paddle.step_profile import layer_rows, layer_table, plain, replicas_note, type_table

PERF_LINE = re.compile(r"^\s*([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*\S)\s*$")


def kernel_rows(report, step_ms, top=15, width=90):
    """The top `top` functions of `perf report --stdio --sort dso,sym` text, with their share
    of the step in ms."""
    rows = []
    for line in report.splitlines():
        m = PERF_LINE.match(line)
        if m:
            pct, dso, sym = float(m.group(1)), m.group(2), m.group(3)
            rows.append({"symbol": sym if len(sym) <= width else sym[:width - 3] + "...", "dso": dso,
                         "pct": pct, "ms": step_ms * pct / 100.0})
    return sorted(rows, key=lambda r: -r["pct"])[:top]


def perf_available():
    """perf is installed and may sample this user's processes."""
    if not shutil.which("perf"):
        return False
    probe = subprocess.run(["perf", "stat", "-e", "task-clock", "true"], capture_output=True, text=True)
    return probe.returncode == 0


def run_layers_child(child_cmd):
    """The layer view of one benchmark: the child prints a JSON line with the profile."""
    p = subprocess.run(child_cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError((p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1])
    return json.loads(p.stdout.strip().splitlines()[-1])


def run_perf_child(child_cmd, seconds):
    """Samples for `seconds` a child that prints "warm" after its warm-up, then trains until
    told to stop (a line on its stdin) and prints its ms/step; returns (perf report text,
    ms/step). The child trains for as long as perf records, however late perf starts on a
    loaded machine (when the child trained a fixed time instead, a perf that started over a
    second late outlived it and exited 143)."""
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        child = subprocess.Popen(child_cmd + ["--perf-seconds", str(seconds)], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = child.stdout.readline()
        if line.strip() != "warm":
            child.kill()
            _, err = child.communicate()
            raise RuntimeError("profile child failed: %s" % (err.strip().splitlines() or ["?"])[-1])
        try:
            rec = subprocess.run(["perf", "record", "-F", "499", "-o", data, "-p", str(child.pid), "--",
                                  "sleep", str(seconds)], capture_output=True, text=True)
        finally:
            out, err = child.communicate("stop\n")
        if child.returncode != 0:
            raise RuntimeError("profile child failed: %s" % (err.strip().splitlines() or ["?"])[-1])
        if rec.returncode != 0:
            raise RuntimeError("perf record: exit %d %s" % (rec.returncode, rec.stderr.strip()[-300:]))
        report = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "dso,sym",
                                 "--percent-limit", "0.5"], capture_output=True, text=True).stdout
        return report, float(out.strip().splitlines()[-1])


def child_layers(trainer, batch, args, seconds=3.0, warmup_s=1.0):
    """In the child: warm up, switch the timers on, train `seconds`, return the profile."""
    def until(limit):
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < limit or n < 3:
            trainer.trainOneDataBatch(batch, args[n % len(args)])
            n += 1
        return n, time.perf_counter() - t0
    until(warmup_s)
    trainer.setProfiling(True)
    steps, wall = until(seconds)
    lines = list(trainer.getProfile())
    trainer.setProfiling(False)
    return {"steps": steps, "ms_per_step": 1e3 * wall / steps, "lines": lines, "replicas": trainer.getReplicaCount()}


def child_perf(trainer, batch, args, seconds, warmup_s=1.0):
    """In the child: warm up, say "warm", train with the timers off until a line arrives on
    stdin (or its end: the parent is gone), print ms/step. `seconds` bounds nothing here: the
    parent's perf record decides how long (a cap of 60 s more guards against a lost parent)."""
    import threading
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < warmup_s or n < 3:
        trainer.trainOneDataBatch(batch, args[n % len(args)])
        n += 1
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.readline(), stop.set()), daemon=True).start()
    print("warm", flush=True)
    n, t0 = 0, time.perf_counter()
    while not stop.is_set() and time.perf_counter() - t0 < seconds + 60:
        trainer.trainOneDataBatch(batch, args[n % len(args)])
        n += 1
    print(1e3 * (time.perf_counter() - t0) / n, flush=True)


def kernel_table(rows):
    return (("function", "library", "% of samples", "ms/step"),
            [[r["symbol"], r["dso"], "%.1f%%" % r["pct"], "%.2f" % r["ms"]] for r in rows])


def profile_benches(benches, threads, child_cmd, with_perf, top, md=False):
    """Runs both views for each benchmark; returns the report text (Markdown when `md`)."""
    fmt = harness.markdown_table if md else plain
    out = []
    if not with_perf:
        out.append("(no kernel view: perf is not installed or may not sample processes here)")
    for bench in benches:
        cmd = child_cmd(bench, threads)
        try:
            prof = run_layers_child(cmd)
        except RuntimeError as e:
            out.append("%s: profile failed: %s" % (bench, e))
            continue
        rows = layer_rows(prof["lines"], prof["steps"], prof["ms_per_step"])
        title = "%s, %d thread(s)%s: %.2f ms/step over %d steps" % (
            bench, threads, replicas_note(prof["replicas"]), prof["ms_per_step"], prof["steps"])
        out += ["### " + title if md else "== " + title, "", fmt(*type_table(rows)), "", fmt(*layer_table(rows, top)),
                ""]
        if with_perf:
            try:
                report, step_ms = run_perf_child(cmd, seconds=3.0)
                out += ["kernels (perf, %.2f ms/step):" % step_ms, "", fmt(*kernel_table(kernel_rows(report, step_ms,
                                                                                                    top))), ""]
            except RuntimeError as e:
                out.append("%s: perf failed: %s" % (bench, e))
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit("run it through benchmarks/run.py --profile")
