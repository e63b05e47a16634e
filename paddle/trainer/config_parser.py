"""The v1 config parser: runs a trainer config and builds a TrainerConfig.

Entry points:
    parse_config(config_file_or_callable, config_arg_str) -> TrainerConfig
    parse_config_and_serialize(config_file_or_callable, config_arg_str) -> bytes
    ConfigError: raised for every user error; str(e) is one line
        "<config file>:<line>: <message>" pointing at the user's config line.

The raw v1 API available to configs (Layer, Input, Bias, Parameter,
Settings, TrainData, TestData, Inputs, Outputs, Evaluator, the projection
and operator classes, Memory, RecurrentLayerGroup*, default_* ...) lives
here; ``paddle.trainer_config_helpers`` is built on top of it.
"""

from __future__ import print_function

import copy
import inspect
import logging
import math
import os
import sys
import traceback

from paddle.proto.DataConfig_pb2 import DataConfig
from paddle.proto.ModelConfig_pb2 import (
    ModelConfig, LayerConfig, LayerInputConfig, ProjectionConfig,
    OperatorConfig, GeneratorConfig, LinkConfig, MemoryConfig, ImageConfig)
from paddle.proto.ParameterConfig_pb2 import (ParameterConfig,
                                              ParameterUpdaterHookConfig)
from paddle.proto.TrainerConfig_pb2 import TrainerConfig

logger = logging.getLogger('paddle')
if not logger.handlers:
    _h = logging.StreamHandler()
    _h.setFormatter(
        logging.Formatter('[%(levelname)s %(asctime)s %(filename)s:'
                          '%(lineno)s] %(message)s'))
    logger.addHandler(_h)
    logger.setLevel(logging.INFO)
    logger.propagate = False

# ---------------------------------------------------------------------------
# errors


class ConfigError(Exception):
    """A user error in a trainer config.

    ``str(err)`` is a single line: ``FILE:LINE: message`` once the parser
    has located the user's config line (``filename``/``lineno``
    attributes), else just the message.
    """

    def __init__(self, msg, filename=None, lineno=None, layer=None):
        msg = ' '.join(str(msg).split('\n'))
        Exception.__init__(self, msg)
        self.msg = msg
        self.filename = filename
        self.lineno = lineno
        self.layer = layer

    def __str__(self):
        if self.filename is not None:
            return '%s:%s: %s' % (self.filename, self.lineno, self.msg)
        return self.msg


def config_assert(cond, msg):
    if not cond:
        raise ConfigError(msg)


def config_error(msg):
    raise ConfigError(msg)


def _layer_ctx(name, type_=None):
    if type_:
        return "layer '%s' (%s)" % (name, type_)
    return "layer '%s'" % name


def type_of(x):
    return type(x)


def as_int(value, what):
    """Integral value check; accepts integral floats (Python 2 '/' results)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value == int(value):
        return int(value)
    try:
        import numpy
        if isinstance(value, numpy.integer):
            return int(value)
    except ImportError:  # pragma: no cover
        pass
    raise ConfigError('%s must be an integer, got %r' % (what, value))


def as_float(value, what):
    if isinstance(value, bool):
        return float(value)
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ConfigError('%s must be a number, got %r' % (what, value))


# ---------------------------------------------------------------------------
# global state (reset by init_config_environment for each parse)

g_config_funcs = {}
g_layer_type_map = {}
_parse_config_hooks = []

DEFAULT_SETTING = dict(
    batch_size=None,
    mini_batch_size=None,
    algorithm='async_sgd',
    async_lagged_grad_discard_ratio=1.5,
    learning_method='momentum',
    num_batches_per_send_parameter=None,
    num_batches_per_get_parameter=None,
    center_parameter_update_method=None,
    learning_rate=1.,
    learning_rate_decay_a=0.,
    learning_rate_decay_b=0.,
    learning_rate_schedule='poly',
    learning_rate_args='',
    l1weight=0.1,
    l2weight=0.,
    l2weight_zero_iter=0,
    c1=0.0001,
    backoff=0.5,
    owlqn_steps=10,
    max_backoff=5,
    average_window=0,
    do_average_in_cpu=False,
    max_average_window=None,
    ada_epsilon=1e-6,
    ada_rou=0.95,
    delta_add_rate=1.0,
    shrink_parameter_value=0,
    adam_beta1=0.9,
    adam_beta2=0.999,
    adam_epsilon=1e-8,
    gradient_clipping_norm=None, )

DEFAULT_TRAINER_SETTING = dict(
    save_dir="./output/model", init_model_path=None, start_pass=0)


def init_config_environment():
    g = globals()
    g['g_default_momentum'] = None
    g['g_default_decay_rate'] = None
    g['g_default_initial_mean'] = 0.
    g['g_default_initial_std'] = 0.01
    g['g_default_num_batches_regularization'] = None
    g['g_default_initial_strategy'] = 0
    g['g_default_initial_smart'] = False
    g['g_default_gradient_clipping_threshold'] = None
    g['g_default_device'] = None
    g['g_default_update_hooks'] = None
    g['g_default_compact_func'] = None
    g['g_config'] = TrainerConfig()
    g['g_layer_map'] = {}
    g['g_layer_objs'] = {}
    g['g_parameter_map'] = {}
    g['g_evaluator_names'] = set()
    g['g_command_config_args'] = {}
    g['g_py_module_name_list'] = []
    g['g_current_submodel'] = None
    g['g_root_submodel'] = None
    g['g_submodel_map'] = {}
    g['g_submodel_stack'] = []
    g['g_add_submodel_suffix'] = False
    g['g_config_files'] = []
    g['settings'] = copy.deepcopy(DEFAULT_SETTING)
    g['settings_deprecated'] = dict(usage_ratio=1.)
    g['trainer_settings'] = copy.deepcopy(DEFAULT_TRAINER_SETTING)


def config_func(func):
    g_config_funcs[func.__name__] = func
    return func


def config_class(cls):
    g_config_funcs[cls.__name__] = cls
    return cls


def config_layer(layer_type):
    def wrap(cls):
        g_config_funcs[cls.__name__] = cls
        g_layer_type_map[layer_type] = cls
        return cls

    return wrap


def gen_parameter_name(layer_name, input_index):
    return '_%s.w%d' % (layer_name, input_index)


def gen_bias_parameter_name(layer_name):
    return '_%s.wbias' % layer_name


def default(x, default_value):
    return default_value if x is None else x


def register_parse_config_hook(f):
    """f() is called at the start of every parse (name counters reset)."""
    if f not in _parse_config_hooks:
        _parse_config_hooks.append(f)


# ---------------------------------------------------------------------------
# sub-models and naming


@config_func
def Inputs(*args):
    for name in args:
        name = MakeLayerNameInSubmodel(name)
        config_assert(not g_current_submodel.is_recurrent_layer_group,
                      'Inputs() cannot be used inside a recurrent group')
        config_assert(name in g_layer_map,
                      "Inputs(): unknown layer '%s'" % name)
        g_current_submodel.input_layer_names.append(name)
        if g_current_submodel is g_root_submodel:
            g_config.model_config.input_layer_names.append(name)


@config_func
def HasInputsSet():
    return len(g_current_submodel.input_layer_names) != 0


@config_func
def Outputs(*args):
    for name in args:
        name = MakeLayerNameInSubmodel(name)
        config_assert(not g_current_submodel.is_recurrent_layer_group,
                      'Outputs() cannot be used inside a recurrent group')
        config_assert(name in g_layer_map,
                      "Outputs(): unknown layer '%s'" % name)
        g_current_submodel.output_layer_names.append(name)
        if g_current_submodel is g_root_submodel:
            g_config.model_config.output_layer_names.append(name)


@config_func
def SubModelBegin(name):
    global g_current_submodel
    g_submodel_stack.append(g_current_submodel)
    name = MakeLayerNameInParentSubmodel(name)
    config_assert(name not in g_submodel_map,
                  'Duplicated submodel name: %s' % name)
    sub_model = g_config.model_config.sub_models.add()
    sub_model.name = name
    g_submodel_map[name] = sub_model
    g_current_submodel = sub_model


@config_func
def SubModelEnd(name=None):
    global g_current_submodel
    config_assert(g_current_submodel is not g_root_submodel,
                  'SubModelEnd without SubModelBegin')
    if name is not None:
        config_assert(
            g_current_submodel.name == MakeLayerNameInParentSubmodel(name),
            'SubModelEnd: name %s does not match %s' %
            (name, g_current_submodel.name))
    g_current_submodel = g_submodel_stack.pop()


def MakeLayerNameInParentSubmodel(name):
    suffix = ''
    if len(g_submodel_stack) > 1:
        suffix = '@' + g_submodel_stack[-1].name
    return name + suffix


def GetLayerBaseName(name):
    return name.split('@')[0]


def MakeLayerNameInSubmodel(name, submodel_name=None):
    if (submodel_name is None and not g_add_submodel_suffix and
            not g_current_submodel.is_recurrent_layer_group):
        return name
    if submodel_name is None:
        submodel_name = g_current_submodel.name
    return name + '@' + submodel_name


@config_func
def model_type(name):
    g_config.model_config.type = name


@config_func
def EnableSubmodelSuffix(flag=True):
    global g_add_submodel_suffix
    g_add_submodel_suffix = flag


@config_func
def cluster_config(**args):
    pass


# ---------------------------------------------------------------------------
# Input / Bias / projections / operators


_PARAM_KEYS = ('parameter_name', 'learning_rate', 'momentum', 'decay_rate',
               'decay_rate_l1', 'initial_mean', 'initial_std',
               'initial_strategy', 'initial_smart',
               'num_batches_regularization', 'sparse_remote_update',
               'sparse_update', 'gradient_clipping_threshold', 'is_static',
               'is_shared', 'update_hooks', 'format', 'nnz', 'initializer')


class Cfg(object):
    def add_keys(self, kv):
        for k, v in kv.items():
            if not k.startswith('_') and k != 'self':
                setattr(self, k, v)


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
# image geometry


@config_class
class Conv(Cfg):
    def __init__(self,
                 filter_size,
                 channels,
                 padding=None,
                 stride=None,
                 groups=None,
                 filter_channels=None,
                 output_x=None,
                 img_size=None,
                 caffe_mode=True,
                 filter_size_y=None,
                 padding_y=None,
                 stride_y=None):
        self.add_keys(locals())
        if filter_size_y is None:
            self.filter_size_y = filter_size
        if padding_y is None:
            self.padding_y = padding
        if stride_y is None:
            self.stride_y = stride


@config_class
class BilinearInterp(Cfg):
    def __init__(self, out_size_x=None, out_size_y=None, channels=None):
        self.add_keys(locals())


@config_class
class Pool(Cfg):
    def __init__(self,
                 pool_type,
                 channels,
                 size_x,
                 size_y=None,
                 start=None,
                 stride=None,
                 stride_y=None,
                 padding=None,
                 padding_y=None):
        self.add_keys(locals())


@config_class
class SpatialPyramidPool(Cfg):
    def __init__(self, pool_type, pyramid_height, channels):
        self.add_keys(locals())


@config_class
class Pad(Cfg):
    def __init__(self, channels, pad_c, pad_h, pad_w):
        self.add_keys(locals())


@config_class
class Norm(Cfg):
    def __init__(self,
                 norm_type,
                 channels,
                 size,
                 scale,
                 pow,
                 output_x=None,
                 img_size=None,
                 blocked=None):
        self.add_keys(locals())


@config_class
class Image(Cfg):
    def __init__(self, channels, img_size=None):
        self.add_keys(locals())


@config_class
class BlockExpand(Cfg):
    def __init__(self,
                 channels,
                 padding_x=0,
                 padding_y=0,
                 stride_x=0,
                 stride_y=0,
                 block_x=0,
                 block_y=0,
                 img_size_x=0,
                 img_size_y=0,
                 output_x=0,
                 output_y=0):
        self.add_keys(locals())


@config_class
class MaxOut(Cfg):
    def __init__(self, channels, groups, img_size_x=0, img_size_y=0):
        self.add_keys(locals())


def cnn_output_size(img_size, filter_size, padding, stride, caffe_mode):
    output = (2 * padding + img_size - filter_size) / float(stride)
    if caffe_mode:
        return 1 + int(math.floor(output))
    return 1 + int(math.ceil(output))


def cnn_image_size(output_size, filter_size, padding, stride, caffe_mode):
    img_size = (output_size - 1) * stride + filter_size - 2 * padding
    if not caffe_mode:
        img_size = img_size + 1
    return img_size


def get_img_size(input_layer_name, channels):
    inp = g_layer_map[input_layer_name]
    config_assert(channels > 0,
                  'input %s: number of channels must be > 0, got %s' %
                  (input_layer_name, channels))
    config_assert(
        inp.size % channels == 0,
        "input layer '%s' has size %d, which is not a multiple of "
        "num_channels=%d" % (input_layer_name, inp.size, channels))
    img_pixels = inp.size // channels
    img_size = inp.width if inp.width > 0 else int(round(img_pixels**0.5))
    if img_size <= 0:
        img_size = 1
    img_size_y = inp.height if inp.height > 0 else img_pixels // img_size
    config_assert(
        img_size * img_size_y == img_pixels,
        "input layer '%s': image of %d pixels per channel (size %d / %d "
        "channels) is not %d x %d; give height/width to the data layer" %
        (input_layer_name, img_pixels, inp.size, channels, img_size,
         img_size_y))
    return img_size, img_size_y


def parse_image(image, input_layer_name, image_conf):
    image_conf.channels = image.channels
    image_conf.img_size, image_conf.img_size_y = get_img_size(
        input_layer_name, image_conf.channels)


def parse_bilinear(bilinear, input_layer_name, bilinear_conf):
    parse_image(bilinear, input_layer_name, bilinear_conf.image_conf)
    bilinear_conf.out_size_x = bilinear.out_size_x
    bilinear_conf.out_size_y = bilinear.out_size_y


def parse_pool(pool, input_layer_name, pool_conf, ceil_mode):
    pool_conf.pool_type = pool.pool_type
    config_assert(
        pool.pool_type in
        ['max-projection', 'avg-projection', 'cudnn-max-pool',
         'cudnn-avg-pool'], "pool type %s is not one of max-projection, "
        "avg-projection, cudnn-max-pool, cudnn-avg-pool" % pool.pool_type)
    pool_conf.channels = pool.channels
    pool_conf.size_x = pool.size_x
    pool_conf.stride = pool.stride
    pool_conf.size_y = default(pool.size_y, pool_conf.size_x)
    pool_conf.stride_y = default(pool.stride_y, pool_conf.stride)
    pool_conf.img_size, pool_conf.img_size_y = get_img_size(
        input_layer_name, pool.channels)
    config_assert(not pool.start, 'start is deprecated in pooling')
    if pool.padding is not None:
        pool_conf.padding = pool.padding
    pool_conf.padding_y = default(pool.padding_y, pool_conf.padding)
    pool_conf.output_x = cnn_output_size(pool_conf.img_size, pool_conf.size_x,
                                         pool_conf.padding, pool_conf.stride,
                                         not ceil_mode)
    pool_conf.output_y = cnn_output_size(
        pool_conf.img_size_y, pool_conf.size_y, pool_conf.padding_y,
        pool_conf.stride_y, not ceil_mode)


def parse_spp(spp, input_layer_name, spp_conf):
    parse_image(spp, input_layer_name, spp_conf.image_conf)
    spp_conf.pool_type = spp.pool_type
    config_assert(spp.pool_type in ['max-projection', 'avg-projection'],
                  'spp pool type %s is not max-projection or avg-projection'
                  % spp.pool_type)
    spp_conf.pyramid_height = spp.pyramid_height


def parse_norm(norm, input_layer_name, norm_conf):
    norm_conf.norm_type = norm.norm_type
    config_assert(
        norm.norm_type in ['rnorm', 'cmrnorm-projection',
                           'cross-channel-norm'],
        'norm type %s is not one of rnorm, cmrnorm-projection, '
        'cross-channel-norm' % norm.norm_type)
    norm_conf.channels = norm.channels
    norm_conf.size = norm.size
    norm_conf.scale = norm.scale
    norm_conf.pow = norm.pow
    norm_conf.blocked = bool(norm.blocked)
    norm_conf.img_size, norm_conf.img_size_y = get_img_size(
        input_layer_name, norm.channels)
    norm_conf.output_x = norm_conf.img_size
    norm_conf.output_y = norm_conf.img_size_y
    if norm.norm_type in ['cmrnorm-projection']:
        norm_conf.scale /= norm.size
    else:
        norm_conf.scale /= norm.size**2


def parse_conv(conv, input_layer_name, conv_conf, num_filters, trans=False):
    conv_conf.filter_size = conv.filter_size
    conv_conf.filter_size_y = conv.filter_size_y
    conv_conf.channels = conv.channels
    conv_conf.padding = conv.padding
    conv_conf.padding_y = conv.padding_y
    conv_conf.stride = conv.stride
    conv_conf.stride_y = conv.stride_y
    conv_conf.groups = conv.groups
    conv_conf.caffe_mode = conv.caffe_mode
    config_assert(conv.groups > 0 and conv.channels % conv.groups == 0,
                  'num_channels=%d is not divisible by groups=%d' %
                  (conv.channels, conv.groups))
    if not trans:
        conv_conf.filter_channels = conv.channels // conv.groups
        conv_conf.img_size, conv_conf.img_size_y = get_img_size(
            input_layer_name, conv.channels)
        conv_conf.output_x = cnn_output_size(
            conv_conf.img_size, conv_conf.filter_size, conv_conf.padding,
            conv_conf.stride, conv_conf.caffe_mode)
        conv_conf.output_y = cnn_output_size(
            conv_conf.img_size_y, conv_conf.filter_size_y,
            conv_conf.padding_y, conv_conf.stride_y, conv_conf.caffe_mode)
        config_assert(
            conv_conf.output_x > 0 and conv_conf.output_y > 0,
            'convolution of a %dx%d image with a %dx%d filter (padding %d, '
            'stride %d) has no output' %
            (conv_conf.img_size, conv_conf.img_size_y, conv_conf.filter_size,
             conv_conf.filter_size_y, conv_conf.padding, conv_conf.stride))
    else:
        conv_conf.filter_channels = num_filters // conv.groups
        conv_conf.output_x, conv_conf.output_y = get_img_size(
            input_layer_name, conv.channels)
        conv_conf.img_size = cnn_image_size(
            conv_conf.output_x, conv_conf.filter_size, conv_conf.padding,
            conv_conf.stride, conv_conf.caffe_mode)
        conv_conf.img_size_y = cnn_image_size(
            conv_conf.output_y, conv_conf.filter_size_y, conv_conf.padding_y,
            conv_conf.stride_y, conv_conf.caffe_mode)


def parse_block_expand(block_expand, input_layer_name, block_expand_conf):
    block_expand_conf.channels = block_expand.channels
    block_expand_conf.stride_x = block_expand.stride_x
    block_expand_conf.stride_y = block_expand.stride_y
    block_expand_conf.padding_x = block_expand.padding_x
    block_expand_conf.padding_y = block_expand.padding_y
    block_expand_conf.block_x = block_expand.block_x
    block_expand_conf.block_y = block_expand.block_y
    block_expand_conf.img_size_x = block_expand.img_size_x
    block_expand_conf.img_size_y = block_expand.img_size_y
    if block_expand_conf.img_size_x == 0:
        block_expand_conf.output_x = 0
    else:
        block_expand_conf.output_x = cnn_output_size(
            block_expand.img_size_x, block_expand.block_x,
            block_expand.padding_x, block_expand.stride_x, False)
    if block_expand_conf.img_size_y == 0:
        block_expand_conf.output_y = 0
    else:
        block_expand_conf.output_y = cnn_output_size(
            block_expand.img_size_y, block_expand.block_y,
            block_expand.padding_y, block_expand.stride_y, False)


def parse_maxout(maxout, input_layer_name, maxout_conf):
    parse_image(maxout, input_layer_name, maxout_conf.image_conf)
    maxout_conf.groups = maxout.groups


# ---------------------------------------------------------------------------
# data sources


def create_data_config_proto(async_load_data=False,
                             constant_slots=None,
                             data_ratio=1,
                             is_main_data=True,
                             usage_ratio=None):
    data_config = DataConfig()
    data_config.async_load_data = async_load_data
    if constant_slots:
        data_config.constant_slots.extend(constant_slots)
    data_config.data_ratio = data_ratio
    data_config.is_main_data = is_main_data
    usage_ratio = default(usage_ratio, settings_deprecated['usage_ratio'])
    config_assert(0 <= usage_ratio <= 1, 'usage_ratio must be in [0, 1]')
    data_config.usage_ratio = usage_ratio
    return data_config


@config_func
def SimpleData(files=None,
               feat_dim=None,
               context_len=None,
               buffer_capacity=None,
               **xargs):
    data_config = create_data_config_proto(**xargs)
    data_config.type = 'simple'
    data_config.files = files
    data_config.feat_dim = feat_dim
    if context_len is not None:
        data_config.context_len = context_len
    if buffer_capacity:
        data_config.buffer_capacity = buffer_capacity
    return data_config


@config_func
def PyData(files=None,
           type=None,
           file_group_queue_capacity=None,
           load_data_module=None,
           load_data_object=None,
           load_data_args='',
           load_file_count=None,
           constant_slots=None,
           load_thread_num=None,
           **xargs):
    data_config = create_data_config_proto(**xargs)
    data_config.type = 'py'
    config_assert(load_data_module is not None and
                  load_data_object is not None,
                  'PyData needs load_data_module and load_data_object')
    g_py_module_name_list.append(load_data_module)
    data_config.load_data_module = load_data_module
    data_config.load_data_object = load_data_object
    data_config.load_data_args = load_data_args
    data_config.files = files or ''
    if file_group_queue_capacity is not None:
        data_config.file_group_conf.queue_capacity = file_group_queue_capacity
    if load_file_count is not None:
        data_config.file_group_conf.load_file_count = load_file_count
    if load_thread_num is not None:
        data_config.file_group_conf.load_thread_num = load_thread_num
    if constant_slots:
        data_config.constant_slots.extend(constant_slots)
    return data_config


@config_func
def ProtoData(files=None,
              type=None,
              file_group_queue_capacity=None,
              load_file_count=None,
              constant_slots=None,
              load_thread_num=None,
              **xargs):
    data_config = create_data_config_proto(**xargs)
    data_config.type = 'proto' if type is None else type
    data_config.files = files
    if file_group_queue_capacity is not None:
        data_config.file_group_conf.queue_capacity = file_group_queue_capacity
    if load_file_count is not None:
        data_config.file_group_conf.load_file_count = load_file_count
    if load_thread_num is not None:
        data_config.file_group_conf.load_thread_num = load_thread_num
    if constant_slots:
        data_config.constant_slots.extend(constant_slots)
    return data_config


@config_func
def MultiData(sub_data=()):
    data_config = DataConfig()
    data_config.type = 'multi'
    data_config.sub_data_configs.extend(sub_data)
    return data_config


@config_func
def Data(type,
         files=None,
         feat_dim=None,
         slot_dims=None,
         context_len=None,
         buffer_capacity=None,
         **xargs):
    data_config = create_data_config_proto(**xargs)
    data_config.type = type
    if files is not None:
        data_config.files = files
    if feat_dim is not None:
        data_config.feat_dim = feat_dim
    if slot_dims:
        data_config.slot_dims.extend(slot_dims)
    if context_len is not None:
        data_config.context_len = context_len
    if buffer_capacity is not None:
        data_config.buffer_capacity = buffer_capacity
    return data_config


@config_func
def TrainData(data_config, async_load_data=None):
    config_assert(not g_config.HasField('data_config'),
                  'only one TrainData definition is allowed')
    g_config.data_config.CopyFrom(data_config)
    g_config.data_config.for_test = False
    if async_load_data is not None:
        g_config.data_config.async_load_data = async_load_data


@config_func
def TestData(data_config, async_load_data=None):
    config_assert(not g_config.HasField('test_data_config'),
                  'only one TestData definition is allowed')
    g_config.test_data_config.CopyFrom(data_config)
    g_config.test_data_config.for_test = True
    if async_load_data is not None:
        g_config.test_data_config.async_load_data = async_load_data


# ---------------------------------------------------------------------------
# evaluators


@config_func
def Evaluator(name,
              type,
              inputs,
              chunk_scheme=None,
              num_chunk_types=None,
              classification_threshold=None,
              positive_label=None,
              dict_file=None,
              result_file=None,
              num_results=None,
              top_k=None,
              delimited=None,
              excluded_chunk_types=None):
    evaluator = g_config.model_config.evaluators.add()
    evaluator.type = type
    evaluator.name = MakeLayerNameInSubmodel(name)
    if isinstance(inputs, str):
        inputs = [inputs]
    for input_name in inputs:
        input_name = MakeLayerNameInSubmodel(input_name)
        config_assert(
            input_name in g_layer_map,
            "evaluator '%s': unknown input layer '%s'" % (name, input_name))
        evaluator.input_layers.append(input_name)
    if chunk_scheme is not None:
        evaluator.chunk_scheme = chunk_scheme
        evaluator.num_chunk_types = num_chunk_types
    g_current_submodel.evaluator_names.append(evaluator.name)
    if classification_threshold is not None:
        evaluator.classification_threshold = classification_threshold
    if positive_label is not None:
        evaluator.positive_label = positive_label
    if dict_file is not None:
        evaluator.dict_file = dict_file
    if result_file is not None:
        evaluator.result_file = result_file
    if num_results is not None:
        evaluator.num_results = num_results
    if top_k is not None:
        evaluator.top_k = top_k
    if delimited is not None:
        evaluator.delimited = delimited
    if excluded_chunk_types:
        evaluator.excluded_chunk_types.extend(excluded_chunk_types)


# ---------------------------------------------------------------------------
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
                 error_clipping_threshold=None):
        config_assert(
            isinstance(name, str) and name,
            'layer name must be a non-empty string, got %r' % (name, ))
        config_assert('@' not in name,
                      "layer name '%s' must not contain '@'" % name)
        name = MakeLayerNameInSubmodel(name)
        config_assert(name not in g_layer_map,
                      "duplicate layer name '%s'" % name)
        self.inputs = copy.deepcopy(inputs)
        self.operators = []
        if self.inputs is None:
            self.inputs = []
        elif type_of(self.inputs) != list:
            self.inputs = [self.inputs]

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
        elif g_default_device is not None:
            self.config.device = g_default_device
        if error_clipping_threshold is not None:
            self.config.error_clipping_threshold = error_clipping_threshold

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
            config_assert(input_layer_name in g_layer_map,
                          "unknown input layer '%s'" % input_layer_name)
            self.inputs[input_index] = input_config
            layer_input = self.config.inputs.add()
            layer_input.input_layer_name = input_layer_name
            if input_config.input_layer_argument is not None:
                layer_input.input_layer_argument = \
                    input_config.input_layer_argument

        # registered at the end of construction (see Layer())
        g_config.model_config.layers.add().CopyFrom(self.config)
        self.config = g_config.model_config.layers[-1]
        g_layer_map[name] = self.config
        g_layer_objs[name] = self
        g_current_submodel.layer_names.append(self.config.name)

    def get_input_layer(self, input_index):
        return g_layer_map[self.config.inputs[input_index].input_layer_name]

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
        if bias.parameter_name not in g_parameter_map:
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
        if input_config.parameter_name in g_parameter_map:
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
    para = g_parameter_map[name]
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


@config_layer('selective_fc')
class SelectiveFCLayer(LayerBase):
    def __init__(self,
                 name,
                 size,
                 inputs,
                 bias=True,
                 selective_fc_pass_generation=False,
                 has_selected_colums=True,
                 selective_fc_full_mul_ratio=0.02,
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


def _simple_layer(type_name, n_inputs=None, same_size_as_input=True):
    """Layers with no parameters whose size is their (first) input's size."""

    class _L(LayerBase):
        def __init__(self, name, inputs, **xargs):
            LayerBase.__init__(self, name, type_name, 0, inputs=inputs,
                               **xargs)
            if n_inputs is not None:
                config_assert(
                    len(self.inputs) == n_inputs,
                    'needs %d input(s), got %d' % (n_inputs, len(self.inputs)))
            if same_size_as_input:
                self.set_layer_size(self.get_input_layer(0).size)

    _L.__name__ = ''.join(p.capitalize() for p in type_name.replace(
        '-', '_').split('_')) + 'Layer'
    return config_layer(type_name)(_L)


TransLayer = _simple_layer('trans', 1)
SumToOneNormLayer = _simple_layer('sum_to_one_norm', 1)


@config_layer('cos')
class CosSimLayer(LayerBase):
    def __init__(self, name, inputs, cos_scale=1, device=None):
        LayerBase.__init__(
            self, name, 'cos', 1, inputs=inputs, device=device)
        config_assert(len(self.inputs) == 2, 'cos_sim needs 2 inputs')
        a, b = self.get_input_layer(0), self.get_input_layer(1)
        config_assert(
            a.size == b.size,
            "inputs '%s' (size %d) and '%s' (size %d) must have the same size"
            % (a.name, a.size, b.name, b.size))
        self.config.cos_scale = cos_scale


@config_layer('cos_vm')
class CosSimVecMatLayer(LayerBase):
    def __init__(self, name, size, inputs, cos_scale=1.0, device=None):
        LayerBase.__init__(
            self, name, 'cos_vm', size, inputs=inputs, device=device)
        self.config.cos_scale = cos_scale
        config_assert(len(self.inputs) == 2, 'cos_sim needs 2 inputs')
        a, b = self.get_input_layer(0), self.get_input_layer(1)
        config_assert(
            size * a.size == b.size,
            "second input '%s' must have size size*%d=%d, got %d" %
            (b.name, a.size, size * a.size, b.size))


# ---------------------------------------------------------------------------
# cost layers

g_cost_map = {}


def define_cost(class_name, cost_type):
    def init(cls, name, inputs, device=None, coeff=1.):
        LayerBase.__init__(
            cls, name, cost_type, 1, inputs, device=device, coeff=coeff)

    cls = type(class_name, (LayerBase, ), dict(__init__=init))
    g_config_funcs[class_name] = cls
    g_cost_map[cost_type] = cls
    g_layer_type_map[cost_type] = cls
    return cls


define_cost('MultiClassCrossEntropy', 'multi-class-cross-entropy')
define_cost('RankingCost', 'rank-cost')
define_cost('AucValidation', 'auc-validation')
define_cost('PnpairValidation', 'pnpair-validation')
define_cost('SumOfSquaresCostLayer', 'square_error')
define_cost('MultiBinaryLabelCrossEntropy', 'multi_binary_label_cross_entropy')
define_cost('SoftBinaryClassCrossEntropy', 'soft_binary_class_cross_entropy')
define_cost('HuberTwoClass', 'huber')
define_cost('SumCost', 'sum_cost')
define_cost('SmoothL1Cost', 'smooth_l1')


@config_layer('multi_class_cross_entropy_with_selfnorm')
class MultiClassCrossEntropySelfNormCostLayer(LayerBase):
    def __init__(self, name, inputs, softmax_selfnorm_alpha=0.1, **xargs):
        LayerBase.__init__(self, name,
                           'multi_class_cross_entropy_with_selfnorm', 0,
                           inputs, **xargs)
        self.config.softmax_selfnorm_alpha = softmax_selfnorm_alpha


@config_layer('lambda_cost')
class LambdaCost(LayerBase):
    def __init__(self, name, inputs, NDCG_num=5, max_sort_size=-1,
                 device=None):
        LayerBase.__init__(
            self, name, 'lambda_cost', 1, inputs=inputs, device=device)
        config_assert(len(self.inputs) == 2, 'lambda_cost needs 2 inputs')
        self.config.NDCG_num = NDCG_num
        if max_sort_size != -1:
            config_assert(
                NDCG_num <= max_sort_size,
                'NDCG_num must be <= max_sort_size when max_sort_size != -1')
        self.config.max_sort_size = max_sort_size


# ---------------------------------------------------------------------------
# more layer types (mixed, sequence, recurrent, image, costs ...)


def _copy_hw(layer, src):
    if src.height > 0 and src.width > 0:
        layer.set_layer_height_width(src.height, src.width)


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
                    input_config.input_layer_name in g_layer_map,
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
        config_assert(len(self.inputs) > 0, 'addto needs at least one input')
        first = self.get_input_layer(0)
        for i in range(1, len(self.inputs)):
            other = self.get_input_layer(i)
            config_assert(
                other.size == first.size,
                "input '%s' has size %d but input '%s' has size %d; addto "
                "inputs must have equal sizes" % (other.name, other.size,
                                                  first.name, first.size))
        self.set_layer_size(first.size)
        _copy_hw(self, first)
        self.create_bias_parameter(bias, self.config.size)


@config_layer('agent')
class AgentLayer(LayerBase):
    def __init__(self, name, size, device=None):
        LayerBase.__init__(self, name, 'agent', size, inputs=[], device=device)


@config_layer('sequence_agent')
class SequenceAgentLayer(LayerBase):
    def __init__(self, name, size, device=None):
        LayerBase.__init__(
            self, name, 'sequence_agent', size, inputs=[], device=device)


@config_layer('gather_agent')
class GatherAgentLayer(LayerBase):
    def __init__(self, name, size, device=None):
        LayerBase.__init__(
            self, name, 'gather_agent', size, inputs=[], device=device)


@config_layer('scatter_agent')
class ScatterAgentLayer(LayerBase):
    def __init__(self, name, size, width=None, height=None, device=None):
        LayerBase.__init__(
            self, name, 'scatter_agent', size, inputs=[], device=device)
        if height and width:
            self.set_layer_height_width(height, width)


@config_layer('sequence_gather_agent')
class SequenceGatherAgentLayer(LayerBase):
    def __init__(self, name, size, device=None):
        LayerBase.__init__(
            self, name, 'sequence_gather_agent', size, inputs=[],
            device=device)


@config_layer('sequence_scatter_agent')
class SequenceScatterAgentLayer(LayerBase):
    def __init__(self, name, size, width=None, height=None, device=None):
        LayerBase.__init__(
            self, name, 'sequence_scatter_agent', size, inputs=[],
            device=device)
        if height and width:
            self.set_layer_height_width(height, width)


@config_func
def Link(name, has_subseq=False):
    link_config = LinkConfig()
    link_config.link_name = name
    link_config.has_subseq = has_subseq
    return link_config


@config_func
def RecurrentLayerGroupWithoutOutLinksBegin(name,
                                            in_links,
                                            seq_reversed=False,
                                            target_inlinkname=''):
    global g_current_submodel
    config_assert(g_config.model_config.type == 'recurrent_nn',
                  'recurrent layer groups need model_type("recurrent_nn")')
    RecurrentLayerGroup(name=name)
    SubModelBegin(name)
    g_current_submodel.is_recurrent_layer_group = True
    g_current_submodel.reversed = seq_reversed
    g_current_submodel.target_inlinkid = -1
    in_links_count = 0
    for linkid, link in enumerate(in_links):
        if isinstance(link, str):
            name = link
            has_subseq = False
        else:
            name = link.link_name
            has_subseq = link.has_subseq
        if target_inlinkname == name:
            g_current_submodel.target_inlinkid = linkid
        if in_links_count == 0:
            in_links_has_subseq = has_subseq
        else:
            config_assert(
                in_links_has_subseq == has_subseq,
                'in-links of a recurrent group must be all sequences or '
                'all nested sequences')
        in_links_count += 1
        layer_name = MakeLayerNameInParentSubmodel(name)
        config_assert(layer_name in g_layer_map,
                      "recurrent group: unknown input layer '%s'" % name)
        layer = g_layer_map[layer_name]
        if has_subseq:
            SequenceScatterAgentLayer(
                name=name,
                size=layer.size,
                width=layer.width,
                height=layer.height)
        else:
            ScatterAgentLayer(
                name=name,
                size=layer.size,
                width=layer.width,
                height=layer.height)
        pair = g_current_submodel.in_links.add()
        pair.layer_name = layer_name
        pair.link_name = MakeLayerNameInSubmodel(name)
        pair.has_subseq = has_subseq


@config_func
def RecurrentLayerGroupSetOutLink(link):
    if isinstance(link, str):
        name = link
        has_subseq = False
    else:
        name = link.link_name
        has_subseq = link.has_subseq
    layer_name = MakeLayerNameInParentSubmodel(name)
    pair = g_current_submodel.out_links.add()
    pair.layer_name = MakeLayerNameInSubmodel(name)
    pair.link_name = layer_name
    pair.has_subseq = has_subseq


def RecurrentLayerGroupSetGenerator(generator=None):
    generator.eos_layer_name = MakeLayerNameInSubmodel(
        generator.eos_layer_name)
    g_current_submodel.generator.CopyFrom(generator)


@config_func
def RecurrentLayerGroupBegin(name,
                             in_links,
                             out_links,
                             generator=None,
                             target_inlinkname='',
                             seq_reversed=False):
    RecurrentLayerGroupWithoutOutLinksBegin(name, in_links, seq_reversed,
                                            target_inlinkname)
    for link in out_links:
        RecurrentLayerGroupSetOutLink(link)
    if generator is not None:
        RecurrentLayerGroupSetGenerator(generator)
        config_assert(
            len(in_links) == 0, 'a generator group takes no in-links')
        config_assert(
            len(out_links) >= 1, 'a generator group needs an out-link')


@config_func
def RecurrentLayerGroupEnd(name):
    config_assert(g_current_submodel.is_recurrent_layer_group,
                  'RecurrentLayerGroupEnd without RecurrentLayerGroupBegin')
    for pair in g_current_submodel.memories:
        config_assert(
            pair.layer_name in g_layer_map,
            "memory refers to layer '%s', which is not defined in the "
            "step function" % GetLayerBaseName(pair.layer_name))
        layer = g_layer_map[pair.layer_name]
        memory_link = g_layer_map[pair.link_name]
        config_assert(
            layer.size == memory_link.size,
            "memory of layer '%s' has size %d but the layer has size %d" %
            (GetLayerBaseName(pair.layer_name), memory_link.size, layer.size))
    prev_submodel = g_current_submodel
    SubModelEnd(name)
    for pair in prev_submodel.out_links:
        layer = g_layer_map[pair.layer_name]
        agent_name = GetLayerBaseName(pair.link_name)
        if prev_submodel.HasField('generator'):
            DataLayer(name=agent_name, size=layer.size)
        elif pair.has_subseq:
            SequenceGatherAgentLayer(name=agent_name, size=layer.size)
        else:
            GatherAgentLayer(name=agent_name, size=layer.size)


@config_layer('recurrent_layer_group')
class RecurrentLayerGroup(LayerBase):
    def __init__(self, name, device=None):
        LayerBase.__init__(
            self, name, 'recurrent_layer_group', 0, inputs=[], device=device)


@config_func
def Memory(name,
           size,
           is_sequence=False,
           boot_layer=None,
           boot_bias=False,
           boot_bias_active_type='',
           boot_with_const_id=None,
           memory_name=None):
    config_assert(g_current_submodel.is_recurrent_layer_group,
                  'memory() can only be used inside a recurrent group step')
    if not memory_name:
        config_assert(name is not None, 'memory needs a name')
        memory_name = name + '+delay1'
    agent_name = memory_name
    if is_sequence:
        agent_layer = SequenceAgentLayer(agent_name, size)
    else:
        agent_layer = AgentLayer(agent_name, size)
    memory = g_current_submodel.memories.add()
    if name is not None:
        memory.layer_name = MakeLayerNameInSubmodel(name)
    memory.link_name = MakeLayerNameInSubmodel(agent_name)
    memory.is_sequence = is_sequence
    options = sum((boot_layer is not None, bool(boot_bias),
                   boot_with_const_id is not None))
    config_assert(
        options <= 1, 'memory: give at most one of boot_layer, boot_bias, '
        'boot_with_const_id')
    if boot_layer is not None:
        boot_layer = MakeLayerNameInParentSubmodel(boot_layer)
        config_assert(boot_layer in g_layer_map,
                      "memory: unknown boot_layer '%s'" % boot_layer)
        memory.boot_layer_name = boot_layer
    elif boot_bias:
        memory.boot_bias_parameter_name = agent_layer.create_bias_parameter(
            boot_bias, size, for_self=False)
        memory.boot_bias_active_type = boot_bias_active_type
    elif boot_with_const_id is not None:
        memory.boot_with_const_id = boot_with_const_id
    return agent_name


@config_func
def SetMemoryInput(memory_name, layer_name):
    memory_name = MakeLayerNameInSubmodel(memory_name)
    layer_name = MakeLayerNameInSubmodel(layer_name)
    for mem in g_current_submodel.memories:
        if mem.link_name == memory_name:
            mem.layer_name = layer_name
            return
    raise ConfigError("no memory named '%s'" % memory_name)


@config_func
def Generator(max_num_frames,
              eos_layer_name='eos_check',
              num_results_per_sample=1,
              beam_size=1,
              log_prob=None):
    generator_config = GeneratorConfig()
    generator_config.max_num_frames = max_num_frames
    generator_config.eos_layer_name = eos_layer_name
    generator_config.num_results_per_sample = num_results_per_sample
    generator_config.beam_size = beam_size
    if log_prob is not None:
        generator_config.log_prob = log_prob
    return generator_config


class _SeqPoolBase(LayerBase):
    def _pool_common(self, trans_type, stride, bias):
        config_assert(len(self.inputs) == 1, 'needs exactly one input')
        if trans_type == 'seq':
            config_assert(stride == -1,
                          'stride is not supported with AggregateLevel.'
                          'EACH_SEQUENCE')
        self.config.trans_type = trans_type
        self.config.seq_pool_stride = stride
        self.set_layer_size(self.get_input_layer(0).size)
        self.create_bias_parameter(bias, self.config.size)


@config_layer('max')
class MaxLayer(_SeqPoolBase):
    def __init__(self,
                 name,
                 inputs,
                 trans_type='non-seq',
                 bias=False,
                 output_max_index=None,
                 stride=-1,
                 **xargs):
        LayerBase.__init__(self, name, 'max', 0, inputs=inputs, **xargs)
        self._pool_common(trans_type, stride, bias)
        if output_max_index is not None:
            self.config.output_max_index = output_max_index


@config_layer('average')
class AverageLayer(_SeqPoolBase):
    def __init__(self,
                 name,
                 inputs,
                 average_strategy='average',
                 trans_type='non-seq',
                 bias=False,
                 stride=-1,
                 **xargs):
        LayerBase.__init__(self, name, 'average', 0, inputs=inputs, **xargs)
        config_assert(
            average_strategy in ('average', 'sum', 'squarerootn'),
            "average_strategy must be 'average', 'sum' or 'squarerootn'")
        self.config.average_strategy = average_strategy
        self._pool_common(trans_type, stride, bias)


@config_layer('seqlastins')
class SequenceLastInstanceLayer(_SeqPoolBase):
    def __init__(self,
                 name,
                 inputs,
                 trans_type='non-seq',
                 bias=False,
                 stride=-1,
                 **xargs):
        LayerBase.__init__(self, name, 'seqlastins', 0, inputs=inputs,
                           **xargs)
        self._pool_common(trans_type, stride, bias)


@config_layer('seqfirstins')
class SequenceFirstInstanceLayer(SequenceLastInstanceLayer):
    def __init__(self, name, inputs, **xargs):
        SequenceLastInstanceLayer.__init__(self, name, inputs, **xargs)
        self.config.select_first = True


@config_layer('expand')
class ExpandLayer(LayerBase):
    def __init__(self, name, inputs, trans_type='non-seq', bias=False,
                 **xargs):
        LayerBase.__init__(self, name, 'expand', 0, inputs=inputs, **xargs)
        config_assert(
            len(self.inputs) == 2, 'expand takes 2 inputs (input, expand_as)')
        self.config.trans_type = trans_type
        self.set_layer_size(self.get_input_layer(0).size)
        self.create_bias_parameter(bias, self.config.size)


@config_layer('featmap_expand')
class FeatMapExpandLayer(LayerBase):
    def __init__(self, name, inputs, num_filters=None, as_row_vector=True,
                 bias=False, **xargs):
        LayerBase.__init__(
            self, name, 'featmap_expand', 0, inputs=inputs, **xargs)
        config_assert(len(self.inputs) == 1, 'needs exactly one input')
        config_assert(num_filters is not None and num_filters > 0,
                      'num_repeats (num_filters) must be > 0')
        self.config.num_filters = num_filters
        if not as_row_vector:
            self.config.user_arg = 'as_col_vec'
        self.set_layer_size(self.get_input_layer(0).size * num_filters)


@config_layer('seqconcat')
class SequenceConcatLayer(LayerBase):
    def __init__(self, name, inputs, bias=False, **xargs):
        LayerBase.__init__(self, name, 'seqconcat', 0, inputs=inputs, **xargs)
        config_assert(len(self.inputs) == 2, 'seq_concat needs 2 inputs')
        a, b = self.get_input_layer(0), self.get_input_layer(1)
        config_assert(a.size == b.size,
                      "inputs '%s' (size %d) and '%s' (size %d) must have "
                      "the same size" % (a.name, a.size, b.name, b.size))
        self.set_layer_size(a.size)
        self.create_bias_parameter(bias, self.config.size)


@config_layer('seqreshape')
class SequenceReshapeLayer(LayerBase):
    def __init__(self, name, size, inputs, bias=False, **xargs):
        LayerBase.__init__(
            self, name, 'seqreshape', size, inputs=inputs, **xargs)
        config_assert(len(self.inputs) == 1, 'seq_reshape needs 1 input')
        self.set_layer_size(size)
        self.create_bias_parameter(bias, size)


@config_layer('maxid')
class MaxIdLayer(LayerBase):
    def __init__(self, name, inputs, beam_size=None, device=None):
        LayerBase.__init__(self, name, 'maxid', 0, inputs=inputs,
                           device=device)
        config_assert(len(self.inputs) == 1, 'maxid needs 1 input')
        self.set_layer_size(self.get_input_layer(0).size)
        if beam_size is None:
            if g_current_submodel.HasField('generator'):
                self.config.beam_size = g_current_submodel.generator.beam_size
        else:
            self.config.beam_size = beam_size


@config_layer('eos_id')
class EosIdLayer(LayerBase):
    def __init__(self, name, inputs, eos_id, device=None):
        LayerBase.__init__(self, name, 'eos_id', 0, inputs=inputs,
                           device=device)
        config_assert(len(self.inputs) == 1, 'eos needs 1 input')
        self.set_layer_size(2)
        self.config.eos_id = eos_id


@config_layer('sampling_id')
class SamplingIdLayer(LayerBase):
    def __init__(self, name, inputs, device=None):
        LayerBase.__init__(self, name, 'sampling_id', 0, inputs=inputs,
                           device=device)
        config_assert(len(self.inputs) == 1, 'sampling_id needs 1 input')
        self.set_layer_size(self.get_input_layer(0).size)


@config_layer('out_prod')
class OuterProdLayer(LayerBase):
    def __init__(self, name, inputs, device=None):
        LayerBase.__init__(self, name, 'out_prod', 0, inputs=inputs,
                           device=device)
        config_assert(len(self.inputs) == 2, 'out_prod needs 2 inputs')
        self.set_layer_size(self.get_input_layer(0).size *
                            self.get_input_layer(1).size)


def _check_size1(layer, idx, what):
    l = layer.get_input_layer(idx)
    config_assert(l.size == 1, "%s '%s' must have size 1, got %d" %
                  (what, l.name, l.size))


@config_layer('power')
class PowerLayer(LayerBase):
    def __init__(self, name, inputs, device=None):
        LayerBase.__init__(self, name, 'power', 0, inputs=inputs,
                           device=device)
        config_assert(len(self.inputs) == 2, 'power needs 2 inputs')
        _check_size1(self, 0, 'the exponent (weight) input')
        self.set_layer_size(self.get_input_layer(1).size)


@config_layer('scaling')
class ScalingLayer(LayerBase):
    def __init__(self, name, inputs, device=None):
        LayerBase.__init__(self, name, 'scaling', 0, inputs=inputs,
                           device=device)
        config_assert(len(self.inputs) == 2, 'scaling needs 2 inputs')
        _check_size1(self, 0, 'the weight input')
        self.set_layer_size(self.get_input_layer(1).size)


@config_layer('slope_intercept')
class SlopeInterceptLayer(LayerBase):
    def __init__(self, name, inputs, slope=1.0, intercept=0.0, device=None):
        LayerBase.__init__(self, name, 'slope_intercept', 0, inputs=inputs,
                           device=device)
        self.config.slope = slope
        self.config.intercept = intercept
        config_assert(len(self.inputs) == 1, 'slope_intercept needs 1 input')
        self.set_layer_size(self.get_input_layer(0).size)


@config_layer('conv_shift')
class ConvShiftLayer(LayerBase):
    def __init__(self, name, inputs, device=None):
        LayerBase.__init__(self, name, 'conv_shift', 0, inputs=inputs,
                           device=device)
        config_assert(len(self.inputs) == 2, 'conv_shift needs 2 inputs')
        self.set_layer_size(self.get_input_layer(0).size)


@config_layer('convex_comb')
class ConvexCombinationLayer(LayerBase):
    def __init__(self, name, size, inputs, device=None):
        LayerBase.__init__(self, name, 'convex_comb', size, inputs=inputs,
                           device=device)
        config_assert(len(self.inputs) == 2, 'linear_comb needs 2 inputs')
        w, v = self.get_input_layer(0), self.get_input_layer(1)
        config_assert(
            size * w.size == v.size,
            "vectors input '%s' must have size weights.size * size = %d, "
            "got %d" % (v.name, size * w.size, v.size))
        self.set_layer_size(size)


@config_layer('interpolation')
class InterpolationLayer(LayerBase):
    def __init__(self, name, inputs, device=None):
        LayerBase.__init__(self, name, 'interpolation', 0, inputs=inputs,
                           device=device)
        config_assert(len(self.inputs) == 3, 'interpolation needs 3 inputs')
        _check_size1(self, 0, 'the weight input')
        a, b = self.get_input_layer(1), self.get_input_layer(2)
        config_assert(a.size == b.size,
                      "inputs '%s' (size %d) and '%s' (size %d) must have "
                      "the same size" % (a.name, a.size, b.name, b.size))
        self.set_layer_size(a.size)


@config_layer('get_output')
class GetOutputLayer(LayerBase):
    def __init__(self, name, size, inputs):
        LayerBase.__init__(self, name, 'get_output', size, inputs)
        config_assert(len(self.inputs) == 1, 'get_output needs 1 input')
        config_assert(self.inputs[0].input_layer_argument,
                      'get_output needs arg_name')


@config_layer('tensor')
class TensorLayer(LayerBase):
    def __init__(self, name, size, inputs, bias=True, **xargs):
        LayerBase.__init__(self, name, 'tensor', size, inputs=inputs, **xargs)
        config_assert(len(self.inputs) == 2, 'tensor_layer needs 2 inputs')
        config_assert(size > 0, 'size must be > 0')
        a, b = self.get_input_layer(0), self.get_input_layer(1)
        self.create_input_parameter(0, size * a.size * b.size,
                                    [a.size, b.size, size])
        self.create_bias_parameter(bias, size)


@config_layer('recurrent')
class RecurrentLayer(LayerBase):
    def __init__(self, name, inputs, reversed=False, bias=True, **xargs):
        LayerBase.__init__(self, name, 'recurrent', 0, inputs, **xargs)
        config_assert(len(self.inputs) == 1, 'recurrent_layer needs 1 input')
        size = self.get_input_layer(0).size
        self.set_layer_size(size)
        self.config.reversed = reversed
        self.create_input_parameter(0, size * size, [size, size])
        self.create_bias_parameter(bias, self.config.size)


@config_layer('lstmemory')
class LstmLayer(LayerBase):
    def __init__(self,
                 name,
                 inputs,
                 reversed=False,
                 active_gate_type='sigmoid',
                 active_state_type='sigmoid',
                 bias=True,
                 **xargs):
        LayerBase.__init__(self, name, 'lstmemory', 0, inputs, **xargs)
        config_assert(len(self.inputs) == 1, 'lstmemory needs 1 input')
        input_layer = self.get_input_layer(0)
        config_assert(
            input_layer.size % 4 == 0,
            "input '%s' has size %d, which is not 4 * hidden size (the input "
            "of lstmemory must be the 4*size gate projection)" %
            (input_layer.name, input_layer.size))
        size = input_layer.size // 4
        self.set_layer_size(size)
        self.config.reversed = reversed
        self.config.active_gate_type = active_gate_type
        self.config.active_state_type = active_state_type
        self.create_input_parameter(0, size * size * 4, [size, size, 4])
        self.create_bias_parameter(bias, size * 7)


@config_layer('lstm_step')
class LstmStepLayer(LayerBase):
    def __init__(self,
                 name,
                 size,
                 inputs,
                 active_gate_type='sigmoid',
                 active_state_type='sigmoid',
                 bias=True,
                 **xargs):
        LayerBase.__init__(self, name, 'lstm_step', size, inputs, **xargs)
        config_assert(len(self.inputs) == 2, 'lstm_step needs 2 inputs')
        a, b = self.get_input_layer(0), self.get_input_layer(1)
        config_assert(a.size == 4 * size,
                      "input '%s' has size %d, expected 4 * size = %d" %
                      (a.name, a.size, 4 * size))
        config_assert(b.size == size,
                      "state '%s' has size %d, expected size = %d" %
                      (b.name, b.size, size))
        self.config.active_gate_type = active_gate_type
        self.config.active_state_type = active_state_type
        self.create_bias_parameter(bias, size * 3)


@config_layer('gated_recurrent')
class GatedRecurrentLayer(LayerBase):
    def __init__(self,
                 name,
                 inputs,
                 reversed=False,
                 active_gate_type='sigmoid',
                 bias=True,
                 **xargs):
        LayerBase.__init__(self, name, 'gated_recurrent', 0, inputs, **xargs)
        config_assert(len(self.inputs) == 1, 'grumemory needs 1 input')
        input_layer = self.get_input_layer(0)
        config_assert(
            input_layer.size % 3 == 0,
            "input '%s' has size %d, which is not 3 * hidden size (the input "
            "of grumemory must be the 3*size projection)" %
            (input_layer.name, input_layer.size))
        size = input_layer.size // 3
        self.set_layer_size(size)
        self.config.reversed = reversed
        self.config.active_gate_type = active_gate_type
        self.create_input_parameter(0, size * size * 3, [size, size * 3])
        self.create_bias_parameter(bias, size * 3)


@config_layer('gru_step')
class GruStepLayer(LayerBase):
    def __init__(self,
                 name,
                 size,
                 inputs,
                 active_gate_type='sigmoid',
                 bias=True,
                 **xargs):
        LayerBase.__init__(self, name, 'gru_step', size, inputs, **xargs)
        config_assert(len(self.inputs) == 2, 'gru_step needs 2 inputs')
        a, b = self.get_input_layer(0), self.get_input_layer(1)
        config_assert(a.size == 3 * size,
                      "input '%s' has size %d, expected 3 * size = %d" %
                      (a.name, a.size, 3 * size))
        config_assert(b.size == size,
                      "output memory '%s' has size %d, expected %d" %
                      (b.name, b.size, size))
        self.config.active_gate_type = active_gate_type
        self.create_input_parameter(0, size * size * 3, [size, size * 3])
        self.create_bias_parameter(bias, size * 3)


@config_layer('crf')
class CRFLayer(LayerBase):
    def __init__(self, name, size, inputs, coeff=1.0, device=None):
        LayerBase.__init__(self, name, 'crf', size, inputs, device=device)
        config_assert(2 <= len(self.inputs) <= 3, 'crf needs 2 or 3 inputs')
        config_assert(
            self.get_input_layer(0).size == size,
            "input '%s' has size %d, expected the number of labels %d" %
            (self.get_input_layer(0).name, self.get_input_layer(0).size,
             size))
        self.create_input_parameter(0, size * (size + 2), [size + 2, size])
        self.config.coeff = coeff


@config_layer('crf_decoding')
class CRFDecodingLayer(LayerBase):
    def __init__(self, name, size, inputs, device=None):
        LayerBase.__init__(self, name, 'crf_decoding', size, inputs,
                           device=device)
        config_assert(len(self.inputs) <= 2, 'crf_decoding takes <= 2 inputs')
        self.create_input_parameter(0, size * (size + 2), [size + 2, size])


@config_layer('ctc')
class CTCLayer(LayerBase):
    def __init__(self, name, size, inputs, norm_by_times=False, device=None):
        LayerBase.__init__(self, name, 'ctc', size, inputs, device=device)
        self.config.norm_by_times = norm_by_times
        config_assert(len(self.inputs) == 2, 'ctc needs 2 inputs')


@config_layer('warp_ctc')
class WarpCTCLayer(LayerBase):
    def __init__(self, name, size, inputs, blank=0, norm_by_times=False,
                 device=None):
        LayerBase.__init__(self, name, 'warp_ctc', size=size, inputs=inputs,
                           device=device)
        self.config.blank = blank
        self.config.norm_by_times = norm_by_times
        config_assert(len(self.inputs) == 2, 'warp_ctc needs 2 inputs')
        input_layer = self.get_input_layer(0)
        config_assert(
            input_layer.active_type in ('', 'linear'),
            "input '%s' of warp_ctc must have a linear activation" %
            input_layer.name)


@config_layer('hsigmoid')
class HierarchicalSigmoidLayer(LayerBase):
    def __init__(self, name, num_classes, inputs, device=None, bias=True):
        LayerBase.__init__(self, name, 'hsigmoid', 1, inputs=inputs,
                           device=device)
        config_assert(len(self.inputs) >= 2, 'hsigmoid needs >= 2 inputs')
        self.config.num_classes = num_classes
        for input_index in range(len(self.inputs) - 1):
            input_layer = self.get_input_layer(input_index)
            self.create_input_parameter(
                input_index, (num_classes - 1) * input_layer.size,
                [num_classes - 1, input_layer.size])
        self.create_bias_parameter(bias, num_classes - 1)


@config_layer('nce')
class NCELayer(LayerBase):
    def __init__(self,
                 name,
                 num_classes,
                 inputs,
                 num_neg_samples=10,
                 neg_sampling_dist=None,
                 bias=True,
                 **xargs):
        LayerBase.__init__(self, name, 'nce', 1, inputs=inputs, **xargs)
        config_assert(len(self.inputs) >= 2, 'nce needs >= 2 inputs')
        self.config.num_classes = num_classes
        if neg_sampling_dist is not None:
            config_assert(
                len(neg_sampling_dist) == num_classes,
                'len(neg_distribution) (%d) != num_classes (%d)' %
                (len(neg_sampling_dist), num_classes))
            s = sum(neg_sampling_dist)
            config_assert(abs(s - 1) < 1e-5,
                          'neg_distribution sums to %s, not 1' % s)
            self.config.neg_sampling_dist.extend(neg_sampling_dist)
        self.config.num_neg_samples = num_neg_samples
        num_real_inputs = len(self.inputs) - 1
        input_layer = self.get_input_layer(num_real_inputs)
        config_assert(input_layer.type == 'data',
                      'the last input (label) of nce must be a data layer')
        if (num_real_inputs > 1 and input_layer.size == 1 and
                self.get_input_layer(num_real_inputs - 1).type == 'data'):
            num_real_inputs -= 1
        for input_index in range(num_real_inputs):
            input_layer = self.get_input_layer(input_index)
            self.create_input_parameter(
                input_index, num_classes * input_layer.size,
                [num_classes, input_layer.size])
        self.create_bias_parameter(bias, num_classes)


@config_layer('data_norm')
class DataNormLayer(LayerBase):
    def __init__(self, name, inputs, data_norm_strategy='z-score',
                 device=None):
        LayerBase.__init__(self, name, 'data_norm', 0, inputs=inputs,
                           device=device)
        self.config.data_norm_strategy = data_norm_strategy
        config_assert(len(self.inputs) == 1, 'data_norm needs 1 input')
        input_layer = self.get_input_layer(0)
        self.set_layer_size(input_layer.size)
        self.inputs[0].is_static = True
        self.create_input_parameter(0, 5 * input_layer.size,
                                    [5, input_layer.size])


@config_layer('prelu')
class ParameterReluLayer(LayerBase):
    def __init__(self, name, inputs, partial_sum=1, **args):
        LayerBase.__init__(self, name, 'prelu', 0, inputs=inputs, **args)
        config_assert(len(self.inputs) == 1, 'prelu needs 1 input')
        input_layer = self.get_input_layer(0)
        config_assert(input_layer.size % partial_sum == 0,
                      'input size %d is not a multiple of partial_sum %d' %
                      (input_layer.size, partial_sum))
        self.set_layer_size(input_layer.size)
        self.config.partial_sum = partial_sum
        self.create_input_parameter(0, input_layer.size // partial_sum)


@config_layer('print')
class PrintLayer(LayerBase):
    def __init__(self, name, inputs):
        LayerBase.__init__(self, name, 'print', 0, inputs)


@config_layer('rotate')
class RotateLayer(LayerBase):
    def __init__(self, name, inputs, height, width, device=None):
        LayerBase.__init__(self, name, 'rotate', 0, inputs=inputs,
                           device=device)
        config_assert(len(self.inputs) == 1, 'rotate needs 1 input')
        self.set_layer_height_width(height, width)
        self.set_layer_size(self.get_input_layer(0).size)


@config_layer('priorbox')
class PriorBoxLayer(LayerBase):
    def __init__(self, name, inputs, size, min_size, max_size, aspect_ratio,
                 variance, device=None):
        LayerBase.__init__(self, name, 'priorbox', 0, inputs=inputs,
                           device=device)
        config_assert(len(self.inputs) == 2, 'priorbox needs 2 inputs '
                      '(feature map, image)')
        image = self.get_input_layer(1)
        config_assert(image.type == 'data', "priorbox: the second input "
                      "'%s' must be a data layer" % image.name)
        config_assert(image.width > 0 and image.height > 0,
                      "priorbox: data layer '%s' must set height and width"
                      % image.name)
        config_assert(len(variance) == 4,
                      'priorbox: variance must have 4 values, got %d' %
                      len(variance))
        conf = self.config.inputs[0].priorbox_conf
        conf.min_size.extend(min_size)
        conf.max_size.extend(max_size)
        conf.aspect_ratio.extend(aspect_ratio)
        conf.variance.extend(variance)
        self.config.size = as_int(size, 'priorbox size')


# image layers ---------------------------------------------------------------


def _use_gpu_type(device_set):
    use_gpu = int(g_command_config_args.get('use_gpu', 0))
    parallel_nn = int(g_command_config_args.get('parallel_nn', 0))
    return use_gpu == 1 and (parallel_nn == 0 or device_set)


@config_layer('conv')
class ConvLayerBase(LayerBase):
    layer_type = 'conv'

    def __init__(self, name, inputs=[], bias=True, num_filters=None,
                 shared_biases=False, **xargs):
        LayerBase.__init__(self, name, self.layer_type, 0, inputs=inputs,
                           **xargs)
        if num_filters is not None:
            self.config.num_filters = num_filters
        if self.layer_type == 'cudnn_conv':
            config_assert(
                int(g_command_config_args.get('use_gpu', 0)),
                'cudnn_conv needs use_gpu=1')
        if (self.layer_type != 'exconv' and
                _use_gpu_type(self.config.device > -1)):
            self.config.type = 'cudnn_conv'
        else:
            self.config.type = 'exconv'
        if shared_biases is not None:
            self.config.shared_biases = shared_biases
        for input_index in range(len(self.inputs)):
            input_layer = self.get_input_layer(input_index)
            conv_conf = self.config.inputs[input_index].conv_conf
            parse_conv(self.inputs[input_index].conv, input_layer.name,
                       conv_conf, num_filters)
            psize = (self.config.num_filters * conv_conf.filter_channels *
                     conv_conf.filter_size * conv_conf.filter_size_y)
            self.create_input_parameter(input_index, psize)
            self.set_cnn_layer(name, conv_conf.output_y, conv_conf.output_x,
                               self.config.num_filters)
        psize = self.config.size
        if shared_biases:
            psize = self.config.num_filters
        self.create_bias_parameter(bias, psize, [psize, 1])


@config_layer('exconv')
class ExConvLayer(ConvLayerBase):
    layer_type = 'exconv'


@config_layer('cudnn_conv')
class CudnnConvLayer(ConvLayerBase):
    layer_type = 'cudnn_conv'


@config_layer('convt')
class ConvTransLayerBase(LayerBase):
    layer_type = 'convt'

    def __init__(self, name, inputs=[], bias=True, num_filters=None,
                 shared_biases=False, **xargs):
        LayerBase.__init__(self, name, self.layer_type, 0, inputs=inputs,
                           **xargs)
        if num_filters is not None:
            self.config.num_filters = num_filters
        if (self.layer_type != 'exconvt' and
                _use_gpu_type(self.config.device > -1)):
            self.config.type = 'cudnn_convt'
        else:
            self.config.type = 'exconvt'
        if shared_biases is not None:
            self.config.shared_biases = shared_biases
        for input_index in range(len(self.inputs)):
            input_layer = self.get_input_layer(input_index)
            conv_conf = self.config.inputs[input_index].conv_conf
            parse_conv(
                self.inputs[input_index].conv,
                input_layer.name,
                conv_conf,
                num_filters,
                trans=True)
            psize = (conv_conf.channels * conv_conf.filter_channels *
                     conv_conf.filter_size * conv_conf.filter_size_y)
            self.create_input_parameter(input_index, psize)
            self.set_cnn_layer(name, conv_conf.img_size_y, conv_conf.img_size,
                               self.config.num_filters)
        psize = self.config.size
        if shared_biases:
            psize = self.config.num_filters
        self.create_bias_parameter(bias, psize, [psize, 1])


@config_layer('exconvt')
class ExConvTransLayer(ConvTransLayerBase):
    layer_type = 'exconvt'


@config_layer('cudnn_convt')
class CudnnConvTransLayer(ConvTransLayerBase):
    layer_type = 'cudnn_convt'


@config_layer('norm')
class NormLayer(LayerBase):
    def __init__(self, name, inputs, **xargs):
        LayerBase.__init__(self, name, 'norm', 0, inputs=inputs, **xargs)
        for input_index in range(len(self.inputs)):
            input_layer = self.get_input_layer(input_index)
            norm_conf = self.config.inputs[input_index].norm_conf
            parse_norm(self.inputs[input_index].norm, input_layer.name,
                       norm_conf)
            self.set_cnn_layer(name, norm_conf.output_y, norm_conf.output_x,
                               norm_conf.channels)
            if norm_conf.norm_type == 'cross-channel-norm':
                self.create_input_parameter(0, norm_conf.channels,
                                            [norm_conf.channels, 1])


@config_layer('pool')
class PoolLayer(LayerBase):
    def __init__(self, name, inputs, ceil_mode=True, **xargs):
        LayerBase.__init__(self, name, 'pool', 0, inputs=inputs, **xargs)
        for input_index in range(len(self.inputs)):
            input_layer = self.get_input_layer(input_index)
            pool_conf = self.config.inputs[input_index].pool_conf
            parse_pool(self.inputs[input_index].pool, input_layer.name,
                       pool_conf, ceil_mode)
            self.set_cnn_layer(name, pool_conf.output_y, pool_conf.output_x,
                               pool_conf.channels)


@config_layer('spp')
class SpatialPyramidPoolLayer(LayerBase):
    def __init__(self, name, inputs, **xargs):
        LayerBase.__init__(self, name, 'spp', 0, inputs=inputs, **xargs)
        for input_index in range(len(self.inputs)):
            input_layer = self.get_input_layer(input_index)
            spp_conf = self.config.inputs[input_index].spp_conf
            parse_spp(self.inputs[input_index].spp, input_layer.name,
                      spp_conf)
            output_x = (pow(4, spp_conf.pyramid_height) - 1) // (4 - 1)
            self.set_cnn_layer(name, 1, output_x,
                               spp_conf.image_conf.channels)


@config_layer('pad')
class PadLayer(LayerBase):
    def __init__(self, name, inputs, **xargs):
        LayerBase.__init__(self, name, 'pad', 0, inputs=inputs, **xargs)
        pad = self.inputs[0].pad
        self.config.inputs[0].pad_conf.pad_c.extend(pad.pad_c)
        self.config.inputs[0].pad_conf.pad_h.extend(pad.pad_h)
        self.config.inputs[0].pad_conf.pad_w.extend(pad.pad_w)
        input_layer = self.get_input_layer(0)
        image_conf = self.config.inputs[0].pad_conf.image_conf
        parse_image(pad, input_layer.name, image_conf)
        out_ch = pad.channels + pad.pad_c[0] + pad.pad_c[1]
        out_h = image_conf.img_size_y + pad.pad_h[0] + pad.pad_h[1]
        out_w = image_conf.img_size + pad.pad_w[0] + pad.pad_w[1]
        self.set_cnn_layer(name, out_h, out_w, out_ch)


@config_layer('batch_norm')
class BatchNormLayer(LayerBase):
    def __init__(self,
                 name,
                 inputs,
                 bias=True,
                 use_global_stats=True,
                 moving_average_fraction=0.9,
                 batch_norm_type=None,
                 **xargs):
        if inputs is None:
            inputs = []
        elif not isinstance(inputs, list):
            inputs = [inputs]
        config_assert(len(inputs) == 1, 'batch_norm needs exactly one input')
        use_gpu = bool(int(g_command_config_args.get('use_gpu', 0)))
        is_shared = not use_gpu
        for i in range(2):
            inputs.append(
                Input(
                    inputs[0].input_layer_name,
                    initial_std=0.0,
                    initial_mean=0.0,
                    is_static=True,
                    is_shared=is_shared,
                    make_layer_name_in_submodel=False))
        parallel_nn = bool(int(g_command_config_args.get('parallel_nn', 0)))
        cudnn_version = int(g_command_config_args.get('cudnn_version', 0))
        device = xargs.get('device')
        use_cudnn = (use_gpu and batch_norm_type != 'batch_norm' and
                     ((not parallel_nn) or (device is not None and
                                            device > -1)) and
                     cudnn_version >= 4007)
        layer_type = 'cudnn_batch_norm' if use_cudnn else 'batch_norm'
        LayerBase.__init__(self, name, layer_type, 0, inputs=inputs, **xargs)
        if use_global_stats is not None:
            self.config.use_global_stats = use_global_stats
        if moving_average_fraction is not None:
            self.config.moving_average_fraction = moving_average_fraction
        input_layer = self.get_input_layer(0)
        image_conf = self.config.inputs[0].image_conf
        parse_image(self.inputs[0].image, input_layer.name, image_conf)
        if input_layer.width != 0 or input_layer.height != 0:
            self.set_cnn_layer(name, image_conf.img_size_y,
                               image_conf.img_size, image_conf.channels)
        else:
            self.set_layer_size(input_layer.size)
        psize = image_conf.channels
        dims = [1, psize]
        self.create_input_parameter(0, psize)
        self.create_input_parameter(1, psize, dims)
        self.create_input_parameter(2, psize, dims)
        self.create_bias_parameter(bias, psize)


@config_layer('blockexpand')
class BlockExpandLayer(LayerBase):
    def __init__(self, name, inputs, **xargs):
        LayerBase.__init__(self, name, 'blockexpand', 0, inputs=inputs,
                           **xargs)
        for input_index in range(len(self.inputs)):
            input_layer = self.get_input_layer(input_index)
            parse_block_expand(
                self.inputs[input_index].block_expand, input_layer.name,
                self.config.inputs[input_index].block_expand_conf)
            c = self.config.inputs[input_index].block_expand_conf
            self.set_layer_size(c.block_x * c.block_y * c.channels)


@config_layer('maxout')
class MaxOutLayer(LayerBase):
    def __init__(self, name, inputs, **xargs):
        LayerBase.__init__(self, name, 'maxout', 0, inputs=inputs, **xargs)
        input_layer = self.get_input_layer(0)
        maxout_conf = self.config.inputs[0].maxout_conf
        parse_maxout(self.inputs[0].maxout, input_layer.name, maxout_conf)
        config_assert(
            maxout_conf.image_conf.channels % maxout_conf.groups == 0,
            'num_channels %d is not divisible by groups %d' %
            (maxout_conf.image_conf.channels, maxout_conf.groups))
        out_channels = maxout_conf.image_conf.channels // maxout_conf.groups
        self.set_cnn_layer(name, maxout_conf.image_conf.img_size_y,
                           maxout_conf.image_conf.img_size, out_channels)


@config_layer('bilinear_interp')
class BilinearInterpLayer(LayerBase):
    def __init__(self, name, inputs, **xargs):
        LayerBase.__init__(self, name, 'bilinear_interp', 0, inputs=inputs,
                           **xargs)
        input_layer = self.get_input_layer(0)
        conf = self.config.inputs[0].bilinear_interp_conf
        parse_bilinear(self.inputs[0].bilinear_interp, input_layer.name, conf)
        self.set_cnn_layer(name, conf.out_size_y, conf.out_size_x,
                           conf.image_conf.channels)


# ---------------------------------------------------------------------------
# Parameter and the default_* machinery


@config_func
def Parameter(name,
              size,
              device,
              dims,
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
              sparse=None,
              format=None,
              need_compact=None,
              is_static=None,
              is_shared=None,
              update_hooks=None,
              initializer=None):
    config_assert(name not in g_parameter_map,
                  "duplicate parameter name '%s'" % name)
    para = g_config.model_config.parameters.add()
    para.name = name
    para.size = as_int(size, "size of parameter '%s'" % name)
    if device is not None:
        para.device = int(device)
    para.dims.extend([as_int(d, 'parameter dims') for d in dims])
    if learning_rate is not None:
        para.learning_rate = as_float(learning_rate, 'learning_rate')
    momentum = default(momentum, g_default_momentum)
    if momentum is not None:
        para.momentum = as_float(momentum, 'momentum')
    config_assert(not momentum or not decay_rate_l1,
                  "parameter '%s': momentum and decay_rate_l1 (l1_rate) "
                  "cannot both be non-zero" % name)
    decay_rate = default(decay_rate, g_default_decay_rate)
    if decay_rate is not None:
        para.decay_rate = as_float(decay_rate, 'decay_rate')
    if decay_rate_l1 is not None:
        para.decay_rate_l1 = as_float(decay_rate_l1, 'decay_rate_l1')
    para.initial_std = as_float(
        default(initial_std, g_default_initial_std), 'initial_std')
    para.initial_mean = as_float(
        default(initial_mean, g_default_initial_mean), 'initial_mean')
    num_batches_regularization = default(num_batches_regularization,
                                         g_default_num_batches_regularization)
    if num_batches_regularization is not None:
        para.num_batches_regularization = int(num_batches_regularization)
    if sparse_remote_update is not None:
        para.sparse_remote_update = sparse_remote_update
        if sparse_remote_update:
            g_config.opt_config.use_sparse_remote_updater = True
    if sparse_update is not None:
        para.sparse_update = sparse_update
    gradient_clipping_threshold = default(
        gradient_clipping_threshold, g_default_gradient_clipping_threshold)
    if gradient_clipping_threshold is not None:
        para.gradient_clipping_threshold = as_float(
            gradient_clipping_threshold, 'gradient_clipping_threshold')
    para.initial_strategy = default(initial_strategy,
                                    g_default_initial_strategy)
    para.initial_smart = default(initial_smart, g_default_initial_smart)
    if para.initial_smart:
        para.initial_mean = 0.
        if len(para.dims) != 0:
            para.initial_std = 1. / math.sqrt(para.dims[0])
        else:
            para.initial_std = 1. / math.sqrt(para.size)
    if g_default_compact_func is not None:
        sparse, format, need_compact = g_default_compact_func(para.name)
    if sparse is not None:
        para.is_sparse = sparse
    if format is not None:
        para.format = format
    if need_compact is not None:
        para.need_compact = need_compact
    if is_static is not None:
        para.is_static = is_static
    config_assert(not para.sparse_remote_update or not para.is_static,
                  "parameter '%s': sparse_remote_update and is_static cannot "
                  "both be true" % name)
    if is_shared is not None:
        para.is_shared = is_shared
    update_hooks = default(update_hooks, g_default_update_hooks)
    if update_hooks is not None:
        if callable(update_hooks):
            update_hooks = update_hooks()
        if not isinstance(update_hooks, (list, tuple)):
            update_hooks = [update_hooks]
        for hook in update_hooks:
            para.update_hooks.add().CopyFrom(hook)
    g_parameter_map[name] = para
    return para


@config_func
def ParameterHook(type, **kwargs):
    if type == 'pruning':
        hook = ParameterUpdaterHookConfig()
        hook.type = type
        mask_filename = kwargs.get('mask_filename', None)
        if mask_filename is not None:
            hook.purning_mask_filename = mask_filename
        return hook
    return None


@config_func
def default_initial_std(val):
    global g_default_initial_std
    g_default_initial_std = val


@config_func
def default_initial_mean(val):
    global g_default_initial_mean
    g_default_initial_mean = val


@config_func
def default_initial_strategy(val):
    global g_default_initial_strategy
    g_default_initial_strategy = val


@config_func
def default_initial_smart(val):
    global g_default_initial_smart
    g_default_initial_smart = val


@config_func
def default_momentum(val):
    global g_default_momentum
    g_default_momentum = val


@config_func
def default_decay_rate(val):
    global g_default_decay_rate
    g_default_decay_rate = val


@config_func
def default_num_batches_regularization(val):
    global g_default_num_batches_regularization
    g_default_num_batches_regularization = val


@config_func
def default_gradient_clipping_threshold(val):
    global g_default_gradient_clipping_threshold
    g_default_gradient_clipping_threshold = val


@config_func
def default_device(val):
    global g_default_device
    g_default_device = val


@config_func
def default_update_hooks(val):
    global g_default_update_hooks
    g_default_update_hooks = val


@config_func
def default_compact_func(val):
    global g_default_compact_func
    g_default_compact_func = val


# ---------------------------------------------------------------------------
# Settings


@config_func
def Settings(**args):
    for k, v in args.items():
        if k == 'usage_ratio':
            if g_config.HasField('data_config'):
                g_config.data_config.usage_ratio = v
            settings_deprecated[k] = v
        elif k in settings:
            settings[k] = v
        elif k in trainer_settings:
            trainer_settings[k] = v
        else:
            raise ConfigError("unknown setting '%s'; known settings: %s" %
                              (k, ', '.join(sorted(
                                  list(settings) + list(trainer_settings)))))


# ---------------------------------------------------------------------------
# parsing


def _parse_config_args(config_arg_str):
    args = {}
    if not config_arg_str:
        return args
    for item in config_arg_str.split(','):
        if not item:
            continue
        if '=' not in item:
            raise ConfigError("bad config_args item '%s': expected "
                              "name=value" % item)
        k, v = item.split('=', 1)
        args[k.strip()] = v
    return args


def make_get_config_arg(config_args):
    def get_config_arg(name, type, default=None):
        if type == bool:
            s = config_args.get(name)
            if not s:
                return default
            if s in ('True', '1', 'true'):
                return True
            if s in ('False', '0', 'false'):
                return False
            raise ConfigError(
                "config arg '%s'='%s' is not a boolean (expected "
                "True/1/true or False/0/false)" % (name, s))
        value = config_args.get(name, default)
        try:
            return type(value)
        except (TypeError, ValueError):
            raise ConfigError("config arg '%s'=%r cannot be converted to %s" %
                              (name, value, getattr(type, '__name__', type)))

    return get_config_arg


def _obsolete_setter(k):
    def setter(*args, **kwargs):
        raise ConfigError("obsolete: use settings(%s=...) instead of %s(...)"
                          % (k, k))

    return setter


_PY2_BUILTINS = {
    'xrange': range,
    'basestring': str,
    'unicode': str,
    'long': int,
}


def _py2_builtins():
    import functools
    d = dict(_PY2_BUILTINS)
    d['reduce'] = functools.reduce
    return d


def make_config_environment(config_file, config_args):
    funcs = {}
    funcs.update(_py2_builtins())
    funcs.update(g_config_funcs)
    for k in settings:
        funcs[k] = _obsolete_setter(k)
    for k in settings_deprecated:
        funcs[k] = _obsolete_setter(k)
    config_dir = os.path.dirname(config_file) if config_file else ''
    if not config_dir:
        config_dir = '.'
    funcs['Import'] = make_importer(config_dir, config_args)
    funcs['get_config_arg'] = make_get_config_arg(config_args)
    return funcs


def _read_and_compile(path):
    try:
        with open(path) as f:
            src = f.read()
    except (IOError, OSError) as e:
        raise ConfigError('cannot read config file: %s' % e.strerror,
                          filename=path, lineno=0)
    try:
        return compile(src, path, 'exec')
    except SyntaxError as e:
        code = _try_py2_conversion(src, path)
        if code is not None:
            return code
        raise ConfigError(
            'syntax error: %s' % e.msg, filename=path, lineno=e.lineno or 0)


def _try_py2_conversion(src, path):
    """Legacy configs are Python 2; try a 2to3 pass (print statements ...)."""
    try:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            from lib2to3 import refactor
        fixers = [
            'lib2to3.fixes.fix_print', 'lib2to3.fixes.fix_except',
            'lib2to3.fixes.fix_dict', 'lib2to3.fixes.fix_xrange',
            'lib2to3.fixes.fix_raise', 'lib2to3.fixes.fix_ne',
            'lib2to3.fixes.fix_has_key', 'lib2to3.fixes.fix_numliterals',
            'lib2to3.fixes.fix_exec', 'lib2to3.fixes.fix_execfile'
        ]
        tool = refactor.RefactoringTool(fixers)
        if not src.endswith('\n'):
            src += '\n'
        new_src = str(tool.refactor_string(src, path))
        code = compile(new_src, path, 'exec')
        logger.warning('%s: converted Python 2 syntax to run it', path)
        return code
    except Exception:
        return None


def make_importer(config_dir, config_args):
    def Import(config_file, local_args={}):
        if not config_file.startswith('/'):
            config_file = os.path.join(config_dir, config_file)
            g_config.config_files.append(config_file)
        if not os.path.isfile(config_file):
            # located at the Import(...) line of the importing config
            raise ConfigError('Import: cannot read config file %s' %
                              config_file)
        g_config_files.append(os.path.abspath(config_file))
        code = _read_and_compile(config_file)
        env = make_config_environment(config_file, config_args)
        env['__file__'] = config_file
        env['__name__'] = '__paddle_config__'
        env.update(local_args)
        exec(code, env)

    return Import


def begin_parse():
    init_config_environment()
    for hook in _parse_config_hooks:
        hook()
    global g_current_submodel, g_root_submodel
    g_config.model_config.type = 'nn'
    g_root_submodel = g_config.model_config.sub_models.add()
    g_root_submodel.name = 'root'
    g_root_submodel.is_recurrent_layer_group = False
    g_current_submodel = g_root_submodel


def update_g_config():
    for k, v in settings.items():
        if v is None:
            continue
        try:
            setattr(g_config.opt_config, k, v)
        except (TypeError, ValueError):
            raise ConfigError('settings: %s=%r has the wrong type' % (k, v))
    for k, v in trainer_settings.items():
        if v is None:
            continue
        setattr(g_config, k, v)
    for name in g_config.model_config.input_layer_names:
        config_assert(name in g_layer_map,
                      "input '%s' is not a layer name" % name)
        config_assert(g_layer_map[name].type in ('data', 'data_trim'),
                      "input layer '%s' has type '%s', expected 'data'" %
                      (name, g_layer_map[name].type))
    for name in g_config.model_config.output_layer_names:
        config_assert(name in g_layer_map,
                      "output '%s' is not a layer name" % name)
    if (len(g_config.model_config.layers) > 0 and
            len(g_config.model_config.output_layer_names) == 0):
        raise ConfigError('the config defines layers but no outputs: end '
                          'it with outputs(<cost or output layers>)')
    return g_config


def _frames_in(tb, files):
    """(filename, lineno) of traceback entries inside one of ``files``."""
    out = []
    for fs in traceback.extract_tb(tb):
        if os.path.abspath(fs.filename) in files:
            out.append((fs.filename, fs.lineno))
    return out


def _describe_exception(e):
    if isinstance(e, ConfigError):
        return e.msg
    if isinstance(e, TypeError) and _is_call_signature_error(e):
        msg = str(e)
        hint = _keyword_hint(e)
        return msg + hint
    if isinstance(e, NameError):
        return '%s' % e
    if isinstance(e, AssertionError) and str(e):
        return 'check failed: %s' % e
    text = str(e)
    return '%s: %s' % (type(e).__name__, text) if text else type(e).__name__


def _keyword_hint(e):
    """For 'f() got an unexpected keyword argument 'x'', list f's keywords."""
    import difflib
    import re
    m = re.search(r"(\w+)\(\) got an unexpected keyword argument '(\w+)'",
                  str(e))
    if not m:
        return ''
    fname, kw = m.group(1), m.group(2)
    func = None
    tb = e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_name == fname:
            break
        tb = tb.tb_next
    for mod_name in ('paddle.trainer_config_helpers', ):
        mod = sys.modules.get(mod_name)
        if mod is not None and hasattr(mod, fname):
            func = getattr(mod, fname)
    if func is None:
        func = g_config_funcs.get(fname)
    if func is None:
        return ''
    try:
        target = inspect.unwrap(func)
        if inspect.isclass(target):
            target = target.__init__
        params = [
            p for p in inspect.signature(target).parameters
            if p not in ('self', 'args', 'kwargs', 'xargs')
        ]
    except (TypeError, ValueError):
        return ''
    close = difflib.get_close_matches(kw, params, n=1)
    if close:
        return " (did you mean '%s'?)" % close[0]
    return ' (accepted: %s)' % ', '.join(params)


def _locate(e, main_file):
    """Attach FILE:LINE of the innermost user config frame to an error."""
    files = set(g_config_files)
    frames = _frames_in(e.__traceback__, files)
    if frames:
        return frames[-1]
    if isinstance(e, ConfigError) and e.filename is not None:
        return e.filename, e.lineno
    return main_file, _last_line(main_file)


def _last_line(path):
    try:
        with open(path) as f:
            lines = f.read().split('\n')
        for i in range(len(lines) - 1, -1, -1):
            if lines[i].strip():
                return i + 1
    except (IOError, OSError, TypeError):
        pass
    return 0


def _is_yaml_config(path):
    return path.lower().endswith(('.yaml', '.yml'))


def parse_config(trainer_config, config_arg_str=''):
    """Run a trainer config (a file path or a callable) and return the
    TrainerConfig message.  Raises ConfigError (one line, FILE:LINE: ...)."""
    begin_parse()
    if callable(trainer_config):
        try:
            main_file = inspect.getsourcefile(trainer_config) or \
                trainer_config.__code__.co_filename
        except TypeError:
            main_file = '<config>'
    else:
        main_file = str(trainer_config)
    g_config_files.append(os.path.abspath(main_file))
    try:
        config_args = _parse_config_args(config_arg_str)
        g_command_config_args.update(config_args)
        if callable(trainer_config):
            trainer_config.__globals__.update(
                make_config_environment('', config_args))
            trainer_config()
        elif _is_yaml_config(main_file):
            from paddle.yaml_config import run_yaml_config
            run_yaml_config(main_file, config_args)
        else:
            code = _read_and_compile(main_file)
            env = make_config_environment(main_file, config_args)
            env['__file__'] = main_file
            env['__name__'] = '__paddle_config__'
            exec(code, env)
        return update_g_config()
    except ConfigError as e:
        if e.filename is None:
            e.filename, e.lineno = _locate(e, main_file)
        raise e.with_traceback(None)
    except RecursionError:
        raise
    except Exception as e:
        filename, lineno = _locate(e, main_file)
        err = ConfigError(_describe_exception(e), filename, lineno)
        raise err from e


def parse_config_and_serialize(trainer_config, config_arg_str=''):
    config = parse_config(trainer_config, config_arg_str)
    missing = config.FindInitializationErrors()
    if missing:
        hint = ''
        if 'opt_config.batch_size' in missing:
            hint = ' (call settings(batch_size=...))'
        raise ConfigError(
            'incomplete config, missing required fields: %s%s' %
            (', '.join(missing), hint),
            filename=g_config_files[0] if g_config_files else '<config>',
            lineno=_last_line(g_config_files[0]) if g_config_files else 0)
    return config.SerializeToString()


def get_config_funcs():
    return dict(g_config_funcs)


# importing this module gives a usable (empty) environment
begin_parse()

if __name__ == '__main__':
    try:
        conf = parse_config(sys.argv[1], sys.argv[2] if len(sys.argv) > 2
                            else '')
        print(str(conf))
    except ConfigError as err:
        sys.stderr.write(str(err) + '\n')
        sys.exit(1)
