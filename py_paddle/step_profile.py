"""Tables from the engine's opt-in step timers (Trainer.setProfiling / getProfile), shared by
`paddle train --profile` and `benchmarks/run.py --profile`."""


def layer_rows(lines, steps, step_ms):
    """Rows of the layer view, slowest first, from Trainer.getProfile()'s lines
    ("name\\ttype\\tforward s\\tbackward s\\tcalls") over `steps` steps of `step_ms` each;
    "(rest)" is the part of the step no timer covers."""
    rows = []
    for line in lines:
        name, kind, fwd, bwd, _ = line.split("\t")
        fwd_ms, bwd_ms = 1e3 * float(fwd) / steps, 1e3 * float(bwd) / steps
        rows.append({"name": name, "type": kind, "forward_ms": fwd_ms, "backward_ms": bwd_ms,
                     "ms": fwd_ms + bwd_ms})
    rows.append({"name": "(rest)", "type": "untimed", "forward_ms": 0.0, "backward_ms": 0.0,
                 "ms": max(0.0, step_ms - sum(r["ms"] for r in rows))})
    for r in rows:
        r["pct"] = 100.0 * r["ms"] / step_ms if step_ms else 0.0
    return sorted(rows, key=lambda r: -r["ms"])


def replicas_note(replicas):
    """What the layer times are when the batch is split over `replicas` gradient machines."""
    if replicas <= 1:
        return ""
    return (", %d replicas (the layers are the first one's, on its 1/%d of the batch; the others run beside it)"
            % (replicas, replicas))


def by_type(rows):
    """The layer view summed per layer type, slowest first."""
    total = {}
    for r in rows:
        t = total.setdefault(r["type"], {"type": r["type"], "layers": 0, "ms": 0.0, "pct": 0.0})
        t["layers"] += 1
        t["ms"] += r["ms"]
        t["pct"] += r["pct"]
    return sorted(total.values(), key=lambda t: -t["ms"])


def layer_table(rows, top=None):
    """(header, lines of cells) of the layer view."""
    lines = [[r["name"], r["type"], "%.2f" % r["forward_ms"], "%.2f" % r["backward_ms"], "%.2f" % r["ms"],
              "%.1f%%" % r["pct"]] for r in rows[:top]]
    return ("layer", "type", "forward ms", "backward ms", "ms/step", "% of step"), lines


def type_table(rows):
    return (("layer type", "layers", "ms/step", "% of step"),
            [[t["type"], str(t["layers"]), "%.2f" % t["ms"], "%.1f%%" % t["pct"]] for t in by_type(rows)])


def plain(header, lines):
    """Cells as left-aligned columns."""
    cells = [list(header)] + lines
    widths = [max(len(c[i]) for c in cells) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in cells)
