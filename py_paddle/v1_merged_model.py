"""v1's merged-model file (paddle_merge_model, v1's MergeModel.cpp): an int64 byte count, that
many bytes of a serialized TrainerConfig (v1's C API also took a bare ModelConfig), then one
v1 parameter record per parameter in the model's order (int32 version 0, uint32 value size 4,
uint64 value count, the float32 values) and nothing after them.

`paddle merge_model --format=v1` writes it; GradientMachine.createFromMergedModel and
Predictor.createFromMergedModel read it from Python (the engine itself reads this project's
format: `paddle merge_model --from_v1=OLD --output=NEW` converts a file for C++ and Java).
"""
import os
import stat
import struct

import numpy as np

from paddle.proto.ModelConfig_pb2 import ModelConfig
from paddle.proto.TrainerConfig_pb2 import TrainerConfig

PROJECT_MAGIC = b"PDMERGED"  # trainer/Predictor.h: this project's merged models begin so
_HEADER = struct.Struct("<iIQ")


def is_v1_merged_model(path):
    """Whether `path` is in v1's layout (an int64 config size that fits the file), not this
    project's (which begins with PDMERGED)."""
    try:  # (O_NONBLOCK: a FIFO is left to the engine's loader, which refuses it by name)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return False
        head, size = f.read(8), st.st_size
    if len(head) < 8 or head == PROJECT_MAGIC:
        return False
    (n, ) = struct.unpack("<q", head)
    return 0 < n <= size - 8


def read(path):
    """(ModelConfig, [float32 arrays in the model's parameter order]) of a v1 merged model;
    errors name the file and what is wrong."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError("%s: too short for a v1 merged model (%d bytes)" % (path, len(data)))
    (n, ) = struct.unpack_from("<q", data)
    if not 0 < n <= len(data) - 8:
        raise ValueError("%s: not a v1 merged model (config size %d, file %d bytes)" % (path, n, len(data)))
    blob = data[8:8 + n]
    model = _model_config(blob, path)
    values, at = [], 8 + n
    for p in model.parameters:
        if at + _HEADER.size > len(data):
            raise ValueError("%s: ends before parameter %s" % (path, p.name))
        version, value_size, count = _HEADER.unpack_from(data, at)
        if version != 0 or value_size != 4:
            raise ValueError("%s: parameter %s is not a v1 float32 record (version %d, value size %d)"
                             % (path, p.name, version, value_size))
        if count != p.size:
            raise ValueError("%s: parameter %s has %d values, its config says %d" % (path, p.name, count, p.size))
        at += _HEADER.size
        if at + 4 * count > len(data):
            raise ValueError("%s: ends inside parameter %s" % (path, p.name))
        values.append(np.frombuffer(data, np.float32, count, at).copy())
        at += 4 * count
    if at != len(data):
        raise ValueError("%s: %d bytes after the last parameter" % (path, len(data) - at))
    return model, values


def _model_config(blob, path):
    trainer = TrainerConfig()
    try:
        trainer.ParseFromString(blob)
        if trainer.IsInitialized() and trainer.model_config.layers:
            return trainer.model_config
    except Exception:  # protobuf's DecodeError: try the bare ModelConfig v1's C API also took
        pass
    model = ModelConfig()
    try:
        model.ParseFromString(blob)
    except Exception as e:
        raise ValueError("%s: its config is neither a TrainerConfig nor a ModelConfig (%s)" % (path, e))
    if not model.layers:
        raise ValueError("%s: its config has no layers" % path)
    return model


def write(path, trainer_config, model_dir):
    """v1's file from a TrainerConfig message and a saved pass's parameter files."""
    tmp = path + ".tmp-%d" % os.getpid()
    blob = trainer_config.SerializeToString()
    try:
        with open(tmp, "wb") as out:
            out.write(struct.pack("<q", len(blob)))
            out.write(blob)
            for p in trainer_config.model_config.parameters:
                record = os.path.join(model_dir, p.name)
                try:
                    with open(record, "rb") as f:
                        data = f.read()
                except OSError as e:
                    raise OSError("%s: parameter %s: %s" % (model_dir, p.name, e.strerror))
                if len(data) != _HEADER.size + 4 * p.size or _HEADER.unpack_from(data)[:2] != (0, 4):
                    raise ValueError("%s is not a v1 float32 record of %d values" % (record, p.size))
                out.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return len(trainer_config.model_config.parameters)
