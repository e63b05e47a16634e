"""The PaddlePaddle v1 trainer config language.

    from paddle.trainer_config_helpers import *

exports the activations, attrs, data sources, evaluators, layers, networks,
optimizers and poolings, plus the module `layer_math` (layer_math.exp(x)
...; + - * on layers work without it).
"""

from .activations import *
from .attrs import *
from .config_parser_utils import *
from .data_sources import *
from .evaluators import *
from .layers import *
from .networks import *
from .optimizers import *
from .poolings import *

from . import activations, attrs, config_parser_utils, data_sources, default_decorators, \
    evaluators, layers, layer_math, networks, optimizers, poolings

__all__ = (activations.__all__ + attrs.__all__ + config_parser_utils.__all__ + data_sources.__all__ +
           evaluators.__all__ + layers.__all__ + networks.__all__ +
           optimizers.__all__ + poolings.__all__ + ['layer_math'])
