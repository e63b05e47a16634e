"""docs/swig_api.md's table of v1's API names stays true: each name exists, and the test
it names exists and uses it."""
import ast
import os
import re

import py_paddle
import py_paddle.util
from py_paddle import swig_paddle as api

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROW = re.compile(r"^\| `([\w.]+)` \| .* \| `([\w/.]+)::(\w+)` \|$")


def rows():
    with open(os.path.join(ROOT, "docs", "swig_api.md")) as f:
        return [m.groups() for m in map(ROW.match, f.read().splitlines()) if m]


def resolve(name):
    first, _, rest = name.partition(".")
    obj = {"util": py_paddle.util, "DataProviderConverter": py_paddle.DataProviderConverter}.get(first)
    obj = obj if obj is not None else getattr(api, first)
    return getattr(obj, rest) if rest else obj


def test_every_listed_name_exists_and_its_test_uses_it():
    table = rows()
    assert len(table) > 180
    sources = {}
    missing = []
    for name, path, test in table:
        resolve(name)
        if path not in sources:
            with open(os.path.join(ROOT, "tests", path)) as f:
                tree = ast.parse(f.read())
            sources[path] = {n.name: ast.get_source_segment(open(os.path.join(ROOT, "tests", path)).read(), n)
                             for n in tree.body if isinstance(n, ast.FunctionDef)}
        body = sources[path].get(test)
        assert body is not None, "%s: %s::%s does not exist" % (name, path, test)
        short = name.split(".")[-1]
        if not short.startswith("__") and short not in body:
            missing.append("%s not used in %s::%s" % (name, path, test))
    assert not missing, missing
