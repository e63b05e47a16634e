"""Print the ModelConfig (or, with --whole, the TrainerConfig) of a config.

    python -m paddle.utils.dump_config CONFIG [CONFIG_ARGS] [--whole]
                                       [--format=text|yaml|json]

text is protobuf text format (set fields only, in field-number order); json and yaml give
the protobuf JSON mapping with the original field names, but 64-bit integers (sizes, ids) as
numbers, not the strings the mapping writes for them.
"""

import sys

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor

from paddle.proto import message_to_text
from paddle.trainer.config_parser import ConfigError, parse_config

__all__ = ['dump_config', 'main']

FORMATS = ('text', 'json', 'yaml')


def dump_config(path, config_args='', whole=False, fmt='text'):
    """Parse `path` with `config_args` ("k=v,...") and return the dump as a
    string. Raises ConfigError for config errors, ValueError for a bad fmt."""
    if fmt not in FORMATS:
        raise ValueError('unknown format %r (expected one of %s)' %
                         (fmt, ', '.join(FORMATS)))
    conf = parse_config(path, config_args or '')
    msg = conf if whole else conf.model_config
    if fmt == 'text':
        return message_to_text(msg)
    plain = message_to_plain(msg)
    if fmt == 'json':
        import json
        return json.dumps(plain, indent=2) + '\n'
    import yaml
    return yaml.safe_dump(plain, default_flow_style=False, sort_keys=False)


_INT64 = (FieldDescriptor.CPPTYPE_INT64, FieldDescriptor.CPPTYPE_UINT64)


def message_to_plain(msg):
    """The protobuf JSON mapping of `msg` as Python values (set fields, original names),
    with 64-bit integer fields as ints."""
    return _numbers(msg, json_format.MessageToDict(msg, preserving_proto_field_name=True))


def _numbers(msg, plain):
    for field in msg.DESCRIPTOR.fields:
        if field.name not in plain:
            continue
        repeated = field.is_repeated if hasattr(field, 'is_repeated') else \
            field.label == FieldDescriptor.LABEL_REPEATED  # (protobuf before 5.x)
        value = getattr(msg, field.name)
        if field.message_type is not None and not field.message_type.GetOptions().map_entry:
            if repeated:
                for m, p in zip(value, plain[field.name]):
                    _numbers(m, p)
            else:
                _numbers(value, plain[field.name])
        elif field.cpp_type in _INT64:
            plain[field.name] = list(value) if repeated else value
    return plain


USAGE = ('usage: python -m paddle.utils.dump_config CONFIG [CONFIG_ARGS] '
         '[--whole] [--format=text|yaml|json]\n')


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    whole = False
    fmt = 'text'
    positional = []
    for a in argv:
        if a == '--whole':
            whole = True
        elif a.startswith('--format='):
            fmt = a.split('=', 1)[1]
        elif a in ('-h', '--help'):
            sys.stdout.write(USAGE)
            return 0
        elif a.startswith('--'):
            sys.stderr.write('unknown option %s\n%s' % (a, USAGE))
            return 2
        else:
            positional.append(a)
    if not 1 <= len(positional) <= 2:
        sys.stderr.write(USAGE)
        return 2
    config_args = positional[1] if len(positional) > 1 else ''
    try:
        out = dump_config(positional[0], config_args, whole, fmt)
    except ConfigError as e:
        sys.stderr.write('%s\n' % e)
        return 1
    except ValueError as e:
        sys.stderr.write('%s\n' % e)
        return 2
    sys.stdout.write(out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
