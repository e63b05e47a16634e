"""One install command: the README's quick start installs every extra (tests included) and
builds the engine with MPI in the same go, and `.ci/run` installs exactly as it says."""
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _pyproject():
    tomllib = pytest.importorskip("tomllib" if __import__("sys").version_info >= (3, 11) else "tomli")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)


def _name(requirement):
    return re.match(r"[A-Za-z0-9_.-]+", requirement).group(0).lower()


def _extra(project, name, seen=()):
    """The requirements of an extra, its references to other extras of this project expanded."""
    own = project["name"].lower()
    out = set()
    for req in project["optional-dependencies"][name]:
        m = re.match(r"%s\[([^\]]+)\]" % re.escape(own), req.lower())
        if m:
            for other in m.group(1).split(","):
                if other.strip() not in seen:
                    out |= _extra(project, other.strip(), seen + (name,))
        else:
            out.add(_name(req))
    return out


def test_mpi_comes_with_the_build_and_the_install():
    """mpich at build time (so setup.py finds mpicxx and links libmpi) and at run time (libmpi)."""
    toml = _pyproject()
    assert "mpich" in {_name(r) for r in toml["build-system"]["requires"]}
    assert "mpich" in {_name(r) for r in toml["project"]["dependencies"]}


def test_all_extra_holds_every_other_extra():
    project = _pyproject()["project"]
    everything = _extra(project, "all")
    for name in project["optional-dependencies"]:
        if name != "all":
            assert _extra(project, name) <= everything, name
    assert {"pytest", "mpi4py", "scikit-learn", "tensorboard", "onnxruntime"} <= everything


def _shell_blocks(text):
    return re.findall(r"```bash\n(.*?)```", text, re.S)


def test_readme_installs_once_and_ci_installs_the_same_way():
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    with open(os.path.join(ROOT, ".ci", "run")) as f:
        ci = f.read()
    quick_start, tests = _shell_blocks(readme)[:2]
    installs = re.findall(r'pip install [^&\n]*', quick_start)
    assert installs == ['pip install ".[all]" '], quick_start
    assert "pip install" not in tests and "pytest tests" in tests  # nothing more to install or build
    ci_installs = [l.strip() for l in re.findall(r'^(pip install [^#\n]*)', ci, re.M)]
    assert ci_installs == [installs[0].strip()]
