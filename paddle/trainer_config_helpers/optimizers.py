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
    """Base of everything settings() accepts as learning_method, regularization or
    model_average.

    An Optimizer contributes two things when settings() runs: keys of the
    OptimizationConfig (to_setting_kwargs) and side effects on the defaults of the
    parameters created afterwards (extra_settings, e.g. the default momentum). It is
    abstract; write MomentumOptimizer(...), AdamOptimizer(...), L2Regularization(...),
    ModelAverage(...) and so on.

    Example:
        >>> isinstance(AdamOptimizer(), Optimizer)
        True
        >>> sorted(AdamOptimizer(beta1=0.8).to_setting_kwargs().items())[:2]
        [('adam_beta1', 0.8), ('adam_beta2', 0.999)]
    """

    @abc.abstractmethod
    def to_setting_kwargs(self):
        """The OptimizationConfig keys (settings() keyword arguments) this object
        contributes, as a dict; settings() refuses a key set twice.

        Returns:
            dict: e.g. ``{'learning_method': 'adam', 'adam_beta1': 0.9, ...}``.
        """

    def extra_settings(self):
        """Applies this object's side effects on the parameter defaults (called by
        settings() once, after to_setting_kwargs). The base does nothing.
        """
        pass

    @property
    def is_support_sparse(self):
        return True


class BaseSGDOptimizer(Optimizer):
    """Base of the gradient-descent learning methods (every optimizer class here).

    Any of them makes settings() choose ``algorithm='sgd'`` (``'async_sgd'`` with
    ``is_async=True``). ``momentum``, when given, becomes the default momentum of
    every parameter created after settings() (what ``ParamAttr(momentum=...)`` sets
    for one parameter); the update rules of the AdaGrad family end with the same
    momentum step as MomentumOptimizer, Adam and Adamax ignore it.

    Args:
        momentum (float in [0, 1], optional): default momentum of the parameters
            created afterwards; None keeps the current default (0).
        sparse (bool, default False): MomentumOptimizer only: ask for v1's
            ``sparse_momentum`` method (this engine runs it as ``momentum``).

    Example:
        >>> opt = MomentumOptimizer(momentum=0.5)
        >>> isinstance(opt, BaseSGDOptimizer), opt.momentum, opt.sparse
        (True, 0.5, False)
    """

    def __init__(self, momentum=None, sparse=False):
        self.momentum = None if momentum is None else as_float(momentum, 'momentum', low=0, high=1)
        self.sparse = sparse

    def extra_settings(self):
        """Makes ``momentum`` (when given) the default momentum of every parameter
        created afterwards.
        """
        if self.momentum is not None:
            default_momentum(self.momentum)


class MomentumOptimizer(BaseSGDOptimizer):
    """Stochastic gradient descent with momentum, settings()'s default learning method.

    For each parameter element w with batch gradient g (summed over the batch)::

        v = mu * v - lr * (g + decay * w)
        w = w + v

    where lr is the scheduled global learning rate times the parameter's
    learning_rate, mu the parameter's momentum (default 0: plain SGD, and no
    momentum buffer is kept) and decay its L2 rate (L2Regularization / ParamAttr
    l2_rate). With an L1 rate (ParamAttr l1_rate) or sparse_update, decay is
    applied as a separate step after the update instead, as in v1; L1 cannot be
    combined with momentum, and sparse_update parameters need momentum 0.

    Args:
        momentum (float in [0, 1], optional): default momentum mu of the parameters
            created after settings(); None leaves it at 0.
        sparse (bool, default False): record v1's ``sparse_momentum`` method
            (for sparse_update tables); this engine runs it as ``momentum``.

    Example:
        >>> def conf():
        ...     settings(batch_size=16, learning_method=MomentumOptimizer(momentum=0.9))
        ...     outputs(fc_layer(input=data_layer(name='x', size=4), size=2))
        >>> cfg = parse_trainer_config(conf)
        >>> cfg.opt_config.learning_method, round(cfg.model_config.parameters[0].momentum, 6)
        ('momentum', 0.9)
    """

    def __init__(self, momentum=None, sparse=False):
        BaseSGDOptimizer.__init__(self, momentum, sparse)

    def to_setting_kwargs(self):
        """``{'learning_method': 'momentum'}`` (``'sparse_momentum'`` with sparse=True).
        """
        if self.sparse:
            return {'learning_method': 'sparse_momentum'}
        return {'learning_method': 'momentum'}


class AdamOptimizer(BaseSGDOptimizer):
    """Adam (Kingma & Ba): per-element step sizes from running moments of the gradient.

    At update t, for each element with gradient g::

        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g^2
        w = w - lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(v) + epsilon)

    As in v1, Adam ignores the learning-rate schedule (it uses settings()'s
    learning_rate times the parameter's learning_rate) and momentum, and adds no
    L2 term to the gradient: L2Regularization / l2_rate have no effect unless the
    parameter also has an L1 rate, in which case both decays run after the step.
    It cannot train sparse_update parameters.

    Args:
        beta1 (float, default 0.9): decay of the first-moment average m, in [0, 1[.
        beta2 (float, default 0.999): decay of the second-moment average v, in [0, 1[.
        epsilon (float > 0, default 1e-8): added to sqrt(v) against division by 0.
        **kwargs: ``momentum`` / ``sparse`` of BaseSGDOptimizer (no effect on Adam).

    Example:
        >>> cfg = parse_optimizer_config(lambda: settings(
        ...     batch_size=32, learning_method=AdamOptimizer(beta1=0.8, epsilon=1e-6)))
        >>> cfg.learning_method, round(cfg.adam_beta1, 6), round(cfg.adam_epsilon, 9)
        ('adam', 0.8, 1e-06)
    """

    @property
    def is_support_sparse(self):
        return False

    def __init__(self, beta1=0.9, beta2=0.999, epsilon=1e-8, **kwargs):
        BaseSGDOptimizer.__init__(self, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

    def to_setting_kwargs(self):
        """``learning_method='adam'`` and ``adam_beta1``, ``adam_beta2``, ``adam_epsilon``.
        """
        return {
            'learning_method': 'adam',
            'adam_beta1': self.beta1,
            'adam_beta2': self.beta2,
            'adam_epsilon': self.epsilon
        }


class AdamaxOptimizer(BaseSGDOptimizer):
    """Adamax: Adam's variant that scales by an exponentially weighted infinity norm.

    At update t, for each element with gradient g::

        m = beta1 * m + (1 - beta1) * g
        u = max(beta2 * u, |g|)
        w = w - lr / (1 - beta1^t) * m / u

    (no step while u is 0, i.e. while every gradient so far was 0; v1 wrote NaN
    there). Like Adam it ignores the learning-rate schedule and momentum, adds no
    L2 term to the gradient, and cannot train sparse_update parameters.

    Args:
        beta1 (float, default 0.9): decay of the first-moment average m, in [0, 1[.
        beta2 (float, default 0.999): decay applied to the norm u, in [0, 1[.
        **kwargs: ``momentum`` / ``sparse`` of BaseSGDOptimizer (no effect here).

    Example:
        >>> cfg = parse_optimizer_config(lambda: settings(
        ...     batch_size=32, learning_method=AdamaxOptimizer(beta2=0.99)))
        >>> cfg.learning_method, round(cfg.adam_beta2, 6)
        ('adamax', 0.99)
    """

    def __init__(self, beta1=0.9, beta2=0.999, **kwargs):
        BaseSGDOptimizer.__init__(self, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2

    def to_setting_kwargs(self):
        """``learning_method='adamax'`` with ``adam_beta1`` and ``adam_beta2``.
        """
        return {
            'learning_method': 'adamax',
            'adam_beta1': self.beta1,
            'adam_beta2': self.beta2
        }

    @property
    def is_support_sparse(self):
        return False


class AdaGradOptimizer(BaseSGDOptimizer):
    """AdaGrad: each element's step shrinks with the sum of its squared gradients.

    For each element with gradient g::

        G = G + g^2
        r = 1 / sqrt(G + eps)
        v = mu * v - lr * r * (g + decay * w);   w = w + v

    eps is settings()'s ``ada_epsilon`` (default 1e-6; not set by this class). As
    in v1, AdaGrad ignores the learning-rate schedule. Momentum (mu) and L2 decay
    work as in MomentumOptimizer.

    Args:
        **kwargs: ``momentum`` (default momentum of later parameters) and ``sparse``
            of BaseSGDOptimizer.

    Example:
        >>> cfg = parse_optimizer_config(lambda: settings(
        ...     batch_size=32, learning_rate=0.1, learning_method=AdaGradOptimizer()))
        >>> cfg.learning_method
        'adagrad'
    """

    def __init__(self, **kwargs):
        BaseSGDOptimizer.__init__(self, **kwargs)

    def to_setting_kwargs(self):
        """``{'learning_method': 'adagrad'}``.
        """
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
    """RMSProp, centred as in v1: divides by a running estimate of the gradient's
    standard deviation.

    For each element with gradient g::

        G = rho * G + (1 - rho) * g^2     (first update: G = g^2)
        F = rho * F + (1 - rho) * g
        r = 1 / sqrt(G - F^2 + epsilon)
        v = mu * v - lr * r * (g + decay * w);   w = w + v

    The learning-rate schedule, momentum and L2 decay apply as in MomentumOptimizer.

    Args:
        rho (float in [0, 1], default 0.95): decay of the running averages
            (``ada_rou`` in the OptimizationConfig).
        epsilon (float > 0, default 1e-6): added under the square root
            (``ada_epsilon``).
        **kwargs: ``momentum`` / ``sparse`` of BaseSGDOptimizer.

    Example:
        >>> cfg = parse_optimizer_config(lambda: settings(
        ...     batch_size=32, learning_method=RMSPropOptimizer(rho=0.9)))
        >>> cfg.learning_method, round(cfg.ada_rou, 6), round(cfg.ada_epsilon, 9)
        ('rmsprop', 0.9, 1e-06)
    """
    method = 'rmsprop'


class DecayedAdaGradOptimizer(_DecayedSquareOptimizer):
    """AdaGrad whose sum of squared gradients decays exponentially (RMSProp without
    the centring).

    For each element with gradient g::

        G = rho * G + (1 - rho) * g^2     (first update: G = g^2)
        r = 1 / sqrt(G + epsilon)
        v = mu * v - lr * r * (g + decay * w);   w = w + v

    The learning-rate schedule, momentum and L2 decay apply as in MomentumOptimizer.

    Args:
        rho (float in [0, 1], default 0.95): decay of G (``ada_rou``).
        epsilon (float > 0, default 1e-6): added under the square root (``ada_epsilon``).
        **kwargs: ``momentum`` / ``sparse`` of BaseSGDOptimizer.

    Example:
        >>> cfg = parse_optimizer_config(lambda: settings(
        ...     batch_size=32, learning_method=DecayedAdaGradOptimizer(rho=0.99)))
        >>> cfg.learning_method, round(cfg.ada_rou, 6)
        ('decayed_adagrad', 0.99)
    """
    method = 'decayed_adagrad'


class AdaDeltaOptimizer(_DecayedSquareOptimizer):
    """AdaDelta (Zeiler): steps scaled by the ratio of running RMS of updates and of
    gradients.

    For each element with gradient g::

        Eg2  = rho * Eg2 + (1 - rho) * g^2
        r    = sqrt((Edx2 + epsilon) / (Eg2 + epsilon))
        Edx2 = rho * Edx2 + (1 - rho) * (r * g)^2
        v = mu * v - lr * r * (g + decay * w);   w = w + v

    Unlike the original paper, v1 still multiplies by the learning rate (use
    ``learning_rate=1.0`` for the paper's rule); schedule, momentum and L2 decay
    apply as in MomentumOptimizer. It cannot train sparse_update parameters.

    Args:
        rho (float in [0, 1], default 0.95): decay of both running averages (``ada_rou``).
        epsilon (float > 0, default 1e-6): smoothing term (``ada_epsilon``).
        **kwargs: ``momentum`` / ``sparse`` of BaseSGDOptimizer.

    Example:
        >>> cfg = parse_optimizer_config(lambda: settings(
        ...     batch_size=32, learning_rate=1.0, learning_method=AdaDeltaOptimizer()))
        >>> cfg.learning_method, round(cfg.ada_rou, 6)
        ('adadelta', 0.95)
    """
    method = 'adadelta'


class BaseRegularization(Optimizer):
    """Base of the regularizations settings() accepts; by itself it regularizes nothing
    (it is settings()'s default ``regularization``).

    settings() tells each regularization the algorithm and learning method in use
    (its ``algorithm`` and ``learning_method`` attributes) before asking it for
    settings.

    Example:
        >>> r = BaseRegularization()
        >>> r.to_setting_kwargs(), isinstance(L2Regularization(1e-4), BaseRegularization)
        ({}, True)
    """

    def __init__(self):
        self.algorithm = ''
        self.learning_method = ''

    def to_setting_kwargs(self):
        """No settings: ``{}``.
        """
        return {}


class L2Regularization(BaseRegularization):
    """L2 weight decay for every parameter created after settings().

    Sets the default ``decay_rate`` of later parameters (what ``ParamAttr(l2_rate=...)``
    sets for one), which adds ``rate * w`` to each gradient: the step minimises
    ``loss + rate/2 * |w|^2`` (times the batch-summed gradient's scale). A parameter
    with its own l2_rate keeps it. Adam and Adamax ignore decay. With v1's
    ``owlqn`` algorithm the rate would go to ``l2weight`` instead (never the case
    with the optimizers here).

    Args:
        rate (float >= 0): the L2 decay rate.

    Example:
        >>> def conf():
        ...     settings(batch_size=16, regularization=L2Regularization(rate=1e-4))
        ...     outputs(fc_layer(input=data_layer(name='x', size=4), size=2))
        >>> round(parse_trainer_config(conf).model_config.parameters[0].decay_rate, 9)
        0.0001
    """

    def __init__(self, rate):
        BaseRegularization.__init__(self)
        self.decay_rate = rate

    def to_setting_kwargs(self):
        """``{'l2weight': rate}`` under owlqn, else ``{}`` (the rate goes to the
        parameters through extra_settings).
        """
        if self.algorithm == 'owlqn':
            return {'l2weight': self.decay_rate}
        return dict()

    def extra_settings(self):
        """Under sgd / async_sgd, makes the rate the default decay_rate of the
        parameters created afterwards.
        """
        if self.algorithm in ('sgd', 'async_sgd'):
            default_decay_rate(self.decay_rate)


class ModelAverage(Optimizer):
    """Tests and saves the model with parameters averaged over recent updates.

    While training, the trainer accumulates each parameter's value after every batch.
    When it tests (the test period or pass end) and when it saves a model, it swaps in
    the average of the accumulated values, then restores the trained values and
    carries on; the saved model files hold the averaged weights. Values are summed
    in windows of batches: a window closes once it holds at least
    min(10000, max_average_window) batches and at least
    min(max_average_window, average_window * number of updates so far); the average
    covers the open window and the one closed before it.

    Args:
        average_window (float > 0): the window as a fraction of the updates so far
            (e.g. 0.5: the last half of training).
        max_average_window (int, optional): cap on the window in batches; None: the
            number of batches of one pass (known after the first pass).
        do_average_in_cpu (bool, default False): v1 kept the sums in host memory;
            recorded in the config, no effect on this engine.

    Example:
        >>> cfg = parse_optimizer_config(lambda: settings(
        ...     batch_size=32, model_average=ModelAverage(0.5, max_average_window=1000)))
        >>> cfg.average_window, cfg.max_average_window
        (0.5, 1000)
    """

    def __init__(self,
                 average_window,
                 max_average_window=None,
                 do_average_in_cpu=False):
        # a window of 0 would average nothing: leave ModelAverage out instead
        self.average_window = as_float(average_window, 'ModelAverage: average_window', low=0, low_open=True)
        self.max_average_window = max_average_window
        self.do_average_in_cpu = do_average_in_cpu

    def to_setting_kwargs(self):
        """``average_window``, ``max_average_window`` and ``do_average_in_cpu``.
        """
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
             gradient_clipping_norm=None,
             precision=None,
             loss_scale=None,
             recompute=None):
    """Sets the trainer's optimization settings (call it once per config).

    Fills the OptimizationConfig of the TrainerConfig, and sets defaults (momentum,
    L2 decay, gradient clipping) for every parameter created *after* the call, so
    call it before the layers. Values are checked at parse time (a ConfigError names
    the settings() line).

    Each parameter's step uses ``lr = schedule(n) * ParamAttr learning_rate``, where
    n is the number of samples trained so far (pass count for ``pass_manual``), and
    ``a``, ``b`` are learning_rate_decay_a / _b:

    - ``constant``: learning_rate;
    - ``poly`` (default): learning_rate * (1 + a*n)^(-b) (constant with a = b = 0);
    - ``caffe_poly``: learning_rate * (1 - n/a)^b, 0 once n > a;
    - ``exp``: learning_rate * a^(n/b); ``discexp``: learning_rate * a^floor(n/b);
    - ``linear``: max(learning_rate - a*n, b);
    - ``manual`` / ``pass_manual``: learning_rate * the rate of the first
      ``bound:rate`` segment of learning_rate_args whose bound >= n (or pass), the
      last segment's rate beyond.

    As in v1, AdaGrad, Adam and Adamax ignore the schedule.

    Args:
        batch_size (int >= 1): samples per mini-batch, one update each (with
            ``--trainer_count`` > 1 the batch is split among the replicas); the
            gradient is the sum, not the mean, over the batch.
        learning_rate (float >= 0, default 1e-3): the base learning rate.
        learning_rate_decay_a (float >= 0, default 0): the schedule's ``a``.
        learning_rate_decay_b (float >= 0, default 0): the schedule's ``b``.
        learning_rate_schedule (str, default 'poly'): one of the schedules above.
        learning_rate_args (str, default ''): ``'bound:rate,...'`` segments for the
            manual schedules, e.g. ``'1000:1.0,2000:0.5'``.
        learning_method (Optimizer, default a MomentumOptimizer without momentum):
            the update rule, e.g. AdamOptimizer(); the default is plain SGD.
        regularization (BaseRegularization or list of them, optional): e.g.
            L2Regularization(1e-4), the default L2 decay of later parameters.
        is_async (bool, default False): record ``algorithm='async_sgd'`` (v1's
            asynchronous parameter-server update) instead of ``'sgd'``; this engine
            trains both the same way.
        model_average (ModelAverage, optional): test and save averaged parameters.
        gradient_clipping_threshold (float, optional): the default clipping
            threshold t of later parameters: each element of their gradients is
            clipped to [-t, t] before the update (v1's rule;
            ParamAttr(gradient_clipping_threshold=...) overrides it per parameter).
        gradient_clipping_norm (float > 0, optional): not in v1: when the global L2
            norm ||g|| of all the gradients together exceeds this value N, scale
            them all by N / ||g||.
        precision (str, optional): not in v1: ``'fp32'`` (the default), ``'bf16'`` or
            ``'fp16'``, the arithmetic of the matrix products of the layers of weights
            times activations (fc, mixed/projections, conv, lstmemory, grumemory,
            recurrent): their operands are rounded to bfloat16 (or IEEE half) and the
            products summed in fp32. bf16 runs on AVX512_BF16 CPUs and GPUs, fp16 on
            GPUs only; elsewhere training runs fp32 with a notice. Weights,
            gradients, optimizer state, costs, softmax and normalisation stay fp32, and
            so do checkpoints. ``paddle train --precision`` overrides it;
            ``ExtraAttr(precision='fp32')`` keeps one layer in fp32.
        loss_scale (float >= 1, optional): not in v1: fp16's initial dynamic loss
            scale (default 32768). The cost gradient is multiplied by it before
            backward and the gradients divided by it before the update; a step whose
            gradients overflow is skipped and halves it, 1000 clean steps in a row
            (OptimizationConfig.loss_scale_growth_interval) double it.
        recompute (bool, str or list, optional): not in v1: trade time for memory in
            training. Checkpoint layers cut the network into segments; the forward keeps
            the checkpoints' outputs (and whatever a later segment reads) and frees the
            rest of each segment, and backward recomputes a segment's forward from its
            checkpoint just before that segment's backward. Gradients are bit for bit
            those of a normal run (dropout's draws are replayed, batch norm's moving
            averages move once). ``True`` or ``'auto'``: a checkpoint about every
            sqrt(n) layers, at the narrowest place nothing earlier is read past; a list
            of layers (or their names): those are the checkpoints; ``False``: off even
            where layers carry ``ExtraAttr(recompute_checkpoint=True)`` (which alone
            turns it on with the marked layers). A recurrent group is never freed
            whole; instead each of its steps keeps only its memories and out-links,
            and backward recomputes the rest of the step (nested groups alike).
            ``paddle train --recompute`` overrides it.

    Raises:
        ConfigError: a value out of range, an unknown schedule, or a wrong type for
            learning_method / regularization / model_average.

    Example:
        >>> cfg = parse_optimizer_config(lambda: settings(
        ...     batch_size=128, learning_rate=0.01, learning_rate_schedule='discexp',
        ...     learning_rate_decay_a=0.5, learning_rate_decay_b=10000,
        ...     learning_method=MomentumOptimizer(momentum=0.9)))
        >>> cfg.batch_size, cfg.learning_rate_schedule, cfg.algorithm
        (128, 'discexp', 'sgd')
        >>> def deep():
        ...     settings(batch_size=16, recompute='auto')
        ...     h = data_layer(name='x', size=8)
        ...     for i in range(9):
        ...         h = fc_layer(input=h, size=8, name='h%d' % i)
        ...     outputs(h)
        >>> parse_network_config(deep).recompute
        'auto'
    """
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
    if precision is not None:
        kwargs['precision'] = precision  # checked by Settings
    if loss_scale is not None:
        kwargs['initial_loss_scale'] = float(loss_scale)
    if recompute is not None:
        if isinstance(recompute, (list, tuple)):  # layers to their names
            recompute = [getattr(r, 'name', r) for r in recompute]
        kwargs['recompute'] = recompute  # checked by Settings

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
