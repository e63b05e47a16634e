"""YAML front end of the v1 config language.

A YAML trainer config names the same helpers a Python config calls and
builds the identical TrainerConfig; see docs/yaml_configs.md.  Reached
through ``paddle.trainer.config_parser.parse_config`` for files ending in
.yaml / .yml (so ``paddle train --config=x.yaml`` and ``dump_config x.yaml``
work unchanged).
"""

from .builder import (EVALUATOR_TYPES, LAYER_TYPES, TOP_LEVEL_KEYS, build)
from .loader import load, load_string

__all__ = ['YAML_SUFFIXES', 'is_yaml_config', 'run_yaml_config', 'load',
           'load_string', 'LAYER_TYPES', 'EVALUATOR_TYPES', 'TOP_LEVEL_KEYS']

YAML_SUFFIXES = ('.yaml', '.yml')


def is_yaml_config(path):
    return isinstance(path, str) and path.lower().endswith(YAML_SUFFIXES)


def run_yaml_config(path, config_args):
    """Build the current parse's config from the YAML file `path`.

    Called by parse_config between begin_parse() and update_g_config();
    `config_args` is the {name: string} dict from --config_args."""
    build(load(path), path, config_args)
