"""Network helpers (compositions of layers) and inputs()/outputs()."""

import logging

from paddle.trainer.config_parser import (ConfigError, HasInputsSet, Inputs,
                                          Outputs)

from .layers import LayerOutput, LayerType

__all__ = ['inputs', 'outputs']

logger = logging.getLogger('paddle')


def _layer_list(layers, args, helper):
    if isinstance(layers, (LayerOutput, str)):
        layers = [layers]
    elif isinstance(layers, (list, tuple)):
        layers = list(layers)
    else:
        raise ConfigError('%s: expected layers, got %s' %
                          (helper, type(layers).__name__))
    layers.extend(args)
    if not layers:
        raise ConfigError('%s: needs at least one layer' % helper)
    for each in layers:
        if not isinstance(each, (LayerOutput, str)):
            raise ConfigError('%s: expected layers, got %s' %
                              (helper, type(each).__name__))
    return layers


def inputs(layers, *args):
    """Declare the network's input (data) layers, in data-provider order."""
    layers = _layer_list(layers, args, 'inputs')
    Inputs(*[l if isinstance(l, str) else l.name for l in layers])


def outputs(layers, *args):
    """Declare the network's outputs (the last statement of a config).

    Unless inputs() was called, the input order is found by a depth-first
    walk over each given layer's parents (parents first, in order): the
    data layers, deduplicated in discovery order.  The outputs are the
    'cost' layers found the same way, or the given layers if there are none.
    """
    layers = _layer_list(layers, args, 'outputs')
    for each in layers:
        if not isinstance(each, LayerOutput):
            raise ConfigError('outputs: expected layers, got %s' %
                              type(each).__name__)

    if HasInputsSet():
        Outputs(*[l.name for l in layers])
        return

    def dfs(layer, predicate, seen, found):
        if id(layer) in seen:
            return
        seen.add(id(layer))
        for p in layer.parents or []:
            dfs(p, predicate, seen, found)
        if predicate(layer):
            found.append(layer)

    data_found, cost_found = [], []
    seen_data, seen_cost = set(), set()
    for each in layers:
        dfs(each, lambda x: x.layer_type == LayerType.DATA, seen_data,
            data_found)
        dfs(each, lambda x: x.layer_type == LayerType.COST, seen_cost,
            cost_found)

    final_inputs, final_outputs = [], []
    for each in data_found:
        if each.name not in final_inputs:
            final_inputs.append(each.name)
    for each in cost_found:
        if each.name not in final_outputs:
            final_outputs.append(each.name)
    if not final_outputs:
        final_outputs = [l.name for l in layers]
    Inputs(*final_inputs)
    Outputs(*final_outputs)
