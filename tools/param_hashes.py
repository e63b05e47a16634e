#!/usr/bin/env python3
"""The check of a refactoring that must keep every bit: trains every demo and example config
for 2 passes on synthetic data (`paddle train --data=synthetic:N`, fixed seed, one thread)
and prints a hash of each one's saved parameters. Run it before and after a change and diff
the outputs; a config that does not train on synthetic data (generation, an empty config)
is listed with the reason.

    python tools/param_hashes.py > before.txt     # (on the old commit, its own build)
    python tools/param_hashes.py > after.txt
    diff before.txt after.txt

`--trainer_count=2` checks the replica path the same way;
its hashes differ from one trainer's by design, so compare runs of the same count.
"""
import argparse
import glob
import hashlib
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def configs():
    found = glob.glob(os.path.join(ROOT, "demos", "*", "*.py")) + glob.glob(os.path.join(ROOT, "demos", "*", "*.conf"))
    found += glob.glob(os.path.join(ROOT, "demos", "*", "*.yaml")) + glob.glob(os.path.join(ROOT, "configs", "*.py"))
    found += glob.glob(os.path.join(ROOT, "configs", "*.yaml"))
    out = []
    for path in sorted(found):
        text = open(path, errors="replace").read()
        if "outputs(" in text or "settings(" in text or path.endswith(".yaml") and "layers:" in text:
            out.append(path)
    return out


def train(path, samples, work, trainer_count=1):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", PADDLE_THREADS="1")
    if any(n.startswith("_swig_paddle") for n in os.listdir(os.path.join(ROOT, "py_paddle"))):
        env["PYTHONPATH"] = ROOT
    cmd = [sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())", "train",
           "--config=" + path, "--data=synthetic:%d" % samples, "--num_passes=2", "--seed=1", "--save_dir=" + work,
           "--dot_period=0", "--log_period=0", "--trainer_count=%d" % trainer_count, "--check_health=0", "--overwrite"]
    p = subprocess.run(cmd, cwd=os.path.dirname(path), env=env, capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1][:160]
    digest = hashlib.sha256()
    pass_dir = os.path.join(work, "pass-00001")
    for name in sorted(os.listdir(pass_dir)):
        full = os.path.join(pass_dir, name)
        if os.path.isfile(full) and not name.endswith((".py", ".json", ".txt", ".yaml", ".conf")) and name != "done":
            digest.update(name.encode())
            digest.update(open(full, "rb").read())
    return digest.hexdigest()[:16], None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=64, help="synthetic samples per pass (64)")
    ap.add_argument("--trainer_count", type=int, default=1, help="replicas to train with (1)")
    args = ap.parse_args()
    for path in configs():
        with tempfile.TemporaryDirectory() as work:
            digest, why = train(path, args.samples, work, args.trainer_count)
        print("%-60s %s" % (os.path.relpath(path, ROOT), digest or "not trained: " + why), flush=True)


if __name__ == "__main__":
    main()
