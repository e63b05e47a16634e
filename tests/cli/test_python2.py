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
