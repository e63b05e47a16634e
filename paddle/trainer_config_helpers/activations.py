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
    """name: the v1 active_type string; support_hppl: usable as the
    activation of lstmemory / grumemory (tanh, sigmoid, relu, linear)."""

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
    """tanh(x)"""

    def __init__(self):
        BaseActivation.__init__(self, 'tanh', True)


class SigmoidActivation(BaseActivation):
    """1 / (1 + exp(-x))"""

    def __init__(self):
        BaseActivation.__init__(self, 'sigmoid', True)


class SoftmaxActivation(BaseActivation):
    """softmax over each row"""

    def __init__(self):
        BaseActivation.__init__(self, 'softmax', False)


class SequenceSoftmaxActivation(BaseActivation):
    """softmax over each sequence (layer width must be 1)"""

    def __init__(self):
        BaseActivation.__init__(self, 'sequence_softmax', False)


class IdentityActivation(BaseActivation):
    """f(x) = x (written as the empty string)"""

    def __init__(self):
        BaseActivation.__init__(self, '', False)


LinearActivation = IdentityActivation


class ReluActivation(BaseActivation):
    """max(0, x)"""

    def __init__(self):
        BaseActivation.__init__(self, 'relu', True)


class BReluActivation(BaseActivation):
    """min(max(0, x), 24)"""

    def __init__(self):
        BaseActivation.__init__(self, 'brelu', False)


class SoftReluActivation(BaseActivation):
    """log(1 + exp(x))"""

    def __init__(self):
        BaseActivation.__init__(self, 'softrelu', False)


class STanhActivation(BaseActivation):
    """1.7159 * tanh(2x/3)"""

    def __init__(self):
        BaseActivation.__init__(self, 'stanh', False)


class AbsActivation(BaseActivation):
    """|x|"""

    def __init__(self):
        BaseActivation.__init__(self, 'abs', False)


class SquareActivation(BaseActivation):
    """x^2"""

    def __init__(self):
        BaseActivation.__init__(self, 'square', False)


class ExpActivation(BaseActivation):
    """exp(x)"""

    def __init__(self):
        BaseActivation.__init__(self, 'exponential', False)


class LogActivation(BaseActivation):
    """log(x)"""

    def __init__(self):
        BaseActivation.__init__(self, 'log', False)


class SqrtActivation(BaseActivation):
    """sqrt(x)"""

    def __init__(self):
        BaseActivation.__init__(self, 'sqrt', False)


class ReciprocalActivation(BaseActivation):
    """1 / x"""

    def __init__(self):
        BaseActivation.__init__(self, 'reciprocal', False)


class SoftSignActivation(BaseActivation):
    """x / (1 + |x|)"""

    def __init__(self):
        BaseActivation.__init__(self, 'softsign', False)
