"""Evaluators whose statistics are not plain sums (chunk, precision_recall, pnpair, auc)
report on rank 0 of 2 what one process reports over the same batches."""
import os

import pytest

from test_data_parallel import HERE, needs_mpi, train

def pass_figures(log):
    """Each Pass= line as {name: value} (costs and evaluators; not the timings)."""
    out = []
    for line in log.splitlines():
        if " Pass=" in line:
            words = line.split("]", 1)[1].split(" time=")[0].split()
            out.append({w.split("=")[0]: float(w.split("=")[1]) for w in words if "=" in w and w.split("=")[1]})
    return out


@needs_mpi
def test_rank_0_reports_the_figures_of_one_process(tmp_path):
    args = ["--config=" + os.path.join(HERE, "evaluators.py"), "--num_passes=2", "--seed=7", "--dot_period=0",
            "--log_period=0"]
    ranks = pass_figures(train(2, args, HERE, tmp_path / "ranks"))
    one = pass_figures(train(1, args + ["--trainer_count=2"], HERE, tmp_path / "threads"))
    assert len(ranks) == len(one) == 2
    for p in range(2):
        assert set(ranks[p]) == set(one[p])
        for name, value in one[p].items():
            assert ranks[p][name] == pytest.approx(value, rel=1e-5), (p, name)
    # chunk's F1, pnpair's ratio, auc; precision_recall's averages and the positive label's figures
    shown = set(one[0])
    for kind in ("chunk", "pnpair", "auc"):
        assert any(kind in name for name in shown), (kind, sorted(shown))
    assert {"precision", "recall", "F1-score", "macro-average-F1-score", "micro-average-recall"} <= shown
