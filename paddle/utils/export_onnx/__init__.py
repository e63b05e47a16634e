"""`paddle export_onnx`: a trained network as an ONNX model, for inference in other runtimes.

    paddle export_onnx --config=conf.py [--config_args=is_predict=1] --model_dir=output/pass-00009 \\
                       --output=model.onnx [--output_layers=name,...]
    paddle export_onnx --model_file=model.paddle --output=model.onnx      (a `paddle merge_model` file)

The graph computes what the engine's forward computes in test mode, for a batch of
samples: one input per data layer ([batch, size] float32, or [batch] int64 ids for a data
layer read by an embedding / table projection), one output per exported layer ([batch,
size] float32, named after the layer). Exported are the config's outputs, except that a
cost layer is replaced by its first input (the prediction it scores), or the layers
given by --output_layers. Layers without an ONNX form (sequence layers, recurrent groups,
...) stop the export with a one-line error naming the layer and its type.

A model trained with the csv reader's fitted preprocessing (preprocessing.json in the pass,
or a merged model's trailer) takes raw columns instead (see export_onnx/preprocess.py:
numeric columns as one float input with NaN for missing values, categorical ones as string
inputs), and a classifier gains the outputs "id" and "label"; --raw_inputs=0 leaves them out.
The `onnx` package is needed (`pip install ".[onnx]"` in the checkout).
"""
import argparse
import os

from paddle.utils.export_onnx.errors import ExportError
from paddle.utils.export_onnx.graph import ACTIVATIONS, COST_TYPES, GraphBuilder, needed_layers
from paddle.utils.export_onnx.layers import CONVERTERS, ids_inputs
from paddle.utils.export_onnx.preprocess import ML_DOMAIN, ML_OPSET, add_class_outputs, add_raw_input

__all__ = ["ExportError", "export_model", "export_onnx", "load_model", "main"]

OPSET = 17
IR_VERSION = 8  # the IR of opset 17, which every onnxruntime since 1.11 reads


def _import_onnx():
    try:
        import onnx
    except ImportError:
        raise ExportError("the onnx package is not installed (pip install onnx, or '.[onnx]' in the checkout)")
    return onnx


def load_model(config=None, model_dir=None, model_file=None, config_args=""):
    """(ModelConfig message, parameter(name) -> float32 values) of a saved pass (config +
    model_dir) or of a merged model (model_file)."""
    if (model_dir is None) == (model_file is None):
        raise ExportError("give either --model_dir (with --config) or --model_file")
    from py_paddle import swig_paddle as api
    if model_file is not None:
        if config is not None or config_args:
            raise ExportError("--model_file holds its own config: leave out --config and --config_args")
        from paddle.proto import message_from_json
        gm = api.GradientMachine.createFromMergedModel(model_file)
        model = message_from_json("ModelConfig", gm.getModelConfigJson())
        values = {p.getName(): p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray() for p in gm.getParameters()}
        return model, values.__getitem__
    if config is None:
        raise ExportError("--model_dir needs --config (the trainer config the pass was trained with)")
    if not os.path.isdir(model_dir):
        raise OSError("model directory %s does not exist" % model_dir)
    from paddle.trainer.config_parser import parse_config
    from py_paddle.util import loadParameterFile
    model = parse_config(config, config_args).model_config

    def parameter(name):
        path = os.path.join(model_dir, name)
        if not os.path.exists(path):
            raise OSError("%s has no file for parameter %s (is it the right pass directory and config?)"
                          % (model_dir, name))
        return loadParameterFile(path)
    return model, parameter


def _outputs(model, layers, output_layers):
    """The layers to export: given ones, or the config's outputs with costs replaced by
    their prediction input."""
    if output_layers:
        for name in output_layers:
            if name not in layers:
                raise ExportError("--output_layers: the config has no layer '%s'" % name)
            if layers[name].type in COST_TYPES:
                raise ExportError("--output_layers: layer '%s' is a cost layer (%s): export its prediction input"
                                  % (name, layers[name].type))
        return list(output_layers)
    names = []
    for name in model.output_layer_names:
        layer = layers[name]
        if layer.type in COST_TYPES:
            name = layer.inputs[0].input_layer_name
        if name not in names:
            names.append(name)
    return names


def _raw_input_layer(model, layers, needed, state):
    """The dense data layer the csv state's features feed (one of the size it gives), or None."""
    dense = [layers[n] for n in model.input_layer_names if n in needed and layers[n].size == state["dim"]]
    return dense[0].name if len(dense) == 1 else None


def export_model(model, parameter, output_layers=None, states=()):
    """An onnx.ModelProto of `model` (a ModelConfig) with parameter(name) -> values; `states`:
    the readers' fitted preprocessing, put in the graph (a csv reader's)."""
    onnx = _import_onnx()
    from paddle.trainer import preprocessing
    builder = GraphBuilder(model, parameter)
    layers = builder.layers
    outputs = _outputs(model, layers, output_layers)
    needed = needed_layers(layers, outputs)
    state = next((s for s in states or () if s["reader"] == "csv"), None)
    raw = _raw_input_layer(model, layers, needed, state) if state else None
    for layer in model.layers:
        if layer.name not in needed:
            continue
        if layer.active_type not in ACTIVATIONS:
            raise ExportError("layer '%s' (%s) has activation '%s', which has no ONNX form; supported: %s"
                              % (layer.name, layer.type, layer.active_type, ", ".join(a for a in ACTIVATIONS if a)))
        if layer.type == "data":
            readers = [(user, i) for user in model.layers if user.name in needed
                       for i, inp in enumerate(user.inputs) if inp.input_layer_name == layer.name]
            as_ids = [i in ids_inputs(user) for user, i in readers]
            if any(as_ids) and not all(as_ids):
                raise ExportError("data layer '%s' is read both as integer ids (an embedding / table projection) "
                                  "and as dense values" % layer.name)
            if layer.name == raw:
                add_raw_input(builder, layer, state)
            else:
                builder.add_input(layer, ids=bool(as_ids) and all(as_ids))
            continue
        convert = CONVERTERS.get(layer.type)
        if convert is None:
            raise ExportError("layer '%s' (%s) has no ONNX form; supported: data, %s"
                              % (layer.name, layer.type, ", ".join(sorted(CONVERTERS))))
        convert(builder, layer)
    graph_outputs = []
    for name in outputs:
        if layers[name].type == "data":
            raise ExportError("output layer '%s' is a data layer" % name)
        builder.nodes.append(onnx.helper.make_node("Identity", [builder.rows(name)], [name]))
        graph_outputs.append(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT,
                                                                ["batch", layers[name].size]))
    classes = len(preprocessing.label_names(state) or ()) or (preprocessing.num_classes(state) if state else 0)
    if raw and not output_layers and len(outputs) == 1 and layers[outputs[0]].size == classes:
        graph_outputs += add_class_outputs(builder, builder.rows(outputs[0]), preprocessing.label_names(state))
    graph = onnx.helper.make_graph(builder.nodes, "paddle", builder.inputs, graph_outputs, builder.initializers)
    opsets = [onnx.helper.make_opsetid("", OPSET)]
    if builder.uses_ml:
        opsets.append(onnx.helper.make_opsetid(ML_DOMAIN, ML_OPSET))
    proto = onnx.helper.make_model(graph, producer_name="paddle export_onnx", opset_imports=opsets)
    proto.ir_version = IR_VERSION
    if raw:
        onnx.helper.set_model_props(proto, {"paddle.preprocessing": preprocessing.to_json([state])})
    onnx.checker.check_model(proto)
    return proto


def export_onnx(output, config=None, model_dir=None, model_file=None, config_args="", output_layers=None,
                raw_inputs=True):
    """Writes the ONNX model of a saved pass or merged model to `output`; returns it.
    raw_inputs: apply the readers' saved preprocessing in the graph."""
    from py_paddle.deploy import saved_preprocessing
    model, parameter = load_model(config, model_dir, model_file, config_args)
    states = saved_preprocessing(model_dir, model_file) if raw_inputs else ()
    proto = export_model(model, parameter, output_layers, states)
    tmp = output + ".tmp-%d" % os.getpid()
    try:
        with open(tmp, "wb") as f:
            f.write(proto.SerializeToString())
        os.replace(tmp, output)  # a reader never sees half a file
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return proto


def main(argv):
    p = argparse.ArgumentParser(prog="paddle export_onnx", description=__doc__.splitlines()[0])
    p.add_argument("--config", "--config_file", dest="config", help="the trainer config (with --model_dir)")
    p.add_argument("--config_args", default="", help="config arguments, e.g. is_predict=1")
    p.add_argument("--model_dir", help="a saved pass, e.g. output/pass-00009")
    p.add_argument("--model_file", help="a merged model (paddle merge_model) instead of --config/--model_dir")
    p.add_argument("--output", required=True, help="the .onnx file to write")
    p.add_argument("--output_layers", default="", help="comma-separated layers to export (default: the config's "
                                                       "outputs, a cost layer replaced by its prediction input)")
    p.add_argument("--raw_inputs", type=int, default=1, choices=(0, 1),
                   help="1: the graph applies the readers' saved preprocessing (raw columns in, class names out)")
    args = p.parse_args(argv)
    output_layers = [n for n in args.output_layers.split(",") if n]
    proto = export_onnx(args.output, args.config, args.model_dir, args.model_file, args.config_args, output_layers,
                        bool(args.raw_inputs))
    shapes = lambda infos: ", ".join("%s %s" % (i.name, [d.dim_param or d.dim_value for d in
                                                         i.type.tensor_type.shape.dim]) for i in infos)
    print("paddle export_onnx: wrote %s (opset %d; inputs: %s; outputs: %s)"
          % (args.output, OPSET, shapes(proto.graph.input), shapes(proto.graph.output)))
    return 0
