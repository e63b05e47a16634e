"""LayerBase, the base of every layer class, and Layer(), the raw API's layer factory."""

import copy

from paddle.layer_specs import SPECS as LAYER_SPECS
from paddle.proto.ModelConfig_pb2 import LayerConfig

from .errors import ConfigError, _layer_ctx, as_float, as_int, config_assert, type_of
from .registry import config_func, g_layer_type_map, gen_bias_parameter_name, gen_parameter_name
from .state import _config_line, state
from .submodels import MakeLayerNameInSubmodel
from .inputs import Bias, Input, Operator
from .parameters import Parameter


# layers


class LayerBase(object):
    def __init__(self,
                 name,
                 type,
                 size,
                 inputs,
                 device=None,
                 active_type='',
                 drop_rate=0.,
                 coeff=None,
                 error_clipping_threshold=None,
                 precision=None,
                 recompute_checkpoint=None):
        config_assert(
            isinstance(name, str) and name,
            'layer name must be a non-empty string, got %r' % (name, ))
        config_assert('@' not in name,
                      "layer name '%s' must not contain '@'" % name)
        name = MakeLayerNameInSubmodel(name)
        config_assert(name not in state.layer_map,
                      "duplicate layer name '%s'" % name)
        self.inputs = copy.deepcopy(inputs)
        self.operators = []
        if self.inputs is None:
            self.inputs = []
        elif type_of(self.inputs) != list:
            self.inputs = [self.inputs]
        # the input-count rule lives in the type's spec (paddle/layer_specs)
        spec = LAYER_SPECS.get(type)
        if spec is not None:
            problem = spec.input_count_error(len(self.inputs))
            config_assert(problem is None, problem)

        self.config = LayerConfig()
        self.config.name = name
        self.config.type = type
        self.config.active_type = active_type if active_type else ''
        if coeff is not None:
            self.config.coeff = float(coeff)
        size = as_int(size or 0, 'size of layer %s' % name)
        if size != 0:
            self.config.size = size
        if drop_rate:
            self.config.drop_rate = as_float(drop_rate, 'drop_rate')
        if device is not None:
            self.config.device = device
        elif state.default_device is not None:
            self.config.device = state.default_device
        if error_clipping_threshold is not None:
            self.config.error_clipping_threshold = error_clipping_threshold
        if precision is not None:
            self.config.precision = precision
        if recompute_checkpoint:
            self.config.recompute_checkpoint = True

        for input_index in range(len(self.inputs)):
            inp = self.inputs[input_index]
            if isinstance(inp, str):
                input_config = Input(
                    input_layer_name=inp,
                    parameter_name=gen_parameter_name(name, input_index))
            elif isinstance(inp, Input):
                input_config = inp
                if input_config.parameter_name is None:
                    input_config.parameter_name = gen_parameter_name(
                        name, input_index)
            elif isinstance(inp, Operator):
                self.operators.append(inp)
                inp.operator_conf.input_indices.append(input_index)
                input_config = Input(
                    inp.input_layer_names[0], make_layer_name_in_submodel=False)
            else:
                raise ConfigError('wrong type for input %d: %s' %
                                  (input_index, type(inp).__name__))
            input_layer_name = input_config.input_layer_name
            config_assert(input_layer_name in state.layer_map,
                          "unknown input layer '%s'" % input_layer_name)
            self.inputs[input_index] = input_config
            layer_input = self.config.inputs.add()
            layer_input.input_layer_name = input_layer_name
            if input_config.input_layer_argument is not None:
                layer_input.input_layer_argument = \
                    input_config.input_layer_argument

        # v1 (v0.10 LayerBase): every layer but data and fc starts with its first input's
        # image height/width (image layers then set their own); the first
        # recurrent_layer_group stops this for the rest of the parse.
        if type == 'recurrent_layer_group':
            state.pass_height_width = False
        elif (state.pass_height_width and type not in ('data', 'fc') and
              len(self.config.inputs) > 0):
            first = state.layer_map[self.config.inputs[0].input_layer_name]
            if first.height and first.width:
                self.set_layer_height_width(first.height, first.width)

        # registered at the end of construction (see Layer())
        state.config.model_config.layers.add().CopyFrom(self.config)
        self.config = state.config.model_config.layers[-1]
        state.layer_map[name] = self.config
        state.layer_sites[name] = _config_line()  # lets engine errors name the config line
        state.layer_objs[name] = self
        state.current_submodel.layer_names.append(self.config.name)

    def get_input_layer(self, input_index):
        return state.layer_map[self.config.inputs[input_index].input_layer_name]

    def create_bias_parameter(self, bias, size, dims=None, for_self=True):
        if size == 0:
            return
        if dims is None:
            dims = [1, size]
        if bias is None:
            bias = False
        config_assert(
            isinstance(bias, (bool, Bias)),
            'bias must be True/False or a Bias(...), got %s' %
            type(bias).__name__)
        if isinstance(bias, bool):
            if not bias:
                return
            bias = Bias()
        if bias.parameter_name is None:
            bias.parameter_name = gen_bias_parameter_name(self.config.name)
        if bias.parameter_name not in state.parameter_map:
            Parameter(
                bias.parameter_name,
                size,
                self.config.device if self.config.HasField('device') else None,
                dims,
                bias.learning_rate,
                bias.momentum,
                decay_rate=bias.decay_rate,
                decay_rate_l1=bias.decay_rate_l1,
                initial_mean=bias.initial_mean,
                initial_std=bias.initial_std,
                initial_strategy=bias.initial_strategy,
                initial_smart=bias.initial_smart,
                num_batches_regularization=bias.num_batches_regularization,
                sparse_remote_update=bias.sparse_remote_update,
                gradient_clipping_threshold=bias.gradient_clipping_threshold,
                is_static=bias.is_static,
                is_shared=bias.is_shared)
        else:
            _check_shared(bias.parameter_name, size, dims)
        if for_self:
            self.config.bias_parameter_name = bias.parameter_name
        else:
            return bias.parameter_name

    def create_input_parameter(self,
                               input_index,
                               size,
                               dims=None,
                               sparse=None,
                               format=None):
        if dims is None:
            dims = []
        if size == 0:
            return
        input_config = self.inputs[input_index]
        self.config.inputs[input_index].input_parameter_name = \
            input_config.parameter_name
        if input_config.parameter_name in state.parameter_map:
            _check_shared(input_config.parameter_name, size, dims)
            return
        Parameter(
            input_config.parameter_name,
            size,
            self.config.device if self.config.HasField('device') else None,
            dims,
            input_config.learning_rate,
            input_config.momentum,
            decay_rate=input_config.decay_rate,
            decay_rate_l1=input_config.decay_rate_l1,
            initial_mean=input_config.initial_mean,
            initial_std=input_config.initial_std,
            initial_strategy=input_config.initial_strategy,
            initial_smart=input_config.initial_smart,
            num_batches_regularization=input_config.num_batches_regularization,
            sparse_remote_update=input_config.sparse_remote_update,
            sparse_update=input_config.sparse_update,
            gradient_clipping_threshold=input_config.
            gradient_clipping_threshold,
            sparse=sparse,
            format=format,
            is_static=input_config.is_static,
            is_shared=input_config.is_shared,
            update_hooks=input_config.update_hooks)

    def set_layer_size(self, size):
        if self.config.size == 0:
            self.config.size = size
        else:
            config_assert(
                self.config.size == size,
                'inputs give layer size %d, but the layer size is %d' %
                (size, self.config.size))

    def set_layer_height_width(self, height, width):
        self.config.height = height
        self.config.width = width

    def set_cnn_layer(self, input_layer_name, height, width, channels,
                      is_print=False):
        size = height * width * channels
        self.set_layer_size(size)
        self.set_layer_height_width(height, width)


def _check_shared(name, size, dims):
    para = state.parameter_map[name]
    config_assert(
        size == para.size,
        "shared parameter '%s' has size %d, but this use needs size %d" %
        (name, para.size, size))
    config_assert(
        list(dims) == list(para.dims),
        "shared parameter '%s' has dims %s, but this use needs dims %s" %
        (name, list(para.dims), list(dims)))


@config_func
def Layer(name, type, **xargs):
    """Create a layer of the given v1 type string (raw v1 API)."""
    cls = g_layer_type_map.get(type)
    config_assert(cls is not None, "layer '%s': unknown layer type '%s'" %
                  (name, type))
    try:
        return cls(name, **xargs)
    except ConfigError as e:
        if e.layer is None:
            e.layer = name
            e.msg = '%s: %s' % (_layer_ctx(name, type), e.msg)
            e.args = (e.msg, )
        raise
    except TypeError as e:
        # a wrong keyword reaching a layer class
        if not _is_call_signature_error(e):
            raise
        raise ConfigError('%s: %s' % (_layer_ctx(name, type), e), layer=name)


def _is_call_signature_error(e):
    s = str(e)
    return ('argument' in s and ('unexpected keyword' in s or 'missing' in s
                                 or 'positional' in s or 'multiple values'
                                 in s))
