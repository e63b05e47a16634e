"""v1's SimpleData and ProtoData sources train (paddle.trainer.v1_data_sources); ProtoData
files are written with v1's DataFormat.proto messages and shown by paddle.utils.show_pb."""
import io
import os
import subprocess
import sys
import textwrap

import pytest

from paddle.proto.DataFormat_pb2 import DataSample, SlotDef
from paddle.trainer.v1_data_sources import read_proto_file, write_proto_data
from paddle.utils.show_pb import show

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def paddle(args, cwd):
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())"]
                          + args, cwd=str(cwd), env=env, capture_output=True, text=True, timeout=300)


def needs_engine():
    pytest.importorskip("py_paddle.swig_paddle")


def test_simple_data_trains(tmp_path):
    needs_engine()
    lines = ["%d %s" % (i % 2, " ".join(str((i % 2) * 0.5 + k * 0.1) for k in range(6))) for i in range(24)]
    (tmp_path / "part-0.txt").write_text("\n".join(lines[:12]) + "\n")
    (tmp_path / "part-1.txt").write_text("\n".join(lines[12:]) + "\n")
    (tmp_path / "train.list").write_text("part-0.txt\npart-1.txt\n")
    (tmp_path / "conf.py").write_text(textwrap.dedent("""\
        from paddle.trainer_config_helpers import *
        TrainData(SimpleData(files="train.list", feat_dim=2, context_len=1))
        settings(batch_size=6, learning_rate=0.1)
        x = data_layer(name="features", size=6)
        y = data_layer(name="label", size=2)
        outputs(classification_cost(fc_layer(input=x, size=2, act=SoftmaxActivation()), y))
        """))
    p = paddle(["train", "--config=conf.py", "--num_passes=2", "--save_dir=out", "--dot_period=0"], tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "Pass=1 Batch=4 samples=24" in p.stderr
    (tmp_path / "part-1.txt").write_text("1 0.5 0.5\n")
    p = paddle(["train", "--config=conf.py", "--num_passes=1", "--save_dir=out2", "--dot_period=0"], tmp_path)
    assert p.returncode == 1 and "part-1.txt:1: 2 features" in p.stderr and "= 6" in p.stderr, p.stderr[-2000:]


SLOTS = [("VECTOR_DENSE", 3), ("VECTOR_SPARSE_NON_VALUE", 6), ("VECTOR_SPARSE_VALUE", 6), ("INDEX", 2)]


def samples(n, sequences=False):
    out = []
    for i in range(n):
        s = DataSample()
        s.vector_slots.add(values=[i % 2, 1.0, -1.0])
        s.vector_slots.add(ids=[i % 6, (i + 1) % 6])
        s.vector_slots.add(ids=[(i + 2) % 6], values=[0.5])
        s.id_slots.append(i % 2)
        if sequences:
            s.is_beginning = i % 3 == 0
        out.append(s)
    return out


def test_proto_files_round_trip_and_show_pb(tmp_path):
    path = str(tmp_path / "data.bin.gz")  # .gz: gzip, as v1's ProtoReader
    write_proto_data(path, SLOTS, samples(5))
    header, read = read_proto_file(path)
    assert [(SlotDef.SlotType.Name(d.type), d.dim) for d in header.slot_defs] == SLOTS
    assert list(read) == samples(5)
    out = io.StringIO()
    assert show(path, out) == 5
    text = out.getvalue()
    assert text.startswith("header {\n  slot_defs {\n    type: VECTOR_DENSE\n    dim: 3\n  }\n")
    assert text.count("sample {") == 5 and "  id_slots: 1\n" in text and "    values: 0.5\n    ids: 2\n" in text
    p = subprocess.run([sys.executable, "-m", "paddle.utils.show_pb", path, "--max_samples=1"], capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=ROOT))
    assert p.returncode == 0 and p.stdout.count("sample {") == 1, p.stderr
    (tmp_path / "cut.bin").write_bytes(open(str(tmp_path / "data.bin.gz"), "rb").read()[:0] + b"\x05ab")
    with pytest.raises(ValueError, match="cut.bin: the file ends inside the header"):
        read_proto_file(str(tmp_path / "cut.bin"))


CONFIG = """\
    from paddle.trainer_config_helpers import *
    TrainData(ProtoData(files="train.list"))
    TestData(ProtoData(files="train.list"))
    settings(batch_size=4, learning_rate=0.1)
    x = data_layer(name="x", size=3)
    b = data_layer(name="b", size=6)
    v = data_layer(name="v", size=6)
    y = data_layer(name="y", size=2)
    h = fc_layer(input=[x, b, v], size=4, act=TanhActivation())
    %s
    """


@pytest.mark.parametrize("sequences", [False, True], ids=["samples", "sequences"])
def test_proto_data_trains(tmp_path, sequences):
    needs_engine()
    write_proto_data(str(tmp_path / "a.bin"), SLOTS, samples(24, sequences))
    write_proto_data(str(tmp_path / "b.bin.gz"), SLOTS, samples(12, sequences))
    (tmp_path / "train.list").write_text("a.bin\nb.bin.gz\n")
    # a label per sample, or per token of each sequence (a tagger's shape)
    out = "outputs(classification_cost(fc_layer(input=h, size=2, act=SoftmaxActivation()), y))"
    (tmp_path / "conf.py").write_text(textwrap.dedent(CONFIG % out))
    p = paddle(["train", "--config=conf.py", "--num_passes=1", "--save_dir=out", "--dot_period=0"], tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    assert ("samples=%d" % (12 if sequences else 36)) in p.stderr, p.stderr[-2000:]


def test_proto_data_refuses_a_slot_count_that_does_not_match_the_model(tmp_path):
    needs_engine()
    write_proto_data(str(tmp_path / "a.bin"), SLOTS[:2], [{"vector_slots": [{"values": [1, 2, 3]}, {"ids": [1]}]}])
    (tmp_path / "train.list").write_text("a.bin\n")
    cost = "outputs(classification_cost(fc_layer(input=h, size=2, act=SoftmaxActivation()), y))"
    (tmp_path / "conf.py").write_text(textwrap.dedent(CONFIG % cost))
    p = paddle(["train", "--config=conf.py", "--num_passes=1", "--save_dir=out", "--dot_period=0"], tmp_path)
    assert p.returncode == 1 and "a.bin: 2 slots, the model has 4 data layers (x, b, v, y)" in p.stderr, \
        p.stderr[-2000:]


def test_proto_sequence_data_trains(tmp_path):
    """v1's ProtoSequenceDataProvider: each sample is a sequence; a sparse slot's ids are its
    words (none: one ignored id), dense and index slots a sequence of one."""
    needs_engine()
    slots = [("VECTOR_SPARSE_NON_VALUE", 8), ("VECTOR_DENSE", 2), ("INDEX", 2)]
    data = [{"vector_slots": [{"ids": [i % 8, (i + 3) % 8][:1 + i % 2] if i % 5 else []}, {"values": [i % 2, 1]}],
             "id_slots": [i % 2]} for i in range(20)]
    write_proto_data(str(tmp_path / "s.bin"), slots, data)
    (tmp_path / "train.list").write_text("s.bin\n")
    (tmp_path / "conf.py").write_text(textwrap.dedent("""\
        from paddle.trainer_config_helpers import *
        TrainData(ProtoData(files="train.list", type="proto_sequence"))
        settings(batch_size=5, learning_rate=0.1)
        words = data_layer(name="words", size=8)
        extra = data_layer(name="extra", size=2)
        label = data_layer(name="label", size=2)
        emb = embedding_layer(input=words, size=4)
        h = fc_layer(input=[pooling_layer(input=emb, pooling_type=AvgPooling()), last_seq(extra)], size=2,
                     act=SoftmaxActivation())
        outputs(classification_cost(h, label))
        """))
    p = paddle(["train", "--config=conf.py", "--num_passes=1", "--save_dir=out", "--dot_period=0"], tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "samples=20" in p.stderr, p.stderr[-2000:]
