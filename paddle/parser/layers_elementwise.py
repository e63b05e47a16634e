"""Element-wise layers (ElementwiseLayers.cpp in the engine)."""

from paddle.layer_specs import spec

from .errors import config_assert
from .registry import config_layer
from .state import state
from .layer_base import LayerBase
from .recurrent_group import EosIdLayer  # noqa: F401  (moved to its engine family)


def _simple_layer(type_name):
    """Layers with no parameters whose size is their first input's (the input count
    is the spec's, checked by LayerBase)."""

    class _L(LayerBase):
        def __init__(self, name, inputs, **xargs):
            LayerBase.__init__(self, name, type_name, 0, inputs=inputs,
                               **xargs)
            self.set_layer_size(self.get_input_layer(0).size)

    _L.__name__ = ''.join(p.capitalize() for p in type_name.replace(
        '-', '_').split('_')) + 'Layer'
    return config_layer(type_name)(_L)


TransLayer = _simple_layer('trans')
SumToOneNormLayer = _simple_layer('sum_to_one_norm')


# defaults: each type's spec (paddle/layer_specs), shared with the v1 helpers
_COS = spec('cos').defaults
_COS_VM = spec('cos_vm').defaults
_SLOPE_INTERCEPT = spec('slope_intercept').defaults


@config_layer('cos')
class CosSimLayer(LayerBase):
    def __init__(self, name, inputs, cos_scale=_COS['scale'], device=None):
        LayerBase.__init__(
            self, name, 'cos', 1, inputs=inputs, device=device)
        a, b = self.get_input_layer(0), self.get_input_layer(1)
        config_assert(
            a.size == b.size,
            "inputs '%s' (size %d) and '%s' (size %d) must have the same size"
            % (a.name, a.size, b.name, b.size))
        self.config.cos_scale = cos_scale


@config_layer('cos_vm')
class CosSimVecMatLayer(LayerBase):
    def __init__(self, name, size, inputs, cos_scale=_COS_VM['scale'],
                 device=None):
        LayerBase.__init__(
            self, name, 'cos_vm', size, inputs=inputs, device=device)
        self.config.cos_scale = cos_scale
        a, b = self.get_input_layer(0), self.get_input_layer(1)
        config_assert(
            size * a.size == b.size,
            "second input '%s' must have size size*%d=%d, got %d" %
            (b.name, a.size, size * a.size, b.size))


@config_layer('maxid')
class MaxIdLayer(LayerBase):
    def __init__(self, name, inputs, beam_size=None, device=None):
        LayerBase.__init__(self, name, 'maxid', 0, inputs=inputs,
                           device=device)
        self.set_layer_size(self.get_input_layer(0).size)
        if beam_size is None:
            if state.current_submodel.HasField('generator'):
                self.config.beam_size = state.current_submodel.generator.beam_size
        else:
            self.config.beam_size = beam_size


@config_layer('sampling_id')
class SamplingIdLayer(LayerBase):
    def __init__(self, name, inputs, device=None):
        LayerBase.__init__(self, name, 'sampling_id', 0, inputs=inputs,
                           device=device)
        self.set_layer_size(self.get_input_layer(0).size)


@config_layer('out_prod')
class OuterProdLayer(LayerBase):
    def __init__(self, name, inputs, device=None):
        LayerBase.__init__(self, name, 'out_prod', 0, inputs=inputs,
                           device=device)
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
        _check_size1(self, 0, 'the exponent (weight) input')
        self.set_layer_size(self.get_input_layer(1).size)


@config_layer('scaling')
class ScalingLayer(LayerBase):
    def __init__(self, name, inputs, device=None):
        LayerBase.__init__(self, name, 'scaling', 0, inputs=inputs,
                           device=device)
        _check_size1(self, 0, 'the weight input')
        self.set_layer_size(self.get_input_layer(1).size)


@config_layer('slope_intercept')
class SlopeInterceptLayer(LayerBase):
    def __init__(self, name, inputs, slope=_SLOPE_INTERCEPT['slope'],
                 intercept=_SLOPE_INTERCEPT['intercept'], device=None):
        LayerBase.__init__(self, name, 'slope_intercept', 0, inputs=inputs,
                           device=device)
        self.config.slope = slope
        self.config.intercept = intercept
        self.set_layer_size(self.get_input_layer(0).size)


@config_layer('clip')
class ClipLayer(LayerBase):
    def __init__(self, name, inputs, min, max, device=None):
        LayerBase.__init__(self, name, 'clip', 0, inputs=inputs, device=device)
        config_assert(min < max, 'clip: min (%s) must be below max (%s)' % (min, max))
        self.set_layer_size(self.get_input_layer(0).size)
        self.config.inputs[0].clip_conf.min = min
        self.config.inputs[0].clip_conf.max = max


@config_layer('conv_shift')
class ConvShiftLayer(LayerBase):
    def __init__(self, name, inputs, device=None):
        LayerBase.__init__(self, name, 'conv_shift', 0, inputs=inputs,
                           device=device)
        self.set_layer_size(self.get_input_layer(0).size)


@config_layer('convex_comb')
class ConvexCombinationLayer(LayerBase):
    def __init__(self, name, size, inputs, device=None):
        LayerBase.__init__(self, name, 'convex_comb', size, inputs=inputs,
                           device=device)
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
        _check_size1(self, 0, 'the weight input')
        a, b = self.get_input_layer(1), self.get_input_layer(2)
        config_assert(a.size == b.size,
                      "inputs '%s' (size %d) and '%s' (size %d) must have "
                      "the same size" % (a.name, a.size, b.name, b.size))
        self.set_layer_size(a.size)


@config_layer('tensor')
class TensorLayer(LayerBase):
    def __init__(self, name, size, inputs, bias=True, **xargs):
        LayerBase.__init__(self, name, 'tensor', size, inputs=inputs, **xargs)
        config_assert(size > 0, 'size must be > 0')
        a, b = self.get_input_layer(0), self.get_input_layer(1)
        self.create_input_parameter(0, size * a.size * b.size,
                                    [a.size, b.size, size])
        self.create_bias_parameter(bias, size)


@config_layer('featmap_expand')
class FeatMapExpandLayer(LayerBase):
    def __init__(self, name, inputs, num_filters=None, as_row_vector=True,
                 bias=False, **xargs):
        LayerBase.__init__(
            self, name, 'featmap_expand', 0, inputs=inputs, **xargs)
        config_assert(num_filters is not None and num_filters > 0,
                      'num_repeats (num_filters) must be > 0')
        self.config.num_filters = num_filters
        if not as_row_vector:
            self.config.user_arg = 'as_col_vec'
        self.set_layer_size(self.get_input_layer(0).size * num_filters)
