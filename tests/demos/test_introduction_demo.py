"""demos/introduction: linear regression recovers w = 2, b = 0.3 through `paddle train`,
predict.py answers new x with the saved pass (YAML twins: test_yaml_twins.py)."""
import os
import re
import shutil

import numpy as np

from demo_run import CLI, ROOT, run

DEMO = os.path.join(ROOT, "demos", "introduction")


def load_param(path):
    with open(path, "rb") as f:
        header = np.frombuffer(f.read(16), dtype=np.int32)
        assert list(header[:2]) == [0, 4]
        return np.fromfile(f, dtype=np.float32)


def test_linear_regression_learns_the_line_and_predicts(tmp_path):
    work = str(tmp_path / "introduction")
    shutil.copytree(DEMO, work, ignore=shutil.ignore_patterns("output", "__pycache__"))
    # v1's recipe: 30 passes over 2000 points, batches of 12
    log = run(CLI + ["train", "--config=trainer_config.py", "--save_dir=output", "--num_passes=30",
                     "--log_period=0", "--dot_period=0"], work)
    test_costs = [float(c) for c in re.findall(r"\]  Test samples=2000 cost=(\S+)", log)]
    assert len(test_costs) == 30, log[-2000:]
    assert test_costs[-1] < 0.01 * test_costs[0]
    w, b = load_param(work + "/output/pass-00029/w"), load_param(work + "/output/pass-00029/b")
    assert w.shape == (1,) and b.shape == (1,)
    assert abs(w[0] - 2.0) < 0.05 and abs(b[0] - 0.3) < 0.03, (w, b)
    assert "w=%.6f, b=%.6f" % (w[0], b[0]) in run(["evaluate_model.py", "output/pass-00029"], work)

    out = run(["predict.py", "--model", "output/pass-00029", "0", "1", "-2.5"], work).split("\n")
    lines = [line for line in out if line.startswith("x=")]
    assert len(lines) == 3, out
    for x, line in zip([0.0, 1.0, -2.5], lines):
        got_x, got_y = (float(v.split("=")[1]) for v in line.split())
        assert got_x == x and abs(got_y - (w[0] * x + b[0])) < 1e-4, line
