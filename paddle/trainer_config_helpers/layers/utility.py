"""Utility layers: a named output of another layer, and printing (UtilityLayers.cpp)."""

from paddle.parser import ConfigError, Input, Layer

from ..default_decorators import wrap_name_default
from ..layer_output import LayerOutput, LayerType, _check_input_list, _check_layer_args, _extra, layer_support

__all__ = ['print_layer', 'get_output_layer']


@wrap_name_default('print')
def print_layer(input, name=None):
    """Prints its inputs at every forward pass (for debugging).

    Writes each input's values (and ids and sequence starts) to stderr, as v1's
    PrintLayer. It computes nothing and is not part of the outputs. Creates an
    engine layer of type ``print``.

    Args:
        input (LayerOutput | list of LayerOutput): the layers to print.
        name (str, optional): layer name; ``__print_N__`` when omitted.

    Returns:
        None: (as in v1) there is no layer to connect further.

    Example:
        >>> x = data_layer(name='x', size=4)
        >>> print_layer(input=x) is None
        True
    """
    inputs = _check_input_list(input, 'print_layer')
    Layer(name=name, type=LayerType.PRINT_LAYER,
          inputs=[l.name for l in inputs])


@wrap_name_default()
@layer_support()
def get_output_layer(input, arg_name, name=None, layer_attr=None):
    """Exposes a secondary output of a layer (such as lstm_step_layer's ``state``) as
    a layer.

    Its value is the named output of ``input``; gradients flow back into it.
    ``input.outputs`` lists the names a layer has. Creates an engine layer of type
    ``get_output``.

    Args:
        input (LayerOutput): the layer.
        arg_name (str): the output's name, one of ``input.outputs``.
        name (str, optional): layer name; ``__get_output_layer_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the output, of ``input``'s width.

    Example:
        >>> gates = data_layer(name='gates', size=4 * 16)
        >>> cell = data_layer(name='prev_cell', size=16)
        >>> step = lstm_step_layer(input=gates, state=cell)
        >>> get_output_layer(input=step, arg_name='state').size
        16
    """
    _check_layer_args('get_output_layer', locals())
    if arg_name not in input.outputs:
        raise ConfigError("get_output_layer: layer '%s' has no output '%s' "
                          "(it has: %s)" % (input.name, arg_name,
                                            ', '.join(input.outputs)))
    Layer(
        name=name,
        type=LayerType.GET_OUTPUT_LAYER,
        inputs=[Input(input.name, input_layer_argument=arg_name)],
        size=input.size,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.GET_OUTPUT_LAYER, parents=[input],
                       size=input.size)
