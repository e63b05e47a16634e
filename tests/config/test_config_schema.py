"""The .proto is the one schema of the config: the engine's field table
(engine/ConfigSchema.inc) is generated from it, and every config field the
engine reads is a field of it, read without a default of its own."""
import collections
import glob
import importlib.util
import os
import re

from paddle import proto

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENGINE_SOURCES = sorted(
    f for pattern in ('engine/**/*.cpp', 'engine/**/*.h', 'engine/**/*.cu', 'layers/*.cpp', 'layers/*.h',
                      'layers/*.cu', 'trainer/*.cpp', 'trainer/*.h',
                      'trainer/*.cu', 'swig/*.cpp', 'swig/*.h')
    for f in glob.glob(os.path.join(ROOT, pattern), recursive=True))

# Json accessors that take a field name, and the field kinds each may read.
ACCESSOR_KINDS = {
    'getInt': {('Int', False)},
    'getDouble': {('Double', False)},
    'getBool': {('Bool', False)},
    'getString': {('String', False), ('Enum', False)},
    'getInts': {('Int', True)},
    'getStrings': {('String', True)},
    'has': None,  # any field
}
_CODE_OR_COMMENT = re.compile(r'("(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\')|//[^\n]*|/\*.*?\*/', re.S)
_ACCESSOR = re.compile(r'(?:\b(\w+)\s*(?:\.|->)\s*)?\b(%s)\(\s*"(\w+)"\s*([,)])' % '|'.join(ACCESSOR_KINDS))
_SUBSCRIPT = re.compile(r'(?:\b(\w+)\s*)?\[\s*"(\w+)"\s*\]')
_INPUT_CONF = re.compile(r'\binputConf\(\s*[^,()]+,\s*"(\w+)"\s*\)')
# JSON that is not a config message (the optimizer state): parsed untyped, read with defaults.
_UNTYPED_PARSE = re.compile(r'\bJson\s+(\w+)\s*=\s*Json::parse\([^,()]*\)')

Read = collections.namedtuple('Read', 'where accessor field has_default')


def load_generator():
    spec = importlib.util.spec_from_file_location('gen_config_schema',
                                                  os.path.join(ROOT, 'tools', 'gen_config_schema.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def proto_fields():
    """field name -> {(message, kind, repeated)} over every config message."""
    fields = collections.defaultdict(set)
    for message, field, kind, repeated, _, _ in load_generator().schema_rows():
        fields[field].add((message, kind, repeated))
    return fields


def strip_comments(text):
    return _CODE_OR_COMMENT.sub(lambda m: m.group(1) or ' ' * len(m.group(0)), text)


def scan(text, rel):
    """(reads of config fields, reads of untyped JSON) in one source file."""
    text = strip_comments(text)
    untyped_vars = set(_UNTYPED_PARSE.findall(text))
    reads, untyped = [], []

    def add(m, receiver, accessor, field, has_default=False):
        read = Read('%s:%d' % (rel, text.count('\n', 0, m.start()) + 1), accessor, field, has_default)
        (untyped if receiver in untyped_vars else reads).append(read)

    for m in _ACCESSOR.finditer(text):
        add(m, m.group(1), m.group(2), m.group(3), m.group(4) == ',')
    for m in _SUBSCRIPT.finditer(text):
        add(m, m.group(1), '[]', m.group(2))
    for m in _INPUT_CONF.finditer(text):
        add(m, None, 'inputConf', m.group(1))
    return reads, untyped


def config_reads():
    reads, untyped = [], []
    for path in ENGINE_SOURCES:
        with open(path) as f:
            r, u = scan(f.read(), os.path.relpath(path, ROOT))
        reads += r
        untyped += u
    return reads, untyped


def test_the_scan_tells_config_reads_from_untyped_json():
    reads, untyped = scan('''
        Json s = Json::parse(state);
        step_ = s.getInt("step", 1);  // config_.getInt("in_a_comment", 1)
        n = config_["inputs"][i].getInt("num_filter", 0);
        c = inputConf(0, "pool_conf"); ok = c.has("start") && sub->getBool("reversed");
    ''', 'x.cpp')
    assert [(r.accessor, r.field, r.has_default) for r in untyped] == [('getInt', 'step', True)]
    assert sorted((r.accessor, r.field, r.has_default) for r in reads) == [
        ('[]', 'inputs', False), ('getBool', 'reversed', False), ('getInt', 'num_filter', True),
        ('has', 'start', False), ('inputConf', 'pool_conf', False)]


def test_schema_table_is_generated_from_the_proto():
    with open(os.path.join(ROOT, 'engine', 'ConfigSchema.inc')) as f:
        committed = f.read()
    assert committed == load_generator().render(), (
        'engine/ConfigSchema.inc is out of date with paddle/proto/*.proto: run python tools/gen_config_schema.py')


def test_schema_table_lists_every_message_field():
    rows = list(load_generator().schema_rows())
    layer = {field: (kind, repeated, sub, default)
             for message, field, kind, repeated, sub, default in rows if message == 'LayerConfig'}
    assert layer['inputs'] == ('Message', True, 'LayerInputConfig', '')
    assert layer['trans_type'] == ('String', False, '', 'non-seq')
    assert layer['num_filters'] == ('Int', False, '', '0')
    messages = {m for m, *_ in rows}
    assert messages >= {proto.POOL.FindMessageTypeByName('paddle.' + n).name
                        for n in ('ModelConfig', 'TrainerConfig', 'OptimizationConfig', 'ParameterConfig')}


def test_the_scan_finds_the_engine_reads():
    reads, untyped = config_reads()
    fields = {r.field for r in reads}
    assert len(reads) > 150, len(reads)
    assert {'num_filters', 'conv_conf', 'inputs', 'learning_method', 'eos_layer_name', 'pool_conf'} <= fields
    # the optimizer state (updater.json) is untyped JSON, read through its own checks: not config reads
    assert not {'num_samples', 'update_counts', 'step'} & fields


def test_every_field_the_engine_reads_is_in_the_proto():
    schema = proto_fields()
    unknown, wrong_kind = [], []
    for r in config_reads()[0]:
        known = schema.get(r.field)
        if r.accessor == 'inputConf':
            known = {k for k in known or () if k[0] == 'LayerInputConfig'}
        if not known:
            unknown.append('%s: %s("%s")' % (r.where, r.accessor, r.field))
            continue
        allowed = ACCESSOR_KINDS.get(r.accessor)
        if allowed and not any((kind, repeated) in allowed for _, kind, repeated in known):
            wrong_kind.append('%s: %s("%s") but the field is %s' % (r.where, r.accessor, r.field, sorted(known)))
    assert not unknown, 'fields no .proto message has:\n' + '\n'.join(unknown)
    assert not wrong_kind, 'reads of the wrong kind:\n' + '\n'.join(wrong_kind)


def test_no_config_read_states_its_own_default():
    explicit = ['%s: %s("%s", ...)' % (r.where, r.accessor, r.field) for r in config_reads()[0] if r.has_default]
    assert not explicit, ('config fields take their default from the .proto; drop the default '
                          '(or [default = ...] it in paddle/proto):\n' + '\n'.join(explicit))
