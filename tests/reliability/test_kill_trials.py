"""Saving survives SIGKILL at any instant (tools/kill_trials.py on a small sample: the full
run is by hand, see docs/reliability.md), and tidy() cleans and restores what dead runs left."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import kill_trials  # noqa: E402
from paddle.trainer import checkpoints  # noqa: E402

pytest.importorskip("py_paddle.swig_paddle")


@pytest.mark.slow  # a longer training: the whole suite (CI) runs it
def test_a_kill_before_every_step_of_re_saving_a_pass_loses_nothing(tmp_path):
    # One run per rename/swap/removal of re-saving the newest pass, with the atomic swap and
    # with the two-rename fallback (other file systems), then a kill at a random moment.
    counts, failures = kill_trials.run(0, 1, str(tmp_path), steps=True, modes=("resave",), log=lambda line: None)
    assert failures == []
    assert counts["killed"] >= 2 + 3 and counts["finished before the kill"] == 2, counts
    assert counts["killed inside a save"] == counts["killed"], counts  # each step is one of saving
    counts, failures = kill_trials.run(1, 4, str(tmp_path), modes=("fresh",), log=lambda line: None)
    assert failures == [] and counts["trials"] == 1, counts


def dead_pid():
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def make_pass(path, marker):
    os.makedirs(os.path.join(path, "optimizer"))
    with open(os.path.join(path, "_w"), "w") as f:
        f.write(marker)
    with open(os.path.join(path, "done"), "w") as f:
        f.write("v")


def test_tidy_restores_a_pass_caught_between_two_renames_and_removes_dead_leftovers(tmp_path):
    pid = dead_pid()
    save = tmp_path / "out"
    make_pass(str(save / ("pass-00001.old-%d" % pid)), "old")  # the fallback's first rename done ...
    make_pass(str(save / ("pass-00001.tmp-%d" % pid)), "new")  # ... its second not
    make_pass(str(save / "pass-00000"), "kept")
    os.makedirs(str(save / ("pass-00002.tmp-%d" % pid)))  # a fresh save killed half way (no done)
    make_pass(str(save / ("pass-00000.removing-%d" % pid)), "doomed")  # --keep_last's removal, killed
    os.symlink("pass-00000", str(save / ("best.tmp-%d" % pid)))
    live = save / ("pass-00003.tmp-%d" % os.getppid())  # another run still saving: left alone
    os.makedirs(str(live))
    # Readers take the complete copy the dead run left (the newer one) until tidy() puts it back.
    assert checkpoints.saved_passes(str(save)) == [0, 1]
    assert checkpoints.saved_pass_path(str(save), 1) == str(save / ("pass-00001.tmp-%d" % pid))
    checkpoints.tidy(str(save))
    assert sorted(os.listdir(str(save))) == sorted(["pass-00000", "pass-00001", live.name])
    assert (save / "pass-00001" / "_w").read_text() == "new"  # the newer complete copy
    assert checkpoints.saved_passes(str(save)) == [0, 1]


def test_re_saving_swaps_the_new_pass_in_with_one_atomic_exchange(tmp_path):
    make_pass(str(tmp_path / "pass-00000"), "old")
    make_pass(str(tmp_path / "new"), "new")
    if not checkpoints._exchange(str(tmp_path / "new"), str(tmp_path / "pass-00000")):
        pytest.skip("this file system cannot swap directories (saving falls back to two renames)")
    assert (tmp_path / "pass-00000" / "_w").read_text() == "new"
    assert (tmp_path / "new" / "_w").read_text() == "old"
