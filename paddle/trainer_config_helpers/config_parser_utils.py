"""v0.10's config_parser_utils: parse the network part and the optimizer
part of a config separately (each given as a callable that uses the config
helpers, or a config file path).

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
    """The whole TrainerConfig of a config file or callable."""
    return config_parser.parse_config(trainer_conf, config_arg_str)


def parse_network_config(network_conf, config_arg_str=''):
    """The ModelConfig built by network_conf (layers ... outputs(...))."""
    return config_parser.parse_config(network_conf,
                                      config_arg_str).model_config


def parse_optimizer_config(optimizer_conf, config_arg_str=''):
    """The OptimizationConfig built by optimizer_conf (settings(...))."""
    return config_parser.parse_config(optimizer_conf,
                                      config_arg_str).opt_config


def reset_parser():
    """Start from an empty config (parse_* do this themselves)."""
    config_parser.begin_parse()
