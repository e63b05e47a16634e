"""The PyDataProvider2 input type each data layer of a model needs, read from the layers
that consume it, so random data (the `synthetic` reader) fits any model unasked.

    infer_input_types(model_config) -> {data layer name: [type name, dim]}

A data layer holds ids when a layer reads ids from it (an embedding's `table` projection,
a classification cost's or evaluator's label, a CRF/CTC label, ...), dense values
otherwise (sparse input looks like dense input to the network, so it is never guessed).
It holds sequences when something downstream needs them (recurrent layers, sequence
pooling, context projections, recurrent group in-links) or when it is paired row by row
with a sequence (the label of a per-token cost); sub-sequences for nested in-links and
pooling that keeps one level.
"""

# Inputs that hold ids, by layer type: positions, or "last" for the label after the inputs.
_ID_INPUTS = {
    "multi-class-cross-entropy": (1,), "multi_class_cross_entropy_with_selfnorm": (1,),
    "huber": (1,), "crf": (1,), "crf_decoding": (1,), "ctc": (1,), "warp_ctc": (1,),
    "hsigmoid": "last", "nce": "label", "eos_id": (0,),
}
_ID_EVALUATOR_INPUTS = {
    "classification_error": (1,), "precision_recall": (1,), "last-column-auc": (1,),
    "pnpair": (1, 2), "chunk": (0, 1), "ctc_edit_distance": (1,), "seq_text_printer": (0,),
}
# Layers (and evaluators) that read sequences from all their inputs.
_SEQUENCE_LAYERS = {"lstmemory", "gated_recurrent", "recurrent", "max", "average", "seqlastins",
                    "seqconcat", "seqreshape", "crf", "crf_decoding", "ctc", "warp_ctc"}
_SEQUENCE_EVALUATORS = {"chunk", "ctc_edit_distance", "seq_text_printer"}
_POOLING = {"max", "average", "seqlastins"}
_AGENTS = {"agent", "sequence_agent", "scatter_agent", "sequence_scatter_agent", "gather_agent",
           "sequence_gather_agent"}
_TYPE_NAMES = {(False, 0): "dense_vector", (False, 1): "dense_vector_sequence",
               (False, 2): "dense_vector_sub_sequence", (True, 0): "integer_value",
               (True, 1): "integer_value_sequence", (True, 2): "integer_value_sub_sequence"}


class _Graph(object):
    def __init__(self, model_config):
        self.layers = {l.name: l for l in model_config.layers}
        self.data = [l.name for l in model_config.layers if l.type == "data"]
        self.in_link_of = {}      # scatter agent (inside a group) -> (outer layer, nested or not)
        self.memory_of = {}       # sequence_agent -> its boot layer (outside the group)
        for sub in model_config.sub_models:
            for link in sub.in_links:
                self.in_link_of[link.link_name] = (link.layer_name, bool(link.has_subseq))
            for memory in sub.memories:
                if memory.is_sequence and memory.boot_layer_name:
                    self.memory_of[memory.link_name] = memory.boot_layer_name
        self.level = {name: 0 for name in self.data}  # 0: no sequence, 1: sequence, 2: nested
        self.ids = set()

    def inputs(self, layer):
        return [i.input_layer_name for i in layer.inputs]

    def output_level(self, name, seen=None):
        """Sequence level of a layer's output under the current data levels."""
        layer = self.layers.get(name)
        if layer is None:
            return 0
        if layer.type == "data":
            return self.level[name]
        if layer.type in ("scatter_agent", "agent"):
            return 0  # one step of an in-link / a memory: rows, not sequences
        if layer.type in ("sequence_scatter_agent", "sequence_agent", "gather_agent"):
            return 1
        if layer.type == "sequence_gather_agent":
            return 2
        seen = seen or set()
        if name in seen:
            return 0
        seen.add(name)
        if layer.type in _POOLING:
            return 1 if layer.trans_type == "seq" else 0
        if layer.type == "expand":
            return self.output_level(self.inputs(layer)[1], seen)
        return max([self.output_level(n, seen) for n in self.inputs(layer)] + [0])

    def data_sources(self, name, through_agents=False, seen=None):
        """The data layers whose rows reach `name` unchanged in structure (through row-wise
        layers; through agents too when `through_agents`, as ids pass through them)."""
        seen = set() if seen is None else seen
        if name in seen or name not in self.layers:
            return set()
        seen.add(name)
        layer = self.layers[name]
        if layer.type == "data":
            return {name}
        if through_agents:
            outer = self.in_link_of.get(name, (None,))[0] or self.memory_of.get(name)
            return self.data_sources(outer, True, seen) if outer else set()
        if layer.type in _AGENTS or layer.type in _POOLING:
            return set()
        if layer.type == "expand":
            return self.data_sources(self.inputs(layer)[1], False, seen)
        found = set()
        for n in self.inputs(layer):
            found |= self.data_sources(n, False, seen)
        return found

    def require(self, name, level):
        changed = False
        for d in self.data_sources(name):
            if self.level[d] < level:
                self.level[d], changed = level, True
        return changed


def _id_positions(graph, layer):
    """Positions of `layer`'s inputs that hold ids."""
    spec = _ID_INPUTS.get(layer.type, ())
    n = len(layer.inputs)
    if spec == "last":
        return (n - 1,)
    if spec == "label":  # nce: inputs..., label[, weight]; a weight has one column
        last = graph.layers.get(layer.inputs[-1].input_layer_name)
        return (n - 2,) if n >= 3 and last is not None and last.size == 1 else (n - 1,)
    return spec


def _constraints(graph, model_config):
    """Marks ids and sequence levels on the data layers; True when a level changed."""
    changed = False
    for layer in model_config.layers:
        names, ids_at = graph.inputs(layer), _id_positions(graph, layer)
        for i, inp in enumerate(layer.inputs):
            if inp.proj_conf.type == "table" or i in ids_at:
                graph.ids |= graph.data_sources(inp.input_layer_name, True)
            if inp.proj_conf.type == "context" or layer.type in _SEQUENCE_LAYERS:
                need = 2 if layer.type in _POOLING and layer.trans_type == "seq" else 1
                changed |= graph.require(inp.input_layer_name, need)
        if layer.type == "expand" and len(names) == 2:
            changed |= graph.require(names[1], 1)
        elif len(names) > 1:  # inputs paired row by row: a sequence makes the others sequences
            level = max(graph.output_level(n) for n in names)
            for n in names:
                changed |= graph.require(n, level)
    for layer_name, nested in graph.in_link_of.values():
        changed |= graph.require(layer_name, 2 if nested else 1)
    for boot in graph.memory_of.values():
        changed |= graph.require(boot, 1)
    for ev in model_config.evaluators:
        names = list(ev.input_layers)
        for i in _ID_EVALUATOR_INPUTS.get(ev.type, ()):
            if i < len(names):
                graph.ids |= graph.data_sources(names[i], True)
        level = max([graph.output_level(n) for n in names] + [1 if ev.type in _SEQUENCE_EVALUATORS else 0])
        for n in names:
            changed |= graph.require(n, level)
    return changed


def infer_input_types(model_config):
    """{data layer name: [PyDataProvider2 type name, dim]} for every data layer of the model."""
    graph = _Graph(model_config)
    for _ in range(len(graph.data) + 2):  # each round raises a level or ends
        if not _constraints(graph, model_config):
            break
    return {name: [_TYPE_NAMES[(name in graph.ids, min(graph.level[name], 2))], int(graph.layers[name].size)]
            for name in model_config.input_layer_names}
