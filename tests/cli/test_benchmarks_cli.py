"""benchmarks/run.py's command line: an unknown benchmark or framework is a usage error
that lists the choices (before anything runs), and the benchmarks and docs name no file
outside the repository."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "benchmarks", "run.py")


@pytest.mark.parametrize("argv, bad", [(["--bench", "foo"], "foo"),
                                       (["--bench", "mlp,nope", "--frameworks", "paddle"], "nope"),
                                       (["--bench", "mlp", "--frameworks", "paddle,tf"], "tf")])
def test_unknown_names_are_usage_errors(argv, bad):
    p = subprocess.run([sys.executable, RUN] + argv, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "'%s'" % bad in p.stderr and "choose from" in p.stderr
    if bad != "tf":
        for name in ("mlp", "lenet", "lstm_text", "cnn_text", "sparse_ctr", "gru_seq2seq_attention"):
            assert name in p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""


def test_no_reference_to_files_outside_the_repository():
    outside = re.compile(r"\.\./shared|/work/shared|shared/bench|BENCHMARKS\.md")
    paths = [os.path.join(ROOT, "README.md")]
    for folder in ("benchmarks", "docs", "tools"):
        for base, _, files in os.walk(os.path.join(ROOT, folder)):
            paths += [os.path.join(base, f) for f in files if f.endswith((".py", ".md", ".sh"))]
    offenders = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            offenders += ["%s:%d" % (os.path.relpath(path, ROOT), n + 1)
                          for n, line in enumerate(f) if outside.search(line)]
    assert not offenders
