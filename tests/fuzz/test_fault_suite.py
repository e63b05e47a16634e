"""tools/fault_suite.py: a bounded sample of every family finds nothing, and each oracle
(crash, hang, silent-wrong, escape) reports a fault planted in each family's cases."""
import io
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import fault_suite  # noqa: E402
from fuzzlib import mpi_ranks  # noqa: E402
from mpi_gate import mpi_missing  # noqa: E402

pytest.importorskip("py_paddle.swig_paddle")


def run(counts, **kw):
    log = io.StringIO()
    result, bad = fault_suite.run(dict(dict.fromkeys(fault_suite.FAMILIES, 0), **counts), seed=5, log=log, **kw)
    return result, bad


def test_a_sample_of_the_swig_and_tool_families_finds_nothing():
    result, bad = run({"swig": 12, "tools": 10}, case_timeout=60)
    assert bad == [], bad
    assert sum(result["swig"].values()) == 12 and sum(result["tools"].values()) == 10
    assert result["swig"]["clean"] > 0 and result["tools"]["clean"] > 0, result  # wrong calls/inputs are seen


@pytest.mark.parametrize("plant,outcome", [("crash", "crash"), ("hang", "hang"), ("escape", "internal"),
                                           ("silent", "silent")])
def test_each_oracle_catches_a_fault_planted_in_a_swig_sequence(plant, outcome):
    result, bad = run({"swig": 1}, plant={"swig": plant}, case_timeout=8 if plant == "hang" else 60)
    assert [b["outcome"] for b in bad] == [outcome], (result, bad)


@pytest.mark.parametrize("plant,outcome", [("hang", "hang"), ("escape", "internal")])
def test_the_tool_family_reports_a_planted_hang_and_escape(plant, outcome):
    result, bad = run({"tools": 1}, plant={"tools": plant}, case_timeout=8 if plant == "hang" else 60)
    assert [b["outcome"] for b in bad] == [outcome], (result, bad)


def test_the_table_counts_each_oracle():
    import collections
    text = fault_suite.table({"swig": collections.Counter(clean=3, crash=1, internal=2),
                              "mpi": collections.Counter(hang=1, silent=4)})
    assert text.splitlines()[4].split()[:6] == ["swig", "6", "1", "0", "0", "2"]
    assert text.splitlines()[7].split()[:6] == ["mpi", "5", "0", "1", "4", "0"]


@pytest.mark.skipif(bool(mpi_missing()), reason=str(mpi_missing()))
def test_every_mpi_mismatch_kill_and_stall_ends_with_a_message():
    result, bad = run({"mpi": len(mpi_ranks.KINDS)}, case_timeout=150)
    assert bad == [], bad
    assert result["mpi"]["clean"] == len(mpi_ranks.KINDS) - 1 and result["mpi"]["ok"] == 1, result


@pytest.mark.skipif(bool(mpi_missing()), reason=str(mpi_missing()))
@pytest.mark.parametrize("plant,outcome", [("silent", "silent"), ("hang", "hang")])
def test_the_mpi_family_reports_a_planted_silent_run_and_hang(plant, outcome, monkeypatch):
    monkeypatch.setattr(fault_suite, "mpi_cases", lambda n, rng: iter(
        [{"campaign": "mpi", "seed_value": 1, "kind": "bs", "timeout": 60, "job_timeout": 12}]))
    result, bad = run({"mpi": 1}, plant={"mpi": plant})
    assert [b["outcome"] for b in bad] == [outcome], (result, bad)


def test_a_sample_of_merged_model_mutations_is_refused_naming_the_file_or_predicts_the_same():
    result, bad = run({"merged": 15}, case_timeout=60)
    assert bad == [], bad
    assert result["merged"]["clean"] > 0, result


def test_the_merged_family_reports_damage_that_loads():
    result, bad = run({"merged": 1}, plant={"merged": "silent"}, case_timeout=60)
    assert [b["outcome"] for b in bad] == ["silent"], (result, bad)
