"""The examples in the pages work (docs/*.md and README.md; the blocks: page_blocks.py).

- Every ```python and shell block runs, page by page in reading order (run_page_blocks.py),
  in a fresh folder holding a copy of demos/mnist trained as the quick start trains it (the
  pages' examples start "in demos/mnist, after the quick start"). A block preceded by
  `<!-- run-in: DIR -->` runs in that folder of it.
- A block that cannot run here says why (`<!-- not-run: why -->`: a GPU, an MPI cluster, an
  install, a server that runs until stopped); each is reported as a skip with its reason, so
  none is skipped silently. `<!-- fragment: why -->` marks a Python block that is part of a
  larger program: it is only compiled.
- Every `paddle ...` command line of every shell block, run or not, parses with the command's
  real argument parser: an unknown flag, a bad value or a missing argument fails.
- YAML blocks parse as YAML; the quick start's log lines are what its training prints.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "docs", "_ext"))

from page_blocks import SHELL, all_blocks, blocks, pages  # noqa: E402
import paddle_cli_docs  # noqa: E402

IN_TREE = any(f.startswith("_swig_paddle") for f in os.listdir(os.path.join(ROOT, "py_paddle")))
BLOCKS = all_blocks()
CODE = [b for b in BLOCKS if b.lang == "python" or b.lang in SHELL]
NOT_RUN = [b for b in CODE if b.mark == "not-run"]
RUN_PAGES = sorted({b.path for b in CODE if b.mark != "not-run"})


def test_every_code_block_runs_or_says_why():
    for b in BLOCKS:
        if b.mark:
            assert b.why, "%s: a %s mark needs its reason" % (b.where, b.mark)
            assert b.mark != "fragment" or b.lang == "python", "%s: only Python blocks are fragments" % b.where
            assert b.mark != "run-in" or os.path.isdir(os.path.join(ROOT, b.why)), b.where
    assert len(CODE) > len(NOT_RUN) > 0  # the markers are read


@pytest.mark.parametrize("block", NOT_RUN, ids=[b.where for b in NOT_RUN])
def test_blocks_marked_not_run(block):
    pytest.skip("not run: %s" % block.why)


def paddle_command_lines(text):
    """The argument lists of every `paddle ...` command in a shell block (after `cd x &&`,
    `mpiexec -n 2`, environment assignments, inside `( )` or `$( )`)."""
    text = re.sub(r"\\\n", " ", text)
    out = []
    for line in text.splitlines():
        lexer = shlex.shlex(line.replace("$(", " ( "), posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        segment = []
        for token in list(lexer) + [";"]:
            if token and set(token) <= set("();&|<>"):
                if "paddle" in segment and segment.index("paddle") + 1 < len(segment):
                    out.append(segment[segment.index("paddle") + 1:])
                segment = []
            else:
                segment.append(token)
    return out


def test_command_lines_are_found():
    found = paddle_command_lines('cd demos/mnist && paddle train --config=mlp.py \\\n  --num_passes=3  # x\n'
                                 'OMP=1 mpiexec -n 2 paddle train --job=test\n(cd a && paddle version)\n'
                                 'g++ x.cpp $(paddle build_java --cxxflags) -o x\npip show paddle-v1\n')
    assert found == [["train", "--config=mlp.py", "--num_passes=3"], ["train", "--job=test"], ["version"],
                     ["build_java", "--cxxflags"]]


def test_a_wrong_flag_fails_the_check():
    assert "did you mean --num_passes" in paddle_cli_docs.check_command_line(["train", "--num_pass=1"])
    assert paddle_cli_docs.check_command_line(["train", "--config=a.py", "--num_passes=2"]) is None
    assert paddle_cli_docs.check_command_line(["trian"])
    assert paddle_cli_docs.check_command_line(["train", "--job=fly"])


SHELL_BLOCKS = [b for b in BLOCKS if b.lang in SHELL]


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=[b.where for b in SHELL_BLOCKS])
def test_paddle_command_lines_parse(block):
    for argv in paddle_command_lines(block.text):
        problem = paddle_cli_docs.check_command_line(argv)
        assert problem is None, "%s: paddle %s: %s" % (block.where, " ".join(argv), problem)


def inline_commands():
    """(page, `paddle ...` span) of the commands quoted in the pages' prose and tables."""
    out = []
    for page in pages():
        with open(page, encoding="utf-8") as f:
            text = re.sub(r"```.*?```", "", f.read(), flags=re.S)
        for span in re.findall(r"`(paddle [a-z_]+[^`]*)`", text):
            if not span.split()[1].endswith(":"):  # `paddle train: error: ...` is a message
                out.append((os.path.relpath(page, ROOT), span))
    return out


def test_commands_quoted_in_prose_use_real_flags():
    """`paddle train --use_gpu=1 --trainer_count=N` in a sentence: placeholders aside, each
    flag must be one its subcommand has."""
    quoted = inline_commands()
    assert len(quoted) > 50
    problems = []
    for page, span in quoted:
        try:
            argv = shlex.split(re.sub(r"[\[\]|]", " ", span))[1:]
        except ValueError:
            argv = span.split()[1:]
        problems += ["%s: `%s`: %s" % (page, span, p) for p in paddle_cli_docs.unknown_flags(argv)]
    assert not problems, problems
    assert paddle_cli_docs.unknown_flags(["train", "--num_pass=3", "--noshow_layer_stat"]) == ["--num_pass"]


YAML_BLOCKS = [b for b in BLOCKS if b.lang == "yaml"]


@pytest.mark.parametrize("block", YAML_BLOCKS, ids=[b.where for b in YAML_BLOCKS])
def test_yaml_blocks_parse(block):
    yaml.safe_load(block.text)


def test_the_cli_page_tables_name_real_flags():
    """The hand-written table of docs/cli.md explains flags that `paddle train` has."""
    parser = paddle_cli_docs.command_parser("train")
    flags = {s for a in parser._actions for s in a.option_strings}
    with open(os.path.join(ROOT, "docs", "cli.md")) as f:
        rows = re.findall(r"^\| `(--[a-z_]+)` \|", f.read(), re.M)
    assert len(rows) > 20
    assert not [r for r in rows if r not in flags]


def _environment(bin_dir):
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(bin_dir), os.path.dirname(sys.executable), env.get("PATH", "")])
    env.pop("PYTHONPATH", None)
    if IN_TREE:
        env["PYTHONPATH"] = ROOT
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    return env


@pytest.fixture(scope="module")
def trained_mnist(tmp_path_factory):
    """A folder like the checkout's after the quick start: demos/mnist with output/pass-00029
    (the quick start's command, keeping only the last pass), and a `paddle` command on PATH."""
    base = tmp_path_factory.mktemp("pages")
    bin_dir = base / "bin"
    bin_dir.mkdir()
    (bin_dir / "paddle").write_text("#!%s\nimport sys\nfrom paddle.trainer.cli import main\nsys.exit(main())\n"
                                    % sys.executable)
    (bin_dir / "paddle").chmod(0o755)
    template = base / "template"
    shutil.copytree(os.path.join(ROOT, "demos", "mnist"), template / "demos" / "mnist",
                    ignore=shutil.ignore_patterns("output*", "*.paddle"))
    env = _environment(bin_dir)
    train = subprocess.run(["paddle", "train", "--config=mlp.py", "--save_dir=output", "--num_passes=30",
                            "--save_only_one=1", "--dot_period=0", "--log_period=1000"],
                           cwd=template / "demos" / "mnist", env=env, capture_output=True, text=True,
                           timeout=600)
    assert train.returncode == 0, train.stderr[-3000:]
    return template, env, train.stderr


@pytest.mark.parametrize("page", RUN_PAGES, ids=[os.path.relpath(p, ROOT) for p in RUN_PAGES])
def test_page_examples_run(page, trained_mnist, tmp_path):
    template, env, _ = trained_mnist
    session = tmp_path / "session"
    shutil.copytree(template, session)
    todo = [dict(where=b.where, lang="python" if b.lang == "python" else "shell",
                 text=b.text if b.mark != "fragment" else "compile(%r, %r, 'exec')" % (b.text, b.where),
                 cwd=b.why if b.mark == "run-in" else "")
            for b in blocks(page) if (b.lang == "python" or b.lang in SHELL) and b.mark != "not-run"]
    (tmp_path / "blocks.json").write_text(json.dumps(todo))
    run = subprocess.run([sys.executable, os.path.join(HERE, "run_page_blocks.py"), str(session),
                          str(tmp_path / "blocks.json")], env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, (run.stdout[-5000:], run.stderr[-3000:])
    print(run.stdout)
    assert [b["where"] for b in todo] == re.findall(r"^--- (\S+) ", run.stdout, re.M)  # each block ran


def _log_fields(line):
    return dict(re.findall(r"([A-Za-z_]+)=([-0-9.e]+)", line.split("]", 1)[1]))


@pytest.mark.parametrize("page", ["README.md", "docs/getting_started.md"])
def test_the_quick_start_log_is_what_training_prints(page, trained_mnist):
    """The log lines quoted after the quick start come from the quick start's training: the
    same samples and batches, and costs and errors within what another machine's threads change."""
    _, _, log = trained_mnist
    with open(os.path.join(ROOT, page)) as f:
        quoted = re.search(r"```\n(I\d+ .*? Pass=.*?)\n(I\d+ .*? Test .*?)\n```", f.read())
    assert quoted, "%s quotes the last pass's log lines" % page
    printed = [l for l in log.splitlines() if " Pass=29 " in l or (" Test " in l and "samples=" in l)][-2:]
    assert len(printed) == 2, log[-2000:]
    for page_line, real_line in zip(quoted.groups(), printed):
        quoted_fields, real = _log_fields(page_line), _log_fields(real_line)
        for key in ("Pass", "Batch", "samples"):
            assert quoted_fields.get(key) == real.get(key), (key, page_line, real_line)
        for key in ("AvgCost", "cost"):
            if key in quoted_fields:
                assert float(real[key]) == pytest.approx(float(quoted_fields[key]), rel=0.2), (key, real_line)
        assert float(real["classification_error_evaluator"]) == pytest.approx(
            float(quoted_fields["classification_error_evaluator"]), abs=2.5 / 360), real_line
