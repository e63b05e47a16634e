"""What the config language knows, independent of any parse: the raw API functions and
classes (config_func), layer types (config_layer), parse hooks and v1's default settings."""


g_config_funcs = {}
g_layer_type_map = {}
_parse_config_hooks = []

DEFAULT_SETTING = dict(
    batch_size=None,
    mini_batch_size=None,
    algorithm='async_sgd',
    async_lagged_grad_discard_ratio=1.5,
    learning_method='momentum',
    num_batches_per_send_parameter=None,
    num_batches_per_get_parameter=None,
    center_parameter_update_method=None,
    learning_rate=1.,
    learning_rate_decay_a=0.,
    learning_rate_decay_b=0.,
    learning_rate_schedule='poly',
    learning_rate_args='',
    l1weight=0.1,
    l2weight=0.,
    l2weight_zero_iter=0,
    c1=0.0001,
    backoff=0.5,
    owlqn_steps=10,
    max_backoff=5,
    average_window=0,
    do_average_in_cpu=False,
    max_average_window=None,
    ada_epsilon=1e-6,
    ada_rou=0.95,
    delta_add_rate=1.0,
    shrink_parameter_value=0,
    adam_beta1=0.9,
    adam_beta2=0.999,
    adam_epsilon=1e-8,
    gradient_clipping_norm=None,
    precision=None,
    initial_loss_scale=None,
    loss_scale_growth_interval=None,
    recompute=None, )

DEFAULT_TRAINER_SETTING = dict(
    save_dir="./output/model", init_model_path=None, start_pass=0)


def config_func(func):
    g_config_funcs[func.__name__] = func
    return func


def config_class(cls):
    g_config_funcs[cls.__name__] = cls
    return cls


def config_layer(layer_type):
    def wrap(cls):
        g_config_funcs[cls.__name__] = cls
        g_layer_type_map[layer_type] = cls
        return cls

    return wrap


def gen_parameter_name(layer_name, input_index):
    return '_%s.w%d' % (layer_name, input_index)


def gen_bias_parameter_name(layer_name):
    return '_%s.wbias' % layer_name


def default(x, default_value):
    return default_value if x is None else x


def register_parse_config_hook(f):
    """f() is called at the start of every parse (name counters reset)."""
    if f not in _parse_config_hooks:
        _parse_config_hooks.append(f)


class Cfg(object):
    def add_keys(self, kv):
        for k, v in kv.items():
            if not k.startswith('_') and k != 'self':
                setattr(self, k, v)
