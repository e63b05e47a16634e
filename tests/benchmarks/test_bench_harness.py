"""benchmarks/run.py's harness without timing anything real: its arguments, the running order
(ours and torch alternating), and the table arithmetic (medians, per-round ratios against
torch's faster variant, speedups, busy flags) on made-up unit results."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import harness  # noqa: E402
import run  # noqa: E402

RUN = os.path.join(ROOT, "benchmarks", "run.py")


def test_defaults_and_choices():
    a = run.parse_args([])
    assert (a.torch, a.repeats, a.threads, a.frameworks) == ("tuned", 3, [1, 2], ["paddle", "torch"])
    a = run.parse_args(["--torch", "stock", "--threads", "2", "--repeats", "5", "--bench", "mlp,lenet"])
    assert (a.torch, a.repeats, a.threads, a.bench) == ("stock", 5, [2], ["mlp", "lenet"])


@pytest.mark.parametrize("argv, says", [(["--torch", "fast"], "invalid choice: 'fast'"),
                                        (["--threads", "0"], "positive thread counts"),
                                        (["--threads", "two"], "positive thread counts"),
                                        (["--repeats", "0"], "positive integer"),
                                        (["--device", "tpu"], "invalid choice: 'tpu'")])
def test_bad_arguments_are_usage_errors(argv, says):
    p = subprocess.run([sys.executable, RUN] + argv, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and says in p.stderr, p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""


def test_units_alternate_ours_and_every_torch_variant():
    units = run.plan(run.parse_args(["--bench", "lstm_text,mlp", "--threads", "1,2", "--repeats", "2"]))
    first = [(u["framework"], u["variant"], u["round"]) for u in units[:6]]
    assert first == [("paddle", "", 0), ("torch", "padded", 0), ("torch", "packed", 0),
                     ("paddle", "", 1), ("torch", "padded", 1), ("torch", "packed", 1)]
    assert all(u["threads"] == 1 for u in units[:6]) and units[6]["threads"] == 2
    mlp = [u for u in units if u["bench"] == "mlp"]
    assert [u["framework"] for u in mlp] == ["paddle", "torch"] * 4 and {u["variant"] for u in mlp} == {""}
    stock = run.plan(run.parse_args(["--bench", "lstm_text", "--threads", "1", "--torch", "stock", "--repeats", "1"]))
    assert [(u["framework"], u["variant"]) for u in stock] == [("paddle", ""), ("torch", "padded")]
    ours = run.plan(run.parse_args(["--bench", "lenet", "--frameworks", "paddle", "--repeats", "3", "--threads", "1"]))
    assert [u["framework"] for u in ours] == ["paddle"] * 3


def unit(fw, sps, rnd, variant="", threads=1, busy=0.0, bench="mlp"):
    return {"bench": bench, "framework": fw, "variant": variant, "threads": threads, "round": rnd,
            "samples_per_s": float(sps), "ms_per_step": 1000.0 * 128 / sps, "gflops": sps / 1000.0,
            "peak_mb": 100.0 + rnd, "busy": busy}


def test_medians_and_per_round_ratios_against_the_faster_torch_variant():
    results = []
    for rnd, (ours, padded, packed) in enumerate([(300, 100, 150), (400, 200, 100), (100, 100, 50)]):
        results += [unit("paddle", ours, rnd, bench="lstm_text"), unit("torch", padded, rnd, "padded", bench="lstm_text"),
                    unit("torch", packed, rnd, "packed", bench="lstm_text")]
    rows = harness.summarize(results)
    assert [r["engine"] for r in rows] == ["paddle", "torch (padded)", "torch (packed)"]
    ours = rows[0]
    assert ours["samples_per_s"] == 300 and ours["runs"] == 3
    assert ours["ms_per_step"] == pytest.approx(1000.0 * 128 / 300)
    assert ours["spread_pct"] == pytest.approx(100.0 * (400 - 100) / 300)
    assert ours["peak_mb"] == 102.0
    # per round: 300/150, 400/200, 100/100 -> median 2.0 (the ratio of the medians would be 3.0)
    assert ours["ratio"] == pytest.approx(2.0)
    assert rows[1]["ratio"] is None and rows[1]["samples_per_s"] == 100


def test_a_round_without_torch_gives_no_ratio_and_busy_units_are_flagged():
    results = [unit("paddle", 200, 0, busy=0.1), unit("paddle", 220, 1, busy=0.9), unit("torch", 100, 1)]
    (ours, torch) = harness.summarize(results, busy_limit=0.25)
    assert ours["ratio"] == pytest.approx(2.2) and ours["flagged"] and ours["busy"] == 0.9
    assert not torch["flagged"]
    assert " !" in harness.text_table([ours, torch]).splitlines()[1]


def test_thread_speedups_and_tables():
    results = [unit("paddle", 100, 0), unit("torch", 50, 0), unit("paddle", 180, 0, threads=2),
               unit("torch", 75, 0, threads=2)]
    rows = harness.summarize(results)
    assert {(s["engine"], round(s["speedup"], 3)) for s in harness.speedups(rows)} == {("paddle", 1.8),
                                                                                        ("torch", 1.5)}
    md = harness.results_markdown(rows).splitlines()
    assert len(md) == 2 + len(rows) and md[0].startswith("| bench | engine | threads | samples/s")
    assert all(line.count("|") == len(harness.COLUMNS) + 1 for line in md)
    assert "| 2.00 |" in md[2] and "| 2.40 |" in md[4]
    text = harness.text_table(rows).splitlines()
    assert len(text) == 1 + len(rows) and text[0].split()[:3] == ["bench", "engine", "threads"]


def test_machine_load_is_never_negative():
    load = harness.MachineLoad()
    subprocess.run([sys.executable, "-c", "sum(range(10**6))"], check=True)
    assert load.others() >= 0.0
