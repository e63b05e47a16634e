"""Parameter(), ParameterHook and the default_* setters of initialisation and update."""

import math

from paddle.proto.ParameterConfig_pb2 import ParameterUpdaterHookConfig

from .errors import ConfigError, as_bool, as_float, as_int, config_assert
from .registry import config_func, default
from .state import state


def check_parameter_name(name):
    """Parameter names become file names in every saved pass directory."""
    if (not isinstance(name, str) or not name or name.startswith('.') or len(name) > 200
            or any(c in '/\\' or ord(c) < 32 for c in name)):
        raise ConfigError('parameter name %r is not allowed: parameters are saved as files named after them, so a '
                          'name has at most 200 characters, no slash, backslash or control character, and does '
                          'not start with a dot' % (name, ))


@config_func
def Parameter(name,
              size,
              device,
              dims,
              learning_rate=None,
              momentum=None,
              decay_rate=None,
              decay_rate_l1=None,
              initial_mean=None,
              initial_std=None,
              initial_strategy=None,
              initial_smart=None,
              num_batches_regularization=None,
              sparse_remote_update=None,
              sparse_update=None,
              gradient_clipping_threshold=None,
              sparse=None,
              format=None,
              need_compact=None,
              is_static=None,
              is_shared=None,
              update_hooks=None,
              initializer=None):
    check_parameter_name(name)
    config_assert(name not in state.parameter_map,
                  "duplicate parameter name '%s'" % name)
    what = "parameter '" + name + "': %s"
    para = state.config.model_config.parameters.add()
    para.name = name
    para.size = as_int(size, "size of parameter '%s'" % name)
    if device is not None:
        para.device = int(device)
    para.dims.extend([as_int(d, 'parameter dims') for d in dims])
    if learning_rate is not None:
        para.learning_rate = as_float(learning_rate, what % 'learning_rate', low=0)
    momentum = default(momentum, state.default_momentum)
    if momentum is not None:
        para.momentum = as_float(momentum, what % 'momentum', low=0, high=1)
    config_assert(not momentum or not decay_rate_l1,
                  "parameter '%s': momentum and decay_rate_l1 (l1_rate) "
                  "cannot both be non-zero" % name)
    decay_rate = default(decay_rate, state.default_decay_rate)
    if decay_rate is not None:
        para.decay_rate = as_float(decay_rate, what % 'decay_rate (l2_rate)', low=0)
    if decay_rate_l1 is not None:
        para.decay_rate_l1 = as_float(decay_rate_l1, what % 'decay_rate_l1 (l1_rate)', low=0)
    para.initial_std = as_float(default(initial_std, state.default_initial_std), what % 'initial_std', low=0)
    para.initial_mean = as_float(default(initial_mean, state.default_initial_mean), what % 'initial_mean')
    num_batches_regularization = default(num_batches_regularization,
                                         state.default_num_batches_regularization)
    if num_batches_regularization is not None:
        para.num_batches_regularization = int(num_batches_regularization)
    if sparse_remote_update is not None:
        para.sparse_remote_update = sparse_remote_update
        if sparse_remote_update:
            state.config.opt_config.use_sparse_remote_updater = True
    if sparse_update is not None:
        para.sparse_update = as_bool(sparse_update, what % 'sparse_update')
    gradient_clipping_threshold = default(
        gradient_clipping_threshold, state.default_gradient_clipping_threshold)
    if gradient_clipping_threshold is not None:
        para.gradient_clipping_threshold = as_float(
            gradient_clipping_threshold, what % 'gradient_clipping_threshold', low=0)
    para.initial_strategy = default(initial_strategy,
                                    state.default_initial_strategy)
    para.initial_smart = default(initial_smart, state.default_initial_smart)
    if para.initial_smart:
        para.initial_mean = 0.
        if len(para.dims) != 0:
            para.initial_std = 1. / math.sqrt(para.dims[0])
        else:
            para.initial_std = 1. / math.sqrt(para.size)
    if state.default_compact_func is not None:
        sparse, format, need_compact = state.default_compact_func(para.name)
    if sparse is not None:
        para.is_sparse = sparse
    if format is not None:
        para.format = format
    if need_compact is not None:
        para.need_compact = need_compact
    if is_static is not None:
        para.is_static = as_bool(is_static, what % 'is_static')
    config_assert(not para.sparse_remote_update or not para.is_static,
                  "parameter '%s': sparse_remote_update and is_static cannot "
                  "both be true" % name)
    if is_shared is not None:
        para.is_shared = is_shared
    update_hooks = default(update_hooks, state.default_update_hooks)
    if update_hooks is not None:
        if callable(update_hooks):
            update_hooks = update_hooks()
        if not isinstance(update_hooks, (list, tuple)):
            update_hooks = [update_hooks]
        for hook in update_hooks:
            para.update_hooks.add().CopyFrom(hook)
    state.parameter_map[name] = para
    return para


@config_func
def ParameterHook(type, **kwargs):
    if type == 'pruning':
        hook = ParameterUpdaterHookConfig()
        hook.type = type
        mask_filename = kwargs.get('mask_filename', None)
        if mask_filename is not None:
            hook.purning_mask_filename = mask_filename
        return hook
    return None


@config_func
def default_initial_std(val):
    state.default_initial_std = as_float(val, 'default_initial_std', low=0)


@config_func
def default_initial_mean(val):
    state.default_initial_mean = as_float(val, 'default_initial_mean')


@config_func
def default_initial_strategy(val):
    state.default_initial_strategy = val


@config_func
def default_initial_smart(val):
    state.default_initial_smart = val


@config_func
def default_momentum(val):
    state.default_momentum = as_float(val, 'default_momentum', low=0, high=1)


@config_func
def default_decay_rate(val):
    state.default_decay_rate = as_float(val, 'default_decay_rate (L2 regularization)', low=0)


@config_func
def default_num_batches_regularization(val):
    state.default_num_batches_regularization = val


@config_func
def default_gradient_clipping_threshold(val):
    state.default_gradient_clipping_threshold = as_float(val, 'default_gradient_clipping_threshold', low=0)


@config_func
def default_device(val):
    state.default_device = val


@config_func
def default_update_hooks(val):
    state.default_update_hooks = val


@config_func
def default_compact_func(val):
    state.default_compact_func = val
