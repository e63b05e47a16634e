"""The model behind `paddle serve`: a thread-safe `Predictor` with what the HTTP side needs to
know of it (its data layers' input types, its outputs, the preprocessing it was trained with),
request rows checked and turned into one batch, and the batch's outputs split back per row.

A row is one sample:
  - a dict {data layer name: value}, or a list of values in the model's input order;
  - or, for a model trained with the csv/text reader's preprocessing, a raw row: a list of
    cells in the training file's column order or a dict {column: cell} (csv), a string (text);
and a value, by the data layer's input type (read from the network, as the synthetic reader
does): a list of numbers (dense), an integer (id), a list of those (sequence), a list of
lists (sub-sequences), or {"index": [...], "value": [...]} for a sparse vector ("value"
left out: binary). Every error names the row and the field: `rows[3].pixel: ...`.
"""
import logging
import os
import tempfile
import threading

import numpy as np

from paddle.proto import message_from_json, message_to_json
from paddle.trainer import PyDataProvider2 as dp2
from paddle.trainer.input_inference import infer_input_types
from paddle.trainer.predict import copy_parameters, prediction_layers, pruned_network
from py_paddle import swig_paddle as api
from py_paddle.deploy import RawPredictor, merge_model, read_front_end_data, save_merged
from py_paddle.util import DataProviderConverter


LOG = logging.getLogger("paddle.serve")


class RequestError(ValueError):
    """A request that does not fit the model: the server answers 400 with this message."""


_SPARSE = {0: (dp2.sparse_binary_vector, dp2.sparse_vector),
           1: (dp2.sparse_binary_vector_sequence, dp2.sparse_vector_sequence),
           2: (dp2.sparse_binary_vector_sub_sequence, dp2.sparse_vector_sub_sequence)}


def _level(type_name):
    return 2 if type_name.endswith("sub_sequence") else 1 if type_name.endswith("sequence") else 0


class ServedModel(object):
    """One loaded model version. `predict(rows)` may run from several threads at once."""

    def __init__(self, model_file=None, config=None, model_dir=None, config_args="", version=None):
        temporary = None
        if model_file is None:
            if not (config and model_dir):
                raise OSError("give --model_file, or --config and --model_dir")
            fd, temporary = tempfile.mkstemp(suffix=".paddle")
            os.close(fd)
            merge_model(config, model_dir, temporary, config_args)
        elif not os.path.isfile(model_file):
            raise OSError("merged model %s does not exist" % model_file)
        try:
            self._load(temporary or model_file)
        finally:
            if temporary:
                os.remove(temporary)
        self.source = model_dir if temporary else model_file
        self.version = version or os.path.basename(os.path.normpath(self.source))

    def _load(self, path):
        gm = api.GradientMachine.createFromMergedModel(path, False)
        model_config = message_from_json("ModelConfig", gm.getModelConfigJson())
        pruned = self._prediction_network(gm, model_config, path)
        del gm  # only the Predictor's copy of the parameters stays
        try:
            self._load_predictor(pruned or path, model_config)
        finally:
            if pruned:
                os.remove(pruned)

    def _load_predictor(self, path, model_config):
        self.predictor = api.Predictor.createFromMergedModel(path, False)
        self.inputs = list(self.predictor.getInputLayerNames())
        self.outputs = list(self.predictor.getOutputLayerNames())
        types = infer_input_types(model_config)
        self.input_types = [types[name] for name in self.inputs]
        self.dense_only = all(t == "dense_vector" for t, _ in self.input_types)
        self.raw = None  # the preprocessing the model was trained with, for raw rows
        if len(self.inputs) == 1 and read_front_end_data(path):
            self.raw = RawPredictor(path)
            self.raw.predictor = self.predictor

    @staticmethod
    def _prediction_network(gm, model_config, path):
        """A temporary merged model of what the cost layers among the outputs score (the way
        `paddle predict` reads a training network), or None when no output is a cost. Without
        it a training network merged as is would answer its cost and want the label in every
        request."""
        names, scored = prediction_layers(model_config)
        if not scored:
            return None
        costs = ", ".join(n for n in model_config.output_layer_names if n not in names)
        part = pruned_network(model_config, names)
        if part is None:
            LOG.warning("%s outputs the cost layer(s) %s and has recurrent groups, so it is served whole: "
                        "requests must carry the label field(s) too. Merge the prediction network "
                        "(paddle merge_model --config_args=is_predict=1) to serve predictions.", path, costs)
            return None
        machine = api.GradientMachine.createByConfigJson(message_to_json(part), False, 1)
        copy_parameters(gm, machine)
        fd, pruned = tempfile.mkstemp(suffix=".paddle")
        os.close(fd)
        save_merged(machine, pruned, read_front_end_data(path))
        LOG.warning("%s outputs the cost layer(s) %s: serving what they score, %s, without the label. "
                    "Merge the prediction network (paddle merge_model --config_args=is_predict=1) to choose "
                    "the outputs yourself.", path, costs, ", ".join(names))
        return pruned

    def describe(self):
        """What /ready and the start-up line say of the model."""
        return {"version": self.version, "source": self.source,
                "inputs": {n: {"type": t, "dim": d} for n, (t, d) in zip(self.inputs, self.input_types)},
                "outputs": self.outputs, "raw_rows": self.raw is not None,
                "labels": list(self.raw.classes) if self.raw is not None and self.raw.classes is not None else None}

    # -- rows -> one batch

    def _slot(self, field, type_name, value):
        """A request value in the provider's form, with its sparse flag ('binary', 'float' or None)."""
        level = _level(type_name)

        def leaf(v, where):
            if isinstance(v, dict):
                if "dense" in type_name and set(v) <= {"index", "value"} and "index" in v:
                    index = v["index"]
                    if not isinstance(index, list):
                        raise RequestError("%s.index: expected a list of ids" % where)
                    if "value" not in v:
                        return index, "binary"
                    if not isinstance(v["value"], list) or len(v["value"]) != len(index):
                        raise RequestError("%s.value: expected %d numbers, one per index" % (where, len(index)))
                    return list(zip(index, v["value"])), "float"
                raise RequestError("%s: expected %s, got an object with keys %s"
                                   % (where, "a list of numbers or {index, value}" if "dense" in type_name
                                      else "an id", ", ".join(sorted(v))))
            return v, None

        def walk(v, depth, where):
            if depth == 0:
                return leaf(v, where)
            if not isinstance(v, list):
                raise RequestError("%s: expected a %s, got %s" % (
                    where, "sequence" if depth == 1 else "list of sub-sequences", type(v).__name__))
            steps = [walk(s, depth - 1, "%s[%d]" % (where, k)) for k, s in enumerate(v)]
            kinds = {k for _, k in steps}
            return [s for s, _ in steps], ("float" if "float" in kinds else "binary" if "binary" in kinds else None)

        return walk(value, level, field)

    def _samples(self, rows):
        """(samples in input order, their input types) for request rows."""
        if not isinstance(rows, list) or not rows:
            raise RequestError("rows: expected a non-empty list of rows")
        samples, sparse = [], [None] * len(self.inputs)
        for r, row in enumerate(rows):
            if isinstance(row, dict):
                unknown = sorted(set(row) - set(self.inputs))
                missing = [n for n in self.inputs if n not in row]
                if unknown or missing:
                    raise RequestError("rows[%d]: %s (the model reads %s)" % (
                        r, "unknown field(s) " + ", ".join(unknown) if unknown else
                        "missing field(s) " + ", ".join(missing), ", ".join(self.inputs)))
                values = [row[n] for n in self.inputs]
            elif isinstance(row, list) and len(row) == len(self.inputs) and len(self.inputs) > 1:
                values = row
            elif len(self.inputs) == 1:
                values = [row]
            else:
                raise RequestError("rows[%d]: expected an object with fields %s" % (r, ", ".join(self.inputs)))
            sample = []
            for i, (name, (type_name, _), value) in enumerate(zip(self.inputs, self.input_types, values)):
                converted, kind = self._slot("rows[%d].%s" % (r, name), type_name, value)
                if kind == "float" or (kind == "binary" and sparse[i] is None):
                    sparse[i] = kind
                sample.append(converted)
            samples.append(sample)
        types = []
        for i, (type_name, dim) in enumerate(self.input_types):
            if sparse[i] is None:
                types.append(getattr(dp2, type_name)(dim))
            else:
                binary, valued = _SPARSE[_level(type_name)]
                types.append(binary(dim) if sparse[i] == "binary" else valued(dim))
                if sparse[i] == "float":
                    samples = [self._valued(s, i, _level(type_name)) for s in samples]
        for r, sample in enumerate(samples):
            problem = dp2.check_sample(types, sample)
            if problem is not None:
                slot, message = problem
                raise RequestError("rows[%d]%s: %s" % (r, "" if slot is None else "." + self.inputs[slot], message))
        return samples, types

    @staticmethod
    def _valued(sample, i, level):
        """Sparse binary values of slot i as (id, 1.0) pairs, in a batch where another row has values."""
        def walk(v, depth):
            if depth == 0:
                return [k if isinstance(k, (list, tuple)) else (k, 1.0) for k in v]
            return [walk(s, depth - 1) for s in v]
        return sample[:i] + [walk(sample[i], level)] + sample[i + 1:]

    def _dense_arguments(self, rows):
        """Rows of a model whose inputs are all dense vectors, given as lists of numbers: one array
        per input, checked whole (the general path below is ten times the cost a row); None
        for anything else, which the general path checks and names."""
        if not (self.dense_only and isinstance(rows, list) and rows
                and all(type(r) is dict and len(r) == len(self.inputs) for r in rows)):
            return None
        args = api.Arguments.createArguments(len(self.inputs))
        for i, (name, (_, dim)) in enumerate(zip(self.inputs, self.input_types)):
            try:
                values = [r[name] for r in rows]
                if not all(type(v) is list for v in values):
                    return None
                array = np.array(values, dtype=np.float32)
            except (KeyError, ValueError, TypeError):
                return None
            if array.ndim != 2 or array.shape[1] != dim or not np.isfinite(array).all():
                return None
            args.setSlotValueFromBuffer(i, array)
        return args

    def arguments(self, rows):
        """Checks request rows (RequestError naming the row and field) and converts them."""
        fast = self._dense_arguments(rows)
        if fast is not None:
            return fast
        if self.raw is not None and not self._looks_typed(rows):
            try:
                return self.raw._arguments(rows)
            except (ValueError, KeyError, TypeError) as e:
                raise RequestError("rows: %s" % e)
        samples, types = self._samples(rows)
        return DataProviderConverter(types).convert(samples)

    def _looks_typed(self, rows):
        """Rows naming the data layer (rather than raw csv/text cells)."""
        return isinstance(rows, list) and rows and all(isinstance(r, dict) and set(r) == set(self.inputs)
                                                       for r in rows)

    # -- one batch -> per-row outputs

    def forward(self, args):
        return self.predictor.forward(args)

    def split(self, out, counts):
        """Per request (`counts`: its rows), {output layer: per-row values, ids or sequences}."""
        total = sum(counts)
        layers = []
        for i, name in enumerate(self.outputs):
            ids, value = out.getSlotIds(i), out.getSlotValue(i)
            data = ids.copyToNumpyArray() if ids is not None else value.copyToNumpyMat()
            starts = out.getSlotSequenceStartPositions(i)
            if starts is not None:
                starts = starts.copyToNumpyArray()
                per = (len(starts) - 1) // total if total else 0  # beam search: k results a row
                data = [[data[starts[j]:starts[j + 1]] for j in range(r * per, (r + 1) * per)] if per > 1
                        else data[starts[r]:starts[r + 1]] for r in range(total)]
            layers.append((name, data))
        results, at = [], 0
        for n in counts:
            results.append({name: data[at:at + n] for name, data in layers})
            at += n
        if self.raw is not None and len(self.outputs) == 1:
            self._add_labels(results)
        return results

    def _add_labels(self, results):
        probs = [r[self.outputs[0]] for r in results]
        if not all(isinstance(p, np.ndarray) and p.ndim == 2 for p in probs):
            return
        classes = self.raw.classes
        for r, p in zip(results, probs):
            if classes is not None and p.shape[1] == len(classes):
                r["id"] = p.argmax(axis=1)
                r["label"] = [classes[k] for k in r["id"]]


def to_json(value, arrays=False):
    """numpy results for JSON (float32 values as exact doubles): lists, or with `arrays` float64
    and integer arrays left for a writer that prints arrays itself (orjson)."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f":
            value = value.astype(np.float64)
        return value if arrays else value.tolist()
    if isinstance(value, dict):
        return {k: to_json(v, arrays) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v, arrays) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


class ModelSlot(object):
    """The model now served; `swap` replaces it for the batches formed after it (a batch runs on
    the one model it was formed under, so no request sees two versions)."""

    def __init__(self, model):
        self._model = model
        self._lock = threading.Lock()

    @property
    def model(self):
        return self._model

    def swap(self, model):
        with self._lock:
            old, self._model = self._model, model
        return old
