"""Layer helpers of the v1 config language, one module per engine layer family.

Every helper creates one or more layers through the raw config API (paddle.parser)
and returns a LayerOutput (paddle.trainer_config_helpers.layer_output), which later
helpers take as input and outputs() walks to find data and cost layers.
"""
from .. import layer_output
from . import basic, costs, elementwise, groups, image, projections, recurrent, sequence, utility
from ..layer_output import *  # noqa: F401,F403
from .projections import *  # noqa: F401,F403
from .basic import *  # noqa: F401,F403
from .costs import *  # noqa: F401,F403
from .sequence import *  # noqa: F401,F403
from .elementwise import *  # noqa: F401,F403
from .recurrent import *  # noqa: F401,F403
from .groups import *  # noqa: F401,F403
from .image import *  # noqa: F401,F403
from .utility import *  # noqa: F401,F403

# Names the old single-module `layers` also exposed (v1's layers.py star-imported these).
import paddle.parser as cp  # noqa: F401,E402
from paddle.parser import (  # noqa: F401,E402
    Bias, ConfigError, HasInputsSet, Input, Inputs, Layer, Outputs, as_float, as_int, config_assert,
    g_config_funcs)
from ..activations import (  # noqa: F401,E402
    BaseActivation, IdentityActivation, LinearActivation, ReluActivation, SequenceSoftmaxActivation,
    SigmoidActivation, SoftmaxActivation, TanhActivation)
from ..attrs import ExtraAttr, ExtraLayerAttribute, ParamAttr, ParameterAttribute  # noqa: F401,E402
from ..default_decorators import (  # noqa: F401,E402
    wrap_act_default, wrap_bias_attr_default, wrap_name_default, wrap_param_attr_default,
    wrap_param_default)
from ..poolings import (  # noqa: F401,E402
    AvgPooling, BasePoolingType, CudnnAvgPooling, CudnnMaxPooling, MaxPooling, SquareRootNPooling,
    SumPooling)

__all__ = sum((m.__all__ for m in (layer_output, projections, basic, costs, sequence, elementwise, recurrent,
                                   groups, image, utility)), [])
