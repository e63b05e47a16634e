"""paddle/layer_specs is the one place a layer's facts live: every other tree that
names layer types or helper arguments is derived from it or checked against it here
(the helpers' signatures, the YAML builder, LayerType, the parser's registry, the
engine's registry, the ONNX exporter, ModelConfig.proto's defaults)."""

import inspect

import pytest

from paddle import layer_specs
from paddle.layer_specs import HELPERS, LAYER_HELPERS, SPECS, LayerSpec
from paddle.parser.registry import g_layer_type_map
from paddle.proto.ModelConfig_pb2 import LayerConfig
from paddle.trainer_config_helpers import evaluators, layers, networks
from paddle.trainer_config_helpers.layer_output import LayerType
from paddle.utils.dump_config import dump_config
from paddle.yaml_config import builder

import paddle.trainer.config_parser  # noqa: F401  (registers every parser class)

# LayerOutput.layer_type markers of the helpers that are no engine type
HELPER_SIDE_TYPES = {
    'cost': 'LayerType.COST, the generic cost marker of v1 helper code',
    'memory': "a memory's LayerOutput; the engine layer it becomes is an agent",
}


def _callable(name):
    for mod in (layers, networks, evaluators):
        if hasattr(mod, name):
            return getattr(mod, name)
    raise AssertionError('no config-language callable %s' % name)


def _signature(func):
    """[(name, default)] of a helper, or of a class's __init__ (self dropped)."""
    target = inspect.unwrap(func)
    if inspect.isclass(target):
        target = target.__init__
    return [(n, p.default) for n, p in inspect.signature(target).parameters.items()
            if n != 'self' and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]


SCALAR_TYPES = {'int': int, 'float': (int, float), 'bool': bool, 'str': str}


@pytest.mark.parametrize('name', sorted(HELPERS))
def test_helper_signature_matches_its_spec(name):
    sig = _signature(_callable(name))
    spec = HELPERS[name]
    assert [n for n, _ in sig] == [n for n, _ in spec.args], name
    for arg, default in sig:
        kind = spec.kind(arg)
        if default is inspect.Parameter.empty or default is None:
            continue
        if kind in SCALAR_TYPES:
            assert isinstance(default, SCALAR_TYPES[kind]), (name, arg, default, kind)
            assert kind != 'int' or not isinstance(default, bool), (name, arg)
        elif kind in layer_specs.LAYER_KINDS:
            raise AssertionError('%s: layer argument %s has a default %r' % (name, arg, default))


def test_every_config_language_callable_has_a_spec():
    public = {n for mod in (layers, networks) for n in mod.__all__
              if inspect.isfunction(getattr(mod, n))} - {'layer_support', 'inputs', 'outputs'}
    assert public == set(LAYER_HELPERS) | set(layer_specs.PROJECTIONS)
    assert {n for n in evaluators.__all__ if n.endswith('_evaluator')} == set(layer_specs.EVALUATORS)
    # the YAML builder's vocabulary is the specs'
    assert set(builder.LAYER_TYPES) == set(LAYER_HELPERS)
    assert set(builder.PROJECTION_TYPES) == set(layer_specs.PROJECTIONS)
    assert set(builder.EVALUATOR_TYPES) == set(layer_specs.EVALUATORS)


@pytest.mark.parametrize('name', sorted(HELPERS))
def test_yaml_builder_takes_its_argument_kinds_from_the_spec(name):
    spec = HELPERS[name]
    for arg, kind in spec.args:
        got = builder._kind(arg, spec)
        if kind in layer_specs.LAYER_KINDS:
            assert got == 'layer', (name, arg)
        elif kind in layer_specs.OBJECT_KINDS:
            assert got == kind, (name, arg)
        else:
            assert got == 'value', (name, arg)


def test_yaml_builder_has_no_hand_list_of_layer_arguments():
    assert not hasattr(builder, 'LAYER_KEYS')
    # without a spec no argument is read as a layer, whatever its name
    for key in ('input', 'label', 'weight', 'image', 'id_input', 'out_memory'):
        assert builder._kind(key, None) == 'value'


def test_forwarded_arguments_take_the_target_helpers_kinds():
    bidi = HELPERS['bidirectional_lstm']
    assert bidi.kind('fwd_act') == 'act' and bidi.kind('bwd_mat_param_attr') == 'param_attr'
    assert bidi.kind('fwd_nonsense') is None and bidi.kind('nonsense') is None


def test_onnx_exporter_cost_types_are_the_specs_costs():
    from paddle.utils.export_onnx.graph import COST_TYPES
    assert COST_TYPES == layer_specs.cost_types()
    assert {'multi-class-cross-entropy', 'square_error', 'lambda_cost', 'crf', 'warp_ctc'} <= COST_TYPES
    assert not COST_TYPES & {'fc', 'crf_decoding', 'auc-validation'}


def test_onnx_converters_are_for_spec_types_that_are_no_costs():
    from paddle.utils.export_onnx.layers import CONVERTERS
    assert set(CONVERTERS) <= set(SPECS)
    assert not set(CONVERTERS) & layer_specs.cost_types()


def test_layer_type_strings_are_spec_types():
    values = {getattr(LayerType, k) for k in dir(LayerType) if k.isupper()}
    unknown = values - set(SPECS) - set(HELPER_SIDE_TYPES)
    assert not unknown, unknown
    assert not set(HELPER_SIDE_TYPES) & set(SPECS)


def test_helpers_write_the_type_their_spec_names(parse):
    conf = parse('''
        from paddle.trainer_config_helpers import *
        x = data_layer(name='x', size=4)
        w = data_layer(name='w', size=1)
        s = data_layer(name='s', size=1)
        outputs(power_layer(input=x, weight=w, name='p'), lambda_cost(input=s, score=s, name='l'),
                cos_sim(a=x, b=x, name='c'), slope_intercept_layer(input=x, name='si'))
    ''')
    types = {layer.name: layer.type for layer in conf.model_config.layers}
    for name, helper in [('p', 'power_layer'), ('l', 'lambda_cost'), ('c', 'cos_sim'),
                         ('si', 'slope_intercept_layer')]:
        assert types[name] == LAYER_HELPERS[helper].layer_type


def _quirked(quirk):
    return {t for t, s in SPECS.items() if quirk in s.quirks}


def test_parser_registers_every_spec_type():
    assert set(g_layer_type_map) == set(SPECS) - _quirked('engine_only')


def test_engine_registers_every_spec_type():
    swig_paddle = pytest.importorskip('py_paddle.swig_paddle')
    assert set(swig_paddle.getLayerTypes()) == set(SPECS) - _quirked('parser_only')


def test_family_is_the_module_and_names_an_engine_file():
    for family, module in layer_specs.FAMILIES.items():
        assert module.SPECS, family
        assert all(s.family == family for s in module.SPECS)
    assert SPECS['prelu'].family == 'prelu' and SPECS['data_norm'].family == 'norm'
    assert SPECS['print'].family == 'utility' and SPECS['get_output'].family == 'utility'


def test_spec_defaults_are_the_helpers_and_the_protos():
    checked = 0
    for spec in SPECS.values():
        for arg, default in spec.defaults.items():
            for h in spec.helpers:
                sig = dict(_signature(_callable(h.name)))
                if arg in sig:
                    assert sig[arg] == default, (h.name, arg)
                    checked += 1
    assert checked >= 8
    assert SPECS['lambda_cost'].defaults == {
        'NDCG_num': LayerConfig.DESCRIPTOR.fields_by_name['NDCG_num'].default_value,
        'max_sort_size': -1}


def test_input_count_rules():
    two = LayerSpec('t', 'x', inputs=2)
    assert two.input_count_error(2) is None
    assert two.input_count_error(3) == 't needs 2 inputs, got 3'
    at_least = LayerSpec('t', 'x', inputs=(2, None))
    assert at_least.input_count_error(5) is None and 'needs >= 2' in at_least.input_count_error(1)
    span = LayerSpec('t', 'x', inputs=(0, 2))
    assert span.input_count_error(2) is None and span.input_count_error(3)
    with pytest.raises(ValueError):
        LayerSpec('t', 'x', quirks=['no_such_quirk'])
    with pytest.raises(ValueError):
        layer_specs.HelperSpec('h', 'input:lair')


def _bad_count(rule):
    """An input count the rule refuses: one too many, or one too few when open-ended."""
    if isinstance(rule, int):
        return rule + 1
    lo, hi = rule
    return lo - 1 if hi is None else hi + 1


@pytest.mark.parametrize('layer_type', sorted(
    t for t, s in SPECS.items() if s.inputs not in (None, 0) and t in g_layer_type_map))
def test_parser_enforces_the_spec_input_count(layer_type, parse):
    """Every parser class of a type whose spec has an input-count rule refuses a wrong
    count with the spec's message (the parser states no count itself)."""
    n = _bad_count(SPECS[layer_type].inputs)
    cls = g_layer_type_map[layer_type]
    required = [name for name, p in inspect.signature(cls.__init__).parameters.items()
                if p.default is p.empty and name not in ('self', 'name', 'inputs')
                and p.kind == p.POSITIONAL_OR_KEYWORD]
    from paddle.parser import ConfigError
    with pytest.raises(ConfigError, match='%s needs .*got %d' % (layer_type, n)):
        parse('''
            from paddle.trainer.config_parser import *
            for i in range(%d):
                Layer(name='x%%d' %% i, type='data', size=4)
            g_config_funcs[%r](name='t', inputs=['x%%d' %% i for i in range(%d)], **%r)
        ''' % (n, cls.__name__, n, dict.fromkeys(required, 1)))


# -- the three YAML cases the hand list missed: each parses exactly like its Python twin

TWINS = {
    'priorbox_image': ('''
from paddle.trainer_config_helpers import *
settings(batch_size=2)
img = data_layer(name='img', size=3 * 8 * 8, height=8, width=8)
c = img_conv_layer(input=img, filter_size=3, num_filters=2, num_channels=3, padding=1, name='c')
outputs(priorbox_layer(input=c, image=img, aspect_ratio=[2.], variance=[0.1, 0.1, 0.2, 0.2],
                       min_size=[3], max_size=[6], name='pb'))
''', '''
settings: {batch_size: 2}
layers:
  - {type: data_layer, name: img, size: 192, height: 8, width: 8}
  - {type: img_conv_layer, name: c, input: img, filter_size: 3, num_filters: 2, num_channels: 3, padding: 1}
  - {type: priorbox_layer, name: pb, input: c, image: img, aspect_ratio: [2.0],
     variance: [0.1, 0.1, 0.2, 0.2], min_size: [3], max_size: [6]}
outputs: [pb]
'''),
    'beam_search_id_input': ('''
from paddle.trainer_config_helpers import *
settings(batch_size=2)
enc = data_layer(name='enc', size=6)
ids = data_layer(name='ids', size=1)
def step(ctx, word):
    return fc_layer(input=[ctx, word], size=10, act=SoftmaxActivation(), name='out')
outputs(beam_search(step=step, input=[StaticInput(enc), GeneratedInput(size=10, embedding_name='emb',
                    embedding_size=4)], bos_id=0, eos_id=1, beam_size=2, max_length=9, name='gen',
                    result_file='res.txt', dict_file='dict.txt', id_input=ids))
''', '''
settings: {batch_size: 2}
layers:
  - {type: data_layer, name: enc, size: 6}
  - {type: data_layer, name: ids, size: 1}
  - type: beam_search
    name: gen
    input:
      - {type: StaticInput, input: enc}
      - {type: GeneratedInput, size: 10, embedding_name: emb, embedding_size: 4}
    step:
      inputs: [ctx, word]
      layers:
        - {type: fc_layer, name: out, input: [ctx, word], size: 10, act: softmax}
      output: out
    bos_id: 0
    eos_id: 1
    beam_size: 2
    max_length: 9
    result_file: res.txt
    dict_file: dict.txt
    id_input: ids
outputs: [gen]
'''),
    'lstmemory_unit_out_memory': ('''
from paddle.trainer_config_helpers import *
settings(batch_size=2)
a = data_layer(name='a', size=12)
def step(x):
    m = memory(name='lu', size=3)
    return lstmemory_unit(input=x, size=3, name='lu', out_memory=m)
outputs(recurrent_group(step=step, input=a, name='grp'))
''', '''
settings: {batch_size: 2}
layers:
  - {type: data_layer, name: a, size: 12}
  - type: recurrent_group
    name: grp
    input: a
    step:
      inputs: [x]
      layers:
        - {type: memory, name: lu, size: 3, as: m}
        - {type: lstmemory_unit, name: lu, input: x, size: 3, out_memory: m}
      output: lu
outputs: [grp]
'''),
}


@pytest.mark.parametrize('case', sorted(TWINS))
def test_yaml_twin_parses_like_the_python_config(case, write_config):
    py_text, yaml_text = TWINS[case]
    py = dump_config(write_config(py_text, case + '.py'), whole=True)
    ym = dump_config(write_config(yaml_text, case + '.yaml'), whole=True)
    assert 'layers {' in py
    assert py == ym


def test_the_twins_exercise_the_layer_argument():
    assert HELPERS['priorbox_layer'].kind('image') == 'layer'
    assert HELPERS['beam_search'].kind('id_input') == 'layer'
    assert HELPERS['lstmemory_unit'].kind('out_memory') == 'layer'


def _literal_defaults(func):
    """{argument: literal} of the defaults written as literals in func's own source."""
    import ast
    import textwrap
    tree = ast.parse(textwrap.dedent(inspect.getsource(inspect.unwrap(func))))
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    args = node.args.args[len(node.args.args) - len(node.args.defaults):]
    return {a.arg: d.value for a, d in zip(args, node.args.defaults)
            if isinstance(d, ast.Constant) and d.value is not None}


@pytest.mark.parametrize('layer_type', sorted(t for t, s in SPECS.items() if s.defaults))
def test_spec_defaults_are_not_restated_as_literals(layer_type):
    """A default the spec holds is written as a literal neither in the helpers of its
    type nor in its parser class (they read the spec)."""
    spec = SPECS[layer_type]
    for h in spec.helpers:
        assert not set(_literal_defaults(_callable(h.name))) & set(spec.defaults), h.name
    parser_literals = _literal_defaults(g_layer_type_map[layer_type].__init__)
    assert not set(parser_literals) & {PARSER_NAMES.get(a, a) for a in spec.defaults}

    def restating(input, NDCG_num=5, name=None):  # what the check catches
        return NDCG_num
    assert _literal_defaults(restating) == {'NDCG_num': 5}


# The parser's (and LayerConfig's) name of a helper argument, where they differ.
PARSER_NAMES = {'scale': 'cos_scale', 'reverse': 'reversed', 'pass_generation': 'selective_fc_pass_generation',
                'mul_ratio': 'selective_fc_full_mul_ratio'}
# Defaults that are written twice on purpose (type, parser's argument name): why.
# Not checked here, and also left where they are: the engine's guards (e.g. PReluLayer.cpp
# refuses partial_sum 0, NormLayers.cpp an unknown data_norm_strategy), because a
# ModelConfig may come from JSON without the parser; and the docstrings' "(int, default 5)".
RESTATED_ON_PURPOSE = {
    ('mixed', 'size'): "0 means 'the width of the inputs' to mixed_layer and to the parser alike; "
                       "embedding_layer, the type's other helper, needs a size, so it is no spec default",
}


def _restated_defaults(layer_type, parser_init, helpers):
    """{argument: [(where, value)]} of the literal defaults of one layer type written in two
    places or more: its parser class, its helpers (under the parser's name) and
    ModelConfig.proto's default of the LayerConfig field of that name."""
    places = {}
    for arg, value in _literal_defaults(parser_init).items():
        places.setdefault(arg, []).append(('parser', value))
    for helper in helpers:
        for arg, value in _literal_defaults(helper).items():
            if arg != 'name':
                places.setdefault(PARSER_NAMES.get(arg, arg), []).append((helper.__name__, value))
    fields = LayerConfig.DESCRIPTOR.fields_by_name
    out = {}
    for arg, where in places.items():
        if arg in fields and fields[arg].has_default_value:
            where = where + [('ModelConfig.proto', fields[arg].default_value)]
        values = [(type(v), v) for _, v in where]
        if len(set(values)) < len(values) and (layer_type, arg) not in RESTATED_ON_PURPOSE:
            out[arg] = where
    return out


@pytest.mark.parametrize('layer_type', sorted(t for t in SPECS if t in g_layer_type_map))
def test_no_default_is_written_in_two_places(layer_type):
    """A default of a layer type (its parser class, its helpers, LayerConfig's .proto default)
    is written once: a value two of them share lives in the spec (or is read from the .proto
    with proto_default), and they read it from there."""
    helpers = [_callable(h.name) for h in SPECS[layer_type].helpers]
    assert _restated_defaults(layer_type, g_layer_type_map[layer_type].__init__, helpers) == {}


def test_a_default_written_in_two_places_is_caught():
    def parser_init(self, name, inputs, reversed=False, trans_type='non-seq', ceil_mode=True, size=0):
        pass

    def helper(input, name=None, reverse=True, ceil_mode=True, size=0):
        pass
    found = _restated_defaults('pool', parser_init, [helper])
    assert found == {'reversed': [('parser', False), ('helper', True), ('ModelConfig.proto', False)],
                     'trans_type': [('parser', 'non-seq'), ('ModelConfig.proto', 'non-seq')],
                     'ceil_mode': [('parser', True), ('helper', True)],
                     'size': [('parser', 0), ('helper', 0)]}


def test_family_names_match_in_every_tree():
    """Each parser class and each helper lives in a module of its spec's family (the
    engine's file name): no family is spelt one way in one tree and another elsewhere."""
    misplaced = []
    for t, s in SPECS.items():
        cls = g_layer_type_map.get(t)
        if cls is not None:
            module = cls.__module__.rsplit('.', 1)[1]
            if s.family not in layer_specs.PARSER_MODULES.get(module, ()):
                misplaced.append('parser %s (%s) in %s' % (t, s.family, module))
    for name, h in HELPERS.items():
        module = inspect.unwrap(_callable(name)).__module__.rsplit('.', 1)[1]
        if h.family not in layer_specs.HELPER_MODULES.get(module, ()):
            misplaced.append('helper %s (%s) in %s' % (name, h.family, module))
    assert not misplaced, misplaced
    every = set(layer_specs.FAMILIES)
    assert every == {f for fs in layer_specs.PARSER_MODULES.values() for f in fs}
    assert every - {'validation', 'prelu'} <= {f for fs in layer_specs.HELPER_MODULES.values() for f in fs}


def test_moved_helpers_and_classes_keep_their_import_paths():
    from paddle.parser import layers_elementwise, layers_sequence, layers_utility
    from paddle.trainer_config_helpers.layers import basic, elementwise, sequence
    assert basic.cos_sim is layers.cos_sim and basic.trans_layer is layers.trans_layer
    assert elementwise.print_layer is layers.print_layer and elementwise.rotate_layer is layers.rotate_layer
    assert sequence.repeat_layer is layers.repeat_layer
    assert layers_utility.PriorBoxLayer is g_layer_type_map['priorbox']
    assert layers_utility.ParameterReluLayer is g_layer_type_map['prelu']
    assert layers_sequence.FeatMapExpandLayer is g_layer_type_map['featmap_expand']
    assert layers_elementwise.EosIdLayer is g_layer_type_map['eos_id']


# per type: input sizes and arguments a parser class needs to build (others: inputs of
# sizes 6, 5, 7, ... and 3 for each required argument)
_SIZE_CASES = {
    'clip': ([6], {'min': 0, 'max': 3}),
    'cos': ([6, 6], {}),
    'scaling': ([1, 6], {}),
    'power': ([1, 6], {}),
    'crf': ([3, 1], {'size': 3}),
    'crf_decoding': ([3], {'size': 3}),
    'gru_step': ([6, 2], {'size': 2}),
    'lstm_step': ([8, 2], {'size': 2}),
    'expand': ([6, 5], {}),
    'tensor': ([6, 5], {'size': 3}),
}
# built without inputs, or only with a select input: covered by the helper protostr rows
_SIZE_SKIP = {'data', 'selective_fc'}


def _expected_size(rule, sizes, args):
    if isinstance(rule, int):
        return rule
    if rule == 'arg':
        return args['size']
    return sizes[int(rule.partition(':')[2] or 0)]


@pytest.mark.parametrize('layer_type', sorted(t for t, s in SPECS.items()
                                              if s.size is not None and t not in _SIZE_SKIP))
def test_parser_class_follows_the_spec_size_rule(layer_type, parse):
    spec = SPECS[layer_type]
    cls = g_layer_type_map[layer_type]
    n = spec.inputs if isinstance(spec.inputs, int) else (spec.inputs or (1,))[0]
    sizes, args = _SIZE_CASES.get(layer_type, ([6, 5, 7][:max(n, 1)], {}))
    required = [name for name, p in inspect.signature(cls.__init__).parameters.items()
                if p.default is p.empty and name not in ('self', 'cls', 'name', 'inputs')
                and p.kind == p.POSITIONAL_OR_KEYWORD]
    args = dict(dict.fromkeys(required, 3), **args)
    conf = parse('''
        from paddle.trainer.config_parser import *
        for i, size in enumerate(%r):
            Layer(name='x%%d' %% i, type='data', size=size)
        g_config_funcs[%r](name='t', inputs=['x%%d' %% i for i in range(%d)], **%r)
        Outputs('t')
    ''' % (sizes, cls.__name__, len(sizes), args))
    layer = [l for l in conf.model_config.layers if l.name == 't'][0]
    assert layer.size == _expected_size(spec.size, sizes, args), (spec.size, sizes)


@pytest.mark.parametrize('layer_type', sorted(_quirked('weight_first')))
def test_weight_first_quirk(layer_type, parse):
    helper = SPECS[layer_type].helpers[0].name
    conf = parse('''
        from paddle.trainer_config_helpers import *
        x = data_layer(name='x', size=6)
        w = data_layer(name='w', size=1)
        outputs(%s(input=x, weight=w, name='t'))
    ''' % helper)
    layer = [l for l in conf.model_config.layers if l.name == 't'][0]
    assert [i.input_layer_name for i in layer.inputs] == ['w', 'x']


@pytest.mark.parametrize('layer_type', sorted(_quirked('label_is_data')))
def test_label_is_data_quirk(layer_type, parse):
    from paddle.parser import ConfigError
    helper = SPECS[layer_type].helpers[0].name
    with pytest.raises(ConfigError, match='data layer'):
        parse('''
            from paddle.trainer_config_helpers import *
            x = data_layer(name='x', size=6)
            y = fc_layer(input=x, size=1)
            outputs(%s(input=x, label=y, num_classes=3))
        ''' % helper)
