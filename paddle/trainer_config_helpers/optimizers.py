"""settings() and the optimizer / regularization / model-average classes.

settings() turns its arguments into Settings(...) keys (copied into
TrainerConfig.opt_config) and sets the default_* values (momentum, L2
decay, gradient clipping) that every parameter created afterwards gets.
"""

import abc

from paddle.parser import (
    ConfigError, Settings, default_decay_rate,
    default_gradient_clipping_threshold, default_momentum)

from paddle.parser.errors import as_float, as_int

from .default_decorators import wrap_param_default

__all__ = [
    'Optimizer', 'BaseSGDOptimizer', 'MomentumOptimizer', 'AdamaxOptimizer',
    'AdamOptimizer', 'AdaGradOptimizer', 'RMSPropOptimizer',
    'DecayedAdaGradOptimizer', 'AdaDeltaOptimizer', 'BaseRegularization',
    'L2Regularization', 'settings', 'ModelAverage'
]


class Optimizer(abc.ABC):
    @abc.abstractmethod
    def to_setting_kwargs(self):
        """The settings() keyword arguments this object contributes."""

    def extra_settings(self):
        pass

    @property
    def is_support_sparse(self):
        return True


class BaseSGDOptimizer(Optimizer):
    """Base of the (synchronous or asynchronous) SGD learning methods.
    momentum: per-parameter default momentum; sparse: sparse momentum."""

    def __init__(self, momentum=None, sparse=False):
        self.momentum = None if momentum is None else as_float(momentum, 'momentum', low=0, high=1)
        self.sparse = sparse

    def extra_settings(self):
        if self.momentum is not None:
            default_momentum(self.momentum)


class MomentumOptimizer(BaseSGDOptimizer):
    """SGD with momentum: mom = momentum*mom - lr*(g + decay*w); w += mom."""

    def __init__(self, momentum=None, sparse=False):
        BaseSGDOptimizer.__init__(self, momentum, sparse)

    def to_setting_kwargs(self):
        if self.sparse:
            return {'learning_method': 'sparse_momentum'}
        return {'learning_method': 'momentum'}


class AdamOptimizer(BaseSGDOptimizer):
    """Adam(beta1, beta2, epsilon)."""

    @property
    def is_support_sparse(self):
        return False

    def __init__(self, beta1=0.9, beta2=0.999, epsilon=1e-8, **kwargs):
        BaseSGDOptimizer.__init__(self, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

    def to_setting_kwargs(self):
        return {
            'learning_method': 'adam',
            'adam_beta1': self.beta1,
            'adam_beta2': self.beta2,
            'adam_epsilon': self.epsilon
        }


class AdamaxOptimizer(BaseSGDOptimizer):
    """Adamax(beta1, beta2)."""

    def __init__(self, beta1=0.9, beta2=0.999, **kwargs):
        BaseSGDOptimizer.__init__(self, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2

    def to_setting_kwargs(self):
        return {
            'learning_method': 'adamax',
            'adam_beta1': self.beta1,
            'adam_beta2': self.beta2
        }

    @property
    def is_support_sparse(self):
        return False


class AdaGradOptimizer(BaseSGDOptimizer):
    """AdaGrad: per-coordinate lr / sqrt(sum of squared gradients)."""

    def __init__(self, **kwargs):
        BaseSGDOptimizer.__init__(self, **kwargs)

    def to_setting_kwargs(self):
        return {'learning_method': 'adagrad'}


class _DecayedSquareOptimizer(BaseSGDOptimizer):
    """Base of the methods keeping a decayed average of squared gradients:
    rho -> ada_rou, epsilon -> ada_epsilon."""
    method = None

    def __init__(self, rho=0.95, epsilon=1e-6, **kwargs):
        BaseSGDOptimizer.__init__(self, **kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def to_setting_kwargs(self):
        return {
            'learning_method': self.method,
            'ada_rou': self.rho,
            'ada_epsilon': self.epsilon
        }


class RMSPropOptimizer(_DecayedSquareOptimizer):
    """RMSProp(rho, epsilon), centred as in v1."""
    method = 'rmsprop'


class DecayedAdaGradOptimizer(_DecayedSquareOptimizer):
    """AdaGrad with an exponentially decayed sum (rho, epsilon)."""
    method = 'decayed_adagrad'


class AdaDeltaOptimizer(_DecayedSquareOptimizer):
    """AdaDelta(rho, epsilon)."""
    method = 'adadelta'


class BaseRegularization(Optimizer):
    def __init__(self):
        self.algorithm = ''
        self.learning_method = ''

    def to_setting_kwargs(self):
        return {}


class L2Regularization(BaseRegularization):
    """L2 weight decay: default decay_rate of every later parameter (SGD),
    or l2weight for owlqn."""

    def __init__(self, rate):
        BaseRegularization.__init__(self)
        self.decay_rate = rate

    def to_setting_kwargs(self):
        if self.algorithm == 'owlqn':
            return {'l2weight': self.decay_rate}
        return dict()

    def extra_settings(self):
        if self.algorithm in ('sgd', 'async_sgd'):
            default_decay_rate(self.decay_rate)


class ModelAverage(Optimizer):
    """Average parameters over a window of batches (used for testing)."""

    def __init__(self,
                 average_window,
                 max_average_window=None,
                 do_average_in_cpu=False):
        # a window of 0 would average nothing: leave ModelAverage out instead
        self.average_window = as_float(average_window, 'ModelAverage: average_window', low=0, low_open=True)
        self.max_average_window = max_average_window
        self.do_average_in_cpu = do_average_in_cpu

    def to_setting_kwargs(self):
        return {
            'average_window': self.average_window,
            'max_average_window': self.max_average_window,
            'do_average_in_cpu': self.do_average_in_cpu
        }


class GradientClippingThreshold(Optimizer):
    def __init__(self, threshold):
        self.threshold = threshold

    def extra_settings(self):
        default_gradient_clipping_threshold(self.threshold)

    def to_setting_kwargs(self):
        return dict()


def _merge(dst, src, what):
    for key in src:
        if key in dst:
            raise ConfigError('settings: %s sets %s twice' % (what, key))
        dst[key] = src[key]
    return dst


@wrap_param_default(
    ['learning_method'], default_factory=lambda _: MomentumOptimizer())
@wrap_param_default(
    ['regularization'], default_factory=lambda _: BaseRegularization())
def settings(batch_size,
             learning_rate=1e-3,
             learning_rate_decay_a=0.,
             learning_rate_decay_b=0.,
             learning_rate_schedule='poly',
             learning_rate_args='',
             learning_method=None,
             regularization=None,
             is_async=False,
             model_average=None,
             gradient_clipping_threshold=None,
             gradient_clipping_norm=None):
    """Optimisation settings: batch size, learning rate (+ schedule),
    learning method, regularization, model averaging, gradient clipping
    (v1's element-wise per parameter; gradient_clipping_norm, not in v1, opts
    in to clipping by the global norm of all gradients)."""
    if isinstance(regularization, BaseRegularization):
        regularization = [regularization]
    if not isinstance(regularization, (list, tuple)):
        raise ConfigError('settings: regularization must be e.g. '
                          'L2Regularization(rate), got %s' %
                          type(regularization).__name__)
    if not isinstance(learning_method, Optimizer):
        raise ConfigError('settings: learning_method must be an optimizer '
                          'object such as MomentumOptimizer(0.9), got %s' %
                          type(learning_method).__name__)
    batch_size = as_int(batch_size, 'settings: batch_size', low=1)
    if isinstance(learning_method, BaseSGDOptimizer):
        algorithm = 'async_sgd' if is_async else 'sgd'
    else:
        algorithm = 'owlqn'

    kwargs = dict()
    kwargs['batch_size'] = batch_size
    kwargs['learning_rate'] = learning_rate
    kwargs['learning_rate_decay_a'] = learning_rate_decay_a
    kwargs['learning_rate_decay_b'] = learning_rate_decay_b
    kwargs['learning_rate_schedule'] = learning_rate_schedule
    kwargs['learning_rate_args'] = learning_rate_args
    kwargs['algorithm'] = algorithm
    if gradient_clipping_norm is not None:
        kwargs['gradient_clipping_norm'] = float(gradient_clipping_norm)  # checked by Settings

    _merge(kwargs, learning_method.to_setting_kwargs(), 'learning_method')
    learning_method.extra_settings()

    for regular in regularization:
        if not isinstance(regular, BaseRegularization):
            raise ConfigError('settings: regularization must be e.g. '
                              'L2Regularization(rate), got %s' %
                              type(regular).__name__)
        regular.algorithm = algorithm
        regular.learning_method = kwargs['learning_method']
        _merge(kwargs, regular.to_setting_kwargs(), 'regularization')
        regular.extra_settings()

    if gradient_clipping_threshold is not None:
        gradient_clipping_threshold = GradientClippingThreshold(
            threshold=gradient_clipping_threshold)

    for each in [model_average, gradient_clipping_threshold]:
        if each is not None:
            if not isinstance(each, Optimizer):
                raise ConfigError('settings: model_average must be a '
                                  'ModelAverage(...), got %s' %
                                  type(each).__name__)
            each.algorithm = algorithm
            each.learning_method = kwargs['learning_method']
            _merge(kwargs, each.to_setting_kwargs(), 'model_average')
            each.extra_settings()

    Settings(**kwargs)
