"""The arithmetic of benchmarks/run.py, apart from running anything: how busy the machine was
around a unit, and the table of medians and ratios built from the units' results.

A unit result is a dict: bench, framework ("paddle" or "torch"), variant ("" or e.g. "packed"),
precision ("fp32", or "bf16": ours with settings(precision='bf16'), torch under autocast), threads, round (0, 1, ...: ours and torch alternate within a round), samples_per_s, ms_per_step,
gflops, peak_mb, busy (cores that other processes used while it ran).
"""
import os
import resource
import statistics
import time

CLOCK_HZ = os.sysconf("SC_CLK_TCK")


def engine_label(r):
    return (r["framework"] + (" bf16" if r.get("precision", "fp32") == "bf16" else "") +
            (" (%s)" % r["variant"] if r.get("variant") else ""))


class MachineLoad:
    """CPU time that processes other than this one's children used (steal included) while a
    unit ran, in cores: (busy time of all CPUs - the children's CPU time) / wall time."""

    def __init__(self):
        self.wall0, self.busy0, self.own0 = time.perf_counter(), self.busy_seconds(), self.children_seconds()

    @staticmethod
    def busy_seconds():
        with open("/proc/stat") as f:
            user, nice, system, idle, iowait, irq, softirq, steal = [int(x) for x in f.readline().split()[1:9]]
        return (user + nice + system + irq + softirq + steal) / CLOCK_HZ

    @staticmethod
    def children_seconds():
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        return ru.ru_utime + ru.ru_stime

    def others(self):
        wall = time.perf_counter() - self.wall0
        other = (self.busy_seconds() - self.busy0) - (self.children_seconds() - self.own0)
        return max(0.0, other / wall) if wall > 0 else 0.0


def pair_ratios(results, bench, threads, precision="fp32"):
    """ours / torch for each round of (bench, threads, precision) that has both; torch = its fastest
    variant."""
    ratios = []
    for rnd in sorted({r["round"] for r in results}):
        unit = [r for r in results if r["bench"] == bench and r["threads"] == threads and r["round"] == rnd
                and r.get("precision", "fp32") == precision]
        ours = [r["samples_per_s"] for r in unit if r["framework"] == "paddle"]
        torch = [r["samples_per_s"] for r in unit if r["framework"] == "torch"]
        if ours and torch:
            ratios.append(ours[0] / max(torch))
    return ratios


def summarize(results, busy_limit=0.25):
    """One row per (bench, threads, engine), in the order the units ran: medians over the rounds."""
    keys = list(dict.fromkeys((r["bench"], r["threads"], engine_label(r)) for r in results))
    rows = []
    for bench, threads, engine in keys:
        unit = [r for r in results if (r["bench"], r["threads"], engine_label(r)) == (bench, threads, engine)]
        sps = [r["samples_per_s"] for r in unit]
        med = statistics.median(sps)
        precision = unit[0].get("precision", "fp32")
        ratios = pair_ratios(results, bench, threads, precision) if unit[0]["framework"] == "paddle" else []
        rows.append({
            "bench": bench, "engine": engine, "threads": threads, "runs": len(unit), "precision": precision,
            "samples_per_s": med, "spread_pct": 100.0 * (max(sps) - min(sps)) / med if med else 0.0,
            "ms_per_step": statistics.median(r["ms_per_step"] for r in unit),
            "gflops": statistics.median(r["gflops"] for r in unit),
            "peak_mb": max(r["peak_mb"] for r in unit),
            "ratio": statistics.median(ratios) if ratios else None,
            "busy": max(r["busy"] for r in unit),
            "flagged": any(r["busy"] > busy_limit for r in unit),
        })
    return rows


def speedups(rows, low=1, high=2):
    """samples/s at `high` threads over `low` threads, per (bench, engine) that has both."""
    at = {(r["bench"], r["engine"], r["threads"]): r["samples_per_s"] for r in rows}
    out = []
    for (bench, engine, threads), sps in at.items():
        if threads == high and (bench, engine, low) in at:
            out.append({"bench": bench, "engine": engine, "speedup": sps / at[(bench, engine, low)]})
    return out


COLUMNS = ("bench", "engine", "threads", "samples/s", "spread", "ms/step", "GFLOP/s", "peak MB", "ours/torch",
           "busy")


def row_cells(r):
    return [r["bench"], r["engine"], str(r["threads"]), "%.0f" % r["samples_per_s"], "%.0f%%" % r["spread_pct"],
            "%.2f" % r["ms_per_step"], "%.1f" % r["gflops"], "%.0f" % r["peak_mb"],
            "" if r["ratio"] is None else "%.2f" % r["ratio"], "%.2f%s" % (r["busy"], " !" if r["flagged"] else "")]


def text_table(rows):
    cells = [list(COLUMNS)] + [row_cells(r) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(COLUMNS))]
    return "\n".join("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths)))
                     for line in cells)


def markdown_table(header, lines):
    out = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    return "\n".join(out + ["| " + " | ".join(cells) + " |" for cells in lines])


def results_markdown(rows):
    return markdown_table(COLUMNS, [row_cells(r) for r in rows])


def bf16_speedup_lines(rows):
    """Ours (and torch's) bf16 samples/s over fp32, per bench and thread count that has both."""
    at = {(r["bench"], r["engine"], r["threads"]): r["samples_per_s"] for r in rows}
    out = []
    for (bench, engine, threads), sps in at.items():
        fp32 = engine.replace(" bf16", "")
        if engine != fp32 and (bench, fp32, threads) in at:
            out.append("%s %s, %d threads: %.2fx" % (bench, fp32, threads, sps / at[(bench, fp32, threads)]))
    return out


def speedup_lines(rows):
    return ["%s %s: %.2fx" % (s["bench"], s["engine"], s["speedup"]) for s in speedups(rows)]
