"""Every public callable of the config language, the data provider API, the readers and
py_paddle carries a reference docstring (Google style, rendered by Sphinx's napoleon):

- a summary line;
- an ``Args:`` section naming every parameter of the signature (``name (type): ...``);
- for functions and classes (not methods), an ``Example:`` section with a ``>>>`` example,
  which tests/docs/test_doc_examples.py runs.
"""
import inspect
import re

import pytest

from doc_scope import public_callables

SECTION = re.compile(r"^(\w[\w ]*):\s*$")
ARG_LINE = re.compile(r"^\s+(\*{0,2}\w+)(\s*\(.*\))?\s*:")
ARG_SECTIONS = {"Args", "Arguments", "Parameters", "Keyword Args", "Keyword Arguments"}
EXAMPLE_SECTIONS = {"Example", "Examples"}


def sections(doc):
    """{section title: [its lines]} of a Google-style docstring."""
    out, current = {}, None
    for line in doc.splitlines():
        m = SECTION.match(line)
        if m:
            current = m.group(1)
            out.setdefault(current, [])
        elif current is not None:
            if line and not line[0].isspace():
                current = None  # back to free text
            else:
                out[current].append(line)
    return out


def documented_args(doc):
    names = set()
    for title, lines in sections(doc).items():
        if title in ARG_SECTIONS:
            for line in lines:
                m = ARG_LINE.match(line)
                if m and len(line) - len(line.lstrip()) == min_indent(lines):
                    names.add(m.group(1).lstrip("*"))
    return names


def min_indent(lines):
    return min((len(l) - len(l.lstrip()) for l in lines if l.strip()), default=0)


def signature_args(obj):
    """The parameter names a user passes (self/cls dropped), or None where Python cannot
    see the signature (a SWIG method taking *args)."""
    target = obj.__init__ if inspect.isclass(obj) and "__init__" in vars(obj) else obj
    if inspect.isclass(obj) and "__init__" not in vars(obj):
        return []
    try:
        params = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        return None
    names = [p.name for p in params if p.name not in ("self", "cls")]
    if names == ["args"] or names == ["args", "kwargs"]:  # SWIG's generic wrappers
        return None
    return names


def docstring_problems(obj, is_method=False):
    doc = inspect.getdoc(obj) or ""
    if len(doc.strip()) < 20:
        return ["no docstring"]
    problems = []
    args = signature_args(obj) or []
    missing = [a for a in args if a not in documented_args(doc)]
    if missing:
        problems.append("Args: does not describe %s" % ", ".join(missing))
    if not is_method:
        examples = [l for t, ls in sections(doc).items() if t in EXAMPLE_SECTIONS for l in ls]
        if not any(l.strip().startswith(">>>") for l in examples):
            problems.append("no Example: section with a >>> example")
    return problems


CALLABLES = public_callables()


@pytest.mark.parametrize("qualname,obj,is_method", CALLABLES, ids=[c[0] for c in CALLABLES])
def test_public_callable_has_reference_docstring(qualname, obj, is_method):
    problems = docstring_problems(obj, is_method)
    assert not problems, "%s: %s" % (qualname, "; ".join(problems))


def test_the_rules_catch_a_missing_argument_and_a_missing_example():
    def helper(input, size, act=None):
        """Does a thing to its input, at some size.

        Args:
            input (LayerOutput): the input.
            size (int): the output width.
        """
    problems = docstring_problems(helper)
    assert "Args: does not describe act" in problems
    assert "no Example: section with a >>> example" in problems


def test_the_rules_accept_a_complete_docstring():
    def helper(input, size=3, **kwargs):
        """Does a thing to its input, at some size.

        Args:
            input (LayerOutput): the input.
            size (int, default 3): the output width,
                on two lines.
            **kwargs: passed on.

        Example:
            >>> helper(1)
        """
    assert docstring_problems(helper) == []
