"""The vocabulary of a layer spec: argument kinds, LayerSpec and HelperSpec.

A spec is data only. It imports nothing from the config stack (only the generated
protobuf module, for defaults the .proto already states), so the parser, the v1
helpers, the YAML builder and the ONNX exporter can all read it without an import
circle.
"""

from paddle.proto import ModelConfig_pb2

# What an argument of a helper holds; the YAML builder converts values by kind.
LAYER_KINDS = frozenset([
    'layer',    # one LayerOutput (given by name in YAML)
    'layers',   # a LayerOutput or a list of them
    'objects',  # layers mixed with {type: ...} objects (projections, StaticInput, ...)
])
OBJECT_KINDS = frozenset([
    'act',         # an activation
    'param_attr',  # a ParamAttr, or a bool where the helper allows one
    'bias_attr',   # a ParamAttr for the bias, or a bool (False: no bias)
    'extra_attr',  # an ExtraAttr
    'pooling',     # a pooling type
    'level',       # an AggregateLevel / ExpandLevel
    'step',        # a recurrent step function
])
VALUE_KINDS = frozenset([
    'int', 'float', 'bool', 'str',
    'any',       # passed through unchecked (a list, a pair, an int or a list, ...)
    'callable',  # a Python function (evaluator hooks); not expressible in YAML
])
KINDS = LAYER_KINDS | OBJECT_KINDS | VALUE_KINDS


def parse_args(text):
    """'input:layer size:int ...' -> ((name, kind), ...) in signature order."""
    out = []
    for word in text.split():
        name, _, kind = word.partition(':')
        if kind not in KINDS:
            raise ValueError('unknown argument kind %r of %r' % (kind, name))
        out.append((name, kind))
    return tuple(out)


def proto_default(field, message='LayerConfig'):
    """The default ModelConfig.proto gives a field of `message` (LayerConfig unless
    named): the one place it is written, read by the spec so the helper and the parser
    need not restate it."""
    return getattr(ModelConfig_pb2, message).DESCRIPTOR.fields_by_name[field].default_value


class HelperSpec(object):
    """One config-language callable: its arguments (name -> kind, in order) and the
    layer type it creates (None for helpers that build several layers).

    forwards: {prefix: helper name} for helpers taking **kwargs that they pass on,
    prefix stripped, to another helper (bidirectional_lstm's fwd_act is simple_lstm's
    act); HELPERS resolves the names to HelperSpecs.
    """

    def __init__(self, name, args, layer_type=None, family=None, forwards=None):
        self.name = name
        self.args = parse_args(args)
        self.kinds = dict(self.args)
        self.layer_type = layer_type
        self.family = family
        self.forwards = dict(forwards or {})
        self.forward_specs = {}

    def kind(self, arg):
        """The kind of argument `arg` (a forwarded one: the target's), or None."""
        if arg in self.kinds:
            return self.kinds[arg]
        for prefix, target in self.forward_specs.items():
            if arg.startswith(prefix):
                return target.kind(arg[len(prefix):])
        return None

    def layer_args(self):
        return [n for n, k in self.args if k in LAYER_KINDS]

    def __repr__(self):
        return 'HelperSpec(%r)' % self.name


class LayerSpec(object):
    """Everything about one engine layer type that is not its C++ code.

    Args:
        type: the type string (LayerConfig.type, the engine's REGISTER_LAYER name).
        family: the engine family (its C++ file: 'cost' is CostLayers.cpp).
        helpers: {helper name: 'arg:kind ...'} of the helpers creating this type.
        cost: True for a training cost (exporters replace it by its prediction).
        inputs: the input-count rule: n (exactly), (lo, hi) or (lo, None) (at least).
        defaults: {argument: default} the helper and the parser both read.
        size: the output size rule where it is declarative: 'input' (the first
            input's), 'input:K' (input K's), 'arg' (the size argument) or an int.
        quirks: v1 behaviours kept on purpose, by name (see QUIRKS).
    """

    def __init__(self, type, family, helpers=None, cost=False, inputs=None,
                 defaults=None, size=None, quirks=()):
        self.type = type
        self.family = family
        self.helpers = [HelperSpec(n, a, type, family)
                        for n, a in sorted((helpers or {}).items())]
        self.cost = cost
        self.inputs = inputs
        self.defaults = dict(defaults or {})
        self.size = size
        self.quirks = tuple(quirks)
        for q in self.quirks:
            if q not in QUIRKS:
                raise ValueError('%s: unknown quirk %r' % (type, q))

    def input_count_error(self, n, who=None):
        """None when n inputs satisfy the rule, else the message to raise."""
        rule = self.inputs
        who = who or self.type
        if rule is None:
            return None
        if isinstance(rule, int):
            if n != rule:
                return '%s needs %d input%s, got %d' % (who, rule, 's' if rule > 1 else '', n)
            return None
        lo, hi = rule
        if hi is None:
            if n < lo:
                return '%s needs >= %d inputs, got %d' % (who, lo, n)
        elif not lo <= n <= hi:
            return '%s needs %d to %d inputs, got %d' % (who, lo, hi, n)
        return None

    def __repr__(self):
        return 'LayerSpec(%r)' % self.type


# v1 behaviours a reimplementation would "fix" by accident; each spec flags its own.
QUIRKS = {
    'weight_first': 'the weight input comes first in LayerConfig.inputs although '
                    'the helper takes it second (power, scaling)',
    'size_from_input_1': 'the output size is the second input\'s',
    'label_is_data': 'the label must be a data layer',
    'parser_only': 'the parser accepts the type; the engine registers another '
                   'name for it (an abstract base the parser narrows)',
    'engine_only': 'registered in the engine but written by no helper or parser '
                   'class of its own (the parser writes it under another type)',
}
