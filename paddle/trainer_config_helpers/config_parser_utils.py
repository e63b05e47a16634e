"""v0.10's config_parser_utils: parse the network part and the optimizer
part of a config separately (each given as a callable that uses the config
helpers, or a config file path)::

    from paddle.trainer_config_helpers.config_parser_utils import \\
        parse_network_config, parse_optimizer_config
    model_config = parse_network_config(network)       # ModelConfig
    opt_config = parse_optimizer_config(optimizer)     # OptimizationConfig
"""

import paddle.parser as config_parser

__all__ = [
    'parse_trainer_config', 'parse_network_config', 'parse_optimizer_config',
    'reset_parser'
]


def parse_trainer_config(trainer_conf, config_arg_str=''):
    """Parses a whole trainer config and returns its TrainerConfig message.

    Runs the config the way ``paddle train --config=...`` does: from a fresh, empty
    parser state, with ``config_arg_str`` available to get_config_arg(). Layers,
    settings(), data sources, evaluators, inputs()/outputs() all land in the one
    message (model_config, opt_config, data_config / test_data_config, ...).

    Args:
        trainer_conf (str or callable): the path of a config file, or a function
            (taking no arguments) whose body is the config; the function's globals
            get the config environment (get_config_arg, xrange, ...).
        config_arg_str (str, default ''): ``'name=value,name=value'`` config
            arguments, what ``--config_args`` passes.

    Returns:
        TrainerConfig: the protobuf message.

    Raises:
        ConfigError: a mistake in the config, reported as ``FILE:LINE: message``.

    Example:
        >>> def conf():
        ...     settings(batch_size=get_config_arg('bs', int, 8))
        ...     outputs(fc_layer(input=data_layer(name='x', size=3), size=2))
        >>> cfg = parse_trainer_config(conf, 'bs=64')
        >>> cfg.opt_config.batch_size, list(cfg.model_config.input_layer_names)
        (64, ['x'])
    """
    return config_parser.parse_config(trainer_conf, config_arg_str)


def parse_network_config(network_conf, config_arg_str=''):
    """Parses a config and returns only its network: the ModelConfig message.

    Same as ``parse_trainer_config(network_conf, config_arg_str).model_config``: the
    layers, parameters, sub-models, input and output layer names.

    Args:
        network_conf (str or callable): a config file path, or a function whose body
            builds layers and ends with outputs(...).
        config_arg_str (str, default ''): ``'name=value,...'`` config arguments.

    Returns:
        ModelConfig: the protobuf message.

    Example:
        >>> def net():
        ...     x = data_layer(name='x', size=3)
        ...     outputs(fc_layer(input=x, size=2, name='out'))
        >>> model = parse_network_config(net)
        >>> [l.name for l in model.layers], list(model.output_layer_names)
        (['x', 'out'], ['out'])
    """
    return config_parser.parse_config(network_conf,
                                      config_arg_str).model_config


def parse_optimizer_config(optimizer_conf, config_arg_str=''):
    """Parses a config and returns only its optimization part: the OptimizationConfig.

    Same as ``parse_trainer_config(optimizer_conf, config_arg_str).opt_config``: what
    settings() recorded (batch size, learning rate and schedule, learning method and
    its constants, model averaging, ...).

    Args:
        optimizer_conf (str or callable): a config file path, or a function whose body
            calls settings(...).
        config_arg_str (str, default ''): ``'name=value,...'`` config arguments.

    Returns:
        OptimizationConfig: the protobuf message.

    Example:
        >>> opt = parse_optimizer_config(lambda: settings(batch_size=10, learning_rate=0.1))
        >>> opt.batch_size, round(opt.learning_rate, 6), opt.learning_method
        (10, 0.1, 'momentum')
    """
    return config_parser.parse_config(optimizer_conf,
                                      config_arg_str).opt_config


def reset_parser():
    """Resets the parser to an empty config.

    Config-language calls made afterwards (outside parse_*) build a new config from
    scratch; the parse_* functions reset by themselves, so a caller only needs this
    when driving the helpers directly.

    Example:
        >>> _ = data_layer(name='x', size=3)
        >>> reset_parser()
        >>> data_layer(name='x', size=3).name    # no clash with the forgotten 'x'
        'x'
    """
    config_parser.begin_parse()
