"""Python 2 in v1 configs and data providers: the idioms 2to3's fixers rewrite (print
statements, xrange, dict.iteritems/has_key, cPickle, .next(), map/filter/zip used as
lists, except E, e, octal 0777, ...) plus the few names they leave alone (sys.maxint,
string.letters ...). Rewriting uses fissix, the maintained fork of lib2to3.

Configs and providers that need it are converted in memory when they run (with a warning),
and so is every module they import from the user's own folders (the config's folder, the
provider's folder, the working directory): an import hook (install_import_hook) converts a
`*_net.py` beside the config or a `*_util.py` beside the provider as it is imported.
`paddle upgrade_config FILE...` converts them for good.

Converted code also reads gzip files as v1 did: Python 2's `gzip.open(f, 'rb')` gave `str`
lines, so iterating such a file (or readlines()) gives text here (UTF-8, undecodable bytes kept
as surrogates); read() and readline() still give bytes (pickle.load reads through them).
"""
import builtins
import gzip
import importlib.abc
import importlib.machinery
import importlib.util
import io
import logging
import os
import re
import sys
import sysconfig
import threading
import tokenize
import types

FIXERS = ['apply', 'basestring', 'dict', 'except', 'exec', 'execfile', 'filter', 'has_key', 'imports',
          'imports2', 'input', 'long', 'map', 'ne', 'next', 'numliterals', 'print', 'raise', 'raw_input',
          'reduce', 'repr', 'standarderror', 'tuple_params', 'unicode', 'xrange', 'zip']
# module attributes Python 3 renamed, which no fixer handles
RENAMED_ATTRIBUTES = {('sys', 'maxint'): 'maxsize', ('string', 'letters'): 'ascii_letters',
                      ('string', 'lowercase'): 'ascii_lowercase', ('string', 'uppercase'): 'ascii_uppercase'}
# cheap signs of Python 2 in a source file (to decide whether to run the fixers on a provider)
_SIGNS = re.compile(r'^\s*print\s+[^\s(=]|\.iter(items|keys|values)\(|\.has_key\(|\bxrange\(|\bcPickle\b|'
                    r'\bsys\.maxint\b|\bimport\s.*\bmaxint\b|\bunicode\(|\bbasestring\b|\.next\(\)|\bexcept\s+[\w.]+\s*,\s*\w+\s*:|'
                    r'\braw_input\(|\bstring\.(letters|lowercase|uppercase)\b', re.M)
_tools = {}
_tools_lock = threading.RLock()  # a RefactoringTool's fixers keep per-tree state: one parse at a time


def looks_like_python2(source):
    """Whether the code of `source` (not its strings or comments) shows a sign of Python 2."""
    return bool(_SIGNS.search(_code_only(source)))


def _code_only(source):
    """`source` with its string literals and comments blanked out in place (a docstring that
    mentions `.next()` is no Python 2); the source as it is where it does not tokenize."""
    lines = source.splitlines(keepends=True)
    try:
        spans = [(t.start, t.end, '_' if t.type == tokenize.STRING else ' ')
                 for t in tokenize.generate_tokens(io.StringIO(source).readline)
                 if t.type in (tokenize.STRING, tokenize.COMMENT)]
    except (tokenize.TokenError, SyntaxError, ValueError):
        return source
    for (row, col), (end_row, end_col), fill in spans:  # a string stays an operand: `print "x"`
        for r in range(row, end_row + 1):
            line = lines[r - 1]
            start, stop = (col if r == row else 0), (end_col if r == end_row else len(line.rstrip('\n')))
            lines[r - 1] = line[:start] + fill * (stop - start) + line[stop:]
    return ''.join(lines)


def _refactoring_tool(print_function):
    """2to3's fixers; print_function=True for sources whose print is already a function."""
    if print_function not in _tools:
        try:
            from fissix import refactor
            prefix = 'fissix.fixes.fix_'
        except ImportError:  # fall back on the standard library's copy where it still exists
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                from lib2to3 import refactor
            prefix = 'lib2to3.fixes.fix_'
        _tools[print_function] = refactor.RefactoringTool([prefix + f for f in FIXERS],
                                                          {'print_function': print_function})
    return _tools[print_function]


def _rename_attributes(source):
    """sys.maxint -> sys.maxsize (and the others of RENAMED_ATTRIBUTES); in
    `from sys import maxint` the new name is imported under the old one."""
    toks = list(tokenize.generate_tokens(io.StringIO(source).readline))
    edits = []
    for i in range(len(toks) - 2):
        a, dot, b = toks[i], toks[i + 1], toks[i + 2]
        if a.type == tokenize.NAME and dot.string == '.' and (a.string, b.string) in RENAMED_ATTRIBUTES:
            if i == 0 or toks[i - 1].string != '.':
                edits.append((b.start, b.end, RENAMED_ATTRIBUTES[(a.string, b.string)]))
        if a.string == 'from' and dot.type == tokenize.NAME and b.string == 'import':
            prev = None
            for t in toks[i + 3:]:
                if t.type in (tokenize.NEWLINE, tokenize.ENDMARKER) or t.string == ';':
                    break
                new = RENAMED_ATTRIBUTES.get((dot.string, t.string))
                if new and t.type == tokenize.NAME and prev != 'as':  # not an alias already
                    edits.append((t.start, t.end, '%s as %s' % (new, t.string)))
                prev = t.string
    lines = source.split('\n')
    for (row, c0), (_, c1), new in reversed(edits):
        lines[row - 1] = lines[row - 1][:c0] + new + lines[row - 1][c1:]
    return '\n'.join(lines)


def upgrade_source(source, name='<config>'):
    """The Python 3 text of a Python 2 source. A source that shows no sign of Python 2
    (looks_like_python2) and compiles is returned as it is: some fixers also rewrite valid
    Python 3 (d.items() -> list(d.items())), which would make upgrading twice change twice.
    Raises SyntaxError where the source is neither Python 2 nor 3."""
    if not source.endswith('\n'):
        source += '\n'
    try:
        compile(source, name, 'exec')
        python3_print = True
    except SyntaxError:
        python3_print = False
    if python3_print and not looks_like_python2(source):
        return source
    try:
        with _tools_lock:
            new = str(_refactoring_tool(python3_print).refactor_string(source, name))
    except Exception as e:  # fissix's ParseError: not Python 2 either
        raise SyntaxError('%s: neither Python 3 nor Python 2 (%s)' % (name, e))
    return _rename_attributes(new)


def converted_notice(path):
    """The warning for a file that ran after an in-memory conversion."""
    if os.path.isabs(path) and os.path.realpath(path).startswith(os.path.realpath(os.getcwd()) + os.sep):
        path = os.path.relpath(path)
    return '%s: converted Python 2 code to run it; `paddle upgrade_config %s --write` ' \
           'converts the file for good' % (path, path)


# Python 3's lazy views and iterators where Python 2 code expected lists
_LAZY = re.compile(r"""['"](map|filter|zip|dict_keys|dict_values|dict_items)['"]( object|\) to list| has no len)""")
_HINT_NAMES = ('xrange', 'unicode', 'basestring', 'long', 'raw_input', 'cPickle', 'reduce', 'file')
_HINT_ATTRS = ('iteritems', 'iterkeys', 'itervalues', 'has_key', 'maxint', 'next', 'letters')


def python2_hint(exc, filename=None):
    """A one-line hint when `exc` (raised by a user's config or provider) looks like Python 2
    code running on Python 3, else None."""
    text = str(exc)
    py2 = False
    if isinstance(exc, SyntaxError):
        py2 = bool(re.search(r"Missing parentheses in call to 'print'|invalid syntax|multiple exception types",
                             text)) and (exc.text is None or looks_like_python2(exc.text) or 'print' in text)
    elif isinstance(exc, NameError):
        py2 = any("'%s'" % n in text for n in _HINT_NAMES)
    elif isinstance(exc, AttributeError):
        py2 = any("attribute '%s'" % a in text for a in _HINT_ATTRS)
    elif isinstance(exc, TypeError) and _LAZY.search(text):
        target = filename or _innermost_user_file(exc) or 'FILE'
        return ('this looks like Python 2 code: map/filter/zip and dict.keys()/values()/items() '
                'gave lists there; wrap the call in list(...) in %s' % target)
    elif isinstance(exc, ImportError):
        py2 = any(m in text for m in ("'cPickle'", "'urllib2'", "'StringIO'", "'cStringIO'", "'ConfigParser'"))
    if not py2:
        return None
    target = filename or getattr(exc, 'filename', None) or _innermost_user_file(exc) or 'FILE'
    return 'this looks like Python 2 code: run `paddle upgrade_config %s --write` to convert it' % target


def _innermost_user_file(exc):
    """The file of the innermost traceback frame outside Python's and paddle's own code."""
    import traceback
    files = [fs.filename for fs in traceback.extract_tb(exc.__traceback__)
             if os.path.isfile(fs.filename) and not os.path.realpath(fs.filename).startswith(_SYSTEM_DIRS)]
    return files[-1] if files else None


def needs_conversion(source):
    """Whether `source` is Python 2 that upgrade_source would convert: it does not compile as
    Python 3, or it compiles but uses Python 2 idioms that fail only when they run
    (d.iteritems(), d.has_key(k), xrange ...)."""
    if looks_like_python2(source):
        return True
    try:
        compile(source, '<source>', 'exec', dont_inherit=True)
    except SyntaxError:
        return True
    except ValueError:  # null bytes: not source at all, leave it to the import system
        return False
    return False


def compile_converted(source, path):
    """Code of a Python 2 source converted in memory; warns once, naming the file."""
    code = compile(upgrade_source(source, path), path, 'exec', dont_inherit=True)
    logging.getLogger('paddle').warning(converted_notice(path))
    return code


# -- gzip as Python 2 code saw it: lines are str -----------------------------------------

def _as_text(line):
    return line.decode('utf-8', 'surrogateescape') if isinstance(line, bytes) else line


class _GzipTextLines(gzip.GzipFile):
    """A gzip file read in binary mode whose lines, when iterated, are str (v1's Python 2
    code split and joined them as text); read()/readline() stay bytes."""

    def __next__(self):
        return _as_text(super().__next__())

    def readlines(self, hint=-1):
        return [_as_text(line) for line in super().readlines(hint)]


def _gzip_open(filename, mode='rb', compresslevel=9, encoding=None, errors=None, newline=None):
    if mode not in ('r', 'rb'):
        return gzip.open(filename, mode, compresslevel, encoding, errors, newline)
    if isinstance(filename, (str, bytes, os.PathLike)):
        return _GzipTextLines(filename, 'rb', compresslevel)
    return _GzipTextLines(None, 'rb', compresslevel, fileobj=filename)


_py2_gzip = types.ModuleType('gzip', gzip.__doc__)
_py2_gzip.__dict__.update({k: v for k, v in gzip.__dict__.items() if not k.startswith('__')})
_py2_gzip.open = _gzip_open
_py2_gzip.GzipFile = _GzipTextLines


def _py2_import(name, globals=None, locals=None, fromlist=(), level=0):
    module = builtins.__import__(name, globals, locals, fromlist, level)
    return _py2_gzip if module is gzip and level == 0 and name == 'gzip' else module


def py2_builtins():
    """The builtins converted code runs with: Python's, except that `import gzip` gives
    the module whose binary reads yield str lines."""
    d = dict(builtins.__dict__)
    d['__import__'] = _py2_import
    return d


# -- the import hook ----------------------------------------------------------------------

_SYSTEM_DIRS = tuple(sorted({os.path.realpath(p) + os.sep for p in (
    [sysconfig.get_paths()[k] for k in ('stdlib', 'platstdlib', 'purelib', 'platlib')] +
    [os.path.dirname(os.path.dirname(os.path.abspath(__file__))),  # paddle/
     os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                  'py_paddle')])}))


class _Python2Loader(importlib.machinery.SourceFileLoader):
    """Loads a user module through upgrade_source (never from or into a .pyc, which would
    hold the unconverted code)."""

    def get_code(self, fullname):
        path = self.get_filename(fullname)
        return compile_converted(importlib.util.decode_source(self.get_data(path)), path)

    def exec_module(self, module):
        module.__builtins__ = py2_builtins()
        super().exec_module(module)


class _Python2Finder(importlib.abc.MetaPathFinder):
    """Finds modules as the path finder does; a Python 2 source file inside one of the
    user's folders (and outside Python's and paddle's own) gets _Python2Loader."""

    def __init__(self):
        self.user_dirs = []

    def is_user_file(self, path):
        if not path or not os.path.isfile(path):
            return False
        path = os.path.realpath(path)
        return (not path.startswith(_SYSTEM_DIRS) and
                any(path.startswith(d) for d in self.user_dirs))

    def find_spec(self, fullname, path=None, target=None):
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if (spec is None or type(spec.loader) is not importlib.machinery.SourceFileLoader or
                not self.is_user_file(spec.origin)):
            return None
        try:
            with open(spec.origin, 'rb') as f:
                source = importlib.util.decode_source(f.read())
        except (OSError, SyntaxError, UnicodeDecodeError):
            return None
        if not needs_conversion(source):
            return None
        spec.loader = _Python2Loader(fullname, spec.origin)
        return spec


_finder = _Python2Finder()


def install_import_hook(*folders):
    """Converts Python 2 modules imported from `folders` (and from those given before) as
    they are imported."""
    with _tools_lock:  # parses in two threads install it at once
        for folder in folders:
            folder = os.path.realpath(folder or '.') + os.sep
            if folder not in _finder.user_dirs:
                _finder.user_dirs.append(folder)
        if _finder not in sys.meta_path:
            sys.meta_path.insert(0, _finder)


def is_user_file(path):
    """Whether `path` lies in a folder given to install_import_hook (and is no library's)."""
    return _finder.is_user_file(path)
