"""One spec per layer type: the single place a layer's facts live outside its C++.

Each module is one engine family, named after the engine's file (cost:
CostLayers.cpp, structured_cost: StructuredCostLayers.cpp, prelu: PReluLayer.cpp, ...)
and holds a ``SPECS`` list of LayerSpec: the type string, the helpers that write it and
each helper argument's kind, the input-count rule, defaults, the size rule, v1 quirks.
Composite helpers, projections and evaluators have HelperSpecs (arguments only).

Read by: the v1 helpers (defaults), the parser (input counts, defaults), the YAML
builder (which arguments are layers, activations, ...), the ONNX exporter (which
types are costs) and checked against the helpers' signatures, LayerType, the parser's
registry and the engine's registry by tests/config/test_layer_specs.py.
"""

from .base import KINDS, LAYER_KINDS, OBJECT_KINDS, QUIRKS, VALUE_KINDS, HelperSpec, LayerSpec, proto_default
from . import (conv, cost, crf, ctc, data, elementwise, evaluators, fully_connected, gru, image, lstm, mixed,
               networks, norm, pool, prelu, recurrent, recurrent_group, sequence, structured_cost, utility,
               validation)

__all__ = ['LayerSpec', 'HelperSpec', 'KINDS', 'LAYER_KINDS', 'OBJECT_KINDS', 'VALUE_KINDS', 'QUIRKS',
           'FAMILIES', 'SPECS', 'HELPERS', 'LAYER_HELPERS', 'PROJECTIONS', 'EVALUATORS', 'INPUT_OBJECTS', 'spec', 'helper',
           'cost_types', 'proto_default', 'PARSER_MODULES', 'HELPER_MODULES']

# engine families, each a module of this package
FAMILIES = {
    m.__name__.rsplit('.', 1)[1]: m
    for m in (conv, cost, crf, ctc, data, elementwise, fully_connected, gru, image, lstm, mixed, norm, pool,
              prelu, recurrent, recurrent_group, sequence, structured_cost, utility, validation)
}

# The Python modules of each tree hold the families named here, so a family has the same
# name (and the same members) in the engine, the parser and the helpers.
PARSER_MODULES = {
    'layers_basic': ('data', 'fully_connected', 'mixed'),
    'layers_cost': ('cost', 'structured_cost', 'crf', 'ctc', 'validation'),
    'layers_elementwise': ('elementwise',),
    'layers_image': ('conv', 'pool', 'norm', 'image'),
    'layers_prelu': ('prelu',),
    'layers_recurrent': ('recurrent', 'lstm', 'gru'),
    'layers_sequence': ('sequence',),
    'layers_utility': ('utility',),
    'recurrent_group': ('recurrent_group',),
}
HELPER_MODULES = {
    'basic': ('data', 'fully_connected', 'mixed'),
    'projections': ('mixed',),
    'costs': ('cost', 'structured_cost'),
    'sequence_costs': ('crf', 'ctc'),
    'elementwise': ('elementwise',),
    'image': ('conv', 'pool', 'norm', 'image'),
    'recurrent': ('recurrent', 'lstm', 'gru'),
    'sequence': ('sequence',),
    'utility': ('utility',),
    'groups': ('recurrent_group',),
    'networks': ('networks',),
    'networks_recurrent': ('networks',),
    'evaluators': ('evaluators',),
}


def _collect():
    specs = {}
    for name, module in sorted(FAMILIES.items()):
        for s in module.SPECS:
            if s.family != name:
                raise ValueError('%s is declared in %s but says family %s' % (s.type, name, s.family))
            if s.type in specs:
                raise ValueError('layer type %s has two specs' % s.type)
            specs[s.type] = s
    return specs


SPECS = _collect()

# helpers that create layers: {helper name: HelperSpec}
LAYER_HELPERS = {}
for _s in SPECS.values():
    for _h in _s.helpers:
        LAYER_HELPERS[_h.name] = _h
for _m in list(FAMILIES.values()) + [networks]:
    for _h in getattr(_m, 'HELPERS', ()):
        LAYER_HELPERS[_h.name] = _h

PROJECTIONS = {h.name: h for h in mixed.PROJECTIONS}
EVALUATORS = {h.name: h for h in evaluators.EVALUATORS}
INPUT_OBJECTS = {h.name: h for h in recurrent_group.INPUT_OBJECTS}

# every config-language callable with a spec
HELPERS = dict(LAYER_HELPERS)
HELPERS.update(PROJECTIONS)
HELPERS.update(EVALUATORS)
HELPERS.update(INPUT_OBJECTS)
for _h in HELPERS.values():
    _h.forward_specs = {p: HELPERS[n] for p, n in _h.forwards.items()}


def spec(layer_type):
    """The LayerSpec of an engine layer type (KeyError when there is none)."""
    return SPECS[layer_type]


def helper(name):
    """The HelperSpec of a config-language callable (KeyError when there is none)."""
    return HELPERS[name]


def cost_types():
    """The layer types that are training costs."""
    return frozenset(t for t, s in SPECS.items() if s.cost)
