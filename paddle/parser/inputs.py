"""Layer inputs: Input, Bias and the projection and operator classes of mixed layers."""

from paddle.proto.ModelConfig_pb2 import OperatorConfig, ProjectionConfig

from .errors import as_float, as_int, config_assert
from .registry import Cfg, config_class
from .submodels import MakeLayerNameInSubmodel
from .image import parse_conv


# Input / Bias / projections / operators


_PARAM_KEYS = ('parameter_name', 'learning_rate', 'momentum', 'decay_rate',
               'decay_rate_l1', 'initial_mean', 'initial_std',
               'initial_strategy', 'initial_smart',
               'num_batches_regularization', 'sparse_remote_update',
               'sparse_update', 'gradient_clipping_threshold', 'is_static',
               'is_shared', 'update_hooks', 'format', 'nnz', 'initializer')


@config_class
class Bias(Cfg):
    def __init__(self,
                 parameter_name=None,
                 learning_rate=None,
                 momentum=None,
                 decay_rate=None,
                 decay_rate_l1=None,
                 initial_mean=None,
                 initial_std=None,
                 initial_strategy=None,
                 initial_smart=None,
                 num_batches_regularization=None,
                 sparse_remote_update=None,
                 gradient_clipping_threshold=None,
                 is_static=None,
                 is_shared=None,
                 initializer=None):
        self.add_keys(locals())


@config_class
class Input(Cfg):
    """One input of a layer: the input layer's name plus the attributes of
    the weight connecting it (parameter name, init, learning rate ...)."""

    def __init__(self,
                 input_layer_name,
                 parameter_name=None,
                 initializer=None,
                 learning_rate=None,
                 momentum=None,
                 decay_rate=None,
                 decay_rate_l1=None,
                 initial_mean=None,
                 initial_std=None,
                 initial_strategy=None,
                 initial_smart=None,
                 num_batches_regularization=None,
                 sparse_remote_update=None,
                 sparse_update=None,
                 gradient_clipping_threshold=None,
                 conv=None,
                 bilinear_interp=None,
                 norm=None,
                 pool=None,
                 image=None,
                 block_expand=None,
                 maxout=None,
                 spp=None,
                 pad=None,
                 priorbox=None,
                 format=None,
                 nnz=None,
                 is_static=None,
                 is_shared=None,
                 update_hooks=None,
                 input_layer_argument=None,
                 make_layer_name_in_submodel=True):
        self.add_keys(locals())
        config_assert(
            isinstance(input_layer_name, str),
            'an input must be a layer name, got %r' % (input_layer_name, ))
        self.input_layer_name = MakeLayerNameInSubmodel(
            input_layer_name
        ) if make_layer_name_in_submodel else input_layer_name


@config_class
class Projection(Input):
    type = None

    def __init__(self,
                 input_layer_name,
                 size=0,
                 parameter_name=None,
                 learning_rate=None,
                 momentum=None,
                 decay_rate=None,
                 decay_rate_l1=None,
                 initial_mean=None,
                 initial_std=None,
                 initial_strategy=None,
                 initial_smart=None,
                 initializer=None,
                 num_batches_regularization=None,
                 sparse_remote_update=None,
                 sparse_update=None,
                 gradient_clipping_threshold=None,
                 ptype=None,
                 format=None,
                 nnz=None,
                 is_static=None,
                 is_shared=None,
                 update_hooks=None,
                 input_layer_argument=None):
        Input.__init__(
            self,
            input_layer_name,
            parameter_name=parameter_name,
            initializer=initializer,
            learning_rate=learning_rate,
            momentum=momentum,
            decay_rate=decay_rate,
            decay_rate_l1=decay_rate_l1,
            initial_mean=initial_mean,
            initial_std=initial_std,
            initial_strategy=initial_strategy,
            initial_smart=initial_smart,
            num_batches_regularization=num_batches_regularization,
            sparse_remote_update=sparse_remote_update,
            sparse_update=sparse_update,
            gradient_clipping_threshold=gradient_clipping_threshold,
            format=format,
            nnz=nnz,
            is_static=is_static,
            is_shared=is_shared,
            update_hooks=update_hooks,
            input_layer_argument=input_layer_argument)
        self.size = as_int(size or 0, 'projection size')
        self.proj_conf = ProjectionConfig()
        self.proj_conf.type = ptype if ptype is not None else self.type

    def calc_output_size(self, input_layer_config):
        return self.size

    # Projections without a weight keep these; the others say their shape.
    def calc_parameter_size(self, input_size, output_size):
        return 0

    def calc_parameter_dims(self, input_size, output_size):
        return []


@config_class
class IdentityProjection(Projection):
    type = 'identity'

    def calc_output_size(self, input_layer_config):
        return input_layer_config.size


@config_class
class IdentityOffsetProjection(Projection):
    type = 'identity_offset'

    def __init__(self, input_layer_name, offset, **xargs):
        Projection.__init__(self, input_layer_name, **xargs)
        self.proj_conf.offset = as_int(offset, 'identity projection offset')

    def calc_output_size(self, input_layer_config):
        return 0


@config_class
class DotMulProjection(Projection):
    type = 'dot_mul'

    def calc_output_size(self, input_layer_config):
        return input_layer_config.size

    def calc_parameter_size(self, input_size, output_size):
        return output_size

    def calc_parameter_dims(self, input_size, output_size):
        return [1, output_size]


@config_class
class ScalingProjection(Projection):
    type = 'scaling'

    def calc_output_size(self, input_layer_config):
        return input_layer_config.size

    def calc_parameter_size(self, input_size, output_size):
        return 1

    def calc_parameter_dims(self, input_size, output_size):
        return [1, 1]


@config_class
class FullMatrixProjection(Projection):
    type = 'fc'

    def calc_parameter_size(self, input_size, output_size):
        return input_size * output_size

    def calc_parameter_dims(self, input_size, output_size):
        return [input_size, output_size]


@config_class
class TableProjection(FullMatrixProjection):
    type = 'table'  # a [vocabulary, size] table: the same weight shape as fc


@config_class
class TransposedFullMatrixProjection(Projection):
    type = 'trans_fc'

    def calc_parameter_size(self, input_size, output_size):
        return input_size * output_size

    def calc_parameter_dims(self, input_size, output_size):
        return [output_size, input_size]


@config_class
class ContextProjection(Projection):
    type = 'context'

    def __init__(self, input_layer_name, context_start, context_length,
                 trainable_padding, **xargs):
        Projection.__init__(self, input_layer_name, **xargs)
        self.proj_conf.context_start = as_int(context_start, 'context_start')
        self.proj_conf.context_length = as_int(context_length,
                                               'context_length')
        self.proj_conf.trainable_padding = bool(trainable_padding)
        self._total_pad = max(0, -self.proj_conf.context_start) + max(
            0, self.proj_conf.context_start + self.proj_conf.context_length -
            1)

    def calc_output_size(self, input_layer_config):
        return input_layer_config.size * self.proj_conf.context_length

    def calc_parameter_size(self, input_size, output_size):
        if not self.proj_conf.trainable_padding:
            return 0
        return input_size * self._total_pad

    def calc_parameter_dims(self, input_size, output_size):
        return [self._total_pad, input_size]


@config_class
class ConvBaseProjection(Projection):
    def __init__(self, input_layer_name, num_filters=None, conv_conf=None,
                 **xargs):
        Projection.__init__(self, input_layer_name, **xargs)
        if num_filters is not None:
            self.proj_conf.num_filters = as_int(num_filters, 'num_filters')

    def calc_output_size(self, input_layer_config):
        return self.proj_conf.output_size

    def calc_parameter_size(self, input_size, output_size):
        co = self.proj_conf.num_filters
        ci = self.proj_conf.conv_conf.channels
        fh = self.proj_conf.conv_conf.filter_size
        fw = self.proj_conf.conv_conf.filter_size_y
        gr = self.proj_conf.conv_conf.groups
        return co * ci * fh * fw // gr

    def calc_bias_size(self):
        return self.proj_conf.num_filters

    def calc_parameter_dims(self, input_size, output_size):
        return None


@config_class
class ConvProjection(ConvBaseProjection):
    type = 'conv'

    def __init__(self, input_layer_name, num_filters=None, conv_conf=None,
                 **xargs):
        ConvBaseProjection.__init__(self, input_layer_name, num_filters,
                                    conv_conf, **xargs)
        parse_conv(conv_conf, self.input_layer_name,
                   self.proj_conf.conv_conf, num_filters)
        self.proj_conf.output_size = (self.proj_conf.conv_conf.output_x *
                                      self.proj_conf.conv_conf.output_y *
                                      num_filters)


@config_class
class ConvTransProjection(ConvBaseProjection):
    type = 'convt'

    def __init__(self, input_layer_name, num_filters=None, conv_conf=None,
                 **xargs):
        ConvBaseProjection.__init__(self, input_layer_name, num_filters,
                                    conv_conf, **xargs)
        parse_conv(
            conv_conf,
            self.input_layer_name,
            self.proj_conf.conv_conf,
            num_filters,
            trans=True)
        self.proj_conf.output_size = (self.proj_conf.conv_conf.img_size_y *
                                      self.proj_conf.conv_conf.img_size *
                                      num_filters)


@config_class
class Operator(Cfg):
    type = None

    def __init__(self, input_layer_names):
        self.input_layer_names = [
            MakeLayerNameInSubmodel(n) for n in input_layer_names
        ]
        self.operator_conf = OperatorConfig()
        self.operator_conf.type = self.type

    def check_dims(self):
        pass

    def calc_output_size(self, input_sizes):
        return 0


@config_class
class DotMulOperator(Operator):
    type = 'dot_mul'

    def __init__(self, input_layer_names, scale=None, **xargs):
        Operator.__init__(self, input_layer_names, **xargs)
        if scale is not None:
            self.operator_conf.dotmul_scale = as_float(scale, 'dotmul scale')
        config_assert(
            len(input_layer_names) == 2, 'dotmul_operator takes two inputs')

    def check_dims(self):
        for i in range(2):
            config_assert(
                self.operator_conf.input_sizes[i] ==
                self.operator_conf.output_size,
                'dotmul_operator: input %d has size %d, expected %d (the '
                'layer size)' % (i, self.operator_conf.input_sizes[i],
                                 self.operator_conf.output_size))

    def calc_output_size(self, input_sizes):
        return input_sizes[0]


@config_class
class ConvOperator(Operator):
    type = 'conv'

    def __init__(self, input_layer_names, num_filters=None, conv_conf=None,
                 **xargs):
        Operator.__init__(self, input_layer_names, **xargs)
        config_assert(
            len(input_layer_names) == 2, 'conv_operator takes two inputs')
        if num_filters is not None:
            self.operator_conf.num_filters = num_filters
        parse_conv(conv_conf, self.input_layer_names[0],
                   self.operator_conf.conv_conf, num_filters)
        self.operator_conf.output_size = (
            self.operator_conf.conv_conf.output_x *
            self.operator_conf.conv_conf.output_y * num_filters)

    def calc_output_size(self, input_sizes):
        return self.operator_conf.output_size


@config_class
class ConvTransOperator(Operator):
    type = 'convt'

    def __init__(self, input_layer_names, num_filters=None, conv_conf=None,
                 **xargs):
        Operator.__init__(self, input_layer_names, **xargs)
        config_assert(
            len(input_layer_names) == 2, 'conv_operator takes two inputs')
        if num_filters is not None:
            self.operator_conf.num_filters = num_filters
        parse_conv(
            conv_conf,
            self.input_layer_names[0],
            self.operator_conf.conv_conf,
            num_filters,
            trans=True)
        self.operator_conf.output_size = (
            self.operator_conf.conv_conf.img_size *
            self.operator_conf.conv_conf.img_size_y * num_filters)

    def calc_output_size(self, input_sizes):
        return self.operator_conf.output_size


# ---------------------------------------------------------------------------
