"""The fenced code blocks of the documentation pages (docs/*.md and README.md), with the
marker that may precede each:

    <!-- not-run: why -->      the block is not run (a GPU, an MPI cluster, a long training, ...)
    <!-- run-in: demos/mnist --> a shell block runs in a copy of that folder (default: a fresh one)
    <!-- fragment: why -->     a Python block that is part of a larger program (only compiled)

tests/docs/test_page_examples.py runs or checks every block and counts the marked ones.
"""
import glob
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHELL = ("bash", "sh", "shell", "console")
_FENCE = re.compile(r"^(\s*)(`{3,})\s*([^\s`]*)")
_MARK = re.compile(r"^\s*<!--\s*(not-run|run-in|fragment):\s*(.*?)\s*-->\s*$")


class Block:
    def __init__(self, path, line, lang, text, mark):
        self.path, self.line, self.lang, self.text = path, line, lang, text
        self.mark, self.why = mark if mark else (None, None)

    @property
    def where(self):
        return "%s:%d" % (os.path.relpath(self.path, ROOT), self.line)

    def __repr__(self):
        return "<%s %s block>" % (self.where, self.lang)


def pages():
    return sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))) + [os.path.join(ROOT, "README.md")]


def blocks(path):
    """Every fenced block of a page (directives such as ```{toctree} included, lang '{toctree}')."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.groups()
        end = i + 1
        while end < len(lines) and not re.match(r"^\s*%s\s*$" % fence, lines[end]):
            end += 1
        if end == len(lines):
            raise ValueError("%s:%d: a code fence that never closes" % (path, i + 1))
        body = [l[len(indent):] if l.startswith(indent) else l.lstrip() for l in lines[i + 1:end]]
        prev = i - 1
        while prev >= 0 and not lines[prev].strip():
            prev -= 1
        mark = _MARK.match(lines[prev]) if prev >= 0 else None
        out.append(Block(path, i + 1, lang, "\n".join(body) + "\n", mark.groups() if mark else None))
        i = end + 1
    return out


def all_blocks():
    return [b for p in pages() for b in blocks(p)]
