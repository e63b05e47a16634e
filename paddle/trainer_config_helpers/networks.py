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
    """Declares the network's input (data) layers and their order.

    The order is the order of the slots the data provider yields (for a provider
    whose input_types is a list) and of the arguments a py_paddle caller passes.
    Without inputs(), outputs() finds the data layers itself (see outputs); call
    inputs() when that order is not the one the data comes in. Call it before
    outputs().

    Args:
        layers (LayerOutput, str or list of them): the data layers (or their names).
        *args (LayerOutput or str): more data layers, so that ``inputs(a, b)`` and
            ``inputs([a, b])`` are the same.

    Raises:
        ConfigError: no layer, or something that is not a layer.

    Example:
        >>> def net():
        ...     label, x = data_layer(name='label', size=2), data_layer(name='x', size=4)
        ...     inputs(x, label)
        ...     outputs(classification_cost(input=fc_layer(input=x, size=2, act=SoftmaxActivation()),
        ...                                 label=label))
        >>> list(parse_network_config(net).input_layer_names)
        ['x', 'label']
    """
    layers = _layer_list(layers, args, 'inputs')
    Inputs(*[l if isinstance(l, str) else l.name for l in layers])


def outputs(layers, *args):
    """Declares the network's outputs; the last statement of a config.

    For a training config, pass the cost layer(s); for a prediction config
    (``is_predict``), the layers to compute. The outputs recorded are the cost
    layers found among the given layers and their ancestors, or, when there are
    none, the given layers themselves.

    Unless inputs() was called, the input layers and their order are found by a
    depth-first walk over each given layer's inputs (an input's inputs first, in
    the order they were passed): the data layers, each once, in the order first
    reached. So the data provider's slots must come in that order, or be declared
    by name (input_types as a dict), or be fixed with inputs().

    Args:
        layers (LayerOutput or list of LayerOutput): the output (or cost) layers.
        *args (LayerOutput): more layers, so that ``outputs(a, b)`` and
            ``outputs([a, b])`` are the same.

    Raises:
        ConfigError: no layer, or something that is not a layer.

    Example:
        >>> def net():
        ...     x, label = data_layer(name='x', size=4), data_layer(name='label', size=2)
        ...     prob = fc_layer(input=x, size=2, act=SoftmaxActivation(), name='prob')
        ...     outputs(classification_cost(input=prob, label=label, name='cost'))
        >>> model = parse_network_config(net)
        >>> list(model.input_layer_names), list(model.output_layer_names)
        (['x', 'label'], ['cost'])
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
    """A text convolution (alias text_conv_pool): context windows of a sequence, a
    fully connected layer over each window, then pooling over the sequence.

    Builds three layers: ``<name>_conv_proj`` (a mixed_layer with a
    context_projection: each time step becomes the concatenation of the
    context_len steps around it, size input.size * context_len),
    ``<name>_conv_fc`` (fc_layer of hidden_size on every step) and ``<name>``
    (pooling_layer over each sequence, max by default). The result is one vector
    of hidden_size per sequence: the classic CNN sentence classifier's feature.

    Args:
        input (LayerOutput): a sequence (e.g. word embeddings).
        context_len (int): the window length.
        hidden_size (int): the fc layer's size (the number of filters).
        name (str, optional): the pooling layer's name and the prefix of the others;
            default generated.
        context_start (int, optional): the window's first offset relative to the
            step; default -(context_len - 1) // 2 (centred).
        pool_type (BasePoolingType, optional): the sequence pooling, default
            MaxPooling().
        context_proj_layer_name (str, optional): the projection layer's name.
        context_proj_param_attr (ParamAttr or bool, default False): padding of the
            windows beyond the sequence ends: False zeros, True or a ParamAttr a
            trainable padding.
        fc_layer_name (str, optional): the fc layer's name.
        fc_param_attr (ParamAttr, optional): the fc weight's attributes.
        fc_bias_attr (ParamAttr or bool, optional): the fc bias.
        fc_act (BaseActivation, optional): the fc activation, default tanh.
        pool_bias_attr (ParamAttr or bool, optional): a bias of the pooling layer
            (default none).
        fc_attr (ExtraAttr, optional): the fc layer's extra attributes.
        context_attr (ExtraAttr, optional): the projection layer's extra attributes.
        pool_attr (ExtraAttr, optional): the pooling layer's extra attributes.

    Returns:
        LayerOutput: the pooling layer (size hidden_size).

    Example:
        >>> words = embedding_layer(input=data_layer(name='words', size=1000), size=32)
        >>> conv = sequence_conv_pool(input=words, context_len=3, hidden_size=64, name='conv')
        >>> conv.name, conv.size, conv.layer_type
        ('conv', 64, 'max')
    """
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
    """An image convolution followed by a pooling: ``<name>_conv`` (img_conv_layer)
    then ``<name>_pool`` (img_pool_layer).

    Output sizes follow v1's rules: the convolution gives
    (in + 2 * conv_padding - filter_size) / conv_stride + 1 pixels a side, the pool
    (conv_out + 2 * pool_padding - pool_size) / pool_stride + 1, rounded up.

    Args:
        input (LayerOutput): the image layer (a data_layer with height / width, or
            an image layer).
        filter_size (int): the convolution's square filter size.
        num_filters (int): the number of filters (output channels).
        pool_size (int): the pooling window's size.
        name (str, optional): the prefix of both layers' names; default generated.
        pool_type (BasePoolingType, optional): MaxPooling() (default) or AvgPooling().
        act (BaseActivation, optional): the convolution's activation, default ReLU.
        groups (int, default 1): filter groups of the convolution.
        conv_stride (int, default 1): the convolution's stride.
        conv_padding (int, default 0): the convolution's zero padding.
        bias_attr (ParamAttr or bool, optional): the convolution's bias.
        num_channel (int, optional): the input's channel count; default from the
            input layer.
        param_attr (ParamAttr, optional): the filters' attributes.
        shared_bias (bool, default True): one bias per filter (not per position).
        conv_layer_attr (ExtraAttr, optional): the convolution's extra attributes.
        pool_stride (int, default 1): the pooling stride.
        pool_padding (int, default 0): the pooling padding.
        pool_layer_attr (ExtraAttr, optional): the pooling layer's extra attributes.

    Returns:
        LayerOutput: the pooling layer.

    Example:
        >>> img = data_layer(name='pixel', size=28 * 28, height=28, width=28)
        >>> out = simple_img_conv_pool(input=img, filter_size=5, num_filters=20, num_channel=1,
        ...                            pool_size=2, pool_stride=2, name='conv1')
        >>> out.name, out.size    # 20 channels of (28 - 5 + 1) / 2 = 12 x 12
        ('conv1_pool', 2880)
    """
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
    """A convolution, batch normalisation and pooling: ``<name>_conv`` (linear
    img_conv_layer), ``<name>_bn`` (batch_norm_layer applying ``act``) and
    ``<name>_pool`` (img_pool_layer).

    Args:
        input (LayerOutput): the image layer.
        filter_size (int): the convolution's square filter size.
        num_filters (int): the number of filters.
        pool_size (int): the pooling window's size.
        name (str, optional): the prefix of the three layers' names.
        pool_type (BasePoolingType, optional): MaxPooling() (default) or AvgPooling().
        act (BaseActivation, optional): the activation after batch norm, default ReLU.
        groups (int, default 1): filter groups of the convolution.
        conv_stride (int, default 1): the convolution's stride.
        conv_padding (int, default 0): the convolution's zero padding.
        conv_bias_attr (ParamAttr or bool, optional): the convolution's bias.
        num_channel (int, optional): the input's channel count; default from the input.
        conv_param_attr (ParamAttr, optional): the filters' attributes.
        shared_bias (bool, default True): one bias per filter.
        conv_layer_attr (ExtraAttr, optional): the convolution's extra attributes.
        bn_param_attr (ParamAttr, optional): the batch norm scale's attributes.
        bn_bias_attr (ParamAttr, optional): the batch norm shift's attributes.
        bn_layer_attr (ExtraAttr, optional): the batch norm layer's extra attributes.
        pool_stride (int, default 1): the pooling stride.
        pool_padding (int, default 0): the pooling padding.
        pool_layer_attr (ExtraAttr, optional): the pooling layer's extra attributes.

    Returns:
        LayerOutput: the pooling layer.

    Example:
        >>> img = data_layer(name='pixel', size=28 * 28, height=28, width=28)
        >>> out = img_conv_bn_pool(input=img, filter_size=3, num_filters=8, num_channel=1,
        ...                        conv_padding=1, pool_size=2, pool_stride=2, name='block')
        >>> out.name, out.size    # 8 channels of 14 x 14
        ('block_pool', 1568)
    """
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
    """A VGG block: a stack of convolutions (each optionally followed by batch
    normalisation and dropout), then one pooling.

    One img_conv_layer per entry of conv_num_filter. The per-convolution arguments
    (conv_padding, conv_filter_size, conv_act, conv_with_batchnorm,
    conv_batchnorm_drop_rate) take one value for all or a list with one per
    convolution. With batch norm a convolution is linear and its batch_norm_layer
    applies the activation (and the dropout, when its rate is not 0).

    Args:
        input (LayerOutput): the image layer.
        conv_num_filter (list of int): the filter count of each convolution.
        pool_size (int): the pooling window's size.
        num_channels (int, optional): the input's channel count; default from the
            input.
        conv_padding (int or list, default 1): zero padding of the convolutions.
        conv_filter_size (int or list, default 3): their filter sizes.
        conv_act (BaseActivation or list, optional): their activations (default
            ReLU, the img_conv_layer default).
        conv_with_batchnorm (bool or list, default False): add batch norm.
        conv_batchnorm_drop_rate (float or list, default 0): dropout rate after
            each batch norm.
        pool_stride (int, default 1): the pooling stride.
        pool_type (BasePoolingType, optional): MaxPooling() (default) or AvgPooling().

    Returns:
        LayerOutput: the pooling layer.

    Raises:
        ConfigError: conv_num_filter is not a list.

    Example:
        >>> img = data_layer(name='pixel', size=28 * 28, height=28, width=28)
        >>> block = img_conv_group(input=img, num_channels=1, conv_num_filter=[16, 16],
        ...                        pool_size=2, pool_stride=2, conv_with_batchnorm=True)
        >>> block.size    # 16 channels of 14 x 14
        3136
    """
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
    """A VGG-style classifier for small (32 x 32, CIFAR-sized) images.

    Four img_conv_group blocks of 3 x 3 ReLU convolutions with batch norm and
    dropout (2 x 64, 2 x 128, 3 x 256, 3 x 512 filters, each block halving the
    image), another 2 x 2 max pooling, dropout 0.5, a 512-unit fc layer with
    dropout and batch norm, and a softmax fc of num_classes.

    Args:
        input_image (LayerOutput): the image layer (32 x 32 gives 1 x 1 before the
            fc layers).
        num_channels (int): the image's channel count (3 for RGB).
        num_classes (int): the number of classes.

    Returns:
        LayerOutput: the softmax output layer (size num_classes).

    Example:
        >>> image = data_layer(name='image', size=3 * 32 * 32, height=32, width=32)
        >>> probs = small_vgg(input_image=image, num_channels=3, num_classes=10)
        >>> probs.size, probs.activation
        (10, softmax)
    """
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
    """The VGG-16 classifier (Simonyan & Zisserman) for 224 x 224 images.

    Five img_conv_group blocks of 3 x 3 ReLU convolutions with padding 1 (2 x 64,
    2 x 128, 3 x 256, 3 x 512, 3 x 512 filters), each followed by a 2 x 2 max
    pooling of stride 2, then two 4096-unit ReLU fc layers with dropout 0.5 and a
    softmax fc of num_classes.

    Args:
        input_image (LayerOutput): the image layer.
        num_channels (int): the image's channel count (3 for RGB).
        num_classes (int, default 1000): the number of classes.

    Returns:
        LayerOutput: the softmax output layer.

    Example:
        >>> image = data_layer(name='image', size=3 * 224 * 224, height=224, width=224)
        >>> probs = vgg_16_network(image, num_channels=3, num_classes=100)
        >>> probs.size, probs.activation
        (100, softmax)
    """
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
    """Dropout as a layer of its own: an addto_layer passing ``input`` through with
    ``ExtraAttr(drop_rate=dropout_rate)``.

    v1 dropout (not inverted): in training each value is zeroed with probability
    dropout_rate; in testing values are scaled by 1 - dropout_rate. Most layers
    take the same as ``layer_attr=ExtraAttr(drop_rate=...)``.

    Args:
        input (LayerOutput): the layer to drop out.
        dropout_rate (float): the probability of zeroing a value, in [0, 1[.
        name (str, optional): the layer's name; default generated.

    Returns:
        LayerOutput: the dropout layer (same size as input).

    Example:
        >>> def net():
        ...     hidden = fc_layer(input=data_layer(name='x', size=8), size=16)
        ...     outputs(dropout_layer(input=hidden, dropout_rate=0.3, name='drop'))
        >>> layer = parse_network_config(net).layers[-1]
        >>> layer.name, layer.type, round(layer.drop_rate, 6)
        ('drop', 'addto', 0.3)
    """
    return addto_layer(name=name, input=input, act=LinearActivation(),
                       bias_attr=False,
                       layer_attr=ExtraAttr(drop_rate=dropout_rate))
