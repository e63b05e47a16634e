"""Pooling types of the v1 config language."""

__all__ = [
    'BasePoolingType', 'MaxPooling', 'AvgPooling', 'CudnnMaxPooling',
    'CudnnAvgPooling', 'SumPooling', 'SquareRootNPooling'
]


class BasePoolingType(object):
    def __init__(self, name):
        self.name = name


class MaxPooling(BasePoolingType):
    """Max over a sequence (pooling_layer) or an image window (img_pool_layer).
    output_max_index: sequence max pooling outputs the argmax index."""

    def __init__(self, output_max_index=None):
        BasePoolingType.__init__(self, 'max')
        self.output_max_index = output_max_index


class CudnnMaxPooling(BasePoolingType):
    def __init__(self):
        BasePoolingType.__init__(self, 'cudnn-max-pool')


class CudnnAvgPooling(BasePoolingType):
    def __init__(self):
        BasePoolingType.__init__(self, 'cudnn-avg-pool')


class AvgPooling(BasePoolingType):
    """Average; strategy 'average', 'sum' or 'squarerootn' (sequence pooling)."""
    STRATEGY_AVG = 'average'
    STRATEGY_SUM = 'sum'
    STRATEGY_SQROOTN = 'squarerootn'

    def __init__(self, strategy=STRATEGY_AVG):
        BasePoolingType.__init__(self, 'average')
        self.strategy = strategy


class SumPooling(AvgPooling):
    def __init__(self):
        AvgPooling.__init__(self, AvgPooling.STRATEGY_SUM)


class SquareRootNPooling(AvgPooling):
    def __init__(self):
        AvgPooling.__init__(self, AvgPooling.STRATEGY_SQROOTN)
