"""Merged models carry a CRC-32C after their config and after each parameter entry (format
version 2): a damaged byte that would still parse (a finite value, a digit of the config) is
refused with the file and the entry named, version 1 files (no checksums) still load and
predict the same, and the front end's saved preprocessing has a checksum of its own."""
import struct

import numpy as np
import pytest

from py_paddle import swig_paddle as api
from py_paddle.deploy import UNCHECKED_TRAILER_MAGIC, front_end_trailer, read_front_end_data

import merged_format

STATES = [{'reader': 'text', 'key': 'k', 'vocabulary': ['a', '<unk>'], 'oov': 1, 'lowercase': True,
           'labels': ['neg', 'pos']}]


def layout(data):
    """(end of the config, [(name, start of its record, end of its record)]) of a version 2 file."""
    version, config, entries, end = merged_format.parse(data)
    assert version == 2 and end == len(data)
    return 20 + len(config), entries


def predict(path):
    args = api.Arguments.createArguments(1)
    args.setSlotValueFromBuffer(0, np.linspace(0, 1, 2 * 64, dtype=np.float32).reshape(2, 64))
    return api.Predictor.createFromMergedModel(path).forward(args).getSlotValue(0).copyToNumpyMat()


def flip(path, at, bit=0):
    with open(path, "r+b") as f:
        f.seek(at)
        byte = f.read(1)[0]
        f.seek(at)
        f.write(bytes([byte ^ (1 << bit)]))


def test_a_flipped_bit_in_a_finite_value_is_refused_naming_the_parameter(merged):
    with open(merged, "rb") as f:
        _, entries = layout(f.read())
    name, start, end = entries[1]
    flip(merged, start + 16 + 4 * 7, bit=3)  # a low mantissa bit: the value stays finite and plausible
    for load in (api.GradientMachine.createFromMergedModel, api.Predictor.createFromMergedModel):
        with pytest.raises(Exception, match=r"model\.paddle' \(parameter '%s'\) fails its checksum" % name):
            load(merged)


def test_a_changed_digit_of_the_config_is_refused(merged):
    with open(merged, "rb") as f:
        data = f.read()
    at = data.index(b'"size":') + len(b'"size":')  # a layer size, one digit off: still valid JSON
    while not data[at:at + 1].isdigit():
        at += 1
    flip(merged, at)  # '0' <-> '1', '2' <-> '3'...
    with pytest.raises(Exception, match="its config fails its checksum"):
        api.GradientMachine.createFromMergedModel(merged)


def test_a_version_1_file_loads_and_predicts_the_same(merged, tmp_path):
    with open(merged, "rb") as f:
        data = f.read()
    config_end, entries = layout(data)
    old = [data[:8], struct.pack("<I", 1), data[12:config_end], data[config_end + 4:config_end + 8]]
    pos = config_end + 8
    for _, start, end in entries:
        old.append(data[pos:end])  # name size, name, record: all but the checksum
        pos = end + 4
    v1 = str(tmp_path / "v1.paddle")
    with open(v1, "wb") as f:
        f.write(b"".join(old))
    np.testing.assert_array_equal(predict(v1), predict(merged))


def test_a_future_version_is_refused_naming_the_versions_read(merged):
    with open(merged, "r+b") as f:
        f.seek(8)
        f.write(struct.pack("<I", 3))
    with pytest.raises(Exception, match="has format version 3; this engine reads versions 1 and 2"):
        api.GradientMachine.createFromMergedModel(merged)


def test_the_saved_preprocessing_has_a_checksum(merged):
    with open(merged, "ab") as f:
        f.write(front_end_trailer(STATES))
    assert read_front_end_data(merged) == STATES
    np.testing.assert_array_equal(predict(merged), predict(merged))  # the engine skips it
    with open(merged, "rb") as f:
        data = f.read()
    flip(merged, data.index(b'"neg"') + 1)  # 'n' -> 'o': still JSON, another label
    with pytest.raises(ValueError, match=r"model\.paddle: its saved preprocessing .* fails its checksum"):
        read_front_end_data(merged)


def test_an_earlier_unchecked_trailer_still_reads(merged):
    from paddle.trainer import preprocessing
    data = preprocessing.to_json(STATES).encode()
    with open(merged, "ab") as f:
        f.write(data + struct.pack("<Q", len(data)) + UNCHECKED_TRAILER_MAGIC)
    assert read_front_end_data(merged) == STATES
    assert predict(merged).shape == (2, 10)
