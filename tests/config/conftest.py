import os
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)


@pytest.fixture
def write_config(tmp_path):
    """write_config(text, name='conf.py') -> path of a config file."""

    def write(text, name='conf.py'):
        p = tmp_path / name
        p.write_text(textwrap.dedent(text).lstrip('\n'))
        return str(p)

    return write


@pytest.fixture
def parse(write_config):
    """parse(text, args='') -> TrainerConfig."""
    from paddle.trainer.config_parser import parse_config

    def run(text, args='', name='conf.py'):
        return parse_config(write_config(text, name), args)

    return run


HEADER = 'from paddle.trainer_config_helpers import *\n'
