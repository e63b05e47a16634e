"""The merged-model family: a model written by `paddle merge_model` (tools/fuzzlib/files.py's
base) is taken apart (magic, version, config, parameter entries, front-end trailer),
mutated where a file goes wrong (a truncation, a duplicated or renamed parameter, entries in
another order, NaN/inf values, damaged header fields or sizes, a damaged or added trailer,
flipped bits) and loaded through GradientMachine.createFromMergedModel or the Predictor.
Oracles: damage must be refused with an error naming the file (else "silent" when it loads,
"internal" when the error does not name the file); a benign change (entries reordered, a
well-formed trailer) must predict exactly what the original predicts ("silent" otherwise).
The format's checksums (version 2: after the config and after each entry) make a flipped bit
in a value detectable; one in the front end's trailer is only seen by the front end (the
engine skips it), so flipped bits may still go undetected and count as "changed", not as faults."""
import os
import random
import struct

from fuzzlib import files
from fuzzlib.runner import Outcome

TRAILER_MAGIC = b"PDEXTRA1"


def parse(data):
    """(head bytes up to the parameter count, [(name, parameter bytes)], trailer bytes); in a
    version 2 file an entry's parameter bytes end with its checksum (4 bytes)."""
    crc = 4 if struct.unpack_from("<I", data, 8)[0] >= 2 else 0
    pos = 8 + 4
    config_size = struct.unpack_from("<Q", data, pos)[0]
    pos += 8 + config_size + crc
    count = struct.unpack_from("<I", data, pos)[0]
    head, pos = data[:pos], pos + 4
    entries = []
    for _ in range(count):
        n = struct.unpack_from("<I", data, pos)[0]
        name = data[pos + 4:pos + 4 + n]
        pos += 4 + n
        values = struct.unpack_from("<Q", data, pos + 8)[0]
        entries.append((name, data[pos:pos + 16 + 4 * values + crc]))
        pos += 16 + 4 * values + crc
    return head, entries, data[pos:]


def build(head, entries, trailer=b"", count=None):
    out = [head, struct.pack("<I", len(entries) if count is None else count)]
    for name, param in entries:
        out += [struct.pack("<I", len(name)), name, param]
    return b"".join(out) + trailer


def mutate(data, rng):
    """(damaged bytes, what was done, whether it is benign, whether it may go undetected)."""
    head, entries, trailer = parse(data)
    op = rng.randrange(11)
    if op == 0:
        cut = rng.randrange(len(data))
        return data[:cut], "truncated at byte %d of %d" % (cut, len(data)), False, False
    if op == 1 and len(entries) > 1:
        i, j = rng.sample(range(len(entries)), 2)
        entries[j] = entries[i]
        return build(head, entries, trailer), "entry %d duplicates entry %d" % (j, i), False, False
    if op == 2:
        i = rng.randrange(len(entries))
        name = bytearray(entries[i][0])
        name[rng.randrange(len(name))] = ord(rng.choice("xyzQ_09"))
        changed = bytes(name) != entries[i][0]
        entries[i] = (bytes(name), entries[i][1])
        return build(head, entries, trailer), "parameter %d renamed" % i, not changed, False
    if op == 3:
        rng.shuffle(entries)
        return build(head, entries, trailer), "entries reordered", True, False
    if op == 4:
        i = rng.randrange(len(entries))
        name, param = entries[i]
        k = rng.randrange(struct.unpack_from("<Q", param, 8)[0])
        word = rng.choice([b"\x00\x00\xc0\x7f", b"\x00\x00\x80\x7f", b"\x00\x00\x80\xff"])
        entries[i] = (name, param[:16 + 4 * k] + word + param[20 + 4 * k:])
        return build(head, entries, trailer), "%s value %d non-finite" % (name.decode(), k), False, False
    if op == 5:
        return build(head, entries, trailer, count=len(entries) + rng.choice([-1, 1, 2 ** 31])), \
            "parameter count changed", False, False
    if op == 6:  # a field of a parameter's header: version, value size or value count
        i = rng.randrange(len(entries))
        name, param = entries[i]
        field = rng.randrange(3)
        header = list(struct.unpack("<iIQ", param[:16]))
        header[field] += rng.choice([1, -1, 7]) if field != 2 else rng.choice([1, -1, 2 ** 40])
        header[field] %= 2 ** (64 if field == 2 else 32)
        if field == 0 and header[0] >= 2 ** 31:
            header[0] -= 2 ** 32
        entries[i] = (name, struct.pack("<iIQ", *header) + param[16:])
        return build(head, entries, trailer), "%s header field %d = %d" % (name.decode(), field, header[field]), \
            False, False
    if op == 7:
        extra = rng.choice([b"{}", b"[]", b"x" * 40])
        return data + extra + struct.pack("<Q", len(extra)) + TRAILER_MAGIC, "a well-formed trailer added", True, False
    if op == 8:
        junk = bytes(rng.randrange(256) for _ in range(rng.choice([1, 9, 24])))
        return data + junk, "%d bytes after the last parameter" % len(junk), False, False
    if op == 9:  # the config's size or the version in the head
        at = rng.choice([8, 12])
        width = 4 if at == 8 else 8
        value = struct.unpack_from("<I" if width == 4 else "<Q", head, at)[0] + rng.choice([1, -1, 3])
        damaged = head[:at] + struct.pack("<I" if width == 4 else "<Q", value % 2 ** (8 * width)) + head[at + width:]
        return damaged + data[len(head):], "%s = %d" % ("version" if at == 8 else "config size", value), False, False
    # flipped bits anywhere: damage the loader may not see when they land in a value
    out = bytearray(data)
    for _ in range(rng.choice([1, 2])):
        out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out), "flipped bits", False, True


def _predict(path, via_predictor):
    import numpy as np
    from py_paddle import swig_paddle as api
    args = api.Arguments.createArguments(2)
    args.setSlotValueFromBuffer(0, np.linspace(-1, 1, 16, dtype=np.float32).reshape(2, 8))
    args.setSlotIdsFromBuffer(1, np.array([0, 2], np.int32))
    if via_predictor:
        return api.Predictor.createFromMergedModel(path).forward(args).getSlotValue(0).copyToNumpyMat()
    gm = api.GradientMachine.createFromMergedModel(path)
    out = api.Arguments.createArguments(0)
    gm.forward(args, out, api.PASS_TEST)
    return out.getSlotValue(0).copyToNumpyMat()


def run_case(case, work):
    import numpy as np
    from py_paddle import swig_paddle as api
    rng = random.Random(case["seed_value"])
    base = files._base(case["tmp"], rng.randrange(len(files.METHODS)))
    original = os.path.join(base, "model.paddle")
    with open(original, "rb") as f:
        data = f.read()
    damaged, how, benign, may_hide = mutate(data, rng)
    if case.get("plant") == "silent":  # a mutator whose damage never reaches the file, as if the loader missed it
        damaged, how, benign, may_hide = data, "planted: damage the loader misses", False, False
    path = os.path.join(work, "model.paddle")
    with open(path, "wb") as f:
        f.write(damaged)
    via_predictor = rng.random() < 0.5
    want = _predict(original, via_predictor)
    try:
        got = _predict(path, via_predictor)
    except (api.IOError, ValueError, RuntimeError, OSError, MemoryError) as e:
        if benign:
            raise Outcome("silent", "%s: a sound model was refused: %s" % (how, str(e)[:200]))
        if path not in str(e):
            raise Outcome("internal", "%s: refused without naming the file: %s" % (how, str(e)[:300]))
        return {"outcome": "clean", "detail": "%s: %s" % (how, str(e)[:200])}
    if got.shape == want.shape and np.array_equal(got, want):
        if benign or may_hide:
            return {"outcome": "ok", "detail": how}
        raise Outcome("silent", "%s: the damaged model loaded" % how)
    if benign:
        raise Outcome("silent", "%s: the model loads but predicts differently" % how)
    if may_hide and np.isfinite(got).all():
        return {"outcome": "changed", "detail": how + ": loads and predicts differently (no checksum)"}
    raise Outcome("silent", "%s: the damaged model loaded" % how)
