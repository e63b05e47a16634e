"""What the fault suite (tools/fault_suite.py) found, each fixed: a FIFO or a link to an
endless device given to show_pb / a v1 proto data source is refused naming the file,
instead of blocking (FIFO) or reading forever (/dev/zero)."""
import os
import threading

import pytest


def finishes(fn, seconds=20):
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: B902  (handed to the test)
            box["error"] = e
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "blocked for %d s" % seconds
    return box


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "dir"])
def test_a_proto_data_file_that_is_not_a_regular_file_is_refused(tmp_path, kind):
    from paddle.trainer.v1_data_sources import read_proto_file
    path = str(tmp_path / "data.pb")
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dir":
        os.mkdir(path)
    else:
        os.symlink("/dev/zero", path)
    box = finishes(lambda: read_proto_file(path))
    assert isinstance(box.get("error"), OSError), box
    assert path in str(box["error"]) and "not a regular file" in str(box["error"])


def test_show_pb_on_a_fifo_gives_one_line(tmp_path, capsys):
    from paddle.utils.show_pb import main
    path = str(tmp_path / "data.pb")
    os.mkfifo(path)
    box = finishes(lambda: main([path]))
    code = box.get("value", getattr(box.get("error"), "code", None))
    assert code not in (0, None), box
    assert "not a regular file" in capsys.readouterr().err
