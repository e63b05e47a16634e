"""Activation classes of the v1 config language (-> LayerConfig.active_type)."""

__all__ = [
    'TanhActivation', 'SigmoidActivation', 'SoftmaxActivation',
    'IdentityActivation', 'LinearActivation', 'SequenceSoftmaxActivation',
    'ExpActivation', 'ReluActivation', 'BReluActivation', 'SoftReluActivation',
    'STanhActivation', 'AbsActivation', 'SquareActivation', 'BaseActivation',
    'LogActivation', 'SqrtActivation', 'ReciprocalActivation',
    'SoftSignActivation'
]


class BaseActivation(object):
    """Base of the activation classes: an activation is the element-wise (or row-wise)
    function f a layer applies to its output, ``y = f(W x + b)``.

    Layer helpers take an instance as ``act=`` (``fc_layer(..., act=ReluActivation())``);
    each class only names v1's ``active_type`` string, which the engine looks up.
    Instances compare equal when their names are, and print as the name.

    Args:
        name (str): the LayerConfig ``active_type`` ('' for the identity).
        support_hppl (bool): usable as an activation of lstmemory and grumemory
            (their act / gate_act / state_act): true for tanh, sigmoid, relu and the
            identity.

    Example:
        >>> act = TanhActivation()
        >>> isinstance(act, BaseActivation), act.name, act.support_hppl
        (True, 'tanh', True)
        >>> SoftmaxActivation() == SoftmaxActivation(), SoftmaxActivation().support_hppl
        (True, False)
    """

    def __init__(self, name, support_hppl):
        self.name = name
        self.support_hppl = support_hppl

    def __repr__(self):
        return self.name

    def __eq__(self, other):
        return isinstance(other, BaseActivation) and self.name == other.name

    def __hash__(self):
        return hash(self.name)


class TanhActivation(BaseActivation):
    """Hyperbolic tangent: f(x) = tanh(x) = (e^x - e^-x) / (e^x + e^-x), in ]-1, 1[.

    The default activation of fc_layer and of lstmemory's output and state; usable
    in lstmemory and grumemory. Derivative 1 - f(x)^2.

    Example:
        >>> def net():
        ...     outputs(fc_layer(input=data_layer(name='x', size=4), size=2, act=TanhActivation()))
        >>> parse_network_config(net).layers[-1].active_type
        'tanh'
    """

    def __init__(self):
        BaseActivation.__init__(self, 'tanh', True)


class SigmoidActivation(BaseActivation):
    """Logistic sigmoid: f(x) = 1 / (1 + e^-x), in ]0, 1[.

    The default gate activation of lstmemory / grumemory. The engine clips x to [-40, 40] before the exponential, as v1 did.

    Example:
        >>> def net():
        ...     outputs(fc_layer(input=data_layer(name='x', size=4), size=2, act=SigmoidActivation()))
        >>> parse_network_config(net).layers[-1].active_type
        'sigmoid'
    """

    def __init__(self):
        BaseActivation.__init__(self, 'sigmoid', True)


class SoftmaxActivation(BaseActivation):
    """Softmax over each row: f(x)_i = e^(x_i) / sum_j e^(x_j).

    Turns a layer's output into a probability distribution over its width, the
    usual output of a classifier (fed to classification_cost). Row-wise, so not
    usable inside lstmemory / grumemory.

    Example:
        >>> def net():
        ...     outputs(fc_layer(input=data_layer(name='x', size=4), size=2, act=SoftmaxActivation()))
        >>> parse_network_config(net).layers[-1].active_type
        'softmax'
    """

    def __init__(self):
        BaseActivation.__init__(self, 'softmax', False)


class SequenceSoftmaxActivation(BaseActivation):
    """Softmax over the time steps of each sequence.

    The layer must have width 1 and a sequence input: each sequence's values
    x_1..x_T become e^(x_t) / sum_s e^(x_s), e.g. the attention weights of
    simple_attention.

    Example:
        >>> def net():
        ...     x = data_layer(name='x', size=4)
        ...     outputs(fc_layer(input=x, size=1, act=SequenceSoftmaxActivation()))
        >>> parse_network_config(net).layers[-1].active_type
        'sequence_softmax'
    """

    def __init__(self):
        BaseActivation.__init__(self, 'sequence_softmax', False)


class IdentityActivation(BaseActivation):
    """The identity, f(x) = x (alias LinearActivation): no activation.

    Written as the empty active_type (v1's "linear"). The default of the mixed,
    addto and concat layers; usable in lstmemory and grumemory.

    Example:
        >>> def net():
        ...     outputs(fc_layer(input=data_layer(name='x', size=4), size=2, act=IdentityActivation()))
        >>> parse_network_config(net).layers[-1].active_type
        ''
    """

    def __init__(self):
        BaseActivation.__init__(self, '', False)


LinearActivation = IdentityActivation


class ReluActivation(BaseActivation):
    """Rectified linear unit: f(x) = max(0, x).

    Derivative 1 where the output is positive, else 0. Usable in lstmemory and
    grumemory.

    Example:
        >>> def net():
        ...     outputs(fc_layer(input=data_layer(name='x', size=4), size=2, act=ReluActivation()))
        >>> parse_network_config(net).layers[-1].active_type
        'relu'
    """

    def __init__(self):
        BaseActivation.__init__(self, 'relu', True)


class BReluActivation(BaseActivation):
    """Bounded ReLU: f(x) = min(max(0, x), 24).

    Derivative 1 strictly between 0 and 24, else 0.

    Example:
        >>> def net():
        ...     outputs(fc_layer(input=data_layer(name='x', size=4), size=2, act=BReluActivation()))
        >>> parse_network_config(net).layers[-1].active_type
        'brelu'
    """

    def __init__(self):
        BaseActivation.__init__(self, 'brelu', False)


class SoftReluActivation(BaseActivation):
    """Soft ReLU (softplus): f(x) = log(1 + e^x).

    x is clipped to [-40, 40] first, as in v1. Derivative 1 - e^(-f(x)).

    Example:
        >>> def net():
        ...     outputs(fc_layer(input=data_layer(name='x', size=4), size=2, act=SoftReluActivation()))
        >>> parse_network_config(net).layers[-1].active_type
        'softrelu'
    """

    def __init__(self):
        BaseActivation.__init__(self, 'softrelu', False)


class STanhActivation(BaseActivation):
    """Scaled tanh: f(x) = 1.7159 * tanh(2x / 3) (LeCun's choice of constants).

    Example:
        >>> def net():
        ...     outputs(fc_layer(input=data_layer(name='x', size=4), size=2, act=STanhActivation()))
        >>> parse_network_config(net).layers[-1].active_type
        'stanh'
    """

    def __init__(self):
        BaseActivation.__init__(self, 'stanh', False)


class AbsActivation(BaseActivation):
    """Absolute value: ``f(x) = |x|``, derivative ``sign(x)`` (0 at 0).

    Example:
        >>> def net():
        ...     outputs(fc_layer(input=data_layer(name='x', size=4), size=2, act=AbsActivation()))
        >>> parse_network_config(net).layers[-1].active_type
        'abs'
    """

    def __init__(self):
        BaseActivation.__init__(self, 'abs', False)


class SquareActivation(BaseActivation):
    """Square: f(x) = x^2, derivative 2x.

    Example:
        >>> def net():
        ...     outputs(fc_layer(input=data_layer(name='x', size=4), size=2, act=SquareActivation()))
        >>> parse_network_config(net).layers[-1].active_type
        'square'
    """

    def __init__(self):
        BaseActivation.__init__(self, 'square', False)


class ExpActivation(BaseActivation):
    """Exponential: f(x) = e^x (active_type ``exponential``), derivative e^x.

    Unbounded: large inputs overflow to inf.

    Example:
        >>> def net():
        ...     outputs(fc_layer(input=data_layer(name='x', size=4), size=2, act=ExpActivation()))
        >>> parse_network_config(net).layers[-1].active_type
        'exponential'
    """

    def __init__(self):
        BaseActivation.__init__(self, 'exponential', False)


class LogActivation(BaseActivation):
    """Natural logarithm: f(x) = log(x), derivative 1/x.

    Defined for x > 0 only (NaN / -inf otherwise): feed it positive values.

    Example:
        >>> def net():
        ...     outputs(fc_layer(input=data_layer(name='x', size=4), size=2, act=LogActivation()))
        >>> parse_network_config(net).layers[-1].active_type
        'log'
    """

    def __init__(self):
        BaseActivation.__init__(self, 'log', False)


class SqrtActivation(BaseActivation):
    """Square root: f(x) = sqrt(x) (v1 active_type ``sqrt``).

    Derivative 1 / (2 f(x)). Defined for x >= 0 (NaN below): feed it non-negative
    values, e.g. after a relu or an exponential.

    Example:
        >>> def net():
        ...     outputs(fc_layer(input=data_layer(name='x', size=4), size=2, act=SqrtActivation()))
        >>> parse_network_config(net).layers[-1].active_type
        'sqrt'
    """

    def __init__(self):
        BaseActivation.__init__(self, 'sqrt', False)


class ReciprocalActivation(BaseActivation):
    """Reciprocal: f(x) = 1 / x (v1 active_type ``reciprocal``).

    Derivative -f(x)^2. Unbounded near 0 (inf at 0): keep its input away from zero.

    Example:
        >>> def net():
        ...     outputs(fc_layer(input=data_layer(name='x', size=4), size=2, act=ReciprocalActivation()))
        >>> parse_network_config(net).layers[-1].active_type
        'reciprocal'
    """

    def __init__(self):
        BaseActivation.__init__(self, 'reciprocal', False)


class SoftSignActivation(BaseActivation):
    """Softsign: ``f(x) = x / (1 + |x|)`` (v1 active_type ``softsign``).

    A tanh-like squashing into (-1, 1) with polynomial tails; derivative
    ``1 / (1 + |x|)^2``, computed from the output as ``(1 - |f(x)|)^2``.

    Example:
        >>> def net():
        ...     outputs(fc_layer(input=data_layer(name='x', size=4), size=2, act=SoftSignActivation()))
        >>> parse_network_config(net).layers[-1].active_type
        'softsign'
    """

    def __init__(self):
        BaseActivation.__init__(self, 'softsign', False)
