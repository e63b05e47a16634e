"""The PaddlePaddle v1 trainer config language.

    from paddle.trainer_config_helpers import *
"""

from .activations import *
from .attrs import *
from .data_sources import *
from .default_decorators import *
from .evaluators import *
from .layers import *
from .networks import *
from .optimizers import *
from .poolings import *

from . import activations, attrs, data_sources, default_decorators, \
    evaluators, layers, networks, optimizers, poolings

__all__ = (activations.__all__ + attrs.__all__ + data_sources.__all__ +
           default_decorators.__all__ + evaluators.__all__ + layers.__all__ +
           networks.__all__ + optimizers.__all__ + poolings.__all__)
