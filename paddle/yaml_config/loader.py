"""A yaml.safe_load that remembers line numbers.

``load(path)`` returns plain-looking Python values where every mapping is a
:class:`Map` (a dict that knows the line of each key) and every sequence a
:class:`Seq` (a list that knows the line of each item), so that the front
end can name the line of whatever it rejects.  Only the safe YAML tags are
accepted, on mappings and sequences too (PyYAML would drop theirs); duplicate
keys are an error (PyYAML silently keeps the last); aliases may expand to at most
MAX_ALIAS_VALUES values, so an alias bomb fails at once instead of filling memory, and
nesting deeper than MAX_DEPTH levels is an error naming its line (not a RecursionError).
libyaml parses when PyYAML has it (ten times faster on large files).
"""

import os
import stat

import yaml

from paddle.parser import ConfigError

__all__ = ['Map', 'Seq', 'load', 'load_string', 'plain']


class Map(dict):
    """A mapping with ``line`` (its first line) and ``key_lines``."""

    line = 0

    def __init__(self, *args, **kwargs):
        dict.__init__(self, *args, **kwargs)
        self.key_lines = {}

    def line_of(self, key):
        return self.key_lines.get(key, self.line)


class Seq(list):
    """A sequence with ``line`` and ``item_lines``."""

    line = 0

    def __init__(self, *args):
        list.__init__(self, *args)
        self.item_lines = []

    def line_of(self, index):
        if 0 <= index < len(self.item_lines):
            return self.item_lines[index]
        return self.line


MAX_ALIAS_VALUES = 200000  # values built by expanding aliases (plain values are not counted)
MAX_DEPTH = 100  # a model config nests a few levels
_PLAIN_TAGS = {yaml.MappingNode: 'tag:yaml.org,2002:map', yaml.SequenceNode: 'tag:yaml.org,2002:seq'}


_LIBYAML = getattr(yaml, 'CSafeLoader', None)


class _Loader(_LIBYAML or yaml.SafeLoader):
    """libyaml's parser when PyYAML has it (ten times faster on large files)."""


class _PyLoader(yaml.SafeLoader):
    """PyYAML's own parser: words a syntax error the way PyYAML users know it."""


class _Budget(object):
    """Counts the values built by expanding aliases in one document: a node met a second
    time is an alias, and everything built under it counts."""

    def __init__(self, filename):
        self.left = MAX_ALIAS_VALUES
        self.filename = filename
        self.seen = set()

    def visit(self, node, expanding):
        """Whether `node` is built as (part of) an alias expansion; raises past the budget."""
        if not expanding:
            if id(node) not in self.seen:
                self.seen.add(id(node))
                return False
        self.left -= 1
        if self.left < 0:
            raise ConfigError('YAML aliases expand to more than %d values (an alias bomb?)' % MAX_ALIAS_VALUES,
                              self.filename, _node_line(node))
        return True


def _node_line(node):
    return node.start_mark.line + 1


def _convert(loader, node, filename, active, budget, expanding=False, depth=0):
    expanding = budget.visit(node, expanding)
    if depth > MAX_DEPTH:
        raise ConfigError('YAML nested deeper than %d levels' % MAX_DEPTH, filename, _node_line(node))
    plain_tag = _PLAIN_TAGS.get(type(node))
    if plain_tag and node.tag != plain_tag:
        raise ConfigError("YAML tag '%s' is not allowed: configs are plain data" % node.tag,
                          filename, _node_line(node))
    if isinstance(node, yaml.MappingNode):
        if id(node) in active:
            raise ConfigError('recursive YAML alias', filename,
                              _node_line(node))
        active = active | {id(node)}
        own = {}
        for key_node, _ in node.value:
            if key_node.tag == 'tag:yaml.org,2002:merge':
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                raise ConfigError('a mapping key must be a plain scalar',
                                  filename, _node_line(key_node))
            key = loader.construct_object(key_node)
            if key in own:
                raise ConfigError(
                    "duplicate key '%s' (first at line %d)" %
                    (key, own[key]), filename, _node_line(key_node))
            own[key] = _node_line(key_node)
        loader.flatten_mapping(node)  # merge keys (<<: *x) first, then own
        out = Map()
        out.line = _node_line(node)
        for key_node, value_node in node.value:
            key = _convert(loader, key_node, filename, active, budget, expanding, depth + 1)
            line = _node_line(key_node)
            if isinstance(key, (Map, Seq)) or not isinstance(
                    key, (str, int, float, bool)) and key is not None:
                raise ConfigError('a mapping key must be a plain scalar',
                                  filename, line)
            out[key] = _convert(loader, value_node, filename, active, budget, expanding, depth + 1)
            out.key_lines[key] = line
        return out
    if isinstance(node, yaml.SequenceNode):
        if id(node) in active:
            raise ConfigError('recursive YAML alias', filename,
                              _node_line(node))
        active = active | {id(node)}
        out = Seq()
        out.line = _node_line(node)
        for item in node.value:
            out.append(_convert(loader, item, filename, active, budget, expanding, depth + 1))
            out.item_lines.append(_node_line(item))
        return out
    return loader.construct_object(node, deep=True)


def _syntax_error(e, filename):
    mark = e.problem_mark or e.context_mark
    line = mark.line + 1 if mark is not None else 0
    what = e.problem or e.context or 'invalid YAML'
    if e.context and e.problem:
        what = '%s %s' % (e.context, e.problem)
    if 'maximum nesting depth' in what:  # libyaml's own limit
        return ConfigError('YAML nested deeper than %d levels' % MAX_DEPTH, filename, line)
    return ConfigError('YAML syntax error: %s' % what, filename, line)


def _compose(loader_class, text, filename):
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        return _convert(loader, node, filename, frozenset(), _Budget(filename))
    finally:
        loader.dispose()


def load_string(text, filename='<yaml>'):
    """Parse YAML text; raise ConfigError(FILE:LINE: ...) on bad YAML."""
    try:
        try:
            return _compose(_Loader, text, filename)
        except yaml.MarkedYAMLError as e:
            if _LIBYAML is None or 'maximum nesting depth' in str(e):
                raise
            _compose(_PyLoader, text, filename)  # its wording of the error, normally
            raise
    except yaml.MarkedYAMLError as e:
        raise _syntax_error(e, filename)
    except yaml.YAMLError as e:
        raise ConfigError('YAML error: %s' % e, filename, 0)
    except RecursionError:  # (PyYAML's own composer recurses per level)
        raise ConfigError('YAML nested too deeply (more than %d levels are refused)' % MAX_DEPTH, filename, 0)


def load(path):
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block, /dev/zero never end
            raise ConfigError('cannot read config file: not a regular file', filename=path, lineno=0)
        with open(path, encoding='utf-8') as f:
            text = f.read()
    except (IOError, OSError) as e:
        raise ConfigError('cannot read config file: %s' % e.strerror,
                          filename=path, lineno=0)
    except UnicodeDecodeError as e:
        raise ConfigError('config file is not UTF-8 text: %s' % e,
                          filename=path, lineno=0)
    return load_string(text, path)


def plain(value):
    """Map/Seq -> dict/list, recursively (e.g. before pickling)."""
    if isinstance(value, dict):
        return dict((k, plain(v)) for k, v in value.items())
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value
