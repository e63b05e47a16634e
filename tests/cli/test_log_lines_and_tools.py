"""What the walk-through of issue 27 hit: log lines with an empty `Eval:`, trailing spaces
or glued to the progress dots; `make_diagram` without Graphviz; numbers dumped as strings."""
import json
import os
import re
import stat
import sys

import pytest

from test_cli import DEMO, ROOT, paddle

INTRO = os.path.join(ROOT, "demos", "introduction")


def test_log_lines_have_no_empty_eval_and_no_trailing_spaces(tmp_path):
    code, _, log = paddle(["train", "--config=trainer_config.py", "--save_dir=" + str(tmp_path), "--num_passes=1",
                           "--log_period=50"], INTRO)  # linear regression: no evaluators
    assert code == 0, log[-2000:]
    assert re.search(r"\]  Batch=50 samples=600 AvgCost=\S+ CurrentCost=\S+$", log, re.M), log[-2000:]
    assert re.search(r"\]  Pass=0 Batch=167 samples=2000 AvgCost=\S+ time=\S+ samples_per_sec=\d+ lr=\S+$",
                     log, re.M)
    assert re.search(r"\]  Test samples=2000 cost=\S+$", log, re.M)
    assert "Eval:" not in log
    assert [line for line in log.splitlines() if line != line.rstrip()] == []


def test_parameter_stats_start_on_a_line_of_their_own(tmp_path):
    code, _, log = paddle(["train", "--config=mlp.py", "--save_dir=" + str(tmp_path), "--num_passes=1",
                           "--show_parameter_stats_period=10", "--log_period=20", "--progress=log"], DEMO)
    assert code == 0, log[-2000:]
    assert "\n..........\nI" in log  # the dots, then the first stats line
    assert not re.search(r"\.[IWE]\d{4} ", log)
    assert [line for line in log.splitlines() if line != line.rstrip()] == []


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_dump_config_prints_numbers_as_numbers(fmt):
    import yaml
    code, out, err = paddle(["dump_config", "mlp.py", "--whole", "--format=" + fmt], DEMO)
    assert code == 0, err
    conf = yaml.safe_load(out) if fmt == "yaml" else json.loads(out)
    layers = conf["model_config"]["layers"]
    assert [l["size"] for l in layers] == [64, 512, 512, 10, 10, 1]
    fc = conf["model_config"]["parameters"][0]
    assert fc["size"] == 64 * 512 and fc["dims"] == [64, 512]
    assert conf["opt_config"]["batch_size"] == 32 and conf["opt_config"]["learning_rate"] == 0.001
    assert "'64'" not in out and '"64"' not in out


def _fake_dot(folder):
    """A `dot` that writes what it reads to its -o file (stands in for Graphviz)."""
    dot = folder / "dot"
    dot.write_text("#!%s\nimport sys\nassert sys.argv[2] == '-o'\nopen(sys.argv[3], 'w').write(sys.stdin.read())\n"
                   % sys.executable)
    dot.chmod(dot.stat().st_mode | stat.S_IEXEC)


def test_make_diagram_says_when_graphviz_is_missing(tmp_path):
    no_dot = tmp_path / "bin"
    no_dot.mkdir()
    code, out, err = paddle(["make_diagram", "mlp.py", str(tmp_path / "m.dot")], DEMO, PATH=str(no_dot))
    assert code == 0, err
    assert out.strip() == ("wrote %s; rendering it needs Graphviz's `dot`, which is not on PATH (install Graphviz: "
                           "apt-get install graphviz, brew install graphviz or conda install graphviz)"
                           % (tmp_path / "m.dot"))
    code, out, err = paddle(["make_diagram", "mlp.py", str(tmp_path / "m.png")], DEMO, PATH=str(no_dot))
    assert code == 1 and not (tmp_path / "m.png").exists()
    assert err.strip().startswith("paddle make_diagram: drawing %s needs Graphviz's `dot`" % (tmp_path / "m.png"))

    _fake_dot(no_dot)
    code, out, err = paddle(["make_diagram", "mlp.py", str(tmp_path / "m.png")], DEMO, PATH=str(no_dot))
    assert code == 0, err
    assert (tmp_path / "m.png").read_text() == (tmp_path / "m.dot").read_text()
    code, out, err = paddle(["make_diagram", "mlp.py", str(tmp_path / "n.dot")], DEMO, PATH=str(no_dot))
    assert "render it with: dot -Tpng %s -o %s.png" % (tmp_path / "n.dot", tmp_path / "n") in out
