"""The readers' fitted preprocessing inside an ONNX graph, so other runtimes feed raw data:

- a csv reader's numeric feature columns come in as one float32 input [batch, columns]
  named after the data layer, in the training file's column order (the label column and
  dropped columns left out), NaN for a missing value; each categorical column as a string
  input [batch] named "<data layer>.<column>". The graph fills missing values and applies
  each column's steps (log, zscore, minmax; onehot / id through an ai.onnx.ml LabelEncoder),
  giving the rows the network was trained on;
- a classifier's output gains "id" (the argmax, int64) and, with string labels, "label"
  (the class names, through a LabelEncoder).
"""
import numpy as np

from paddle.utils.export_onnx.errors import ExportError

ML_DOMAIN = "ai.onnx.ml"
ML_OPSET = 2  # LabelEncoder with int64 -> string and string -> int64 maps


def raw_columns(state):
    """(names of the numeric columns of the float input, names of the categorical inputs)."""
    numeric = [_name(f) for f in state["features"] if "encoding" not in f]
    categorical = [_name(f) for f in state["features"] if "encoding" in f]
    return numeric, categorical


def _name(feature):
    return feature["name"] if feature["name"] is not None else "column%d" % feature["index"]


def add_raw_input(builder, layer, state):
    """Graph inputs of the raw columns of a csv `state`, and the nodes that turn them into the
    rows of data layer `layer`."""
    from onnx import helper, TensorProto
    if state["dim"] != layer.size:
        raise ExportError("data layer '%s' has size %d but the csv reader's preprocessing gives %d values"
                          % (layer.name, layer.size, state["dim"]))
    numeric, _ = raw_columns(state)
    if numeric:
        builder.inputs.append(helper.make_tensor_value_info(layer.name, TensorProto.FLOAT, ["batch", len(numeric)]))
    pieces, k = [], 0
    for f in state["features"]:
        if "encoding" in f:
            pieces.append(_categorical(builder, layer, f, state["na_values"]))
            continue
        column = builder.op("Slice", [layer.name, builder.shape_const(k), builder.shape_const(k + 1),
                                      builder.shape_const(1)], "%s/%s" % (layer.name, _name(f)))
        k += 1
        pieces.append(_numeric(builder, column, f))
    rows = pieces[0] if len(pieces) == 1 else builder.op("Concat", pieces, layer.name + "/features", axis=1)
    builder.set_rows(layer.name, rows)


def _numeric(builder, x, feature):
    hint = "prep/" + _name(feature)
    if "fill" in feature:
        x = builder.op("Where", [builder.op("IsNaN", [x], hint), builder.const(np.float32(feature["fill"]), hint), x],
                       hint + "/fill")
    for step in feature["steps"]:
        if step["op"] == "log":
            x = builder.op("Log", [builder.op("Add", [x, builder.const(np.float32(1), "one", key="one")], hint)],
                           hint + "/log")
        else:
            shift, scale = (step["mean"], step["std"]) if step["op"] == "zscore" else (step["min"], step["range"])
            x = builder.op("Div", [builder.op("Sub", [x, builder.const(np.float32(shift), hint)], hint),
                                   builder.const(np.float32(scale), hint)], hint + "/" + step["op"])
    return x


def _categorical(builder, layer, feature, na_values):
    from onnx import helper, TensorProto
    name = "%s.%s" % (layer.name, _name(feature))
    builder.inputs.append(helper.make_tensor_value_info(name, TensorProto.STRING, ["batch"]))
    vocab = list(feature["vocabulary"])
    unseen = len(vocab)
    keys, values = list(vocab), list(range(len(vocab)))
    fill = feature.get("fill")
    missing = vocab.index(fill) if fill in vocab else unseen
    for na in na_values:
        if na not in vocab:
            keys.append(na)
            values.append(missing)
    ids = builder.op("LabelEncoder", [name], name + "/ids", domain=ML_DOMAIN, keys_strings=keys,
                     values_int64s=values, default_int64=unseen)
    builder.uses_ml = True
    if feature["encoding"] == "id":
        return builder.op("Unsqueeze", [builder.op("Cast", [ids], name, to=TensorProto.FLOAT),
                                        builder.shape_const(1)], name + "/id")
    hot = builder.op("OneHot", [ids, builder.const(np.int64(unseen + 1), name),
                                builder.const(np.array([0, 1], np.float32), "off_on", key="off_on")],
                     name + "/onehot", axis=-1)
    return builder.op("Slice", [hot, builder.shape_const(0), builder.shape_const(unseen), builder.shape_const(1)],
                      name + "/known")


def add_class_outputs(builder, prob, classes):
    """Outputs "id" (argmax of `prob`, [batch] int64) and, given class names, "label"."""
    from onnx import helper, TensorProto
    ids = builder.op("ArgMax", [prob], "id", axis=1, keepdims=0)
    builder.nodes.append(helper.make_node("Identity", [ids], ["id"]))
    outputs = [helper.make_tensor_value_info("id", TensorProto.INT64, ["batch"])]
    if classes is not None:
        builder.nodes.append(helper.make_node("LabelEncoder", [ids], ["label"], domain=ML_DOMAIN,
                                              keys_int64s=list(range(len(classes))),
                                              values_strings=[str(c) for c in classes], default_string=""))
        builder.uses_ml = True
        outputs.append(helper.make_tensor_value_info("label", TensorProto.STRING, ["batch"]))
    return outputs
