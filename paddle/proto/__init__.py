"""PaddlePaddle v1 protobuf messages, loaded from the ``.proto`` files in this
folder at import time (no ``protoc`` needed).

A small reader understands the proto2 subset the v1 files use (package,
import, messages, nested messages and enums, optional/required/repeated
fields of scalar, enum and message types, ``[default = ...]`` and
``[packed = ...]``).  It builds ``descriptor_pb2.FileDescriptorProto``s, adds
them to a private descriptor pool and makes classes with
``message_factory.GetMessageClass``.

Public API:
    get_message_class(name)  -> class for ``paddle.<name>``
    message_to_json(msg)     -> JSON string (original field names)
    message_to_text(msg)     -> protobuf text format
    message_from_json(cls_or_name, s) -> message
"""

import os
import re

from google.protobuf import descriptor_pb2
from google.protobuf import descriptor_pool
from google.protobuf import json_format
from google.protobuf import message_factory
from google.protobuf import text_format

__all__ = [
    'ProtoSyntaxError', 'POOL', 'PROTO_FILES', 'get_message_class',
    'message_to_json', 'message_to_text', 'message_from_json',
    'message_from_text'
]

PROTO_DIR = os.path.dirname(os.path.abspath(__file__))
# in dependency order
PROTO_FILES = [
    'ParameterConfig.proto', 'DataConfig.proto', 'ModelConfig.proto',
    'TrainerConfig.proto'
]
# v1's data files (ProtoData), not configs: outside the engine's config schema
DATA_PROTO_FILES = ['DataFormat.proto']


class ProtoSyntaxError(Exception):
    pass


_FDP = descriptor_pb2.FieldDescriptorProto
_SCALAR_TYPES = {
    'double': _FDP.TYPE_DOUBLE,
    'float': _FDP.TYPE_FLOAT,
    'int64': _FDP.TYPE_INT64,
    'uint64': _FDP.TYPE_UINT64,
    'int32': _FDP.TYPE_INT32,
    'fixed64': _FDP.TYPE_FIXED64,
    'fixed32': _FDP.TYPE_FIXED32,
    'bool': _FDP.TYPE_BOOL,
    'string': _FDP.TYPE_STRING,
    'bytes': _FDP.TYPE_BYTES,
    'uint32': _FDP.TYPE_UINT32,
    'sfixed32': _FDP.TYPE_SFIXED32,
    'sfixed64': _FDP.TYPE_SFIXED64,
    'sint32': _FDP.TYPE_SINT32,
    'sint64': _FDP.TYPE_SINT64,
}
_LABELS = {
    'optional': _FDP.LABEL_OPTIONAL,
    'required': _FDP.LABEL_REQUIRED,
    'repeated': _FDP.LABEL_REPEATED,
}

_TOKEN_RE = re.compile(r'''
    (?P<ws>\s+)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*.*?\*/)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<number>[-+]?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?))
  | (?P<ident>[A-Za-z_][A-Za-z0-9_.]*)
  | (?P<sym>[{}\[\]=;,<>()])
''', re.VERBOSE | re.DOTALL)


def _tokenize(text, filename):
    tokens = []
    pos = 0
    line = 1
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if not m:
            raise ProtoSyntaxError('%s:%d: unexpected character %r' %
                                   (filename, line, text[pos]))
        kind = m.lastgroup
        value = m.group(kind)
        if kind not in ('ws', 'line_comment', 'block_comment'):
            tokens.append((kind, value, line))
        line += value.count('\n')
        pos = m.end()
    return tokens


class _Parser(object):
    def __init__(self, text, filename):
        self.filename = filename
        self.tokens = _tokenize(text, filename)
        self.i = 0

    def error(self, msg):
        line = self.tokens[min(self.i, len(self.tokens) - 1)][2] \
            if self.tokens else 0
        raise ProtoSyntaxError('%s:%d: %s' % (self.filename, line, msg))

    def peek(self):
        if self.i >= len(self.tokens):
            return (None, None, None)
        return self.tokens[self.i]

    def next(self):
        tok = self.peek()
        if tok[0] is None:
            self.error('unexpected end of file')
        self.i += 1
        return tok

    def expect(self, value):
        tok = self.next()
        if tok[1] != value:
            self.i -= 1
            self.error('expected %r, got %r' % (value, tok[1]))
        return tok

    def accept(self, value):
        if self.peek()[1] == value:
            self.i += 1
            return True
        return False

    def ident(self):
        tok = self.next()
        if tok[0] != 'ident':
            self.i -= 1
            self.error('expected an identifier, got %r' % (tok[1], ))
        return tok[1]

    def parse_file(self):
        fdp = descriptor_pb2.FileDescriptorProto()
        fdp.name = self.filename
        fdp.syntax = 'proto2'
        while self.peek()[0] is not None:
            word = self.ident()
            if word == 'syntax':
                self.expect('=')
                tok = self.next()
                if _unquote(tok[1]) != 'proto2':
                    self.error('only proto2 is supported')
                self.expect(';')
            elif word == 'package':
                fdp.package = self.ident()
                self.expect(';')
            elif word == 'import':
                fdp.dependency.append(_unquote(self.next()[1]))
                self.expect(';')
            elif word == 'option':
                self.skip_statement()
            elif word == 'message':
                self.parse_message(fdp.message_type.add())
            elif word == 'enum':
                self.parse_enum(fdp.enum_type.add())
            else:
                self.error('unsupported top-level statement %r' % word)
            while self.accept(';'):
                pass
        return fdp

    def skip_statement(self):
        while self.next()[1] != ';':
            pass

    def parse_enum(self, edp):
        edp.name = self.ident()
        self.expect('{')
        while not self.accept('}'):
            if self.accept(';'):
                continue
            name = self.ident()
            if name == 'option':
                self.skip_statement()
                continue
            self.expect('=')
            value = self.next()[1]
            v = edp.value.add()
            v.name = name
            v.number = int(value, 0)
            if self.accept('['):
                while not self.accept(']'):
                    self.next()
            self.expect(';')

    def parse_message(self, dp):
        dp.name = self.ident()
        self.expect('{')
        while not self.accept('}'):
            if self.accept(';'):
                continue
            word = self.ident()
            if word == 'message':
                self.parse_message(dp.nested_type.add())
            elif word == 'enum':
                self.parse_enum(dp.enum_type.add())
            elif word in ('option', 'reserved', 'extensions'):
                self.skip_statement()
            elif word in _LABELS:
                self.parse_field(dp, word)
            else:
                self.error('a proto2 field needs a label '
                           '(optional/required/repeated), got %r' % word)

    def parse_field(self, dp, label):
        f = dp.field.add()
        f.label = _LABELS[label]
        type_name = self.ident()
        f.name = self.ident()
        self.expect('=')
        f.number = int(self.next()[1], 0)
        if type_name in _SCALAR_TYPES:
            f.type = _SCALAR_TYPES[type_name]
        else:
            # resolved later (message or enum)
            f.type_name = type_name
        if self.accept('['):
            while True:
                opt = self.ident()
                self.expect('=')
                tok = self.next()
                if opt == 'default':
                    f.default_value = _default_string(tok, type_name)
                elif opt == 'packed':
                    f.options.packed = (tok[1] == 'true')
                elif opt == 'deprecated':
                    f.options.deprecated = (tok[1] == 'true')
                else:
                    self.error('unsupported field option %r' % opt)
                if self.accept(']'):
                    break
                self.expect(',')
        self.expect(';')


def _unquote(s):
    if len(s) >= 2 and s[0] in '"\'' and s[-1] == s[0]:
        body = s[1:-1]
        return body.encode('latin-1', 'backslashreplace').decode(
            'unicode_escape')
    return s


def _default_string(tok, type_name):
    kind, value, _ = tok
    if kind == 'string':
        return _unquote(value)
    if kind == 'number':
        if type_name in ('double', 'float'):
            if value.lower().startswith(('0x', '-0x', '+0x')):
                return repr(float(int(value, 0)))
            return value
        if type_name in _SCALAR_TYPES:
            return str(int(value, 0))
        return value
    # identifiers: true/false, inf/nan, enum value names
    return value


def _collect_types(fdp, scope, table):
    def walk(dp, prefix):
        full = prefix + '.' + dp.name
        table[full] = 'message'
        for e in dp.enum_type:
            table[full + '.' + e.name] = 'enum'
        for n in dp.nested_type:
            walk(n, full)

    for e in fdp.enum_type:
        table[scope + '.' + e.name] = 'enum'
    for m in fdp.message_type:
        walk(m, scope)


def _resolve(fdp, table):
    pkg = '.' + fdp.package if fdp.package else ''

    def lookup(name, scope):
        if name.startswith('.'):
            return name if name in table else None
        parts = scope.split('.')
        while True:
            cand = '.'.join(parts) + '.' + name
            if cand in table:
                return cand
            if len(parts) <= 1:
                break
            parts = parts[:-1]
        cand = '.' + name
        return cand if cand in table else None

    def walk(dp, scope):
        full = scope + '.' + dp.name
        for f in dp.field:
            if f.type_name:
                resolved = lookup(f.type_name, full)
                if resolved is None:
                    raise ProtoSyntaxError(
                        '%s: unknown type %r of field %s.%s' %
                        (fdp.name, f.type_name, dp.name, f.name))
                f.type_name = resolved
                f.type = (_FDP.TYPE_ENUM
                          if table[resolved] == 'enum' else _FDP.TYPE_MESSAGE)
        for n in dp.nested_type:
            walk(n, full)

    for m in fdp.message_type:
        walk(m, pkg)


def load_proto_files(filenames, directory=PROTO_DIR, pool=None):
    """Parse the given .proto files (dependencies first) into ``pool``."""
    if pool is None:
        pool = descriptor_pool.DescriptorPool()
    fdps = []
    for fn in filenames:
        with open(os.path.join(directory, fn)) as f:
            fdps.append(_Parser(f.read(), fn).parse_file())
    table = {}
    for fdp in fdps:
        _collect_types(fdp, '.' + fdp.package if fdp.package else '', table)
    for fdp in fdps:
        _resolve(fdp, table)
        pool.Add(fdp)
    return pool


POOL = load_proto_files(PROTO_FILES + DATA_PROTO_FILES)
_class_cache = {}


def get_message_class(name):
    """Class of message ``name`` (``'ModelConfig'`` or ``'paddle.ModelConfig'``)."""
    if '.' not in name:
        name = 'paddle.' + name
    cls = _class_cache.get(name)
    if cls is None:
        cls = message_factory.GetMessageClass(POOL.FindMessageTypeByName(name))
        _class_cache[name] = cls
    return cls


def message_to_json(msg, indent=None):
    """protobuf JSON mapping with the original (snake_case) field names.
    Unset fields are absent; 64-bit integers are JSON strings."""
    return json_format.MessageToJson(
        msg, preserving_proto_field_name=True, indent=indent)


def message_to_text(msg):
    """protobuf text format: set fields only, in field-number order."""
    return text_format.MessageToString(msg)


def message_from_json(cls, s):
    if isinstance(cls, str):
        cls = get_message_class(cls)
    return json_format.Parse(s, cls())


def message_from_text(cls, s):
    if isinstance(cls, str):
        cls = get_message_class(cls)
    return text_format.Parse(s, cls())
