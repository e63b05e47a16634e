"""Projections and operators, the inputs of mixed_layer and concat_layer (Projections.cpp)."""

import paddle.parser as cp

from paddle.parser import ConfigError

from ..attrs import ParameterAttribute
from ..default_decorators import wrap_bias_attr_default, wrap_param_attr_default
from ..layer_output import LayerType, _check_input, _check_param_attr


__all__ = [
    'full_matrix_projection', 'trans_full_matrix_projection', 'table_projection',
    'identity_projection', 'dotmul_projection', 'scaling_projection', 'dotmul_operator',
    'context_projection', 'conv_projection', 'conv_operator'
]

def _proj(cls, input, helper, **kwargs):
    _check_input(input, 'input', helper)
    proj = cls(input_layer_name=input.name, **kwargs)
    proj.origin = input
    return proj


@wrap_param_attr_default()
def full_matrix_projection(input, size=0, param_attr=None):
    """x * W, W of dims [input.size, size]."""
    _check_param_attr(param_attr, 'full_matrix_projection')
    return _proj(cp.FullMatrixProjection, input, 'full_matrix_projection',
                 size=size, **param_attr.attr)


@wrap_param_attr_default()
def trans_full_matrix_projection(input, size=0, param_attr=None):
    """x * W^T, W of dims [size, input.size]."""
    _check_param_attr(param_attr, 'trans_full_matrix_projection')
    return _proj(cp.TransposedFullMatrixProjection, input,
                 'trans_full_matrix_projection', size=size,
                 **param_attr.attr)


@wrap_param_attr_default()
def table_projection(input, size=0, param_attr=None):
    """Row lookup W[id] for an integer (id) input; W of dims [vocab, size]."""
    _check_param_attr(param_attr, 'table_projection')
    return _proj(cp.TableProjection, input, 'table_projection', size=size,
                 **param_attr.attr)


def identity_projection(input, offset=None, size=None):
    """Copy of the input, or its slice [offset, offset + layer size)."""
    if offset is None:
        return _proj(cp.IdentityProjection, input, 'identity_projection')
    kwargs = {} if size is None else {'size': size}
    return _proj(cp.IdentityOffsetProjection, input, 'identity_projection',
                 offset=offset, **kwargs)


@wrap_param_attr_default()
def dotmul_projection(input, param_attr=None, scale=None):
    """x .* w (element-wise weight of dims [1, size]).

    b0 spelling: dotmul_projection(input=[a, b], scale=s) is the
    parameter-free operator s * a .* b (dotmul_operator since b1)."""
    if isinstance(input, (list, tuple)):
        if len(input) != 2:
            raise ConfigError('dotmul_projection: the b0 form takes input=[a, '
                              'b] (2 layers), got %d items' % len(input))
        return dotmul_operator(a=input[0], b=input[1],
                               scale=1 if scale is None else scale)
    if scale is not None:
        raise ConfigError('dotmul_projection: scale is only valid with '
                          'input=[a, b] (use dotmul_operator)')
    _check_input(input, 'input', 'dotmul_projection')
    _check_param_attr(param_attr, 'dotmul_projection')
    return _proj(cp.DotMulProjection, input, 'dotmul_projection',
                 size=input.size, **param_attr.attr)


@wrap_param_attr_default()
def scaling_projection(input, param_attr=None):
    """w * x with one scalar weight."""
    _check_param_attr(param_attr, 'scaling_projection')
    return _proj(cp.ScalingProjection, input, 'scaling_projection',
                 **param_attr.attr)


def dotmul_operator(a=None, b=None, scale=1, **kwargs):
    """scale * a .* b (no parameter)."""
    if 'x' in kwargs or 'y' in kwargs:
        a = kwargs.get('x', a)
        b = kwargs.get('y', b)
    _check_input(a, 'a', 'dotmul_operator')
    _check_input(b, 'b', 'dotmul_operator')
    if a.size is not None and b.size is not None and a.size != b.size:
        raise ConfigError(
            "dotmul_operator: inputs '%s' (size %d) and '%s' (size %d) must "
            "have the same size" % (a.name, a.size, b.name, b.size))
    op = cp.DotMulOperator(input_layer_names=[a.name, b.name], scale=scale)
    op.origin = [a, b]
    return op


@wrap_bias_attr_default(['padding_attr'])
def context_projection(input, context_len, context_start=None,
                       padding_attr=False):
    """Concatenate the features of context_len neighbouring steps
    (starting at context_start, default -(context_len-1)/2). Positions outside the
    sequence read a trainable, zero-initialised padding (v1's default, and with
    padding_attr=True or a ParamAttr), or zeros with padding_attr=False."""
    _check_input(input, 'input', 'context_projection')
    context_start = -(context_len - 1) // 2 if context_start is None \
        else context_start
    extra = dict()
    trainable = isinstance(padding_attr, ParameterAttribute)
    if trainable:
        extra = padding_attr.attr
    return _proj(cp.ContextProjection, input, 'context_projection',
                 context_start=context_start, context_length=context_len,
                 trainable_padding=trainable, **extra)


def _pair(v, vy, what):
    if isinstance(v, (list, tuple)):
        if len(v) != 2:
            raise ConfigError('%s must be a number or an (x, y) pair' % what)
        return v[0], v[1]
    return v, (v if vy is None else vy)


def _num_channels(input, num_channels, helper):
    if num_channels is None:
        if input.num_filters is not None:
            return input.num_filters
        if input.size is not None and input.layer_type == LayerType.DATA:
            return 1
        raise ConfigError('%s: num_channels is required for input %s' %
                          (helper, input.name))
    return num_channels


@wrap_param_attr_default()
def conv_projection(input,
                    filter_size,
                    num_filters,
                    num_channels=None,
                    stride=1,
                    padding=0,
                    filter_size_y=None,
                    stride_y=None,
                    padding_y=None,
                    groups=1,
                    param_attr=None,
                    trans=False):
    """Convolution as a projection of a mixed/concat layer."""
    _check_input(input, 'input', 'conv_projection')
    num_channels = _num_channels(input, num_channels, 'conv_projection')
    filter_size, filter_size_y = _pair(filter_size, filter_size_y,
                                       'filter_size')
    stride, stride_y = _pair(stride, stride_y, 'stride')
    padding, padding_y = _pair(padding, padding_y, 'padding')
    if param_attr.attr.get('initial_smart'):
        init_w = (2.0 / (filter_size**2 * num_channels))**0.5
        param_attr.attr['initial_mean'] = 0.0
        param_attr.attr['initial_std'] = init_w
        param_attr.attr['initial_strategy'] = 0
        param_attr.attr['initial_smart'] = False
    cls = cp.ConvTransProjection if trans else cp.ConvProjection
    proj = cls(
        input_layer_name=input.name,
        num_filters=num_filters,
        conv_conf=cp.Conv(
            filter_size=filter_size,
            padding=padding,
            stride=stride,
            channels=num_channels,
            filter_size_y=filter_size_y,
            padding_y=padding_y,
            stride_y=stride_y,
            groups=groups),
        **param_attr.attr)
    proj.origin = input
    return proj


def conv_operator(img=None,
                  filter=None,
                  filter_size=None,
                  num_filters=None,
                  num_channels=None,
                  stride=1,
                  padding=0,
                  filter_size_y=None,
                  stride_y=None,
                  padding_y=None,
                  trans=False,
                  input=None):
    """Convolution of img by a per-sample filter given by another layer.
    (b0 spelling: conv_operator(input=[img, filter], ...).)"""
    if input is not None:
        if not isinstance(input, (list, tuple)) or len(input) != 2:
            raise ConfigError('conv_operator: input must be [img, filter]')
        img, filter = input
    if filter_size is None:
        raise ConfigError('conv_operator: filter_size is required')
    if num_filters is None:
        raise ConfigError('conv_operator: num_filters is required')
    _check_input(img, 'img', 'conv_operator')
    _check_input(filter, 'filter', 'conv_operator')
    filter_size, filter_size_y = _pair(filter_size, filter_size_y,
                                       'filter_size')
    stride, stride_y = _pair(stride, stride_y, 'stride')
    padding, padding_y = _pair(padding, padding_y, 'padding')
    if num_channels is None:
        num_channels = img.num_filters
    cls = cp.ConvTransOperator if trans else cp.ConvOperator
    op = cls(
        input_layer_names=[img.name, filter.name],
        num_filters=num_filters,
        conv_conf=cp.Conv(
            filter_size=filter_size,
            padding=padding,
            stride=stride,
            channels=num_channels,
            filter_size_y=filter_size_y,
            padding_y=padding_y,
            stride_y=stride_y,
            groups=1))
    op.origin = [img, filter]
    return op
