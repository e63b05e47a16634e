"""The v1 raw config API and the parser that runs a Python trainer config.

This package is the bottom of the config stack: it imports only `paddle.proto`.
The v1 config language (`paddle.trainer_config_helpers`) and the YAML front end
(`paddle.yaml_config`) build on it, and `paddle.trainer.config_parser` (v1's module,
whose `parse_config` also reads YAML configs) sits on top of all three.

Modules by family: errors, registry (config_func/config_layer, default settings),
state (ParseState: each parse's own, current per thread), submodels, image (sub-config geometry),
inputs (Input, Bias, projections, operators), data, evaluators, parameters,
layer_base (LayerBase, Layer()), layers_basic/elementwise/cost/sequence/recurrent/
utility/image (one per engine family), recurrent_group, training_settings, execute
(parse_python_config and the config environment).
"""
from paddle.proto.DataConfig_pb2 import DataConfig  # noqa: F401  (v1's star import)
from paddle.proto.ModelConfig_pb2 import (  # noqa: F401
    ModelConfig, LayerConfig, LayerInputConfig, ProjectionConfig, OperatorConfig, GeneratorConfig,
    LinkConfig, MemoryConfig, ImageConfig)
from paddle.proto.ParameterConfig_pb2 import ParameterConfig, ParameterUpdaterHookConfig  # noqa: F401
from paddle.proto.TrainerConfig_pb2 import TrainerConfig  # noqa: F401

from .errors import *  # noqa: F401,F403
from .registry import *  # noqa: F401,F403
from .registry import _parse_config_hooks  # noqa: F401
from .state import (ParseState, state, current_state, V1_GLOBALS, v1_global,  # noqa: F401
                    init_config_environment, config_warning)
from .submodels import *  # noqa: F401,F403
from .image import *  # noqa: F401,F403
from .inputs import *  # noqa: F401,F403
from .data import *  # noqa: F401,F403
from .evaluators import *  # noqa: F401,F403
from .parameters import *  # noqa: F401,F403
from .layer_base import *  # noqa: F401,F403
from .layers_basic import *  # noqa: F401,F403
from .layers_elementwise import *  # noqa: F401,F403
from .layers_cost import *  # noqa: F401,F403
from .recurrent_group import *  # noqa: F401,F403
from .layers_sequence import *  # noqa: F401,F403
from .layers_recurrent import *  # noqa: F401,F403
from .layers_utility import *  # noqa: F401,F403
from .layers_prelu import *  # noqa: F401,F403
from .layers_image import *  # noqa: F401,F403
from .training_settings import *  # noqa: F401,F403
from .execute import *  # noqa: F401,F403
from .execute import _init_state


def __getattr__(name):
    return v1_global(__name__, name)


# importing the parser gives a usable (empty) environment: the state read where no parse began
_init_state()
