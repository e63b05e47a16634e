"""v1's config parser module: runs a trainer config and builds a TrainerConfig.

Entry points:
    parse_config(config_file_or_callable, config_arg_str) -> TrainerConfig
    parse_config_and_serialize(config_file_or_callable, config_arg_str) -> bytes
    ConfigError: raised for every user error; str(e) is one line
        "<config file>:<line>: <message>" pointing at the user's config line.

The raw v1 API (Layer, Input, Bias, Parameter, Settings, TrainData, TestData, Inputs,
Outputs, Evaluator, the projection and operator classes, Memory, RecurrentLayerGroup*,
default_* ...) lives in the `paddle.parser` package and is re-exported here, so raw v1
configs (`from paddle.trainer.config_parser import *`) run unmodified. This module is the
top of the config stack: a `.yaml`/`.yml` config goes to the YAML front end, which is built
on the v1 config language, itself built on `paddle.parser`.
"""
from __future__ import print_function  # noqa: F401  (v1's star import exported it)

import copy  # noqa: F401  (v1's star import exported these modules)
import inspect  # noqa: F401
import logging  # noqa: F401
import math  # noqa: F401
import os  # noqa: F401
import sys
import traceback  # noqa: F401

import paddle.parser
from paddle.parser import *  # noqa: F401,F403
from paddle.parser import execute as _execute
from paddle.parser.state import V1_GLOBALS, v1_global

# v1's star import: the raw API, v1's g_* names and the stdlib modules v1's module
# imported; not the parser's own modules or its state object.
__all__ = sorted(set(n for n, v in vars(paddle.parser).items() if not n.startswith('_') and not (
    inspect.ismodule(v) and v.__name__.startswith('paddle.parser.')) and n not in (
    'ParseState', 'state', 'current_state', 'make_current', 'restore_state', 'V1_GLOBALS', 'v1_global'))
                 | set(V1_GLOBALS) | {'copy', 'inspect', 'logging', 'math', 'os', 'sys', 'traceback',
                                      'print_function'})


def __getattr__(name):
    return v1_global(__name__, name)


def _yaml_runner(path):
    if str(path).lower().endswith(('.yaml', '.yml')):
        from paddle.yaml_config import run_yaml_config
        return run_yaml_config
    return None


def parse_config(trainer_config, config_arg_str=''):
    """Run a trainer config (a Python or YAML file, or a callable) and return the
    TrainerConfig message. Raises ConfigError (one line, FILE:LINE: ...)."""
    runner = None if callable(trainer_config) else _yaml_runner(trainer_config)
    return _execute.parse_config(trainer_config, config_arg_str, runner)


def parse_config_and_serialize(trainer_config, config_arg_str=''):
    runner = None if callable(trainer_config) else _yaml_runner(trainer_config)
    return _execute.parse_config_and_serialize(trainer_config, config_arg_str, runner)


if __name__ == '__main__':
    try:
        print(str(parse_config(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else '')))
    except ConfigError as err:  # noqa: F405
        sys.stderr.write(str(err) + '\n')
        sys.exit(1)
