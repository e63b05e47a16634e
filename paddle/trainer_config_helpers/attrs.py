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
    """Parameter update hook, e.g. HookAttr('pruning', mask_filename=...)."""

    def __init__(self, type, mask_filename=None):
        self.type = type
        self.mask_filename = mask_filename

    def __call__(self):
        return ParameterHook(self.type, mask_filename=self.mask_filename)


class ParameterAttribute(object):
    """Attributes of a parameter (weight or bias).

    All four initial_* None -> smart init (mean 0, std 1/sqrt(dims[0]));
    initial_std/initial_mean -> Gaussian; initial_max/initial_min -> uniform.
    l1_rate/l2_rate -> decay_rate_l1/decay_rate; name -> shared parameter.
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
        if 'parameter_name' not in self.attr:
            self.attr['parameter_name'] = name

    @staticmethod
    def to_bias(bias_attr):
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
    """Layer attributes: error_clipping_threshold, drop_rate, device."""

    def __init__(self,
                 error_clipping_threshold=None,
                 drop_rate=None,
                 device=None):
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

    def check(self, layer_name, supported=None):
        if supported is None:
            return
        for key in self.attr:
            if key not in supported:
                raise ConfigError('%s does not support layer_attr %s' %
                                  (layer_name, key))

    @staticmethod
    def to_kwargs(attr):
        if attr is None:
            return dict()
        if not isinstance(attr, ExtraLayerAttribute):
            raise ConfigError('layer_attr must be an ExtraAttr(...), got %s' %
                              type(attr).__name__)
        return dict(attr.attr)


HookAttr = HookAttribute
ParamAttr = ParameterAttribute
ExtraAttr = ExtraLayerAttribute
