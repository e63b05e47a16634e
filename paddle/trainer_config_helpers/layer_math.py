"""Layer arithmetic: exp/log/... of a layer and +, -, * on LayerOutputs."""

from paddle.parser import ConfigError

from .activations import (AbsActivation, ExpActivation, LogActivation,
                          ReluActivation, SigmoidActivation,
                          SquareActivation, TanhActivation)
from .attrs import is_compatible_with
from .default_decorators import wrap_name_default
from .layers import (LayerOutput, identity_projection, mixed_layer,
                     repeat_layer, scaling_layer, slope_intercept_layer)

__all__ = []


def _register_unary(op_name, act):
    def op(input, name=None):
        return mixed_layer(input=[identity_projection(input=input)],
                           name=name, act=act)

    op.__name__ = op_name
    op.__qualname__ = op_name
    op = wrap_name_default(op_name)(op)
    globals()[op_name] = op
    __all__.append(op_name)


_register_unary('exp', ExpActivation())
_register_unary('log', LogActivation())
_register_unary('abs', AbsActivation())
_register_unary('sigmoid', SigmoidActivation())
_register_unary('tanh', TanhActivation())
_register_unary('square', SquareActivation())
_register_unary('relu', ReluActivation())


def _need_layer(other, op):
    if not isinstance(other, LayerOutput):
        raise ConfigError("a layer %s %s: the other operand must be a number "
                          "or a layer" % (op, type(other).__name__))


def add(layeroutput, other):
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
    if is_compatible_with(other, float):
        # x - c (v1's layer_math wrote +c here; we compute the difference)
        return slope_intercept_layer(input=layeroutput, intercept=-other)
    _need_layer(other, '-')
    neg = slope_intercept_layer(input=other, slope=-1.0)
    return add(layeroutput, neg)


def rsub(layeroutput, other):
    neg = slope_intercept_layer(input=layeroutput, slope=-1.0)
    return add(neg, other)


def mul(layeroutput, other):
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
