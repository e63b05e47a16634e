"""`paddle predict`: a trained model's output layers for every sample of a data list.

    paddle predict --config=CONF --model_dir=output/pass-00009 --output=FILE
                   [--config_args=is_predict=1] [--data_list=FILE] [--format=text|npy|jsonl]
                   [--output_layers=a,b] [--model_file=model.paddle] [--use_gpu=1]

The samples come from the config's data provider, unshuffled and in file-list order: its test
list, else its train list, or --data_list in their place. The network and its parameters come
from the config and a saved pass (--model_dir), or from a merged model (--model_file, written
by `paddle merge_model`; the config then only names the data). A layer that outputs ids
(max_id, crf_decoding, beam_search results) gives its ids, any other its values.

By default the config's output layers are written, except that a cost layer is replaced by
the layer it scores (the prediction), and only the layers it needs run: a training config
then predicts without its label column (a network with recurrent groups runs whole). For a classification cost's input the argmax class is written too ("id"), and its
name ("label") when the reader mapped string labels through a vocabulary; a softmax output
of a prediction config gains both when there is such a vocabulary. The readers' fitted
preprocessing saved with the model (preprocessing.json, or a merged model's trailer) is
applied to the raw rows, never refitted.

Formats:
  text   v1's --predict_output_dir rows: a line per output row, each layer as "v v v;" or "id;"
         (a label name as "name;"); with sequence outputs, an empty line after each sample's rows
  jsonl  a JSON object per sample, {"layer": values or id, ...}; a sequence output gives the
         list of its rows (or ids) for each sample
  npy    FILE is one .npy array when a single layer without sequences is written, else an .npz
         archive with an array per layer (rows stacked) and "<layer>.seq_starts" for sequences

`paddle train --job=test --predict_output_dir=DIR` writes its rows with `write_text_rows`.
"""
import argparse
import collections
import json
import os
import sys

import numpy as np

from paddle.trainer import preprocessing
from paddle.trainer.arguments import ArgumentParser
from paddle.utils.export_onnx.graph import COST_TYPES, needed_layers
from paddle.utils.output_files import open_output

FORMATS = ("text", "npy", "jsonl")
# costs whose prediction input holds class probabilities: their argmax is the class id
CLASSIFICATION_COSTS = frozenset(["multi-class-cross-entropy", "multi_class_cross_entropy_with_selfnorm"])

# One output layer after a forward pass: `data` holds ids (int32 [rows]) for a layer with ids,
# else values (float32 [rows, size]); `seq_starts` the row offsets of its sequences, or None.
LayerResult = collections.namedtuple("LayerResult", "name data seq_starts")


def layer_results(get_output, names):
    """[LayerResult] of the named layers; get_output(name) returns the layer's Arguments."""
    results = []
    for name in names:
        arg = get_output(name)
        ids, value = arg.getSlotIds(0), arg.getSlotValue(0)
        if ids is not None:
            data = ids.copyToNumpyArray()
        elif value is not None:
            data = value.copyToNumpyMat()
        else:
            raise ValueError("layer '%s' has no values or ids to write" % name)
        starts = arg.getSlotSequenceStartPositions(0)
        results.append(LayerResult(name, data, None if starts is None else starts.copyToNumpyArray()))
    return results


def _row_text(row):
    if isinstance(row, str):
        return row + ";"
    return ("%d;" % row) if np.ndim(row) == 0 else (" ".join("%g" % v for v in row) + ";")


def write_text_rows(out, results):
    """v1's --predict_output_dir format: per output row one line, the layers side by side."""
    for row in zip(*[r.data for r in results]):
        out.write("".join(_row_text(v) for v in row) + "\n")


def _per_sample(result):
    """The JSON value of each sample of one layer: its row (or id), or for a sequence output
    the list of its rows."""
    data = result.data.tolist()
    if result.seq_starts is None:
        return data
    s = result.seq_starts
    return [data[s[i]:s[i + 1]] for i in range(len(s) - 1)]


class PredictionWriter(object):
    """Writes the LayerResults of successive batches to `path` in one of FORMATS."""

    def __init__(self, path, fmt):
        if fmt not in FORMATS:
            raise ValueError("unknown --format %r (choose from %s)" % (fmt, ", ".join(FORMATS)))
        self.path, self.fmt, self.samples = path, fmt, 0
        self.file = None if fmt == "npy" else open_output(path, "w")
        self.arrays = collections.OrderedDict()  # npy: layer -> [batch arrays]
        self.starts = {}  # npy: layer -> [seq_starts arrays, offset by the rows before]

    def write(self, results):
        if self.fmt == "text":
            starts = next((r.seq_starts for r in results if r.seq_starts is not None), None)
            if starts is None:
                write_text_rows(self.file, results)
            else:  # sequence outputs: an empty line ends each sample's rows
                for b, e in zip(starts[:-1], starts[1:]):
                    write_text_rows(self.file, [LayerResult(r.name, r.data[b:e], None) for r in results])
                    self.file.write("\n")
        elif self.fmt == "jsonl":
            columns = [_per_sample(r) for r in results]
            for sample in zip(*columns):
                self.file.write(json.dumps(dict(zip([r.name for r in results], sample))) + "\n")
        else:
            for r in results:
                rows_before = sum(len(a) for a in self.arrays.get(r.name, []))
                self.arrays.setdefault(r.name, []).append(r.data)
                if r.seq_starts is not None:
                    s = r.seq_starts[1:] if r.name in self.starts else r.seq_starts
                    self.starts.setdefault(r.name, []).append(s + rows_before)
        first = results[0]
        self.samples += len(first.data) if first.seq_starts is None else len(first.seq_starts) - 1

    def close(self):
        if self.file is not None:
            self.file.close()
            return
        arrays = collections.OrderedDict((n, np.concatenate(a)) for n, a in self.arrays.items())
        for name, parts in self.starts.items():
            arrays[name + ".seq_starts"] = np.concatenate(parts).astype(np.int32)
        with open_output(self.path, "wb") as f:  # the exact name asked for (np.save would add .npy)
            if len(arrays) == 1:
                np.save(f, next(iter(arrays.values())))
            else:
                np.savez(f, **arrays)


def prediction_layers(model_config):
    """(layers to write, {layer: cost type} for those that replace a cost): the config's
    outputs with each cost layer replaced by its first input, the prediction it scores."""
    layers = {layer.name: layer for layer in model_config.layers}
    names, scored = [], {}
    for name in model_config.output_layer_names:
        cost = layers[name]
        if cost.type in COST_TYPES:
            name = cost.inputs[0].input_layer_name
            scored.setdefault(name, cost.type)
        if name not in names:
            names.append(name)
    return names, scored


def _parameter_names(message):
    """The parameter names a LayerConfig refers to (any *parameter_name field, nested too)."""
    names = []
    for field, value in message.ListFields():
        repeated = getattr(field, "is_repeated", None)  # protobuf >= 5; older ones have label
        if repeated is None:
            repeated = field.label == field.LABEL_REPEATED
        values = value if repeated else [value]
        for v in values:
            if field.message_type is not None:
                names.extend(_parameter_names(v))
            elif field.name.endswith("parameter_name") and v:
                names.append(v)
    return names


def pruned_network(model_config, outputs):
    """A copy of model_config with only the layers `outputs` depend on (no costs, no label
    layer, no evaluators); None for a network with recurrent groups (kept whole)."""
    if any(sm.name != "root" for sm in model_config.sub_models):
        return None
    needed = needed_layers({layer.name: layer for layer in model_config.layers}, outputs)
    pruned = type(model_config)()
    pruned.CopyFrom(model_config)
    del pruned.layers[:], pruned.parameters[:], pruned.input_layer_names[:], pruned.output_layer_names[:]
    del pruned.evaluators[:]
    kept = [layer for layer in model_config.layers if layer.name in needed]
    pruned.layers.extend(kept)
    used = set(n for layer in kept for n in _parameter_names(layer))
    pruned.parameters.extend(p for p in model_config.parameters if p.name in used)
    pruned.input_layer_names.extend(n for n in model_config.input_layer_names if n in needed)
    pruned.output_layer_names.extend(outputs)
    for sm in pruned.sub_models:
        del sm.layer_names[:], sm.input_layer_names[:], sm.output_layer_names[:], sm.evaluator_names[:]
        sm.layer_names.extend(layer.name for layer in kept)
        sm.input_layer_names.extend(pruned.input_layer_names)
        sm.output_layer_names.extend(outputs)
    return pruned


def copy_parameters(source, target):
    """Sets target's parameters (a GradientMachine) to source's of the same name."""
    from py_paddle import swig_paddle as api
    values = {p.getName(): p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray() for p in source.getParameters()}
    for p in target.getParameters():
        p.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(values[p.getName()])


def _machine(args, trainer_config, merged, model_config=None):
    """The GradientMachine to run: the config's network (or `model_config`, a part of it)
    with a saved pass, or the `merged` model's (or the part of it)."""
    from py_paddle import swig_paddle as api
    from paddle.proto import message_to_json
    if merged is not None:
        if model_config is None:
            return merged
        part = api.GradientMachine.createByConfigJson(message_to_json(model_config), args.use_gpu, 1)
        copy_parameters(merged, part)
        return part
    from py_paddle.deploy import load_trained_machine
    return load_trained_machine(model_config or trainer_config.model_config, args.model_dir, args.use_gpu,
                                args.config)


def _network(args, trainer_config):
    """(the ModelConfig to predict with, the merged model's GradientMachine or None)."""
    if not args.model_file:
        return trainer_config.model_config, None
    if not os.path.isfile(args.model_file):
        raise OSError("merged model %s does not exist" % args.model_file)
    from py_paddle import swig_paddle as api
    from paddle.proto import message_from_json
    gm = api.GradientMachine.createFromMergedModel(args.model_file, args.use_gpu)
    return message_from_json("ModelConfig", gm.getModelConfigJson()), gm


def _data(args, trainer_config, input_names):
    from paddle.trainer.data_provider import DataProvider
    for_test = trainer_config.HasField("test_data_config")
    if not for_test and not trainer_config.HasField("data_config"):
        raise ValueError("%s defines no data (define_py_data_sources2)" % args.config)
    data_config = trainer_config.test_data_config if for_test else trainer_config.data_config
    if args.data_list:
        if not os.path.isfile(args.data_list):
            raise OSError("--data_list %s does not exist" % args.data_list)
        data_config = type(data_config).FromString(data_config.SerializeToString())
        data_config.files = os.path.abspath(args.data_list)
    return DataProvider(data_config, input_names, trainer_config.opt_config.batch_size, is_train=False,
                        shuffle=False, config_dir=os.path.dirname(os.path.abspath(args.config)),
                        model_config=trainer_config.model_config)


def _class_columns(results, classifiers, names):
    """LayerResults of the argmax class ("id") and its name ("label") of each classifier
    output (prefixed by the layer's name when there are several)."""
    outputs = [r for r in results if r.name in classifiers and r.data.ndim == 2]
    extra = []
    for r in outputs:
        prefix = r.name + "." if len(outputs) > 1 else ""
        ids = r.data.argmax(axis=1).astype(np.int32)
        extra.append(LayerResult(prefix + "id", ids, r.seq_starts))
        if names is not None and len(names) == r.data.shape[1]:
            extra.append(LayerResult(prefix + "label", np.array([names[i] for i in ids]), r.seq_starts))
    return extra


def predict(args):
    """Runs args' model over its data and writes args.output; returns (layer names, samples)."""
    from paddle.trainer.config_parser import parse_config
    from py_paddle import swig_paddle as api
    from py_paddle.util import slots_to_arguments
    from py_paddle.deploy import saved_preprocessing

    api.initPaddle("--use_gpu=%d" % args.use_gpu)
    trainer_config = parse_config(args.config, args.config_args)
    (model_config, merged), scored = _network(args, trainer_config), {}
    classifiers = set()
    if args.output_layers:
        names, part = args.output_layers.split(","), None
        known = set(layer.name for layer in model_config.layers)
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ValueError("--output_layers: the network has no layer %s" % ", ".join(repr(n) for n in unknown))
    else:
        names, scored = prediction_layers(model_config)
        part = pruned_network(model_config, names) if scored else None
        classifiers = set(n for n in names if scored.get(n) in CLASSIFICATION_COSTS)
        softmax = set(layer.name for layer in model_config.layers if layer.active_type == "softmax")
        if scored:
            sys.stderr.write("paddle predict: writing %s (what the cost layers score, not their cost)%s; "
                             "--output_layers picks other layers\n" % (", ".join(names), (
                                 ", with the argmax class as 'id' (and its name as 'label' when the labels "
                                 "are names)") if classifiers else ""))
    preprocessing.load_saved(saved_preprocessing(args.model_dir, args.model_file))
    gm = _machine(args, trainer_config, merged, part)
    data = _data(args, trainer_config, gm.getInputLayerNames())
    classes = preprocessing.label_names(getattr(data.settings, "fitted", None))
    if classes is not None and not args.output_layers:  # a prediction config's softmax outputs, by name
        classifiers |= set(n for n in names if n in softmax)
    writer = PredictionWriter(args.output, args.format)
    written = list(names)
    try:
        in_args, out_args = None, api.Arguments.createArguments(0)
        for batch in data.batches():
            in_args = slots_to_arguments(batch.slots, in_args)
            gm.forward(in_args, out_args, api.PASS_TEST)
            results = layer_results(gm.getLayerOutput, names)
            results += _class_columns(results, classifiers, classes)
            written = [r.name for r in results]
            writer.write(results)
    finally:
        data.close()
        writer.close()
    return written, writer.samples


def _bool(text):
    value = str(text).strip().lower()
    if value not in ("1", "0", "true", "false"):
        raise argparse.ArgumentTypeError("expected 1/0/true/false, got %r" % text)
    return value in ("1", "true")


def parser():
    p = ArgumentParser(prog="paddle predict", description="write a trained model's output layers for every sample")
    p.add_argument("--config", required=True, help="the trainer config (its data provider names the data)")
    p.add_argument("--config_args", default="", help="k1=v1,... e.g. is_predict=1")
    model = p.add_mutually_exclusive_group(required=True)
    model.add_argument("--model_dir", help="a saved pass, e.g. output/pass-00009")
    model.add_argument("--model_file", help="a merged model from `paddle merge_model`")
    p.add_argument("--data_list", default="", help="a file list to read instead of the config's test list")
    p.add_argument("--output", required=True, help="the file to write")
    p.add_argument("--format", default="text", choices=FORMATS)
    p.add_argument("--output_layers", default="", help="a,b: layers to write (default: the config's outputs)")
    p.add_argument("--use_gpu", type=_bool, nargs="?", const=True, default=False)
    return p


def main(argv):
    args = parser().parse_args(argv)
    names, samples = predict(args)
    print("paddle predict: wrote %s of %d samples to %s (%s)" % (", ".join(names), samples, args.output,
                                                                args.format))
    return 0
