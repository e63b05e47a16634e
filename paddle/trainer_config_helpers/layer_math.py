"""Layer arithmetic: exp/log/... of a layer and +, -, * on LayerOutputs.

Importing this module (the config package does) makes ``a + b``, ``a - b``,
``a * b``, ``2 * a``, ``a + 1`` ... work on layers: numbers give a
slope_intercept_layer, two layers a mixed_layer of identity projections (a
size-1 operand is repeated to the other's width), and ``*`` with a size-1 layer a
scaling_layer."""

from paddle.parser import ConfigError

from .activations import (AbsActivation, ExpActivation, LogActivation,
                          ReluActivation, SigmoidActivation,
                          SquareActivation, TanhActivation)
from .attrs import is_compatible_with
from .default_decorators import wrap_name_default
from .layers import (LayerOutput, identity_projection, mixed_layer,
                     repeat_layer, scaling_layer, slope_intercept_layer)

__all__ = []


_UNARY_DOC = """Element-wise ``%(formula)s`` of a layer, as a new layer.

    %(note)sA mixed_layer of one identity_projection with %(act)s: no parameters,
    and the output keeps the input's width and sequence layout. Call it as
    ``layer_math.%(op)s(x)`` (v1's ``paddle.trainer_config_helpers.layer_math``).

    Args:
        input (LayerOutput): the input layer.
        name (str, optional): layer name; ``__%(op)s_N__`` when omitted.

    Returns:
        LayerOutput: the result, of the input's width.

    Example:
        >>> x = data_layer(name='x', size=8)
        >>> y = layer_math.%(op)s(x)
        >>> y.name, y.size, y.activation.name
        ('__%(op)s_0__', 8, '%(act_name)s')
    """


def _register_unary(op_name, act, formula, note=''):
    def op(input, name=None):
        return mixed_layer(input=[identity_projection(input=input)],
                           name=name, act=act)

    op.__name__ = op_name
    op.__qualname__ = op_name
    op.__doc__ = _UNARY_DOC % dict(op=op_name, formula=formula, note=note,
                                   act='%s()' % type(act).__name__,
                                   act_name=act.name)
    op = wrap_name_default(op_name)(op)
    globals()[op_name] = op
    __all__.append(op_name)


_register_unary('exp', ExpActivation(), 'y = e^x')
_register_unary('log', LogActivation(), 'y = log(x)',
                'The natural logarithm; the input should be positive. ')
_register_unary('abs', AbsActivation(), 'y = |x|')
_register_unary('sigmoid', SigmoidActivation(), 'y = 1 / (1 + e^-x)')
_register_unary('tanh', TanhActivation(), 'y = tanh(x)')
_register_unary('square', SquareActivation(), 'y = x^2')
_register_unary('relu', ReluActivation(), 'y = max(0, x)')


def _need_layer(other, op):
    if not isinstance(other, LayerOutput):
        raise ConfigError("a layer %s %s: the other operand must be a number "
                          "or a layer" % (op, type(other).__name__))


def add(layeroutput, other):
    """``layer + other``: other a number (slope_intercept_layer) or a layer of the
    same width or of width 1 (repeated), summed by a mixed_layer."""
    if is_compatible_with(other, float):
        return slope_intercept_layer(input=layeroutput, intercept=other)
    _need_layer(other, '+')
    if layeroutput.size == other.size:
        return mixed_layer(input=[identity_projection(input=layeroutput),
                                  identity_projection(input=other)])
    if other.size != 1 and layeroutput.size != 1:
        raise ConfigError(
            'layers can be added only if they have the same size or one has '
            'size 1; sizes are %s and %s' % (layeroutput.size, other.size))
    if layeroutput.size == 1:
        layeroutput, other = other, layeroutput
    other = repeat_layer(other, layeroutput.size)
    return mixed_layer(input=[identity_projection(input=layeroutput),
                              identity_projection(input=other)])


def sub(layeroutput, other):
    """``layer - other``: adds ``-1 * other``."""
    if is_compatible_with(other, float):
        # x - c (v1's layer_math wrote +c here; we compute the difference)
        return slope_intercept_layer(input=layeroutput, intercept=-other)
    _need_layer(other, '-')
    neg = slope_intercept_layer(input=other, slope=-1.0)
    return add(layeroutput, neg)


def rsub(layeroutput, other):
    """``other - layer`` for a number or a layer on the left."""
    neg = slope_intercept_layer(input=layeroutput, slope=-1.0)
    return add(neg, other)


def mul(layeroutput, other):
    """``layer * other``: other a number (slope_intercept_layer), or one operand
    a size-1 layer scaling the other (scaling_layer)."""
    if is_compatible_with(other, float):
        return slope_intercept_layer(input=layeroutput, slope=other)
    _need_layer(other, '*')
    if layeroutput.size == 1:
        return scaling_layer(input=other, weight=layeroutput)
    if other.size == 1:
        return scaling_layer(input=layeroutput, weight=other)
    raise ConfigError("one operand of '*' must be a number or a layer of "
                      "size 1; sizes are %s and %s" % (layeroutput.size,
                                                       other.size))


# + - * on layers
LayerOutput.__add__ = LayerOutput.__radd__ = add
LayerOutput.__sub__ = sub
LayerOutput.__rsub__ = rsub
LayerOutput.__mul__ = LayerOutput.__rmul__ = mul
