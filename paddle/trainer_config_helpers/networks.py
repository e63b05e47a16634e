"""Network helpers (compositions of layers) and inputs()/outputs()."""

import logging

from paddle.parser import (ConfigError, HasInputsSet, Inputs,
                                          Outputs)

from .layers import LayerOutput, LayerType

__all__ = ['inputs', 'outputs']

logger = logging.getLogger('paddle')


def _layer_list(layers, args, helper):
    if isinstance(layers, (LayerOutput, str)):
        layers = [layers]
    elif isinstance(layers, (list, tuple)):
        layers = list(layers)
    else:
        raise ConfigError('%s: expected layers, got %s' %
                          (helper, type(layers).__name__))
    layers.extend(args)
    if not layers:
        raise ConfigError('%s: needs at least one layer' % helper)
    for each in layers:
        if not isinstance(each, (LayerOutput, str)):
            raise ConfigError('%s: expected layers, got %s' %
                              (helper, type(each).__name__))
    return layers


def inputs(layers, *args):
    """Declare the network's input (data) layers, in data-provider order."""
    layers = _layer_list(layers, args, 'inputs')
    Inputs(*[l if isinstance(l, str) else l.name for l in layers])


def outputs(layers, *args):
    """Declare the network's outputs (the last statement of a config).

    Unless inputs() was called, the input order is found by a depth-first
    walk over each given layer's parents (parents first, in order): the
    data layers, deduplicated in discovery order.  The outputs are the
    'cost' layers found the same way, or the given layers if there are none.
    """
    layers = _layer_list(layers, args, 'outputs')
    for each in layers:
        if not isinstance(each, LayerOutput):
            raise ConfigError('outputs: expected layers, got %s' %
                              type(each).__name__)

    if HasInputsSet():
        Outputs(*[l.name for l in layers])
        return

    def dfs(layer, predicate, seen, found):
        if id(layer) in seen:
            return
        seen.add(id(layer))
        for p in layer.parents or []:
            dfs(p, predicate, seen, found)
        if predicate(layer):
            found.append(layer)

    data_found, cost_found = [], []
    seen_data, seen_cost = set(), set()
    for each in layers:
        dfs(each, lambda x: x.layer_type == LayerType.DATA, seen_data,
            data_found)
        dfs(each, lambda x: x.layer_type == LayerType.COST, seen_cost,
            cost_found)

    final_inputs, final_outputs = [], []
    for each in data_found:
        if each.name not in final_inputs:
            final_inputs.append(each.name)
    for each in cost_found:
        if each.name not in final_outputs:
            final_outputs.append(each.name)
    if not final_outputs:
        final_outputs = [l.name for l in layers]
    Inputs(*final_inputs)
    Outputs(*final_outputs)


# ---------------------------------------------------------------------------
# composite networks

from .activations import LinearActivation, ReluActivation, SoftmaxActivation
from .attrs import ExtraAttr
from .default_decorators import wrap_name_default
from .layers import (addto_layer, batch_norm_layer, context_projection, fc_layer,
                     img_conv_layer, img_pool_layer, mixed_layer, pooling_layer)
from .poolings import MaxPooling
from .networks_recurrent import (  # noqa: F401  (part of this module's API)
    bidirectional_gru, bidirectional_lstm, gru_group, gru_unit, lstmemory_group, lstmemory_unit,
    simple_attention, simple_gru, simple_gru2, simple_lstm)

__all__ += [
    'sequence_conv_pool', 'text_conv_pool', 'simple_lstm', 'simple_img_conv_pool',
    'img_conv_bn_pool', 'img_conv_group', 'small_vgg', 'vgg_16_network',
    'lstmemory_unit', 'lstmemory_group', 'gru_unit', 'gru_group',
    'simple_gru', 'simple_gru2', 'bidirectional_lstm', 'bidirectional_gru',
    'simple_attention', 'dropout_layer'
]


@wrap_name_default('sequence_conv_pooling')
def sequence_conv_pool(input, context_len, hidden_size, name=None,
                       context_start=None, pool_type=None,
                       context_proj_layer_name=None,
                       context_proj_param_attr=False, fc_layer_name=None,
                       fc_param_attr=None, fc_bias_attr=None, fc_act=None,
                       pool_bias_attr=None, fc_attr=None, context_attr=None,
                       pool_attr=None):
    """Text CNN: context projection -> fc -> sequence pooling."""
    if context_proj_layer_name is None:
        context_proj_layer_name = '%s_conv_proj' % name
    with mixed_layer(name=context_proj_layer_name,
                     size=input.size * context_len, act=LinearActivation(),
                     layer_attr=context_attr) as m:
        m += context_projection(input, context_len=context_len,
                                context_start=context_start,
                                padding_attr=context_proj_param_attr)
    if fc_layer_name is None:
        fc_layer_name = '%s_conv_fc' % name
    fl = fc_layer(name=fc_layer_name, input=m, size=hidden_size, act=fc_act,
                  layer_attr=fc_attr, param_attr=fc_param_attr,
                  bias_attr=fc_bias_attr)
    return pooling_layer(name=name, input=fl, pooling_type=pool_type,
                         bias_attr=pool_bias_attr, layer_attr=pool_attr)


text_conv_pool = sequence_conv_pool


@wrap_name_default('conv_pool')
def simple_img_conv_pool(input, filter_size, num_filters, pool_size,
                         name=None, pool_type=None, act=None, groups=1,
                         conv_stride=1, conv_padding=0, bias_attr=None,
                         num_channel=None, param_attr=None, shared_bias=True,
                         conv_layer_attr=None, pool_stride=1, pool_padding=0,
                         pool_layer_attr=None):
    """img_conv_layer (NAME_conv) followed by img_pool_layer (NAME_pool)."""
    conv = img_conv_layer(name='%s_conv' % name, input=input,
                          filter_size=filter_size, num_filters=num_filters,
                          num_channels=num_channel, act=act, groups=groups,
                          stride=conv_stride, padding=conv_padding,
                          bias_attr=bias_attr, param_attr=param_attr,
                          shared_biases=shared_bias,
                          layer_attr=conv_layer_attr)
    return img_pool_layer(name='%s_pool' % name, input=conv,
                          pool_size=pool_size, pool_type=pool_type,
                          stride=pool_stride, padding=pool_padding,
                          layer_attr=pool_layer_attr)


@wrap_name_default('conv_bn_pool')
def img_conv_bn_pool(input, filter_size, num_filters, pool_size, name=None,
                     pool_type=None, act=None, groups=1, conv_stride=1,
                     conv_padding=0, conv_bias_attr=None, num_channel=None,
                     conv_param_attr=None, shared_bias=True,
                     conv_layer_attr=None, bn_param_attr=None,
                     bn_bias_attr=None, bn_layer_attr=None, pool_stride=1,
                     pool_padding=0, pool_layer_attr=None):
    """conv (linear) -> batch_norm (act) -> pool."""
    conv = img_conv_layer(name='%s_conv' % name, input=input,
                          filter_size=filter_size, num_filters=num_filters,
                          num_channels=num_channel, act=LinearActivation(),
                          groups=groups, stride=conv_stride,
                          padding=conv_padding, bias_attr=conv_bias_attr,
                          param_attr=conv_param_attr,
                          shared_biases=shared_bias,
                          layer_attr=conv_layer_attr)
    bn = batch_norm_layer(name='%s_bn' % name, input=conv, act=act,
                          bias_attr=bn_bias_attr, param_attr=bn_param_attr,
                          layer_attr=bn_layer_attr)
    return img_pool_layer(name='%s_pool' % name, input=bn,
                          pool_type=pool_type, pool_size=pool_size,
                          stride=pool_stride, padding=pool_padding,
                          layer_attr=pool_layer_attr)


def img_conv_group(input, conv_num_filter, pool_size, num_channels=None,
                   conv_padding=1, conv_filter_size=3, conv_act=None,
                   conv_with_batchnorm=False, conv_batchnorm_drop_rate=0,
                   pool_stride=1, pool_type=None):
    """A VGG block: convs (optionally with batch norm) then one pool."""
    if not isinstance(conv_num_filter, (list, tuple)):
        raise ConfigError('img_conv_group: conv_num_filter must be a list')

    def extend(obj):
        if not hasattr(obj, '__len__'):
            return [obj] * len(conv_num_filter)
        return obj

    conv_padding = extend(conv_padding)
    conv_filter_size = extend(conv_filter_size)
    conv_act = extend(conv_act)
    conv_with_batchnorm = extend(conv_with_batchnorm)
    conv_batchnorm_drop_rate = extend(conv_batchnorm_drop_rate)
    tmp = input
    for i in range(len(conv_num_filter)):
        extra = dict()
        if num_channels is not None:
            extra['num_channels'] = num_channels
            num_channels = None
        if conv_with_batchnorm[i]:
            extra['act'] = LinearActivation()
        else:
            extra['act'] = conv_act[i]
        tmp = img_conv_layer(input=tmp, padding=conv_padding[i],
                             filter_size=conv_filter_size[i],
                             num_filters=conv_num_filter[i], **extra)
        if conv_with_batchnorm[i]:
            dropout = conv_batchnorm_drop_rate[i]
            if dropout == 0 or abs(dropout) < 1e-5:
                tmp = batch_norm_layer(input=tmp, act=conv_act[i])
            else:
                tmp = batch_norm_layer(input=tmp, act=conv_act[i],
                                       layer_attr=ExtraAttr(
                                           drop_rate=dropout))
    return img_pool_layer(input=tmp, stride=pool_stride, pool_size=pool_size,
                          pool_type=pool_type)


def small_vgg(input_image, num_channels, num_classes):
    def vgg(ipt, num_filter, times, dropouts, channels=None):
        return img_conv_group(input=ipt, num_channels=channels, pool_size=2,
                              pool_stride=2,
                              conv_num_filter=[num_filter] * times,
                              conv_filter_size=3, conv_act=ReluActivation(),
                              conv_with_batchnorm=True,
                              conv_batchnorm_drop_rate=dropouts,
                              pool_type=MaxPooling())

    tmp = vgg(input_image, 64, 2, [0.3, 0], num_channels)
    tmp = vgg(tmp, 128, 2, [0.4, 0])
    tmp = vgg(tmp, 256, 3, [0.4, 0.4, 0])
    tmp = vgg(tmp, 512, 3, [0.4, 0.4, 0])
    tmp = img_pool_layer(input=tmp, stride=2, pool_size=2,
                         pool_type=MaxPooling())
    tmp = dropout_layer(input=tmp, dropout_rate=0.5)
    tmp = fc_layer(input=tmp, size=512, layer_attr=ExtraAttr(drop_rate=0.5),
                   act=LinearActivation())
    tmp = batch_norm_layer(input=tmp, act=ReluActivation())
    return fc_layer(input=tmp, size=num_classes, act=SoftmaxActivation())


def vgg_16_network(input_image, num_channels, num_classes=1000):
    tmp = input_image
    for i, filters in enumerate([[64, 64], [128, 128], [256, 256, 256],
                                 [512, 512, 512], [512, 512, 512]]):
        tmp = img_conv_group(input=tmp,
                             num_channels=num_channels if i == 0 else None,
                             conv_padding=1, conv_num_filter=filters,
                             conv_filter_size=3, conv_act=ReluActivation(),
                             pool_size=2, pool_stride=2,
                             pool_type=MaxPooling())
    tmp = fc_layer(input=tmp, size=4096, act=ReluActivation(),
                   layer_attr=ExtraAttr(drop_rate=0.5))
    tmp = fc_layer(input=tmp, size=4096, act=ReluActivation(),
                   layer_attr=ExtraAttr(drop_rate=0.5))
    return fc_layer(input=tmp, size=num_classes, act=SoftmaxActivation())


@wrap_name_default('dropout')
def dropout_layer(input, dropout_rate, name=None):
    """addto of one input with ExtraAttr(drop_rate)."""
    return addto_layer(name=name, input=input, act=LinearActivation(),
                       bias_attr=False,
                       layer_attr=ExtraAttr(drop_rate=dropout_rate))
