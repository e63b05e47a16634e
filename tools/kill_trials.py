#!/usr/bin/env python
"""Kills `paddle train` with SIGKILL while it saves passes, and checks that nothing is lost (issue 18).

    python tools/kill_trials.py --trials 50 --seed 1

A base run saves passes 0..P-1 of a small model (Adam + ModelAverage, so every pass holds
optimizer state). Each trial copies that save directory and resumes into it, either
re-saving passes that exist already (`--start_pass` inside them) or saving fresh ones
(`--start_pass=P`, with `--keep_last` removing old passes as it goes), and is killed with
SIGKILL after a random delay spread over its training loop. `--steps` kills instead right
before each file system step of the saves (every rename, swap and removal), one run per step.

After every kill the save directory must still hold, complete (`done`) and with parameter files
that load, what readers (`--start_pass`, `--job=test`) look for: every pass of the base when
re-saving, a newest pass no older than the base's when saving fresh ones. Then a resume from
the newest pass (`--start_pass=newest+1`: its parameters and optimizer state) must succeed,
save its pass and leave none of what the killed run left (`.tmp-PID`, `.old-PID`,
`.removing-PID`) behind. Prints the counts and every failed trial; exits 1 on any. Same --seed, same trials.
"""
import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = """
from paddle.trainer_config_helpers import *
define_py_data_sources2(train_list='train.list', test_list=None, module='paddle.trainer.readers',
                        obj='synthetic', args={'input_types': {'x': ['dense_vector', 64],
                                                               'label': ['integer_value', 4]}})
settings(batch_size=64, learning_rate=1e-3, learning_method=AdamOptimizer(),
         model_average=ModelAverage(average_window=0.5, max_average_window=20))
h = fc_layer(input=data_layer(name='x', size=64), size=256, act=ReluActivation())
out = fc_layer(input=h, size=4, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='label', size=4)))
"""
BASE_PASSES = 4
LEFTOVER = re.compile(r"\.(tmp|old|removing)-\d+$")
# Runs `paddle train` killing itself right before the KILL_AT-th file system step of saving.
STEP_RUNNER = """
import os, shutil, signal, sys
from paddle.trainer import checkpoints
count, kill_at = [0], int(os.environ["KILL_AT"])
def step(f):
    def wrapped(*args, **kwargs):
        count[0] += 1
        if count[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return f(*args, **kwargs)
    return wrapped
checkpoints.os.rename = step(os.rename)
checkpoints.os.replace = step(os.replace)
checkpoints.shutil.rmtree = step(shutil.rmtree)
if os.environ.get("NO_EXCHANGE"):
    checkpoints._exchange = lambda a, b: False
else:
    checkpoints._exchange = step(checkpoints._exchange)
from paddle.trainer.cli import main
sys.exit(main())
"""


IN_PLACE = any(f.startswith("_swig_paddle") for f in os.listdir(os.path.join(ROOT, "py_paddle")))
if IN_PLACE:
    sys.path.insert(0, ROOT)  # this checkout's build, here and in the runs (environment())


def paddle_command(args, runner=None):
    code = runner or "import sys; from paddle.trainer.cli import main; sys.exit(main())"
    return [sys.executable, "-c", code, "train", "--config=conf.py", "--dot_period=0", "--seed=3"] + args


def environment():
    env = dict(os.environ)
    if IN_PLACE:
        env["PYTHONPATH"] = ROOT
    return env


def prepare(work):
    """The config and the base save directory with passes 0..BASE_PASSES-1 (kept for later runs)."""
    os.makedirs(work, exist_ok=True)
    if os.path.isdir(os.path.join(work, "base")):
        return
    with open(os.path.join(work, "conf.py"), "w") as f:
        f.write(CONFIG)
    with open(os.path.join(work, "train.list"), "w") as f:
        f.write("512\n")
    run = subprocess.run(paddle_command(["--save_dir=base", "--num_passes=%d" % BASE_PASSES]), cwd=work,
                         env=environment(), capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        raise RuntimeError("the base run failed:\n" + run.stderr[-3000:])


def complete_passes(save_dir):
    """What readers (--start_pass, --job=test) find: {pass: directory}."""
    from paddle.trainer.checkpoints import saved_passes, saved_pass_path
    return {p: saved_pass_path(save_dir, p) for p in saved_passes(save_dir)}


def check_saved(save_dir, must_have):
    """Problems with the save directory after a kill: a pass lost, or one that does not load."""
    from py_paddle.util import loadParameterFile
    problems = []
    passes = complete_passes(save_dir)
    lost = sorted(set(must_have) - set(passes))
    if lost:
        problems.append("passes %s are gone (complete: %s; entries: %s)" % (lost, passes, sorted(os.listdir(save_dir))))
    for p, path in passes.items():
        names = [n for n in os.listdir(path) if n.startswith("_")]
        if not names or not os.path.exists(os.path.join(path, "optimizer", "updater.json")):
            problems.append("pass %d has its done file but not its parameters and optimizer state" % p)
        for n in names:
            try:
                loadParameterFile(os.path.join(path, n))
            except Exception as e:  # noqa: BLE001  every failure is a finding
                problems.append("pass %d: %s does not load: %s" % (p, n, e))
    return problems, sorted(passes)


def resume_after(work, save_dir, passes):
    """Resumes from the newest pass; problems if it fails or leaves leftovers behind."""
    newest = passes[-1]
    run = subprocess.run(paddle_command(["--save_dir=" + save_dir, "--start_pass=%d" % (newest + 1),
                                         "--num_passes=%d" % (newest + 2)]),
                         cwd=work, env=environment(), capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        return ["the resume from pass %d failed: %s" % (newest, " | ".join(run.stderr.strip().splitlines()[-3:]))]
    left = [n for n in os.listdir(os.path.join(work, save_dir)) if LEFTOVER.search(n)]
    problems = ["the resume left %s behind" % left] if left else []
    if newest + 1 not in complete_passes(os.path.join(work, save_dir)):
        problems.append("the resume did not save pass %d" % (newest + 1))
    return problems


def trial_args(mode, rng=None):
    """(paddle flags, passes the save directory must keep) for a trial of `mode`; without
    `rng` the shortest one (one pass re-saved, or two fresh ones), for --steps."""
    if mode == "resave":
        start = rng.randrange(1, BASE_PASSES) if rng else BASE_PASSES - 1
        return ["--start_pass=%d" % start, "--num_passes=%d" % BASE_PASSES], list(range(BASE_PASSES))
    # fresh passes, the oldest removed as they come (--keep_last): the newest may only grow
    fresh = rng.randrange(2, 7) if rng else 2
    return ["--start_pass=%d" % BASE_PASSES, "--num_passes=%d" % (BASE_PASSES + fresh), "--keep_last=2"], None


def run_killed(work, save_dir, args, delay=None, kill_at=None, no_exchange=False):
    """Starts a run; kills it `delay` seconds after it has loaded its start pass (or lets it
    kill itself at step `kill_at`). Returns (killed, seconds from the load to the exit)."""
    env = environment()
    if kill_at is not None:
        env["KILL_AT"] = str(kill_at)
        if no_exchange:
            env["NO_EXCHANGE"] = "1"
    proc = subprocess.Popen(paddle_command(["--save_dir=" + save_dir] + args, STEP_RUNNER if kill_at else None),
                            cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    loaded = threading.Event()

    def watch():
        for line in proc.stderr:
            if "Loaded parameters from" in line:
                loaded.set()
        loaded.set()
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        loaded.wait(600)
        start = time.time()
        if delay is not None and proc.poll() is None:
            time.sleep(delay)
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
        proc.wait(600)
    finally:
        if proc.poll() is None:  # the tool itself was interrupted: no run outlives it
            proc.kill()
    watcher.join(10)
    return proc.returncode == -signal.SIGKILL, time.time() - start


def one_trial(work, name, args, must_have, **kill):
    save_dir = os.path.join(work, name)
    shutil.copytree(os.path.join(work, "base"), save_dir)
    killed, _ = run_killed(work, name, args, **kill)
    mid_save = any(LEFTOVER.search(n) for n in os.listdir(save_dir))  # killed inside a save or removal
    problems, passes = check_saved(save_dir, must_have or [])
    if not passes or max(passes) < BASE_PASSES - 1:
        problems.append("the newest pass went back from %d to %s" % (BASE_PASSES - 1, passes[-1:]))
    if passes:
        problems += resume_after(work, name, passes)
    shutil.rmtree(save_dir)
    return killed, mid_save, problems


def passes_of(args):
    flags = dict(a[2:].split("=") for a in args)
    return int(flags["num_passes"]) - int(flags["start_pass"])


class _Longest(random.Random):
    def randrange(self, start, stop):
        return start if stop <= BASE_PASSES else stop - 1  # the earliest start pass, the most fresh passes


def seconds_per_pass(work, mode):
    """How long a pass (training and saving) of a `mode` trial takes uninterrupted, from its
    longest trial (the start-up and exit it includes spread over the most passes)."""
    name = "calibrate-" + mode
    shutil.copytree(os.path.join(work, "base"), os.path.join(work, name))
    args = trial_args(mode, _Longest())[0]
    seconds = run_killed(work, name, args)[1]
    shutil.rmtree(os.path.join(work, name))
    return seconds / passes_of(args)


def run(trials, seed, work, steps=False, modes=("resave", "fresh"), log=print):
    """Returns (counts, failures): `trials` random-delay kills, or with `steps` a kill before
    every save step of `modes`, with the atomic swap and with the two-rename fallback."""
    rng = random.Random(seed)
    prepare(work)
    counts = {"trials": 0, "killed": 0, "killed inside a save": 0, "finished before the kill": 0, "failed": 0}
    failures = []

    def trial(mode, **kill):
        i = counts["trials"]
        args, must_have = trial_args(mode, None if steps else random.Random(seed + i))
        if "delay" in kill:  # a fraction of the run's loop: drawn from the trial's rng too
            kill["delay"] = round(kill["delay"] * per_pass[mode] * passes_of(args), 3)
        killed, mid_save, problems = one_trial(work, "trial-%d" % i, args, must_have, **kill)
        counts["trials"] += 1
        counts["killed" if killed else "finished before the kill"] += 1
        counts["killed inside a save"] += mid_save
        if problems:
            counts["failed"] += 1
            failures.append({"trial": i, "mode": mode, "kill": kill, "problems": problems})
        log("trial %d %s %s: %s%s" % (i, mode, kill, "killed" + (" inside a save" if mid_save else "") if killed else "finished",
                                      " FAILED: " + "; ".join(problems) if problems else ""))
        return killed

    if steps:
        for mode in modes:
            for no_exchange in (False, True):
                step = 1
                while trial(mode, kill_at=step, no_exchange=no_exchange):  # until a run outlives its steps
                    step += 1
        return counts, failures
    per_pass = {mode: seconds_per_pass(work, mode) for mode in modes}
    for _ in range(trials):
        mode = rng.choice([m for m in modes for _ in range(2 if m == "resave" else 1)])
        trial(mode, delay=rng.uniform(0, 1.1))
    return counts, failures


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=50, help="random-delay kills")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--steps", action="store_true", help="kill before every save step instead (deterministic)")
    ap.add_argument("--work", default="", help="work directory (default: a temporary one, removed)")
    a = ap.parse_args(argv)
    work = a.work or tempfile.mkdtemp(prefix="kill_trials-")
    os.makedirs(work, exist_ok=True)
    started = time.time()
    try:
        counts, failures = run(a.trials, a.seed, work, a.steps)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    print("%s in %.0f s" % (", ".join("%s: %d" % kv for kv in counts.items()), time.time() - started))
    for f in failures:
        print("FAILED trial %(trial)d (%(mode)s, %(kill)s): %(problems)s" % f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
