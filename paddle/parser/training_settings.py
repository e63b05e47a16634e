"""Settings(): optimisation and trainer settings, and their transfer into the
TrainerConfig at the end of a parse."""

from .errors import ConfigError, config_assert
from .registry import config_func
from .state import state


@config_func
def Settings(**args):
    for k, v in args.items():
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
