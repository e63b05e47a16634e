"""Sequence pooling, expansion, concatenation and reshaping (SequenceLayers.cpp).

As in v1 (v0.10), max/average/seqlastins/seqfirstins/seqconcat/seqreshape default to
active_type 'linear' (the identity) where other layers default to ''."""

from paddle.layer_specs import spec

from .errors import config_assert
from .registry import config_layer
from .layer_base import LayerBase
from .layers_elementwise import FeatMapExpandLayer  # noqa: F401  (moved to its engine family)

# defaults: each type's spec (paddle/layer_specs)
_MAX, _AVERAGE = spec('max').defaults, spec('average').defaults
_LAST_INSTANCE, _EXPAND = spec('seqlastins').defaults, spec('expand').defaults


class _SeqPoolBase(LayerBase):
    def _pool_common(self, trans_type, stride, bias):
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
                 trans_type=_MAX['trans_type'],
                 bias=False,
                 output_max_index=None,
                 stride=-1,
                 active_type='linear',
                 **xargs):
        LayerBase.__init__(self, name, 'max', 0, inputs=inputs,
                           active_type=active_type, **xargs)
        self._pool_common(trans_type, stride, bias)
        if output_max_index is not None:
            self.config.output_max_index = output_max_index


@config_layer('average')
class AverageLayer(_SeqPoolBase):
    def __init__(self,
                 name,
                 inputs,
                 average_strategy=_AVERAGE['average_strategy'],
                 trans_type=_AVERAGE['trans_type'],
                 bias=False,
                 stride=-1,
                 active_type='linear',
                 **xargs):
        LayerBase.__init__(self, name, 'average', 0, inputs=inputs,
                           active_type=active_type, **xargs)
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
                 trans_type=_LAST_INSTANCE['trans_type'],
                 bias=False,
                 stride=-1,
                 active_type='linear',
                 **xargs):
        LayerBase.__init__(self, name, 'seqlastins', 0, inputs=inputs,
                           active_type=active_type, **xargs)
        self._pool_common(trans_type, stride, bias)


@config_layer('seqfirstins')
class SequenceFirstInstanceLayer(SequenceLastInstanceLayer):
    def __init__(self, name, inputs, **xargs):
        SequenceLastInstanceLayer.__init__(self, name, inputs, **xargs)
        self.config.select_first = True


@config_layer('expand')
class ExpandLayer(LayerBase):
    def __init__(self, name, inputs, trans_type=_EXPAND['trans_type'], bias=False,
                 **xargs):
        LayerBase.__init__(self, name, 'expand', 0, inputs=inputs, **xargs)
        self.config.trans_type = trans_type
        self.set_layer_size(self.get_input_layer(0).size)
        self.create_bias_parameter(bias, self.config.size)


@config_layer('seqconcat')
class SequenceConcatLayer(LayerBase):
    def __init__(self, name, inputs, bias=False, active_type='linear',
                 **xargs):
        LayerBase.__init__(self, name, 'seqconcat', 0, inputs=inputs,
                           active_type=active_type, **xargs)
        a, b = self.get_input_layer(0), self.get_input_layer(1)
        config_assert(a.size == b.size,
                      "inputs '%s' (size %d) and '%s' (size %d) must have "
                      "the same size" % (a.name, a.size, b.name, b.size))
        self.set_layer_size(a.size)
        self.create_bias_parameter(bias, self.config.size)


@config_layer('seqreshape')
class SequenceReshapeLayer(LayerBase):
    def __init__(self, name, size, inputs, bias=False, active_type='linear',
                 **xargs):
        LayerBase.__init__(self, name, 'seqreshape', size, inputs=inputs,
                           active_type=active_type, **xargs)
        self.set_layer_size(size)
        self.create_bias_parameter(bias, size)
