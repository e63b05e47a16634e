"""Deployment: `paddle merge_model` writes a trained pass as one file (v1's paddle_merge_model).

The file holds the network's ModelConfig and all its parameters, so a program can
serve the model without the config's Python: `GradientMachine.createFromMergedModel`
or `Predictor.createFromMergedModel` from Python, Java or C++ (see docs/deployment.md).
When the pass holds the readers' fitted preprocessing (preprocessing.json), the file ends
with it (a trailer the engine skips), and `RawPredictor` applies it: raw rows in, class
names out.
"""
import argparse
import os
import struct
import zlib

import numpy as np

from paddle.proto import message_to_json
from paddle.trainer import preprocessing
from paddle.trainer.config_parser import parse_config
from py_paddle import swig_paddle as api

# The trailer (trainer/Predictor.cpp skips it): bytes, their uint64 size, the magic. PDEXTRA2's
# bytes are the JSON and its uint32 CRC-32 (a damaged vocabulary or mean is refused, not applied);
# PDEXTRA1's (earlier files) the JSON alone.
TRAILER_MAGIC = b"PDEXTRA2"
UNCHECKED_TRAILER_MAGIC = b"PDEXTRA1"


def load_trained_machine(model_config, model_dir, use_gpu=False, config_name="the config"):
    """A GradientMachine of `model_config` (a ModelConfig message) with the parameters of a
    saved pass; a missing parameter file is an OSError naming it.

    What ``paddle merge_model``, ``paddle predict`` and ``paddle export_onnx`` load a pass
    with: unlike ``GradientMachine.loadParameters`` it checks first that the directory
    has a file for every parameter, and says which are missing.

    Args:
        model_config (message): a ModelConfig message (``parse_config(...).model_config``).
        model_dir (str): the pass directory, e.g. ``output/pass-00009``.
        use_gpu (bool, default False): run the machine on the GPU.
        config_name (str, default "the config"): how error messages name the config.

    Returns:
        GradientMachine: owned by the caller.

    Raises:
        OSError: the directory or a parameter file is missing (IOError: a file is bad).

    Example:
        >>> from py_paddle import deploy
        >>> directory = fixtures.saved_pass()
        >>> config = fixtures.mlp_config(predict=True)
        >>> machine = deploy.load_trained_machine(config.model_config, directory)
        >>> machine.getParameterSize(), machine.getOutputLayerNames()
        (4, ('prob',))
    """
    if not os.path.isdir(model_dir):
        raise OSError("model directory %s does not exist" % model_dir)
    gm = api.GradientMachine.createByConfigJson(message_to_json(model_config), use_gpu, 1)
    missing = [p.getName() for p in gm.getParameters() if not os.path.exists(os.path.join(model_dir, p.getName()))]
    if missing:
        raise OSError("%s has no file for parameter(s) %s of %s (is it the right pass directory and config?)"
                      % (model_dir, ", ".join(missing), config_name))
    gm.loadParameters(model_dir)
    return gm


def merge_model(config, model_dir, output, config_args=""):
    """Writes `output` from the config file and the parameter files in `model_dir`.

    The merged model holds the network and all its parameters, so ``Predictor`` (Python,
    Java or C++) serves it without the config's Python. When the pass holds the readers'
    fitted preprocessing (preprocessing.json), the file ends with it for RawPredictor.
    The file appears whole or not at all (written beside it, then renamed).

    Args:
        config (str): the config file.
        model_dir (str): the pass directory.
        output (str): the merged model to write.
        config_args (str, default ""): the config's arguments, e.g. "is_predict=1" for a
            config whose prediction network leaves out the cost and the label.

    Returns:
        int: the number of parameters written.

    Example:
        >>> from py_paddle import deploy
        >>> directory = fixtures.saved_pass()  # also writes mlp.py
        >>> deploy.merge_model("mlp.py", directory, "mlp.paddle", "is_predict=1")
        4
        >>> swig_paddle.Predictor.createFromMergedModel("mlp.paddle").getOutputLayerNames()
        ('prob',)
    """
    gm = load_trained_machine(parse_config(config, config_args).model_config, model_dir, config_name=config)
    save_merged(gm, output, preprocessing.read(model_dir))
    return gm.getParameterSize()


def save_merged(gm, output, states):
    """Writes gm as a merged model ending with the readers' fitted `states` (none: no trailer),
    whole or not at all (written beside `output`, then renamed)."""
    tmp = output + ".tmp-%d" % os.getpid()
    try:
        gm.saveMergedModel(tmp)
        if states:
            with open(tmp, "ab") as f:
                f.write(front_end_trailer(states))
        os.replace(tmp, output)  # a reader never sees half a file
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def front_end_trailer(states):
    """The bytes that end a merged model holding the readers' fitted `states`."""
    data = preprocessing.to_json(states).encode("utf-8")
    data += struct.pack("<I", zlib.crc32(data))
    return data + struct.pack("<Q", len(data)) + TRAILER_MAGIC


def read_front_end_data(path):
    """The readers' fitted states a merged model ends with ([] when it has none); ValueError
    naming the file when they fail their checksum."""
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        end = f.tell()
        if end < 16:
            return []
        f.seek(end - 16)
        size, magic = struct.unpack("<Q8s", f.read(16))
        if magic not in (TRAILER_MAGIC, UNCHECKED_TRAILER_MAGIC) or size > end - 16:
            return []
        f.seek(end - 16 - size)
        data = f.read(size)
    if magic == TRAILER_MAGIC:
        data, stored = data[:-4], data[-4:]
        if len(stored) < 4 or struct.unpack("<I", stored)[0] != zlib.crc32(data):
            raise ValueError("%s: its saved preprocessing (the data after the parameters) fails its checksum: "
                             "the file is damaged" % path)
    return preprocessing.from_json(data.decode("utf-8"), path)


def saved_preprocessing(model_dir=None, model_file=None):
    """The readers' fitted states saved with a merged model (its trailer) or else a pass
    directory (preprocessing.json); [] when there are none.

    Each state is a dict: the reader ("csv" or "text"), its column statistics or
    vocabulary, and the label names; ``paddle predict`` and ``paddle export_onnx`` apply them.

    Args:
        model_file (str, default None): a merged model; read first when given.
        model_dir (str, default None): a pass directory (a missing one gives []).

    Returns:
        list of dict: the states.

    Example:
        >>> from py_paddle import deploy
        >>> states = deploy.saved_preprocessing(model_file=fixtures.text_model())
        >>> [s["reader"] for s in states], states[0]["vocabulary"]
        (['text'], ['good', 'bad', 'film', 'fine', '<unk>'])
        >>> deploy.saved_preprocessing(model_dir="no-such-pass")
        []
    """
    if model_file:
        return read_front_end_data(model_file)
    return preprocessing.read(model_dir) if model_dir and os.path.isdir(model_dir) else []


class RawPredictor(object):
    """A merged model served on raw data through the preprocessing it was trained with:

        model = RawPredictor("wine.paddle")
        out = model.predict([["13.2", "1.78", ...]])   # or dicts {column: value}
        out["label"], out["id"], out["prob"]            # class names, ids, each output layer

    Rows are lists of cells in the training file's column order (the label column may be
    left out) or dicts by column name, for a csv reader; strings of words for a text reader.
    The model must read only the features: merge the prediction network of the config
    (`paddle merge_model --config_args=is_predict=1`, or a config whose outputs are not costs).

    Thread safety: ``predict`` runs on a Predictor, so several threads may call it at once.

    Args:
        path (str): a merged model whose file ends with one csv or text reader state
            (ValueError otherwise, or when it reads more than one data layer).
        use_gpu (bool, default False): run on the GPU.

    Example:
        >>> from py_paddle.deploy import RawPredictor
        >>> model = RawPredictor(fixtures.text_model())
        >>> out = model.predict(["a fine film", "bad"])
        >>> out["prob"].shape, len(out["label"]), set(out["label"]) <= {"neg", "pos"}
        ((2, 2), 2, True)
    """

    def __init__(self, path, use_gpu=False):
        self.predictor = api.Predictor.createFromMergedModel(path, use_gpu)
        self.inputs = list(self.predictor.getInputLayerNames())
        self.outputs = list(self.predictor.getOutputLayerNames())
        if len(self.inputs) != 1:
            raise ValueError("%s reads %d data layers (%s); RawPredictor feeds the features alone: merge the "
                             "prediction network (--config_args=is_predict=1)" % (path, len(self.inputs),
                                                                                 ", ".join(self.inputs)))
        states = read_front_end_data(path)
        if len(states) != 1:
            raise ValueError("%s holds %d fitted preprocessing states; RawPredictor needs one (a model trained "
                             "with the csv or text reader)" % (path, len(states)))
        self.state = states[0]
        if self.state["reader"] not in ("csv", "text"):
            raise ValueError("%s was trained with the %s reader; RawPredictor reads csv rows or text"
                             % (path, self.state["reader"]))
        self.classes = preprocessing.label_names(self.state)
        from paddle.trainer import PyDataProvider2 as dp2
        from py_paddle.util import DataProviderConverter
        if self.state["reader"] == "text":
            self.transform = preprocessing.TextTransform(self.state)
            input_type = dp2.integer_value_sequence(len(self.transform.vocab))
        else:
            self.transform = preprocessing.CsvTransform(self.state)
            input_type = dp2.dense_vector(self.state["dim"])
        self.converter = DataProviderConverter([input_type])

    def _arguments(self, rows):
        transform = self.transform
        if self.state["reader"] == "text":
            samples = [[transform.ids_of(str(r).split())] for r in rows]
        else:
            samples = []
            for k, row in enumerate(rows):
                where = "row %d" % k
                if isinstance(row, dict):
                    header = list(row)
                    cells = ["" if v is None else str(v) for v in row.values()]
                else:
                    header, cells = None, ["" if v is None else str(v) for v in row]
                at, _ = transform.columns_of(header, len(cells), where)
                features = transform.features_of(cells, at, where)
                if features is None:
                    raise ValueError("%s: a missing value in a column whose policy is 'drop'" % where)
                samples.append([features])
        return self.converter.convert(samples)

    def predict(self, rows):
        """Preprocesses raw rows as in training and runs the model on them.

        Args:
            rows (iterable): csv rows (lists of cells in the training file's column order,
                the label column may be left out, or dicts {column: cell}; missing cells
                follow the training policy) or, for a text model, strings of words.

        Returns:
            dict: {output layer: values (rows x size) or ids, "id": the argmax class,
            "label": its name}; "id" and "label" when the model has one output of one
            column per class.
        """
        rows = list(rows)
        out = self.predictor.forward(self._arguments(rows))
        result = {}
        for i, name in enumerate(self.outputs):
            ids, value = out.getSlotIds(i), out.getSlotValue(i)
            result[name] = ids.copyToNumpyArray() if ids is not None else value.copyToNumpyMat()
        n_classes = preprocessing.num_classes(self.state) if self.state["reader"] == "csv" else len(self.classes)
        if len(self.outputs) == 1 and np.ndim(result[self.outputs[0]]) == 2 \
                and result[self.outputs[0]].shape[1] == n_classes:
            result["id"] = result[self.outputs[0]].argmax(axis=1)
            if self.classes is not None:
                result["label"] = [self.classes[i] for i in result["id"]]
        return result


def main(argv):
    from py_paddle import v1_merged_model
    p = argparse.ArgumentParser(prog="paddle merge_model", description=__doc__.splitlines()[0])
    p.add_argument("--config", "--config_file", dest="config", default="",
                   help="the trainer config (none: the one MODEL_DIR/path.txt names, as in v1)")
    p.add_argument("--model_dir", default="", help="a saved pass, e.g. output/pass-00009")
    p.add_argument("--output", "--model_file", dest="output", required=True, help="the merged model to write")
    p.add_argument("--config_args", default="",
                   help="config arguments, e.g. is_predict=1 for a config that has a prediction variant")
    p.add_argument("--format", choices=["paddle", "v1"], default="paddle",
                   help="v1: v1's layout (int64 size, TrainerConfig, parameter records), for v1's C API")
    p.add_argument("--from_v1", default="", metavar="FILE",
                   help="convert v1's merged model FILE to this format (which C++ and Java read)")
    args = p.parse_args(argv)
    if args.from_v1:
        gm = api.GradientMachine.createFromMergedModel(args.from_v1)
        gm.saveMergedModel(args.output)
        print("paddle merge_model: converted %s to %s (%d parameters)" % (args.from_v1, args.output,
                                                                         gm.getParameterSize()))
        return 0
    if not args.model_dir:
        p.error("the following arguments are required: --model_dir (or --from_v1)")
    if not args.config:
        from paddle.trainer.v1_flags import config_in
        args.config = config_in(args.model_dir) or p.error(
            "the following arguments are required: --config (%s has no path.txt)" % args.model_dir)
    if args.format == "v1":
        config = parse_config(args.config, args.config_args)
        load_trained_machine(config.model_config, args.model_dir, config_name=args.config)  # checks the files
        n = v1_merged_model.write(args.output, config, args.model_dir)
    else:
        n = merge_model(args.config, args.model_dir, args.output, args.config_args)
    print("paddle merge_model: wrote %s (%d parameters)" % (args.output, n))
    from paddle.layer_specs import cost_types
    model_config = parse_config(args.config, args.config_args).model_config
    layers = {layer.name: layer for layer in model_config.layers}
    costs = [layers[n] for n in model_config.output_layer_names if layers[n].type in cost_types()]
    if costs:
        print("paddle merge_model: note: its outputs are cost layers (%s), so a Predictor of it wants the label "
              "too; paddle serve and paddle predict answer what they score (%s). --config_args=is_predict=1 "
              "merges a config's prediction network instead." % (
                  ", ".join(c.name for c in costs), ", ".join(c.inputs[0].input_layer_name for c in costs)))
    return 0
