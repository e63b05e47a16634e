"""Python 2 in v1 configs and data providers: the idioms 2to3's fixers rewrite (print
statements, xrange, dict.iteritems/has_key, cPickle, .next(), map/filter/zip used as
lists, except E, e, octal 0777, ...) plus the few names they leave alone (sys.maxint,
string.letters ...). Rewriting uses fissix, the maintained fork of lib2to3.

Configs and providers that need it are converted in memory when they run (with a warning);
`paddle upgrade_config FILE...` converts them for good.
"""
import io
import re
import tokenize

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


def looks_like_python2(source):
    return bool(_SIGNS.search(source))


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
        new = str(_refactoring_tool(python3_print).refactor_string(source, name))
    except Exception as e:  # fissix's ParseError: not Python 2 either
        raise SyntaxError('%s: neither Python 3 nor Python 2 (%s)' % (name, e))
    return _rename_attributes(new)


def converted_notice(path):
    """The warning for a file that ran after an in-memory conversion."""
    return '%s: converted Python 2 code to run it; `paddle upgrade_config %s --write` ' \
           'converts the file for good' % (path, path)


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
    elif isinstance(exc, ImportError):
        py2 = any(m in text for m in ("'cPickle'", "'urllib2'", "'StringIO'", "'cStringIO'", "'ConfigParser'"))
    if not py2:
        return None
    target = filename or getattr(exc, 'filename', None) or 'FILE'
    return 'this looks like Python 2 code: run `paddle upgrade_config %s --write` to convert it' % target
