"""The build (setup.py): one engine for this machine unless PADDLE_PORTABLE=1 asks for the
dispatched three, no debug info, and an object is rebuilt when its command or one of the
project's files changed, never because pip built in a fresh temporary environment."""
import os
import runpy
import time

import pytest
import setuptools

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_setup(monkeypatch, **env):
    """setup.py's functions, with `env` set and setuptools.setup() not run."""
    for name in ("PADDLE_MARCH", "PADDLE_PORTABLE", "PADDLE_SANITIZE", "PADDLE_FAKE_GPU", "PADDLE_CPU_VARIANTS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(setuptools, "setup", lambda **kwargs: None)
    monkeypatch.chdir(ROOT)
    return runpy.run_path(os.path.join(ROOT, "setup.py"))


def test_the_default_build_is_one_engine_for_this_machine_without_debug_info(monkeypatch):
    build = load_setup(monkeypatch)
    flags = build["compile_flags"]()
    if build["X86"]:
        assert "-march=" + build["this_machines_march"]() in flags
        assert build["this_machines_march"]() in ("x86-64-v2", "x86-64-v3", "x86-64-v4")
    assert "-g0" in flags and "-g" not in flags
    assert build["cpu_variants"](None) == {}


def test_portable_builds_the_dispatched_engines(monkeypatch):
    build = load_setup(monkeypatch, PADDLE_PORTABLE="1")
    if not build["X86"]:
        pytest.skip("dispatched engines are x86-64 only")
    assert "-march=x86-64-v2" in build["compile_flags"]()
    assert build["cpu_variants"](None) == {"avx2": "x86-64-v3", "avx512": "x86-64-v4"}
    assert build["cpu_variants"](("nvcc", None)) == {}  # each would be a whole nvcc pass more


def test_paddle_march_names_the_one_engine(monkeypatch):
    build = load_setup(monkeypatch, PADDLE_MARCH="native", PADDLE_PORTABLE="1")
    assert "-march=native" in build["compile_flags"]()
    assert build["cpu_variants"](None) == {}


def test_the_sanitizer_build_keeps_its_debug_info(monkeypatch):
    flags = load_setup(monkeypatch, PADDLE_SANITIZE="1")["compile_flags"]()
    assert "-g" in flags and "-g0" not in flags and "-O1" in flags


def _built(tmp_path, cache, deps, command):
    out = tmp_path / "build" / "x.o"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("object")
    with open(cache.depfile(str(out)), "w") as f:
        f.write("%s: %s\n" % (out, " \\\n ".join(deps)))
    cache.record(str(out), command)
    return str(out)


def test_an_object_is_stale_when_its_command_or_a_project_file_changes(monkeypatch, tmp_path):
    build = load_setup(monkeypatch)
    cache = build["ObjectCache"](str(tmp_path / "build"))
    header = tmp_path / "layer.h"
    header.write_text("// v1")
    obj = _built(tmp_path, cache, [str(header)], ["g++", "-O3"])
    assert not cache.stale(obj, ["g++", "-O3"])
    assert cache.stale(obj, ["g++", "-O2"])
    later = time.time() + 5
    os.utime(header, (later, later))
    assert cache.stale(obj, ["g++", "-O3"])
    header.unlink()  # a removed or renamed header
    assert cache.stale(obj, ["g++", "-O3"])


def test_a_fresh_pip_build_environment_rebuilds_nothing(monkeypatch, tmp_path):
    """pip installs the build requirements into a new temporary environment for every install:
    their paths in the commands, and the headers' paths and times, differ from one install to
    the next. Only the packages' versions count."""
    build = load_setup(monkeypatch)
    cache = build["ObjectCache"](str(tmp_path / "build"))
    old_env = "/tmp/pip-build-env-aaaa/overlay"
    cache.roots = [old_env]
    command = ["g++", "-I%s/include" % old_env, "-I%s/lib/python3.11/site-packages/nlohmann_json/include" % old_env]
    gone = ["%s/include/mpi.h" % old_env, "/tmp/pip-build-env-aaaa/normal/lib/python3.11/site-packages/cblas.h"]
    obj = _built(tmp_path, cache, gone, command)

    new_env = "/tmp/pip-build-env-bbbb/overlay"
    fresh = build["ObjectCache"](str(tmp_path / "build"))
    fresh.roots = [new_env]
    assert not fresh.stale(obj, [w.replace(old_env, new_env) for w in command])
    fresh.versions = fresh.versions + ["nlohmann-json=99"]  # a requirement's new version does rebuild
    assert fresh.stale(obj, [w.replace(old_env, new_env) for w in command])
