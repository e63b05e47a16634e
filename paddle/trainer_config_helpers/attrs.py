"""ParamAttr / ExtraAttr: per-parameter and per-layer attributes."""

from paddle.parser import Bias, ConfigError, ParameterHook
from paddle.parser.errors import as_bool, as_float

__all__ = [
    'HookAttr', 'ParamAttr', 'ExtraAttr', 'ParameterAttribute',
    'ExtraLayerAttribute', 'HookAttribute'
]


def _roundtrips(x, typ):
    return type(x)(typ(x)) == x


def is_compatible_with(x, typ):
    """True if x can be used as a value of type typ without losing
    information (strings and bools are never numbers)."""
    if type(x) == typ:
        return True
    try:
        if typ in (float, int):
            if isinstance(x, (str, bool)) or x is None:
                return False
            return _roundtrips(x, typ)
        if typ == bool:
            if isinstance(x, str) or x is None:
                return False
            return _roundtrips(x, typ)
    except Exception:
        return False
    return False


class HookAttribute(object):
    """A parameter update hook (alias HookAttr), for ``ParamAttr(update_hooks=...)``.

    v1 knew one hook, ``'pruning'``: after each update it multiplied the parameter
    by a 0/1 mask read from ``mask_filename``, keeping pruned weights at zero. The
    hook is recorded in the ParameterConfig (``update_hooks``); this engine does not
    run update hooks, so the parameter trains unmasked.

    Args:
        type (str): the hook type; only ``'pruning'`` is known.
        mask_filename (str, optional): the pruning mask file (one value per weight).

    Example:
        >>> hook = HookAttr('pruning', mask_filename='mask.bin')
        >>> cfg = hook()    # the ParameterUpdaterHookConfig a parameter gets
        >>> cfg.type, cfg.purning_mask_filename
        ('pruning', 'mask.bin')
    """

    def __init__(self, type, mask_filename=None):
        self.type = type
        self.mask_filename = mask_filename

    def __call__(self):
        return ParameterHook(self.type, mask_filename=self.mask_filename)


class ParameterAttribute(object):
    """Attributes of one parameter (a weight or a bias), alias ParamAttr.

    Passed as ``param_attr=`` (weights) or ``bias_attr=`` (biases) of the layer
    helpers. Initialisation is chosen by which initial_* arguments are given:

    - none of them: v1's "smart" init, Gaussian with mean 0 and std
      1/sqrt(dims[0]) (dims[0] is the input width of an fc weight);
    - initial_std and/or initial_mean: Gaussian (a missing one takes the config's
      default, std 0.01 / mean 0);
    - initial_max and initial_min: uniform on [initial_min, initial_max].

    Parameters with the same ``name`` are one shared parameter (the sizes must
    agree). Unset per-parameter values (momentum, l2_rate, clipping) take the
    defaults settings() set.

    Args:
        name (str, optional): the parameter's name; default: generated from the
            layer (``_<layer>.w0``, ``_<layer>.wbias``). Give two layers the same
            name to share the parameter.
        is_static (bool, default False): never update it (a fixed parameter); its
            rates and momentum are then ignored.
        initial_std (float >= 0, optional): std of the Gaussian initialisation.
        initial_mean (float, optional): mean of the Gaussian initialisation.
        initial_max (float, optional): upper end of the uniform initialisation.
        initial_min (float, optional): lower end of the uniform initialisation
            (must be below initial_max).
        l1_rate (float >= 0, optional): L1 decay rate (``decay_rate_l1``): after each
            step, w shrinks towards 0 by lr * l1_rate; not with momentum.
        l2_rate (float >= 0, optional): L2 decay rate (``decay_rate``): adds
            l2_rate * w to the gradient; overrides L2Regularization.
        learning_rate (float >= 0, optional): this parameter's multiplier of the
            global learning rate (default 1).
        momentum (float in [0, 1], optional): this parameter's momentum.
        gradient_clipping_threshold (float >= 0, optional): clip this parameter's
            gradient elements to [-t, t] when any exceeds t; overrides settings().
        sparse_update (bool, default False): update only the rows a batch touched
            (for large embedding tables fed by integer ids); lazy decay catches up
            the other rows. Needs momentum 0 and a learning method that supports
            it: plain SGD (MomentumOptimizer), AdaGrad, RMSProp or DecayedAdaGrad.
        update_hooks (HookAttr or list of them, optional): update hooks such as
            HookAttr('pruning', ...).

    Raises:
        ConfigError: non-numeric initial values, initial_min >= initial_max, or a
            wrong type for a flag.

    Example:
        >>> def net():
        ...     x = data_layer(name='x', size=4)
        ...     outputs(fc_layer(input=x, size=2, param_attr=ParamAttr(
        ...         name='w', initial_std=0.02, l2_rate=1e-3, learning_rate=0.5)))
        >>> w = parse_network_config(net).parameters[0]
        >>> w.name, round(w.initial_std, 6), round(w.decay_rate, 6), w.learning_rate
        ('w', 0.02, 0.001, 0.5)
    """

    def __init__(self,
                 name=None,
                 is_static=False,
                 initial_std=None,
                 initial_mean=None,
                 initial_max=None,
                 initial_min=None,
                 l1_rate=None,
                 l2_rate=None,
                 learning_rate=None,
                 momentum=None,
                 gradient_clipping_threshold=None,
                 sparse_update=False,
                 update_hooks=None):
        attr = {}
        if as_bool(is_static, 'ParamAttr: is_static'):
            attr['is_static'] = True
        if (initial_std is None and initial_mean is None and
                initial_max is None and initial_min is None):
            attr['initial_smart'] = True
        elif (is_compatible_with(initial_std, float) or
              is_compatible_with(initial_mean, float)):
            if initial_std is not None:
                attr['initial_std'] = initial_std
            if initial_mean is not None:
                attr['initial_mean'] = initial_mean
            attr['initial_strategy'] = 0
        elif (is_compatible_with(initial_max, float) and
              is_compatible_with(initial_min, float)):
            if not initial_min < initial_max:
                raise ConfigError(
                    'ParamAttr: initial_min (%s) must be < initial_max (%s)' %
                    (initial_min, initial_max))
            mean = (initial_max + initial_min) / 2.
            attr['initial_mean'] = mean
            attr['initial_std'] = mean - initial_min
            attr['initial_strategy'] = 1
        else:
            raise ConfigError(
                'ParamAttr: give numbers for initial_std/initial_mean '
                '(Gaussian) or both initial_max and initial_min (uniform)')
        # (ranges are checked where the parameter is made, whatever set them)
        for key, arg, value in (('decay_rate_l1', 'l1_rate', l1_rate), ('decay_rate', 'l2_rate', l2_rate),
                                ('learning_rate', 'learning_rate', learning_rate), ('momentum', 'momentum', momentum)):
            if value is not None and not is_static:
                attr[key] = as_float(value, 'ParamAttr: %s' % arg)
        if name is not None:
            attr['parameter_name'] = name
        if as_bool(sparse_update, 'ParamAttr: sparse_update'):
            attr['sparse_update'] = True
            attr['sparse_remote_update'] = True
        if (gradient_clipping_threshold is not None and
                is_compatible_with(gradient_clipping_threshold, float)):
            attr['gradient_clipping_threshold'] = gradient_clipping_threshold
        if update_hooks:
            attr['update_hooks'] = update_hooks
        self.attr = attr

    def set_default_parameter_name(self, name):
        """Names the parameter ``name`` unless the user already named it (the layer
        helpers call this with the name they generate).

        Args:
            name (str): the name to use when none was given.
        """
        if 'parameter_name' not in self.attr:
            self.attr['parameter_name'] = name

    @staticmethod
    def to_bias(bias_attr):
        """Turns a layer's ``bias_attr`` argument into the parser's bias setting.

        Args:
            bias_attr (ParamAttr, bool or None): True: v1's default bias, initialised
                to zero; a ParamAttr: a bias with those attributes; False or None: no
                bias.

        Returns:
            Bias or False: what the parser's Layer(bias=...) takes.
        """
        if bias_attr is True:  # v1's default bias: zero-initialised
            bias_attr = ParameterAttribute(initial_std=0., initial_mean=0.)
        if isinstance(bias_attr, ParameterAttribute):
            return Bias(**bias_attr.attr)
        if bias_attr is None or bias_attr is False:
            return False
        raise ConfigError('bias_attr must be a ParamAttr(...), True or False, got %r' % (bias_attr, ))

    def __repr__(self):
        return 'ParamAttr(%r)' % (self.attr, )


class ExtraLayerAttribute(object):
    """Extra attributes of a layer (alias ExtraAttr), the ``layer_attr=`` of the
    layer helpers.

    Args:
        error_clipping_threshold (float >= 0, optional): v1 clipped the gradient
            flowing back into the layer's output to [-t, t]; recorded in the
            LayerConfig, this engine does not clip it.
        drop_rate (float in [0, 1[, optional): dropout on the layer's output, v1
            style (not inverted): in training each output is zeroed with
            probability drop_rate, in testing outputs are scaled by 1 - drop_rate.
        device (int, optional): v1's device id for model parallelism; recorded,
            this engine places all layers together (non-int values are ignored).
        precision (str, optional): not in v1: ``'fp32'`` keeps this layer's matrix
            products in fp32 when ``settings(precision='bf16')`` (or ``--precision=bf16``)
            runs the others in bf16.
        recompute_checkpoint (bool, optional): not in v1: a checkpoint of recomputation:
            training keeps this layer's output, and the layers between two checkpoints
            are freed after the forward and recomputed in backward (marking layers turns
            recomputation on; see ``settings(recompute=...)``).

    Raises:
        ConfigError: a negative threshold, a drop_rate outside [0, 1[ or a precision
            other than ``'fp32'``.

    Example:
        >>> def net():
        ...     x = data_layer(name='x', size=4)
        ...     outputs(fc_layer(input=x, size=8, name='h', layer_attr=ExtraAttr(drop_rate=0.5)))
        >>> parse_network_config(net).layers[1].drop_rate
        0.5
        >>> def mixed():
        ...     x = data_layer(name='x', size=4)
        ...     outputs(fc_layer(input=x, size=8, name='h', layer_attr=ExtraAttr(precision='fp32')))
        >>> parse_network_config(mixed).layers[1].precision
        'fp32'
        >>> def marked():
        ...     x = data_layer(name='x', size=4)
        ...     h = fc_layer(input=x, size=8, layer_attr=ExtraAttr(recompute_checkpoint=True))
        ...     outputs(fc_layer(input=h, size=2))
        >>> model = parse_network_config(marked)
        >>> model.layers[1].recompute_checkpoint, model.recompute
        (True, 'marked')
    """

    def __init__(self,
                 error_clipping_threshold=None,
                 drop_rate=None,
                 device=None,
                 precision=None,
                 recompute_checkpoint=None):
        self.attr = dict()
        if error_clipping_threshold is not None:
            error_clipping_threshold = float(error_clipping_threshold)
            if error_clipping_threshold < 0:
                raise ConfigError('ExtraAttr: error_clipping_threshold must '
                                  'be >= 0, got %s' % error_clipping_threshold)
            self.attr['error_clipping_threshold'] = error_clipping_threshold
        if drop_rate is not None:
            drop_rate = float(drop_rate)
            if not 0 <= drop_rate < 1:
                raise ConfigError('ExtraAttr: drop_rate must be in [0, 1), '
                                  'got %s' % drop_rate)
            self.attr['drop_rate'] = drop_rate
        if isinstance(device, int) and not isinstance(device, bool):
            self.attr['device'] = device
        if precision is not None:
            if precision != 'fp32':
                raise ConfigError("ExtraAttr: precision may only be 'fp32' (keeping the layer "
                                  "out of bf16), got %r" % (precision, ))
            self.attr['precision'] = precision
        if recompute_checkpoint:
            self.attr['recompute_checkpoint'] = True

    def check(self, layer_name, supported=None):
        """Raises ConfigError if this carries an attribute the layer does not support.

        Args:
            layer_name (str): the layer (or helper) named in the error.
            supported (list of str, optional): the attribute names allowed
                (``'drop_rate'``, ...); None allows all.
        """
        if supported is None:
            return
        for key in self.attr:
            if key not in supported and key != 'recompute_checkpoint':  # the engine's, any layer's
                raise ConfigError('%s does not support layer_attr %s' %
                                  (layer_name, key))

    @staticmethod
    def to_kwargs(attr):
        """The parser Layer(...) keyword arguments of a ``layer_attr`` value.

        Args:
            attr (ExtraAttr or None): the layer_attr a helper received.

        Returns:
            dict: e.g. ``{'drop_rate': 0.5}`` (empty for None).

        Raises:
            ConfigError: attr is not an ExtraAttr.
        """
        if attr is None:
            return dict()
        if not isinstance(attr, ExtraLayerAttribute):
            raise ConfigError('layer_attr must be an ExtraAttr(...), got %s' %
                              type(attr).__name__)
        return dict(attr.attr)


HookAttr = HookAttribute
ParamAttr = ParameterAttribute
ExtraAttr = ExtraLayerAttribute
