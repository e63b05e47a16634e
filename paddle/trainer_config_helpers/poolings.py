"""Pooling types of the v1 config language."""

__all__ = [
    'BasePoolingType', 'MaxPooling', 'AvgPooling', 'CudnnMaxPooling',
    'CudnnAvgPooling', 'SumPooling', 'SquareRootNPooling'
]


class BasePoolingType(object):
    """Base of the pooling types, the ``pooling_type=`` of pooling_layer (over the
    time steps of each sequence) and the ``pool_type=`` of img_pool_layer and the
    image networks (over windows of an image).

    A pooling type only names v1's layer or pool type; the layer helper checks that
    it is one it can use.

    Args:
        name (str): the v1 type name (``'max'``, ``'average'``, ``'cudnn-max-pool'``, ...).

    Example:
        >>> MaxPooling().name, AvgPooling().name, isinstance(SumPooling(), BasePoolingType)
        ('max', 'average', True)
    """

    def __init__(self, name):
        self.name = name


class MaxPooling(BasePoolingType):
    """Maximum pooling: each output element is the largest of its inputs.

    In pooling_layer, the element-wise maximum over the time steps of each sequence
    (or sub-sequence, with agg_level); in img_pool_layer (``max-projection``) the
    maximum over each pool_size window of each channel, windows clipped to the image.
    The gradient flows to the position of the maximum.

    Args:
        output_max_index (bool, optional): pooling_layer only: v1 could output the
            time step of each maximum instead of its value. Recorded in the
            LayerConfig (``output_max_index``); this engine outputs the values.

    Example:
        >>> def net():
        ...     seq = data_layer(name='words', size=8)
        ...     outputs(pooling_layer(input=seq, pooling_type=MaxPooling()))
        >>> parse_network_config(net).layers[-1].type
        'max'
    """

    def __init__(self, output_max_index=None):
        BasePoolingType.__init__(self, 'max')
        self.output_max_index = output_max_index


class CudnnMaxPooling(BasePoolingType):
    """Image max pooling under v1's cuDNN name (``cudnn-max-pool``), for img_pool_layer.

    v1 ran it with cuDNN on the GPU; this engine computes it with the same kernels
    as MaxPooling (on either device), so results match MaxPooling's. Not for
    pooling_layer.

    Example:
        >>> def net():
        ...     img = data_layer(name='img', size=1 * 4 * 4, height=4, width=4)
        ...     outputs(img_pool_layer(input=img, pool_size=2, stride=2, num_channels=1,
        ...                            pool_type=CudnnMaxPooling()))
        >>> parse_network_config(net).layers[-1].inputs[0].pool_conf.pool_type
        'cudnn-max-pool'
    """

    def __init__(self):
        BasePoolingType.__init__(self, 'cudnn-max-pool')


class CudnnAvgPooling(BasePoolingType):
    """Image average pooling under v1's cuDNN name (``cudnn-avg-pool``), for
    img_pool_layer.

    Computed with the same kernels as AvgPooling (on either device). Not for
    pooling_layer.

    Example:
        >>> def net():
        ...     img = data_layer(name='img', size=1 * 4 * 4, height=4, width=4)
        ...     outputs(img_pool_layer(input=img, pool_size=2, stride=2, num_channels=1,
        ...                            pool_type=CudnnAvgPooling()))
        >>> parse_network_config(net).layers[-1].inputs[0].pool_conf.pool_type
        'cudnn-avg-pool'
    """

    def __init__(self):
        BasePoolingType.__init__(self, 'cudnn-avg-pool')


class AvgPooling(BasePoolingType):
    """Average pooling.

    In pooling_layer (layer type ``average``), the time steps x_1..x_T of each
    sequence are combined as ``c * sum_t x_t`` with c set by the strategy: 1/T
    (``'average'``), 1 (``'sum'``, see SumPooling) or 1/sqrt(T) (``'squarerootn'``,
    see SquareRootNPooling). In img_pool_layer (``avg-projection``), the mean of
    each window, dividing by the window size clipped to the padded image (v1's
    convention); the strategy is not used there.

    Args:
        strategy (str, default 'average'): ``AvgPooling.STRATEGY_AVG`` ('average'),
            ``STRATEGY_SUM`` ('sum') or ``STRATEGY_SQROOTN`` ('squarerootn').

    Example:
        >>> def net():
        ...     seq = data_layer(name='words', size=8)
        ...     outputs(pooling_layer(input=seq, pooling_type=AvgPooling()))
        >>> layer = parse_network_config(net).layers[-1]
        >>> layer.type, layer.average_strategy
        ('average', 'average')
    """
    STRATEGY_AVG = 'average'
    STRATEGY_SUM = 'sum'
    STRATEGY_SQROOTN = 'squarerootn'

    def __init__(self, strategy=STRATEGY_AVG):
        BasePoolingType.__init__(self, 'average')
        self.strategy = strategy


class SumPooling(AvgPooling):
    """Sum pooling over each sequence: ``sum_t x_t`` (AvgPooling with strategy 'sum').

    For pooling_layer; img_pool_layer would treat it as average pooling.

    Example:
        >>> def net():
        ...     seq = data_layer(name='words', size=8)
        ...     outputs(pooling_layer(input=seq, pooling_type=SumPooling()))
        >>> parse_network_config(net).layers[-1].average_strategy
        'sum'
    """

    def __init__(self):
        AvgPooling.__init__(self, AvgPooling.STRATEGY_SUM)


class SquareRootNPooling(AvgPooling):
    """Sum over each sequence divided by the square root of its length:
    ``sum_t x_t / sqrt(T)`` (AvgPooling with strategy 'squarerootn').

    For pooling_layer; img_pool_layer would treat it as average pooling.

    Example:
        >>> def net():
        ...     seq = data_layer(name='words', size=8)
        ...     outputs(pooling_layer(input=seq, pooling_type=SquareRootNPooling()))
        >>> parse_network_config(net).layers[-1].average_strategy
        'squarerootn'
    """

    def __init__(self):
        AvgPooling.__init__(self, AvgPooling.STRATEGY_SQROOTN)
