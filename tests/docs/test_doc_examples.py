"""Runs every ``>>>`` example of the reference docstrings (doc_scope.py) as a doctest, so
no example can rot. Each docstring runs in a fresh temporary directory with the
namespace its module's users have:

- config-language examples: ``from paddle.trainer_config_helpers import *`` inside a
  fresh parse (what a config file sees);
- data provider examples: ``from paddle.trainer.PyDataProvider2 import *``;
- readers: the ``readers`` module;
- py_paddle examples: ``swig_paddle`` initialised for the CPU, plus ``fixtures``
  (small ready-made configs and models, see doc_fixtures.py).
"""
import doctest

import pytest

from doc_scope import public_callables

OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def namespace(qualname):
    if qualname.startswith("paddle.trainer_config_helpers"):
        from paddle.parser.execute import begin_parse
        import paddle.trainer_config_helpers as helpers
        begin_parse()
        ns = {n: getattr(helpers, n) for n in helpers.__all__}
        return ns
    if qualname.startswith("paddle.trainer.PyDataProvider2"):
        import paddle.trainer.PyDataProvider2 as dp
        return {n: getattr(dp, n) for n in dp.__all__}
    if qualname.startswith("paddle.trainer.readers"):
        from paddle.trainer import readers
        return {"readers": readers}
    if qualname.startswith("py_paddle"):
        import doc_fixtures
        from py_paddle import swig_paddle
        swig_paddle.initPaddle("--use_gpu=0")
        return {"swig_paddle": swig_paddle, "fixtures": doc_fixtures, "np": __import__("numpy")}
    raise AssertionError("no namespace for %s" % qualname)


EXAMPLES = [(q, obj) for q, obj, _ in public_callables() if ">>>" in (obj.__doc__ or "")]


@pytest.mark.parametrize("qualname,obj", EXAMPLES, ids=[q for q, _ in EXAMPLES])
def test_docstring_example_runs(qualname, obj, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(obj.__doc__, namespace(qualname), qualname,
                                               getattr(obj, "__module__", None), 0)
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    out = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)


def test_a_wrong_example_fails():
    def helper():
        """Adds.

        Example:
            >>> 1 + 1
            3
        """
    test = doctest.DocTestParser().get_doctest(helper.__doc__, {}, "helper", None, 0)
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    runner.run(test, out=lambda s: None)
    assert runner.failures == 1
