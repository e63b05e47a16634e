"""paddle.proto: .proto files loaded at import time."""

import json

import pytest

from paddle import proto
from paddle.proto.ModelConfig_pb2 import ModelConfig, LayerConfig
from paddle.proto.ParameterConfig_pb2 import ParameterConfig
from paddle.proto.TrainerConfig_pb2 import TrainerConfig, OptimizationConfig
from paddle.proto.DataConfig_pb2 import DataConfig

from protocmp import diff


@pytest.mark.parametrize('cls,field,number,default', [
    (ParameterConfig, 'initial_std', 6, 0.01),
    (ParameterConfig, 'initial_smart', 12, False),
    (ParameterConfig, 'dims', 9, None),
    (ParameterConfig, 'learning_rate', 3, 1.0),
    (LayerConfig, 'trans_type', 41, 'non-seq'),
    (LayerConfig, 'coeff', 26, 1.0),
    (LayerConfig, 'seq_pool_stride', 53, -1),
    (LayerConfig, 'device', 12, -1),
    (LayerConfig, 'has_selected_colums', 43, True),
    (ModelConfig, 'sub_models', 8, None),
    (OptimizationConfig, 'learning_rate_schedule', 27, 'constant'),
    (OptimizationConfig, 'max_average_window', 19, 0x7fffffffffffffff),
    (OptimizationConfig, 'adam_epsilon', 35, 1e-8),
    (TrainerConfig, 'save_dir', 6, './output/model'),
    (DataConfig, 'is_main_data', 26, True),
    (DataConfig, 'usage_ratio', 27, 1.0),
])
def test_field_numbers_and_defaults(cls, field, number, default):
    f = cls.DESCRIPTOR.fields_by_name[field]
    assert f.number == number
    if default is not None:
        assert getattr(cls(), field) == default


def test_double_reals_and_required():
    f = ParameterConfig.DESCRIPTOR.fields_by_name['initial_std']
    assert f.type == f.TYPE_DOUBLE
    assert ParameterConfig.DESCRIPTOR.fields_by_name['name'].is_required
    p = ParameterConfig()
    with pytest.raises(Exception):
        p.SerializeToString()


def test_json_uses_original_field_names():
    m = ModelConfig()
    l = m.layers.add()
    l.name = 'x'
    l.type = 'fc'
    l.active_type = ''
    l.NDCG_num = 3
    d = json.loads(proto.message_to_json(m))
    assert d == {
        'layers': [{
            'name': 'x',
            'type': 'fc',
            'active_type': '',
            'NDCG_num': 3
        }]
    }


def test_text_format_only_set_fields_in_number_order():
    p = ParameterConfig()
    p.dims.extend([1, 2])
    p.initial_std = 0.5
    p.name = 'w'
    p.size = 2
    assert proto.message_to_text(p) == (
        'name: "w"\nsize: 2\ninitial_std: 0.5\ndims: 1\ndims: 2\n')


def test_diff_detects_changes():
    a, b = ParameterConfig(), ParameterConfig()
    for m in (a, b):
        m.name = 'w'
        m.size = 4
    assert diff(a, b) == []
    b.initial_std = 0.1
    assert diff(a, b)
    a.initial_std = 0.1 + 1e-12
    assert diff(a, b) == []
    a.dims.append(4)
    assert diff(a, b)


def test_reader_rejects_bad_syntax(tmp_path):
    (tmp_path / 'Bad.proto').write_text(
        'syntax = "proto2";\nmessage A {\n  int32 x = 1;\n}\n')
    with pytest.raises(proto.ProtoSyntaxError) as e:
        proto.load_proto_files(['Bad.proto'], str(tmp_path))
    assert 'Bad.proto:3' in str(e.value)


def test_reader_nested_types_and_enums(tmp_path):
    (tmp_path / 'N.proto').write_text('''
syntax = "proto2";
package t;
message Outer {
  enum Kind { A = 0; B = 1; }
  message Inner { optional string s = 1 [default = "q"]; }
  optional Kind kind = 1 [default = B];
  repeated Inner inner = 2;
  optional double d = 3 [default = -1.5e-3];
  repeated double v = 4 [packed = true];
}
''')
    from google.protobuf import message_factory
    pool = proto.load_proto_files(['N.proto'], str(tmp_path))
    cls = message_factory.GetMessageClass(pool.FindMessageTypeByName(
        't.Outer'))
    m = cls()
    assert m.kind == 1
    assert m.d == -1.5e-3
    assert m.inner.add().s == 'q'
