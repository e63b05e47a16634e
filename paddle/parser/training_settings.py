"""Settings(): optimisation and trainer settings, and their transfer into the
TrainerConfig at the end of a parse."""

from .errors import ConfigError, as_float, as_int
from .registry import config_func
from .state import state


# What the engine accepts (trainer/Optimizers.cpp), checked here so that the error names
# the settings() line and `paddle dump_config` catches it too.
LEARNING_METHODS = ('momentum', 'torch_momentum', 'sparse_momentum', 'adagrad', 'adadelta', 'rmsprop',
                    'decayed_adagrad', 'adam', 'adamax')
PRECISIONS = ('fp32', 'bf16', 'fp16')  # OptimizationConfig.precision
RECOMPUTE_MODES = ('auto', 'marked', 'off')  # ModelConfig.recompute (or a list of checkpoints)
LEARNING_RATE_SCHEDULES = ('constant', 'poly', 'caffe_poly', 'exp', 'discexp', 'linear', 'manual', 'pass_manual')
_NON_NEGATIVE = ('learning_rate', 'learning_rate_decay_a', 'learning_rate_decay_b', 'l1weight', 'l2weight',
                 'average_window', 'delta_add_rate', 'async_lagged_grad_discard_ratio', 'c1', 'backoff',
                 'shrink_parameter_value')
_POSITIVE = ('ada_epsilon', 'adam_epsilon', 'gradient_clipping_norm', 'initial_loss_scale')
_UNIT_INTERVAL = ('ada_rou', )  # [0, 1]
_BETAS = ('adam_beta1', 'adam_beta2')  # [0, 1)
_POSITIVE_INTS = ('batch_size', 'mini_batch_size', 'max_average_window', 'num_batches_per_send_parameter',
                  'num_batches_per_get_parameter', 'owlqn_steps', 'max_backoff', 'loss_scale_growth_interval')


def check_setting(k, v):
    """Raises ConfigError for a value the trainer would fail on or compute nonsense with."""
    what = 'settings: %s' % k
    if v is None:
        return
    if k in _NON_NEGATIVE:
        as_float(v, what, low=0)
    elif k in _POSITIVE:
        as_float(v, what, low=0, low_open=True)
    elif k in _UNIT_INTERVAL:
        as_float(v, what, low=0, high=1)
    elif k in _BETAS:
        as_float(v, what, low=0, high=1, high_open=True)
    elif k in _POSITIVE_INTS:
        as_int(v, what, low=1)
    elif k == 'learning_method' and v not in LEARNING_METHODS:
        raise ConfigError("settings: unknown learning_method %r (known: %s)" % (v, ', '.join(LEARNING_METHODS)))
    elif k == 'precision' and v not in PRECISIONS:
        raise ConfigError("settings: precision must be one of %s, got %r" % (', '.join(PRECISIONS), v))
    elif k == 'recompute':
        _check_recompute(v)
    elif k == 'learning_rate_schedule' and v not in LEARNING_RATE_SCHEDULES:
        raise ConfigError("settings: unknown learning_rate_schedule %r (known: %s)" %
                          (v, ', '.join(LEARNING_RATE_SCHEDULES)))
    elif k == 'learning_rate_args' and v:
        for segment in str(v).split(','):
            bound, _, rate = segment.partition(':')
            try:
                float(bound), float(rate)
            except ValueError:
                raise ConfigError("settings: learning_rate_args segment %r is not 'bound:rate' "
                                  "(e.g. '1000:1.0,2000:0.5')" % segment)


def _check_recompute(v):
    if isinstance(v, bool) or v in RECOMPUTE_MODES:
        return
    if isinstance(v, (list, tuple)) and v and all(isinstance(n, str) and n for n in v):
        return
    raise ConfigError("settings: recompute must be True/False, one of %s or a non-empty list of "
                      "checkpoint layers, got %r" % (', '.join(RECOMPUTE_MODES), v))


def _apply_recompute(v):
    """settings(recompute=...) into the ModelConfig: its mode, and the named checkpoints marked
    (top-level layers only: a recurrent group's step runs whole)."""
    model = state.config.model_config
    marked = any(layer.recompute_checkpoint for layer in model.layers)
    if v is None:
        v = 'marked' if marked else 'off'
    if isinstance(v, (list, tuple)):
        inner = set()
        for sub in model.sub_models:
            if sub.name != 'root':
                inner.update(sub.layer_names)
        for name in v:
            if name not in state.layer_map:
                raise ConfigError("settings: recompute checkpoint '%s' is not a layer name" % name,
                                  *state.name_sites.get(name, (None, None)))
            if name in inner:
                raise ConfigError("settings: recompute checkpoint '%s' is a layer inside a recurrent "
                                  "group; checkpoints are layers of the top level" % name)
            state.layer_map[name].recompute_checkpoint = True
        v = 'marked'
    elif v is True:
        v = 'auto'
    elif v is False:
        v = 'off'
    if v != 'off':  # unset otherwise: the ModelConfig stays v1's
        model.recompute = v


@config_func
def Settings(**args):
    for k, v in args.items():
        check_setting(k, v)
        if k == 'usage_ratio':
            if state.config.HasField('data_config'):
                state.config.data_config.usage_ratio = v
            state.settings_deprecated[k] = v
        elif k in state.settings:
            state.settings[k] = v
        elif k in state.trainer_settings:
            state.trainer_settings[k] = v
        else:
            raise ConfigError("unknown setting '%s'; known settings: %s" %
                              (k, ', '.join(sorted(
                                  list(state.settings) + list(state.trainer_settings)))))


def update_g_config():
    for k, v in state.settings.items():
        if k == 'recompute':
            _apply_recompute(v)
            continue
        if v is None:
            continue
        try:
            setattr(state.config.opt_config, k, v)
        except (TypeError, ValueError):
            raise ConfigError('settings: %s=%r has the wrong type' % (k, v))
    for k, v in state.trainer_settings.items():
        if v is None:
            continue
        setattr(state.config, k, v)
    for name in state.config.model_config.input_layer_names:
        _check_named_layer(name, 'input')
        if state.layer_map[name].type not in ('data', 'data_trim'):
            raise ConfigError("input layer '%s' has type '%s', expected 'data'" %
                              (name, state.layer_map[name].type), *state.name_sites.get(name, (None, None)))
    for name in state.config.model_config.output_layer_names:
        _check_named_layer(name, 'output')
    if (len(state.config.model_config.layers) > 0 and
            len(state.config.model_config.output_layer_names) == 0):
        raise ConfigError('the config defines layers but no outputs: end '
                          'it with outputs(<cost or output layers>)')
    return state.config


def _check_named_layer(name, what):
    """A layer named by Inputs()/Outputs() exists by the end of the parse; the error points at
    the line that named it."""
    if name not in state.layer_map:
        raise ConfigError("%s '%s' is not a layer name" % (what, name), *state.name_sites.get(name, (None, None)))
