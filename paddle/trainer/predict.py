"""`paddle predict`: a trained model's output layers for every sample of a data list.

    paddle predict --config=CONF --model_dir=output/pass-00009 --output=FILE
                   [--config_args=is_predict=1] [--data_list=FILE] [--format=text|npy|jsonl]
                   [--output_layers=a,b] [--model_file=model.paddle] [--use_gpu=1]

The samples come from the config's data provider, unshuffled and in file-list order: its test
list, else its train list, or --data_list in their place. The network and its parameters come
from the config and a saved pass (--model_dir), or from a merged model (--model_file, written
by `paddle merge_model`; the config then only names the data). A layer that outputs ids
(max_id, crf_decoding, beam_search results) gives its ids, any other its values.

Formats:
  text   v1's --predict_output_dir rows: a line per output row, each layer as "v v v;" or "id;"
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

import numpy as np

from paddle.trainer.arguments import ArgumentParser

FORMATS = ("text", "npy", "jsonl")

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
        self.file = None if fmt == "npy" else open(path, "w")
        self.arrays = collections.OrderedDict()  # npy: layer -> [batch arrays]
        self.starts = {}  # npy: layer -> [seq_starts arrays, offset by the rows before]

    def write(self, results):
        if self.fmt == "text":
            write_text_rows(self.file, results)
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
        with open(self.path, "wb") as f:  # the exact name asked for (np.save would add .npy)
            if len(arrays) == 1:
                np.save(f, next(iter(arrays.values())))
            else:
                np.savez(f, **arrays)


def _machine(args, trainer_config):
    """The GradientMachine to run: the config's network with a saved pass, or a merged model."""
    from py_paddle import swig_paddle as api
    if args.model_file:
        if not os.path.isfile(args.model_file):
            raise OSError("merged model %s does not exist" % args.model_file)
        return api.GradientMachine.createFromMergedModel(args.model_file, args.use_gpu)
    from py_paddle.deploy import load_trained_machine
    return load_trained_machine(trainer_config.model_config, args.model_dir, args.use_gpu, args.config)


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


def predict(args):
    """Runs args' model over its data and writes args.output; returns (layer names, samples)."""
    from paddle.trainer.config_parser import parse_config
    from py_paddle import swig_paddle as api
    from py_paddle.util import slots_to_arguments

    api.initPaddle("--use_gpu=%d" % args.use_gpu)
    trainer_config = parse_config(args.config, args.config_args)
    gm = _machine(args, trainer_config)
    names = args.output_layers.split(",") if args.output_layers else list(gm.getOutputLayerNames())
    known = set(layer.name for layer in _network_layers(gm))
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError("--output_layers: the network has no layer %s" % ", ".join(repr(n) for n in unknown))
    data = _data(args, trainer_config, gm.getInputLayerNames())
    writer = PredictionWriter(args.output, args.format)
    try:
        in_args, out_args = None, api.Arguments.createArguments(0)
        for batch in data.batches():
            in_args = slots_to_arguments(batch.slots, in_args)
            gm.forward(in_args, out_args, api.PASS_TEST)
            writer.write(layer_results(gm.getLayerOutput, names))
    finally:
        data.close()
        writer.close()
    return names, writer.samples


def _network_layers(gm):
    """The LayerConfig messages of a GradientMachine's network (a merged model's too)."""
    from paddle.proto import message_from_json
    return message_from_json("ModelConfig", gm.getModelConfigJson()).layers


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
