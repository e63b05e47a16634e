"""This project's merged-model layout (trainer/Predictor.h), taken apart for the tests that damage it."""
import struct


def parse(data):
    """(version, config bytes, [(name, start, end) of each parameter's v1 record], end of the last
    entry). Version 2's checksums, after the config and after each entry, are stepped over."""
    assert data[:8] == b"PDMERGED"
    (version,) = struct.unpack_from("<I", data, 8)
    crc = 4 if version >= 2 else 0
    (n,) = struct.unpack_from("<Q", data, 12)
    config = data[20:20 + n]
    pos = 20 + n + crc
    (count,) = struct.unpack_from("<I", data, pos)
    pos += 4
    entries = []
    for _ in range(count):
        (k,) = struct.unpack_from("<I", data, pos)
        name = data[pos + 4:pos + 4 + k].decode()
        start = pos + 4 + k
        (values,) = struct.unpack_from("<Q", data, start + 8)
        end = start + 16 + 4 * values
        entries.append((name, start, end))
        pos = end + crc
    return version, config, entries, pos
