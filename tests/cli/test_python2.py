"""v1 configs and providers are Python 2: they run as they are (converted in memory, with a
warning), `paddle upgrade_config` converts them for good, and errors that look like Python 2
say so."""
import os
import subprocess
import sys
import textwrap

import pytest

from paddle.parser.python2 import looks_like_python2, python2_hint, upgrade_source

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CONFIG = textwrap.dedent("""\
    from paddle.trainer_config_helpers import *
    import sys
    dims = map(int, "4 2".split())
    for i in xrange(1):
        print "config", dims[0], sys.maxint > 0
    define_py_data_sources2(train_list="train.list", test_list=None, module="py2_provider", obj="process",
                            args={"dim": dims[0]})
    settings(batch_size=16, learning_rate=0.1)
    x = data_layer(name="x", size=dims[0])
    y = data_layer(name="y", size=dims[1])
    outputs(classification_cost(fc_layer(x, size=dims[1], act=SoftmaxActivation()), y))
    """)

PROVIDER = textwrap.dedent("""\
    import cPickle, string, sys
    from paddle.trainer.PyDataProvider2 import *

    def hook(settings, dim, **kwargs):
        settings.dim = dim
        settings.table = {}
        for i, c in enumerate(string.letters[:4]):
            settings.table[c] = i
        if not settings.table.has_key("a"):
            raise ValueError, "no a"
        settings.input_types = [dense_vector(dim), integer_value(2)]

    @provider(init_hook=hook)
    def process(settings, filename):
        pairs = dict((k, v) for k, v in settings.table.iteritems())
        it = iter(sorted(pairs.values()))
        first = it.next()
        for i in xrange(64):
            label = (i + first) % 2
            yield [float(label), 1.0 - label, 0.5, long(1)][:settings.dim], label
    """)


def paddle(args, cwd):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if any(f.startswith("_swig_paddle") for f in os.listdir(os.path.join(ROOT, "py_paddle"))):
        env["PYTHONPATH"] = ROOT
    return subprocess.run([sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())"]
                          + args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "conf.py").write_text(CONFIG)
    (tmp_path / "py2_provider.py").write_text(PROVIDER)
    (tmp_path / "train.list").write_text("unused\n")
    return tmp_path


def test_python2_pair_trains_unmodified(project):
    p = paddle(["train", "--config=conf.py", "--num_passes=2", "--save_dir=out", "--dot_period=0"], str(project))
    assert p.returncode == 0, p.stderr[-3000:]
    assert "converted Python 2 code" in p.stderr and "py2_provider.py" in p.stderr
    assert (project / "out" / "pass-00001").is_dir()


def test_upgrade_config_shows_writes_and_is_idempotent(project):
    files = [str(project / "conf.py"), str(project / "py2_provider.py")]
    p = paddle(["upgrade_config"] + files, str(project))
    assert p.returncode == 1 and "+    print(\"config\"" in p.stdout and "2 of 2 file(s) would change" in p.stderr
    assert (project / "conf.py").read_text() == CONFIG  # the diff mode writes nothing
    p = paddle(["upgrade_config", "--write"] + files, str(project))
    assert p.returncode == 0, p.stderr
    assert (project / "conf.py.bak").read_text() == CONFIG
    for f in files:
        source = open(f).read()
        compile(source, f, "exec")  # Python 3 now
        assert not looks_like_python2(source), source
    provider = (project / "py2_provider.py").read_text()
    assert "import pickle" in provider and "string.ascii_letters" in provider and ".items()" in provider
    assert "next(it)" in provider and "range(64)" in provider and '"a" not in settings.table' in provider
    assert "list(map(int" in (project / "conf.py").read_text()
    p = paddle(["upgrade_config"] + files, str(project))
    assert p.returncode == 0 and "0 of 2 file(s) would change" in p.stderr
    p = paddle(["train", "--config=conf.py", "--num_passes=1", "--save_dir=out2", "--dot_period=0"], str(project))
    assert p.returncode == 0 and "converted Python 2" not in p.stderr, p.stderr[-3000:]


def test_upgrade_names_a_file_that_is_not_python(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(:\n")
    p = paddle(["upgrade_config", str(bad)], str(tmp_path))
    assert p.returncode == 2 and "bad.py" in p.stderr


@pytest.mark.parametrize("code,kind", [
    ("xrange(3)", NameError), ("unicode('a')", NameError), ("{}.iteritems()", AttributeError),
    ("{}.has_key(1)", AttributeError), ("import sys; sys.maxint", AttributeError),
    ("import cPickle", ImportError),
])
def test_python2_errors_get_a_hint(code, kind):
    with pytest.raises(kind) as info:
        exec(code, {})
    assert "paddle upgrade_config prov.py --write" in python2_hint(info.value, "prov.py")


def test_other_errors_get_no_hint():
    assert python2_hint(NameError("name 'foo' is not defined")) is None
    assert python2_hint(AttributeError("'dict' object has no attribute 'frobnicate'")) is None


def test_syntax_error_hint_and_upgrade_of_print_statement():
    with pytest.raises(SyntaxError) as info:
        compile('print "hi"\n', "p.py", "exec")
    assert python2_hint(info.value) is not None
    assert upgrade_source('print "hi"\n') == 'print("hi")\n'


def test_imported_renamed_names_keep_their_old_name():
    once = upgrade_source("from sys import maxint, argv\nprint maxint\n")
    assert once == "from sys import maxsize as maxint, argv\nprint(maxint)\n"
    assert upgrade_source(once) == once


def test_provider_errors_are_one_line_with_their_place(project):
    (project / "py2_provider.py").write_text(
        "from paddle.trainer.PyDataProvider2 import *\n"
        "@provider(input_types=[dense_vector(4), integer_value(2)])\n"
        "def process(settings, filename):\n"
        "    rows = []\n"
        "    yield rows[3], 0\n")
    p = paddle(["train", "--config=conf.py", "--num_passes=1", "--save_dir=out", "--dot_period=0"], str(project))
    assert p.returncode == 1
    last = p.stderr.strip().splitlines()
    assert "Traceback" not in p.stderr, p.stderr[-2000:]
    assert any("py2_provider.py:5: IndexError: list index out of range" in line for line in last), p.stderr[-2000:]


# -- whole v1 recipes: Python 2 helper modules beside the config and the provider ------------

def _write(folder, files):
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _converted(stderr):
    return sorted(os.path.basename(line.split(": converted Python 2")[0].split("] ")[-1])
                  for line in stderr.splitlines() if ": converted Python 2 code" in line)


def test_mnist_vgg_recipe_with_a_python2_util_module_trains(tmp_path):
    """vgg_16_mnist.py's shape: the provider imports read_from_mnist from mnist_util.py, a
    Python 2 module (xrange, print statement) that reads the idx files."""
    import numpy as np
    rng = np.random.RandomState(0)
    for split, n in (("train", 16), ("t10k", 8)):
        (tmp_path / "data").mkdir(exist_ok=True)
        images = rng.randint(0, 256, size=(n, 28 * 28)).astype(np.uint8)
        labels = rng.randint(0, 10, size=n).astype(np.uint8)
        (tmp_path / "data" / (split + "-images-idx3-ubyte")).write_bytes(b"\0" * 16 + images.tobytes())
        (tmp_path / "data" / (split + "-labels-idx1-ubyte")).write_bytes(b"\0" * 8 + labels.tobytes())
    _write(tmp_path, {
        "data/train.list": "data/train\n", "data/test.list": "data/t10k\n",
        "mnist_util.py": """\
            import numpy

            __all__ = ['read_from_mnist']


            def read_from_mnist(filename):
                imgf = open(filename + "-images-idx3-ubyte", "rb")
                labelf = open(filename + "-labels-idx1-ubyte", "rb")
                imgf.read(16)
                labelf.read(8)
                n = 16 if "train" in filename else 8
                images = numpy.fromfile(imgf, 'ubyte', count=n * 28 * 28).reshape((n, 28 * 28)).astype('float32')
                images = images / 255.0 * 2.0 - 1.0
                labels = numpy.fromfile(labelf, 'ubyte', count=n).astype("int")
                print "read", n, "images from", filename
                for i in xrange(n):
                    yield {"pixel": images[i, :], 'label': labels[i]}
                imgf.close()
                labelf.close()
            """,
        "mnist_provider.py": """\
            from paddle.trainer.PyDataProvider2 import *
            from mnist_util import read_from_mnist


            @provider(input_types={'pixel': dense_vector(28 * 28), 'label': integer_value(10)},
                      cache=CacheType.CACHE_PASS_IN_MEM)
            def process(settings, filename):
                for each in read_from_mnist(filename):
                    yield each
            """,
        "vgg_16_mnist.py": """\
            from paddle.trainer_config_helpers import *

            is_predict = get_config_arg("is_predict", bool, False)
            if not is_predict:
                data_dir = './data/'
                define_py_data_sources2(data_dir + 'train.list', data_dir + 'test.list',
                                        module='mnist_provider', obj='process')
            settings(batch_size=8, learning_rate=0.1 / 128.0, learning_method=MomentumOptimizer(0.9),
                     regularization=L2Regularization(0.0005 * 128))
            img = data_layer(name='pixel', size=1 * 28 * 28)
            predict = small_vgg(input_image=img, num_channels=1, num_classes=10)
            if not is_predict:
                lbl = data_layer(name="label", size=10)
                inputs(img, lbl)
                outputs(classification_cost(input=predict, label=lbl))
            else:
                outputs(predict)
            """})
    p = paddle(["train", "--config=vgg_16_mnist.py", "--num_passes=1", "--save_dir=out", "--dot_period=0",
                "--trainer_count=1"], str(tmp_path))
    assert p.returncode == 0, p.stderr[-3000:]
    assert _converted(p.stderr) == ["mnist_util.py"], p.stderr[-3000:]
    assert "read 16 images from data/train" in p.stdout
    assert (tmp_path / "out" / "pass-00000").is_dir()


SEQ2SEQ_NET = """\
    # A seqToseq_net.py-style helper: Python 2 (iteritems, has_key, print statement)
    import os
    from paddle.trainer_config_helpers import *


    def seq_to_seq_data(data_dir, is_generating, train_list='train.list', test_list='test.list'):
        src_dict = dict()
        for line_count, line in enumerate(open(os.path.join(data_dir, 'src.dict'), "r")):
            src_dict[line.strip()] = line_count
        define_py_data_sources2(os.path.join(data_dir, train_list), os.path.join(data_dir, test_list),
                                module="dataprovider", obj="process", args={"src_dict": src_dict})
        return {"src_dict_path": os.path.join(data_dir, 'src.dict')}


    def gru_encoder_decoder(data_conf, is_generating, word_vector_dim=8, encoder_size=8, decoder_size=8):
        for k, v in data_conf.iteritems():
            globals()[k] = v
        if not data_conf.has_key("src_dict_path"):
            raise ValueError, "no dictionary"
        dict_dim = len(open(src_dict_path, "r").readlines())
        print "dictionary size", dict_dim
        src = data_layer(name='source_language_word', size=dict_dim)
        src_embedding = embedding_layer(input=src, size=word_vector_dim,
                                        param_attr=ParamAttr(name='_source_language_embedding'))
        src_forward = simple_gru(input=src_embedding, size=encoder_size)
        src_backward = simple_gru(input=src_embedding, size=encoder_size, reverse=True)
        encoded_vector = concat_layer(input=[src_forward, src_backward])
        with mixed_layer(size=decoder_size) as encoded_proj:
            encoded_proj += full_matrix_projection(encoded_vector)
        with mixed_layer(size=decoder_size, act=TanhActivation()) as decoder_boot:
            decoder_boot += full_matrix_projection(first_seq(input=src_backward))

        def decoder_step(enc_vec, enc_proj, current_word):
            mem = memory(name='gru_decoder', size=decoder_size, boot_layer=decoder_boot)
            context = simple_attention(encoded_sequence=enc_vec, encoded_proj=enc_proj, decoder_state=mem)
            with mixed_layer(size=decoder_size * 3) as decoder_inputs:
                decoder_inputs += full_matrix_projection(context)
                decoder_inputs += full_matrix_projection(current_word)
            gru_step = gru_step_layer(name='gru_decoder', input=decoder_inputs, output_mem=mem,
                                      size=decoder_size)
            with mixed_layer(size=dict_dim, bias_attr=True, act=SoftmaxActivation()) as out:
                out += full_matrix_projection(input=gru_step)
            return out

        trg_embedding = embedding_layer(input=data_layer(name='target_language_word', size=dict_dim),
                                        size=word_vector_dim,
                                        param_attr=ParamAttr(name='_target_language_embedding'))
        decoder = recurrent_group(name="decoder_group", step=decoder_step,
                                  input=[StaticInput(input=encoded_vector, is_seq=True),
                                         StaticInput(input=encoded_proj, is_seq=True), trg_embedding])
        lbl = data_layer(name='target_language_next_word', size=dict_dim)
        outputs(classification_cost(input=decoder, label=lbl))
    """


def test_seq_to_seq_recipe_with_a_python2_net_module_trains(tmp_path):
    words = ["<s>", "<e>", "a", "b", "c", "d"]
    lines = []
    for i in range(12):
        src = [words[2 + (i + j) % 4] for j in range(3 + i % 2)]
        lines.append(" ".join(src) + "\t" + " ".join(reversed(src)))
    _write(tmp_path, {
        "data/src.dict": "\n".join(words) + "\n", "data/train.txt": "\n".join(lines) + "\n",
        "data/train.list": "data/train.txt\n", "data/test.list": "data/train.txt\n",
        "seqToseq_net.py": SEQ2SEQ_NET,
        "dataprovider.py": """\
            from paddle.trainer.PyDataProvider2 import *


            def hook(settings, src_dict, **kwargs):
                settings.src_dict = src_dict
                n = len(src_dict)
                settings.input_types = [integer_value_sequence(n), integer_value_sequence(n),
                                        integer_value_sequence(n)]


            @provider(init_hook=hook)
            def process(settings, file_name):
                for line in open(file_name, 'r'):
                    src, trg = line.strip().split('\\t')
                    src_ids = [settings.src_dict[w] for w in src.split()]
                    # map gives a list in Python 2; xrange marks the file as Python 2
                    trg_ids = map(lambda w: settings.src_dict[w], trg.split())
                    assert len(trg_ids) in xrange(1, 10)
                    yield src_ids, [0] + trg_ids, trg_ids + [1]
            """,
        "train.conf": """\
            import sys
            sys.path.append("..")
            from seqToseq_net import *

            data_dir = "./data"
            is_generating = False
            settings(learning_method=AdamOptimizer(), batch_size=4, learning_rate=5e-3)
            gru_encoder_decoder(seq_to_seq_data(data_dir, is_generating), is_generating)
            """})
    p = paddle(["train", "--config=train.conf", "--num_passes=1", "--save_dir=out", "--dot_period=0",
                "--trainer_count=1"], str(tmp_path))
    assert p.returncode == 0, p.stderr[-3000:]
    assert _converted(p.stderr) == ["dataprovider.py", "seqToseq_net.py"], p.stderr[-3000:]
    assert "dictionary size 6" in p.stdout
    assert (tmp_path / "out" / "pass-00000").is_dir()


TAGGING_PROVIDER = """\
    # A sequence_tagging/dataprovider.py-style provider: Python 2 reading gzip files in 'rb' mode
    from paddle.trainer.PyDataProvider2 import *
    import gzip

    num_original_columns = 3
    patterns = [[[-1, 0]], [[0, 0]], [[-1, 0], [0, 0]], [[0, 1]]]
    dict_label = {'B-NP': 0, 'I-NP': 1, 'B-VP': 2, 'O': 3}


    def make_features(sequence):
        length = len(sequence)
        num_features = len(sequence[0])

        def get_features(pos):
            if pos < 0:
                return ['#B%s' % -pos] * num_features
            return sequence[pos]

        for i in xrange(length):
            for pattern in patterns:
                sequence[i].append('/'.join([get_features(i + pos)[f] for pos, f in pattern]))


    def create_dictionaries(filename, num_columns):
        dicts = [dict() for i in xrange(num_columns)]
        f = gzip.open(filename, 'rb')
        sequence = []
        for line in f:
            line = line.strip()
            if not line:
                make_features(sequence)
                for features in sequence:
                    for i in xrange(len(features)):
                        dicts[i][features[i]] = dicts[i].get(features[i], 0) + 1
                sequence = []
                continue
            sequence.append(line.split(' '))
        for dct in dicts:
            n = 0
            for k, v in sorted(dct.iteritems()):
                dct[k] = n
                n += 1
        f.close()
        return dicts


    def initializer(settings, **xargs):
        dicts = create_dictionaries('data/train.txt.gz', num_original_columns + len(patterns))
        dicts[2] = dict_label
        settings.dicts = dicts
        input_types = [integer_value_sequence(len(dicts[i])) for i in xrange(num_original_columns)]
        dim = sum(len(dicts[i]) for i in xrange(num_original_columns, len(dicts)))
        input_types.append(sparse_binary_vector_sequence(dim))
        settings.input_types = input_types


    @provider(init_hook=initializer, cache=CacheType.CACHE_PASS_IN_MEM)
    def process(settings, filename):
        dicts = settings.dicts

        def gen_sample(sequence):
            sample = [list() for i in xrange(num_original_columns)] + [[]]
            for features in sequence:
                for i in xrange(num_original_columns):
                    sample[i].append(dicts[i].get(features[i], 0xffffffff))
                dim, vec = 0, []
                for i in xrange(num_original_columns, len(dicts)):
                    if dicts[i].has_key(features[i]):
                        vec.append(dim + dicts[i][features[i]])
                    dim += len(dicts[i])
                sample[-1].append(vec)
            return sample

        f = gzip.open(filename, 'rb')
        sequence = []
        for line in f:
            line = line.strip()
            if not line:
                make_features(sequence)
                yield gen_sample(sequence)
                sequence = []
                continue
            sequence.append(line.split(' '))
        f.close()
    """


def test_sequence_tagging_providers_read_gzip_lines_as_text(tmp_path):
    import gzip
    rows = [("the", "DT", "B-NP"), ("cat", "NN", "I-NP"), ("sat", "VBD", "B-VP"), (".", ".", "O")]
    text = "\n".join(" ".join(r) for r in rows) + "\n\n"
    text = (text + "\n".join(" ".join(r) for r in rows[1:]) + "\n\n") * 3
    (tmp_path / "data").mkdir()
    with gzip.open(str(tmp_path / "data" / "train.txt.gz"), "wt") as f:
        f.write(text)
    # the features' dimensions as the provider builds them (no cutoff)
    words, pos = sorted({r[0] for r in rows}), sorted({r[1] for r in rows})
    feats = set()
    for seq in (rows, rows[1:]):
        for i in range(len(seq)):
            prev = seq[i - 1] if i else ("#B1",) * 3
            feats.update({("a", prev[0]), ("b", seq[i][0]), ("c", prev[0] + "/" + seq[i][0]), ("d", seq[i][1])})
    _write(tmp_path, {
        "data/train.list": "data/train.txt.gz\n", "data/test.list": "data/train.txt.gz\n",
        "dataprovider.py": TAGGING_PROVIDER,
        "linear_crf.py": """\
            from paddle.trainer_config_helpers import *
            define_py_data_sources2(train_list="data/train.list", test_list="data/test.list",
                                    module="dataprovider", obj="process")
            settings(learning_method=MomentumOptimizer(), batch_size=2, learning_rate=1e-1,
                     regularization=L2Regularization(1e-4))
            num_label_types = 8
            features = data_layer(name="features", size=%d)
            word = data_layer(name="word", size=%d)
            pos = data_layer(name="pos", size=%d)
            chunk = data_layer(name="chunk", size=num_label_types)
            crf_input = fc_layer(input=features, size=num_label_types, act=LinearActivation(),
                                 bias_attr=False, param_attr=ParamAttr(initial_std=0, sparse_update=True))
            crf = crf_layer(input=crf_input, label=chunk, param_attr=ParamAttr(name="crfw", initial_std=0))
            crf_decoding = crf_decoding_layer(size=num_label_types, input=crf_input, label=chunk,
                                              param_attr=ParamAttr(name="crfw"))
            sum_evaluator(name="error", input=crf_decoding)
            inputs(word, pos, chunk, features)
            outputs(crf)
            """ % (len(feats), len(words), len(pos))})
    p = paddle(["train", "--config=linear_crf.py", "--num_passes=2", "--save_dir=out", "--dot_period=0",
                "--trainer_count=1"], str(tmp_path))
    assert p.returncode == 0, p.stderr[-3000:]
    assert _converted(p.stderr) == ["dataprovider.py"], p.stderr[-3000:]
    assert "error=" in p.stderr and (tmp_path / "out" / "pass-00001").is_dir()


def _parse_in_subprocess(folder, config):
    code = ("import sys\nfrom paddle.trainer.config_parser import parse_config\n"
            "from paddle.parser.errors import ConfigError\n"
            "try:\n    c = parse_config(%r, '')\nexcept ConfigError as e:\n    sys.exit('ERROR %%s' %% e)\n"
            "print([l.name for l in c.model_config.layers])\n" % config)
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-c", code], cwd=str(folder), env=env, capture_output=True,
                          text=True, timeout=120)


def test_config_that_compiles_but_uses_python2_idioms_at_run_time_is_converted(tmp_path):
    _write(tmp_path, {
        "helper_net.py": """\
            from paddle.trainer_config_helpers import *


            def net(sizes):
                for name, size in sizes.iteritems():
                    return fc_layer(input=data_layer(name=name, size=size), size=2, act=SoftmaxActivation())
            """,
        "sub/conf.py": """\
            from paddle.trainer_config_helpers import *
            from helper_net import net
            sizes = {'x': 4}
            assert sizes.has_key('x')
            settings(batch_size=16, learning_rate=0.1)
            outputs(classification_cost(net(sizes), data_layer(name="y", size=2)))
            """})
    p = _parse_in_subprocess(tmp_path, "sub/conf.py")
    assert p.returncode == 0, p.stderr
    assert "'x', '__fc_layer_0__', 'y'" in p.stdout
    # each converted file is named (the helper, found in the working directory, relative to it)
    assert "sub/conf.py: converted Python 2 code" in p.stderr
    assert "helper_net.py: converted Python 2 code to run it; `paddle upgrade_config helper_net.py --write`" \
        in p.stderr


def test_errors_in_a_helper_module_are_placed_and_hinted_there(tmp_path):
    _write(tmp_path, {
        "shapes.py": """\
            def dims(text):
                parts = map(int, text.split('x'))
                return parts[0], parts[1]
            """,
        "conf.py": """\
            from paddle.trainer_config_helpers import *
            from shapes import dims
            h, w = dims('4x2')
            """})
    p = _parse_in_subprocess(tmp_path, "conf.py")
    assert p.returncode == 1
    assert "shapes.py:3: TypeError: 'map' object is not subscriptable" in p.stderr, p.stderr
    assert "wrap the call in list(...) in " in p.stderr and p.stderr.strip().endswith("shapes.py)"), p.stderr


def test_python_and_paddle_modules_are_never_converted(tmp_path):
    from paddle.parser import python2
    python2.install_import_hook(str(tmp_path))
    assert not python2.is_user_file(python2.__file__)
    assert not python2.is_user_file(os.__file__)
    (tmp_path / "mine.py").write_text("x = 1\n")
    assert python2.is_user_file(str(tmp_path / "mine.py"))
    assert not python2.is_user_file(str(tmp_path / "missing.py"))


def test_gzip_lines_are_text_in_converted_code_and_bytes_elsewhere(tmp_path):
    import gzip
    from paddle.parser import python2
    path = str(tmp_path / "f.gz")
    with gzip.open(path, "wb") as f:
        f.write(b"a b\nc \xff\n")
    env = {"__builtins__": python2.py2_builtins(), "path": path}
    exec("import gzip\nf = gzip.open(path, 'rb')\nlines = [l.split(' ') for l in f]\n"
         "f.seek(0)\nfirst = f.readline()\nrest = f.readlines()\n", env)
    assert env["lines"] == [["a", "b\n"], ["c", "\udcff\n"]]
    assert env["first"] == b"a b\n" and env["rest"] == ["c \udcff\n"]
    with gzip.open(path, "rb") as f:  # ordinary code is untouched
        assert next(iter(f)) == b"a b\n"


def test_only_code_counts_as_a_sign_of_python_2():
    """A Python 3 file that mentions `.next()` or `basestring` in a string or a comment is not
    converted (its warning would say it was); the same words in code still are."""
    assert not looks_like_python2('"""Call it.next() on the iterator."""\nx = "d.iteritems()"  # basestring\n')
    assert not looks_like_python2("s = '''\nprint x\n'''\n")
    assert looks_like_python2("for k, v in d.iteritems():\n    pass\n")
    assert looks_like_python2('print "hello"\n')
    assert looks_like_python2("value = it.next()  # a comment\n")
    assert looks_like_python2('print "unterminated\n')  # does not tokenize: read as it is
