"""Semantic comparison of protobuf messages (floats with tolerance), in the
spirit of protobuf's MessageDifferencer::ApproximatelyEquals."""

import math

from google.protobuf import text_format
from google.protobuf.descriptor import FieldDescriptor

from paddle.proto import get_message_class

_FLOATS = (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT)


def _close(a, b):
    return a == b or math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def diff(a, b, path=''):
    """List of human-readable differences between messages a and b."""
    out = []
    fields = {f.name: f for f in a.DESCRIPTOR.fields}
    for name, f in sorted(fields.items(), key=lambda kv: kv[1].number):
        p = path + '.' + name if path else name
        if f.is_repeated:
            va, vb = list(getattr(a, name)), list(getattr(b, name))
            if len(va) != len(vb):
                out.append('%s: %d items vs %d items (%r vs %r)' %
                           (p, len(va), len(vb), va[:8], vb[:8]))
                continue
            for i, (x, y) in enumerate(zip(va, vb)):
                if f.type == FieldDescriptor.TYPE_MESSAGE:
                    out.extend(diff(x, y, '%s[%d]' % (p, i)))
                elif f.type in _FLOATS:
                    if not _close(x, y):
                        out.append('%s[%d]: %r vs %r' % (p, i, x, y))
                elif x != y:
                    out.append('%s[%d]: %r vs %r' % (p, i, x, y))
            continue
        ha, hb = a.HasField(name), b.HasField(name)
        if ha != hb:
            out.append('%s: %s vs %s' % (p, 'set(%r)' % (getattr(
                a, name), ) if ha else 'unset', 'set(%r)' % (getattr(
                    b, name), ) if hb else 'unset'))
            continue
        if not ha:
            continue
        x, y = getattr(a, name), getattr(b, name)
        if f.type == FieldDescriptor.TYPE_MESSAGE:
            out.extend(diff(x, y, p))
        elif f.type in _FLOATS:
            if not _close(x, y):
                out.append('%s: %r vs %r' % (p, x, y))
        elif x != y:
            out.append('%s: %r vs %r' % (p, x, y))
    return out


def assert_proto_equal(actual, expected_text):
    expected = text_format.Parse(expected_text, type(actual)())
    d = diff(actual, expected)
    assert not d, 'actual vs expected:\n  ' + '\n  '.join(d[:40])


def parse_text(cls_name, text):
    return text_format.Parse(text, get_message_class(cls_name)())
