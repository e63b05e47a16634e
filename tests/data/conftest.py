"""Shared helpers for the data provider tests."""

import importlib
import os
import signal
import sys
import textwrap

import pytest



@pytest.fixture
def provider_dir(tmp_path, monkeypatch):
    """A temporary cwd; ``write(module_name, source, entries, list_name)``
    writes a provider module and a file list there.  Modules written here are
    dropped from sys.modules afterwards."""
    monkeypatch.chdir(tmp_path)
    written = []

    def write(module_name, source, entries=None, list_name='data.list'):
        (tmp_path / (module_name + '.py')).write_text(
            "from paddle.trainer.PyDataProvider2 import *\n" +
            textwrap.dedent(source))
        written.append(module_name)
        sys.modules.pop(module_name, None)
        importlib.invalidate_caches()
        if entries is not None:
            (tmp_path / list_name).write_text(
                "".join(str(e) + "\n" for e in entries))
        return tmp_path

    yield write
    for name in written:
        sys.modules.pop(name, None)
    if str(tmp_path) in sys.path:
        sys.path.remove(str(tmp_path))


@pytest.fixture
def deadline():
    """Fails the test (instead of hanging) if it runs past ``seconds``."""
    def handler(signum, frame):
        raise TimeoutError("test exceeded its deadline (hang?)")

    old = signal.signal(signal.SIGALRM, handler)

    def arm(seconds):
        signal.alarm(seconds)

    yield arm
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)
