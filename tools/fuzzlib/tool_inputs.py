"""The tools family: the `paddle` commands that read files (export_onnx, merge_model,
predict, upgrade_config, plot, dump_config, make_diagram) and the show_pb / plotcurve
modules, run in the worker on damaged inputs (truncated, flipped, non-finite, trailing
bytes, a FIFO, a directory, a link to /dev/zero, missing) and hostile ones (a planted
symlink where a tool writes). Oracles: a traceback or an exception escaping the command is
an escape ("internal"); no answer is a hang; a write through a planted link is "silent";
any exit status with a one-line message is "clean"."""
import io
import os
import random
import re
import shutil
import sys

from fuzzlib import files
from fuzzlib.runner import Outcome

PY2_CONFIG = """from paddle.trainer_config_helpers import *
print 'building', 3
settings(batch_size=4, learning_rate=0.01)
outputs(fc_layer(input=data_layer(name='x', size=%d), size=2))
"""
LOG = "".join("I1128 train.cpp:1] Pass=0 Batch=%d samples=%d AvgCost=%.3f Eval: classification_error_evaluator=%.2f\n"
              % (b * 10, b * 40, 2.0 / b, 0.5 / b) for b in range(1, 9)) + \
    "I1128 train.cpp:1] Test samples=64 cost=0.7 Eval: classification_error_evaluator=0.3\n"
METRICS = "".join('{"pass": 0, "batch": %d, "AvgCost": %.3f}\n' % (b, 1.0 / b) for b in range(1, 9))


# exceptions that, from the project's own code, are bugs rather than messages
PYTHON_BUGS = ("AttributeError", "KeyError", "TypeError", "NameError", "UnboundLocalError", "ZeroDivisionError",
               "AssertionError", "RecursionError", "StopIteration", "LookupError", "SystemError")


def _inputs(base, work):
    """The undamaged inputs of every command, copied into the case's directory."""
    shutil.copy(os.path.join(base, "conf.py"), work)
    shutil.copy(os.path.join(base, "fuzz_files_provider.py"), work)
    shutil.copy(os.path.join(base, "train.list"), work)
    shutil.copy(os.path.join(base, "model.paddle"), work)
    shutil.copytree(os.path.join(base, "save", "pass-00000"), os.path.join(work, "pass"))
    for name, text in (("old_conf.py", PY2_CONFIG % 8), ("train.log", LOG), ("metrics.jsonl", METRICS),
                       ("data.pb", "\x08\x01\x10\x02")):
        with open(os.path.join(work, name), "w") as f:
            f.write(text)


COMMANDS = [  # (argv, the inputs it reads, the file it writes)
    (["export_onnx", "--config=conf.py", "--model_dir=pass", "--output=out.onnx"], ["conf.py", "pass/*"], "out.onnx"),
    (["export_onnx", "--model_file=model.paddle", "--output=out.onnx"], ["model.paddle"], "out.onnx"),
    (["merge_model", "--config=conf.py", "--model_dir=pass", "--output=merged.paddle"], ["conf.py", "pass/*"],
     "merged.paddle"),
    (["predict", "--config=conf.py", "--model_dir=pass", "--output=pred.txt"], ["conf.py", "pass/*", "train.list"],
     "pred.txt"),
    (["upgrade_config", "old_conf.py", "--write"], ["old_conf.py"], "old_conf.py.bak"),
    (["upgrade_config", "old_conf.py"], ["old_conf.py"], None),
    (["plot", "metrics.jsonl", "-o", "curves.png"], ["metrics.jsonl"], "curves.png"),
    (["plot", "train.log", "-o", "curves.png", "AvgCost"], ["train.log"], "curves.png"),
    (["dump_config", "conf.py"], ["conf.py"], None),
    (["make_diagram", "conf.py", "model.dot"], ["conf.py"], "model.dot"),
    (["@show_pb", "data.pb"], ["data.pb"], None),
    (["@plotcurve", "-i", "train.log", "-o", "plot.png"], ["train.log"], "plot.png"),
]


def _pick_input(work, patterns, rng):
    pattern = rng.choice(patterns)
    if pattern.endswith("/*"):
        d = os.path.join(work, pattern[:-2])
        names = sorted(os.listdir(d))
        return os.path.join(d, rng.choice(names))
    return os.path.join(work, pattern)


def _damage(path, rng):
    if os.path.isdir(path):
        shutil.rmtree(path)
        open(path, "w").close()
        return "an empty file for a directory"
    if rng.random() < 0.2:
        return files._replace_with_node(path, rng)
    with open(path, "rb") as f:
        data = f.read()
    if rng.random() < 0.3 and path.endswith((".py", ".log", ".jsonl")):
        lines = data.split(b"\n")
        i = rng.randrange(len(lines))
        lines[i] = rng.choice([b"", b"\xff\xfe", lines[i] * 50, b"Pass=x Batch=1e999 AvgCost=nan",
                               b'{"pass": "x", "batch": null, "AvgCost": [1]}', b"((((((((((", b"\x00" * 9,
                               b"import os; os._exit(0)" if rng.random() < 0.01 else b"x = 1 +"])
        data, how = b"\n".join(lines), "line %d replaced" % (i + 1)
    else:
        data, how = files._damage_bytes(data, rng)
    with open(path, "wb") as f:
        f.write(data)
    return how


def _run_command(argv):
    """The command's exit status and what it wrote to stderr; an exception escaping it is an escape."""
    from paddle.trainer import cli
    err, saved = io.StringIO(), (sys.stderr, sys.stdout)
    sys.stderr, sys.stdout = err, io.StringIO()
    try:
        if argv[0] == "@show_pb":
            from paddle.utils.show_pb import main
            code = main(argv[1:])
        elif argv[0] == "@plotcurve":
            from paddle.utils.plotcurve import main
            code = main(argv[1:])
        else:
            code = cli.main(argv)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException as e:  # noqa: B902 -- an escape, with where it came from
        import traceback
        frame = traceback.extract_tb(e.__traceback__)[-1]
        raise Outcome("internal", "%s escaped %s: %s (%s:%d)" % (type(e).__name__, argv[0], str(e)[:200],
                                                                 os.path.basename(frame.filename), frame.lineno))
    finally:
        sys.stderr, sys.stdout = saved
    return code or 0, err.getvalue()


def run_case(case, work):
    rng = random.Random(case["seed_value"])
    base = files._base(case["tmp"], 0)
    _inputs(base, work)
    argv, inputs, writes = COMMANDS[rng.randrange(len(COMMANDS))]
    target = None
    if writes and rng.random() < 0.15:  # a planted link where the tool writes
        target = os.path.join(work, "victim.txt")
        with open(target, "w") as f:
            f.write("untouched")
        os.symlink(target, os.path.join(work, writes))
        how = "a link planted at " + writes
    else:
        path = _pick_input(work, inputs, rng)
        how = "%s: %s" % (os.path.relpath(path, work), _damage(path, rng))
    if case.get("plant") == "escape":  # a bug in the project's code: dump_config hits a KeyError (tests/fuzz)
        from paddle.trainer import cli
        planted = {}
        exec(compile("def dump(argv):\n    return {}['missing']\n", cli.__file__, "exec"), planted)
        cli.COMMANDS["dump_config"], argv = planted["dump"], ["dump_config", "conf.py"]
    elif case.get("plant") == "hang":  # a reader that opens a FIFO with nobody at the other end
        os.mkfifo(os.path.join(work, "fifo"))
        open(os.path.join(work, "fifo")).read()
    cwd = os.getcwd()
    os.chdir(work)
    sys.path.insert(0, work)
    try:
        code, err = _run_command(argv)
    finally:
        sys.path.remove(work)
        os.chdir(cwd)
        for name in ("conf", "fuzz_files_provider", "old_conf"):
            sys.modules.pop(name, None)
    if "Traceback (most recent call last)" in err:
        raise Outcome("internal", "%s printed a traceback (%s): %s" % (argv[0], how, err.strip().splitlines()[-1]))
    # The CLI's last-resort handler prints an unexpected exception as one line: one from the
    # user's code carries its FILE:LINE, one from the project's own code does not (an escape).
    last_resort = re.search(r"paddle \S+: error: (.*)", err)
    if last_resort and not re.match(r"\S+:\d+: ", last_resort.group(1)) and \
            re.match(r"(%s): " % "|".join(PYTHON_BUGS), last_resort.group(1)):
        raise Outcome("internal", "%s (%s): %s" % (argv[0], how, last_resort.group(1)[:300]))
    if target is not None:
        with open(target) as f:
            if f.read() != "untouched":
                raise Outcome("silent", "%s wrote through a link planted at %s" % (argv[0], writes))
    if code:
        if not err.strip():
            raise Outcome("internal", "%s exited %s with no message (%s)" % (argv[0], code, how))
        return {"outcome": "clean", "detail": "%s (%s): %s" % (argv[0], how, err.strip().splitlines()[-1][:200])}
    return {"outcome": "ok", "detail": "%s (%s)" % (argv[0], how)}
