"""Python-side helpers around the SWIG classes (v1's py_paddle/util.py role).

The layering is one-way: py_paddle uses the front end's data conversion and messages
(paddle.trainer.batch_conversion, paddle.proto), which never import py_paddle; only the
`paddle` command (paddle.trainer.cli) sits above both.
"""
import numpy as np

from paddle.proto import message_to_json
from paddle.trainer.batch_conversion import convert_samples
from py_paddle import swig_paddle as api

_EMPTY_F32 = np.zeros(0, dtype=np.float32)


def slots_to_arguments(slots, arguments=None):
    """Copies a list of SlotData (see paddle.trainer.data_provider) into an Arguments.

    One bulk copy per buffer; the arrays are not referenced afterwards.
    """
    args = arguments if arguments is not None else api.Arguments.createArguments(len(slots))
    if args.getSlotNum() != len(slots):
        args.resize(len(slots))
    for i, slot in enumerate(slots):
        if getattr(slot, "sparse_rows", None) is not None:
            values = slot.sparse_values
            args.setSlotSparseFromBuffers(
                i, np.ascontiguousarray(slot.sparse_rows, dtype=np.int32),
                np.ascontiguousarray(slot.sparse_cols, dtype=np.int32),
                _EMPTY_F32 if values is None else np.ascontiguousarray(values, dtype=np.float32),
                int(slot.dim))
        if slot.value is not None:
            args.setSlotValueFromBuffer(i, np.ascontiguousarray(slot.value, dtype=np.float32))
        if slot.ids is not None:
            args.setSlotIdsFromBuffer(i, np.ascontiguousarray(slot.ids, dtype=np.int32))
        if slot.seq_starts is not None:
            args.setSlotSequenceStartPositionsFromBuffer(i, np.ascontiguousarray(slot.seq_starts, dtype=np.int32))
        if getattr(slot, "sub_seq_starts", None) is not None:
            args.setSlotSubSequenceStartPositionsFromBuffer(
                i, np.ascontiguousarray(slot.sub_seq_starts, dtype=np.int32))
    return args


class DataProviderConverter(object):
    """v1's converter: a list of samples (one entry per input type) -> Arguments."""

    def __init__(self, input_types):
        self.input_types = list(input_types)

    def convert(self, samples, argument=None):
        return slots_to_arguments(convert_samples(self.input_types, samples), argument)

    __call__ = convert


def _arguments_to_dicts(args):
    out = []
    for i in range(args.getSlotNum()):
        value = args.getSlotValue(i)
        ids = args.getSlotIds(i)
        item = {}
        if value is not None:
            item["value"] = value.copyToNumpyMat()
        if ids is not None:
            item["id"] = ids.copyToNumpyArray()
        out.append(item)
    return out


def monkeypatches():
    """Adds v1's Python conveniences to the SWIG classes."""

    def create_from_config_proto(model_config, *unused_mode_and_types, **kwargs):
        use_gpu = kwargs.get("use_gpu", api.isUsingGpu())
        return api.GradientMachine.createByConfigJson(message_to_json(model_config), use_gpu,
                                                      kwargs.get("seed", 1))

    def forward_test(self, in_args):
        out = api.Arguments.createArguments(0)
        self.forward(in_args, out, api.PASS_TEST)
        return _arguments_to_dicts(out)

    def get_layer_outputs(self, layer_names):
        if isinstance(layer_names, str):
            layer_names = [layer_names]
        result = {}
        for name in layer_names:
            result[name] = _arguments_to_dicts(self.getLayerOutput(name))[0].get("value")
        return result

    def get_parameters(self):
        for i in range(self.getParameterSize()):
            yield self.getParameter(i)

    def trainer_from_proto(trainer_config, use_gpu=None, trainer_count=None, seed=1):
        use_gpu = api.isUsingGpu() if use_gpu is None else use_gpu
        trainer_count = api.getTrainerCount() if trainer_count is None else trainer_count
        return api.Trainer.create(message_to_json(trainer_config), use_gpu, trainer_count, seed)

    def updater_from_proto(opt_config):
        return api.ParameterUpdater.createLocalUpdater(message_to_json(opt_config))

    api.GradientMachine.createFromConfigProto = staticmethod(create_from_config_proto)
    api.GradientMachine.forwardTest = forward_test
    api.GradientMachine.getLayerOutputs = get_layer_outputs
    api.GradientMachine.getParameters = get_parameters
    api.Trainer.createFromConfigProto = staticmethod(trainer_from_proto)
    api.ParameterUpdater.createFromConfigProto = staticmethod(updater_from_proto)
    api.Parameter.__len__ = api.Parameter.getSize
    api.Parameter.getBufs = lambda self: [self.getBuf(api.PARAMETER_VALUE), self.getBuf(api.PARAMETER_GRADIENT)]
