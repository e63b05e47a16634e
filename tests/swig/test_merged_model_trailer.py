"""A merged model may end with the front end's data (the readers' fitted preprocessing):
the engine skips exactly that trailer and still refuses any other bytes after the
parameters; py_paddle.deploy reads it back."""
import struct

import pytest

from py_paddle import swig_paddle as api
from py_paddle.deploy import TRAILER_MAGIC, front_end_trailer, read_front_end_data

STATES = [{'reader': 'text', 'key': 'k', 'vocabulary': ['a', '<unk>'], 'oov': 1, 'lowercase': True,
           'labels': ['neg', 'pos']}]


def append(path, data):
    with open(path, "ab") as f:
        f.write(data)


def test_the_engine_skips_the_trailer_and_deploy_reads_it(merged):
    from paddle.trainer import preprocessing
    assert read_front_end_data(merged) == []
    append(merged, front_end_trailer(STATES))
    assert read_front_end_data(merged) == STATES
    assert list(api.Predictor.createFromMergedModel(merged).getInputLayerNames()) == ["pixel"]
    assert api.GradientMachine.createFromMergedModel(merged).getParameterSize() == 6


@pytest.mark.parametrize("tail", [b"x", b"{}" + struct.pack("<Q", 3) + TRAILER_MAGIC,
                                  b"{}" + struct.pack("<Q", 2) + b"PDEXTRA9"])
def test_other_bytes_after_the_parameters_are_refused(merged, tail):
    append(merged, tail)
    with pytest.raises(Exception, match="has bytes after its last parameter"):
        api.GradientMachine.createFromMergedModel(merged)
