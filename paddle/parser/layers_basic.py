"""Data, fully connected, mixed, concat and addto layers (FullyConnectedLayer.cpp,
DataLayer.cpp, MixedLayer.cpp in the engine)."""

from paddle.layer_specs import spec

from .errors import config_assert
from .registry import config_func, config_layer, gen_parameter_name
from .state import config_warning, state
from .inputs import ConvProjection, Input, Projection
from .layer_base import LayerBase


@config_layer('data')
class DataLayer(LayerBase):
    def __init__(self, name, size, height=None, width=None, device=None):
        LayerBase.__init__(self, name, 'data', size, inputs=[], device=device)
        config_assert(self.config.size > 0,
                      'data layer size must be > 0, got %r' % (size, ))
        if height and width:
            self.set_layer_height_width(height, width)


@config_layer('fc')
class FCLayer(LayerBase):
    def __init__(self, name, size, inputs, bias=True,
                 error_clipping_threshold=None, **xargs):
        LayerBase.__init__(self, name, 'fc', size, inputs=inputs, **xargs)
        config_assert(self.config.size > 0,
                      'size must be > 0, got %r' % (size, ))
        for input_index in range(len(self.inputs)):
            input_layer = self.get_input_layer(input_index)
            psize = self.config.size * input_layer.size
            dims = [input_layer.size, self.config.size]
            fmt = self.inputs[input_index].format
            sparse = fmt == 'csr' or fmt == 'csc'
            if sparse:
                psize = self.inputs[input_index].nnz
            else:
                sparse = None
            self.create_input_parameter(input_index, psize, dims, sparse, fmt)
        self.create_bias_parameter(bias, self.config.size)
        if error_clipping_threshold is not None:
            self.config.error_clipping_threshold = error_clipping_threshold


_SELECTIVE_FC = spec('selective_fc').defaults  # shared with selective_fc_layer


@config_layer('selective_fc')
class SelectiveFCLayer(LayerBase):
    def __init__(self,
                 name,
                 size,
                 inputs,
                 bias=True,
                 selective_fc_pass_generation=_SELECTIVE_FC['pass_generation'],
                 has_selected_colums=_SELECTIVE_FC['has_selected_colums'],
                 selective_fc_full_mul_ratio=_SELECTIVE_FC['mul_ratio'],
                 selective_fc_parallel_plain_mul_thread_num=None,
                 **xargs):
        LayerBase.__init__(
            self, name, 'selective_fc', size, inputs=inputs, **xargs)
        self.config.selective_fc_pass_generation = selective_fc_pass_generation
        self.config.has_selected_colums = has_selected_colums
        self.config.selective_fc_full_mul_ratio = selective_fc_full_mul_ratio
        if selective_fc_parallel_plain_mul_thread_num is not None:
            self.config.selective_fc_parallel_plain_mul_thread_num = \
                selective_fc_parallel_plain_mul_thread_num
        input_num = len(self.inputs)
        if has_selected_colums:
            config_assert(
                input_num >= 2,
                'selective_fc with has_selected_colums needs the select '
                'input as its last input')
            input_num -= 1
        for input_index in range(input_num):
            input_layer = self.get_input_layer(input_index)
            psize = self.config.size * input_layer.size
            dims = [self.config.size, input_layer.size]
            fmt = self.inputs[input_index].format
            sparse = fmt == 'csr' or fmt == 'csc'
            if sparse:
                psize = self.inputs[input_index].nnz
            self.create_input_parameter(input_index, psize, dims, sparse, fmt)
        self.create_bias_parameter(bias, self.config.size)


# ---------------------------------------------------------------------------
# more layer types (mixed, sequence, recurrent, image, costs ...)


@config_layer('mixed')
class MixedLayer(LayerBase):
    def __init__(self, name, inputs, size=0, bias=True, **xargs):
        config_assert(inputs, 'a mixed layer needs at least one input')
        LayerBase.__init__(self, name, 'mixed', size, inputs=inputs, **xargs)
        operator_input_index = []
        for operator in self.operators:
            operator_conf = operator.operator_conf
            for i in range(1, len(operator.input_layer_names)):
                input_index = len(self.config.inputs)
                operator_conf.input_indices.append(input_index)
                input_config = Input(
                    operator.input_layer_names[i],
                    make_layer_name_in_submodel=False)
                config_assert(
                    input_config.input_layer_name in state.layer_map,
                    "unknown input layer '%s'" %
                    input_config.input_layer_name)
                self.inputs.append(input_config)
                layer_input = self.config.inputs.add()
                layer_input.input_layer_name = input_config.input_layer_name
            for input_index in operator_conf.input_indices:
                input_layer = self.get_input_layer(input_index)
                operator_conf.input_sizes.append(input_layer.size)
                operator_input_index.append(input_index)
            sz = operator.calc_output_size(operator_conf.input_sizes)
            if sz != 0:
                self.set_layer_size(sz)
        for input_index in range(len(self.inputs)):
            input_layer = self.get_input_layer(input_index)
            inp = self.inputs[input_index]
            if input_index not in operator_input_index:
                config_assert(
                    isinstance(inp, Projection),
                    'input %d (%s) must be a projection or an operator' %
                    (input_index, input_layer.name))
            if isinstance(inp, Projection):
                sz = inp.calc_output_size(input_layer)
                if sz != 0:
                    self.set_layer_size(sz)
        size = self.config.size
        config_assert(
            size != 0, 'the layer size cannot be inferred from the inputs; '
            'give size=')
        for input_index in range(len(self.inputs)):
            inp = self.inputs[input_index]
            if isinstance(inp, Projection):
                input_layer = self.get_input_layer(input_index)
                inp.proj_conf.input_size = input_layer.size
                inp.proj_conf.output_size = size
                input_config = self.config.inputs[input_index]
                input_config.proj_conf.CopyFrom(inp.proj_conf)
                input_config.proj_conf.name = gen_parameter_name(
                    name, input_index)
                psize = inp.calc_parameter_size(input_layer.size, size)
                dims = inp.calc_parameter_dims(input_layer.size, size)
                self.create_input_parameter(input_index, psize, dims)
        for operator in self.operators:
            operator_conf = operator.operator_conf
            operator_conf.output_size = self.config.size
            operator.check_dims()
            self.config.operator_confs.add().CopyFrom(operator_conf)
        psize = self.config.size
        if isinstance(self.inputs[0], ConvProjection):
            self.config.shared_biases = True
            psize = 0
            for inp in self.inputs:
                psize += inp.calc_bias_size()
        if bias:
            self.config.bias_size = psize
            self.create_bias_parameter(bias, psize)


@config_func
def ExpressionLayer(name, inputs, **xargs):
    MixedLayer(name, inputs, bias=False, **xargs)


@config_layer('concat')
class ConcatenateLayer(LayerBase):
    def __init__(self, name, inputs, bias=False, **xargs):
        config_assert(inputs, 'a concat layer needs at least one input')
        config_assert(not bias, 'a concat layer of layers has no bias')
        LayerBase.__init__(self, name, 'concat', 0, inputs=inputs, **xargs)
        size = 0
        for input_index in range(len(self.inputs)):
            size += self.get_input_layer(input_index).size
        self.set_layer_size(size)


@config_layer('concat2')
class ConcatenateLayer2(LayerBase):
    def __init__(self, name, inputs, bias=False, **xargs):
        config_assert(inputs, 'a concat layer needs at least one input')
        LayerBase.__init__(self, name, 'concat2', 0, inputs=inputs, **xargs)
        if isinstance(self.inputs[0], ConvProjection):
            for inp in self.inputs[1:]:
                config_assert(
                    isinstance(inp, ConvProjection),
                    'all inputs must be conv projections when the first is')
        size = 0
        for input_index in range(len(self.inputs)):
            inp = self.inputs[input_index]
            config_assert(
                isinstance(inp, Projection),
                'concat of projections: input %d is not a projection' %
                input_index)
            output_size = inp.calc_output_size(
                self.get_input_layer(input_index))
            config_assert(
                output_size != 0,
                'projection %d needs a size' % input_index)
            size += output_size
        self.set_layer_size(size)
        for input_index in range(len(self.inputs)):
            input_layer = self.get_input_layer(input_index)
            inp = self.inputs[input_index]
            inp.proj_conf.input_size = input_layer.size
            inp.proj_conf.output_size = inp.calc_output_size(input_layer)
            input_config = self.config.inputs[input_index]
            input_config.proj_conf.CopyFrom(inp.proj_conf)
            input_config.proj_conf.name = gen_parameter_name(name, input_index)
            psize = inp.calc_parameter_size(inp.proj_conf.input_size,
                                            inp.proj_conf.output_size)
            dims = inp.calc_parameter_dims(inp.proj_conf.input_size,
                                           inp.proj_conf.output_size)
            self.create_input_parameter(input_index, psize, dims)
        psize = self.config.size
        if isinstance(self.inputs[0], ConvProjection):
            self.config.shared_biases = True
            psize = 0
            for inp in self.inputs:
                psize += inp.calc_bias_size()
        if bias:
            self.config.bias_size = psize
            self.create_bias_parameter(bias, psize)


@config_layer('addto')
class AddToLayer(LayerBase):
    def __init__(self, name, inputs, bias=True, **xargs):
        LayerBase.__init__(self, name, 'addto', 0, inputs=inputs, **xargs)
        first = self.get_input_layer(0)
        for i in range(1, len(self.inputs)):
            other = self.get_input_layer(i)
            if other.size != first.size:
                # v1 parsed this (and failed when it ran); the engine refuses it at build
                config_warning(
                    "input '%s' has size %d but input '%s' has size %d; the "
                    "engine needs equal sizes" % (other.name, other.size,
                                                  first.name, first.size),
                    layer=self.config.name)
        self.set_layer_size(first.size)  # height/width: LayerBase, as in v0.10
        self.create_bias_parameter(bias, self.config.size)
