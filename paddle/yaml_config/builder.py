"""Build a trainer config from a YAML document by calling the v1 helpers.

Nothing here re-implements a layer: every ``layers:`` entry is a call of
the helper named by its ``type`` with the entry's other keys as keyword
arguments.  This module only checks the document against the helpers'
signatures (unknown keys, wrong value kinds, dangling layer names) and
turns YAML values into the objects the helpers expect (layers by name,
activations / poolings / optimizers by short name, ParamAttr / ExtraAttr
from mappings, recurrent_group steps from nested layer lists).

Every error is a ConfigError carrying the YAML file and line.
"""

import difflib
import inspect
import re
import sys

from paddle.parser import ConfigError
from paddle.trainer_config_helpers import (activations, attrs, data_sources,
                                           evaluators, layers, networks,
                                           optimizers, poolings)
from paddle.trainer_config_helpers.layers import (AggregateLevel,
                                                  LayerOutput)

from paddle import layer_specs

from .loader import Map, Seq
from .trust import untrusted_data_module

__all__ = ['build', 'TOP_LEVEL_KEYS', 'LAYER_TYPES', 'EVALUATOR_TYPES']

TOP_LEVEL_KEYS = ('config_args', 'settings', 'data', 'layers', 'evaluators',
                  'inputs', 'outputs')
ENTRY_META_KEYS = ('type', 'when', 'as')

# ---------------------------------------------------------------------------
# the vocabulary: helpers and objects a YAML config can name

# the callables with a spec (paddle.layer_specs), by kind of entry
PROJECTION_TYPES = {n: getattr(layers, n) for n in layer_specs.PROJECTIONS}
LAYER_TYPES = {
    n: getattr(layers, n) if hasattr(layers, n) else getattr(networks, n)
    for n in layer_specs.LAYER_HELPERS
}
EVALUATOR_TYPES = {n: getattr(evaluators, n) for n in layer_specs.EVALUATORS}


def _classes(mod, base):
    return {
        n: getattr(mod, n)
        for n in mod.__all__
        if inspect.isclass(getattr(mod, n)) and issubclass(
            getattr(mod, n), base)
    }


def _short_names(classes, suffix, extra=()):
    """{'relu': ReluActivation, 'ReluActivation': ReluActivation, ...}"""
    out = {}
    for n, cls in classes.items():
        out[n] = cls
        short = n[:-len(suffix)] if n.endswith(suffix) else n
        out[short.lower()] = cls
        try:
            inst = cls()
            v1_name = getattr(inst, 'name', None)
            if v1_name:
                out[v1_name] = cls
        except TypeError:
            pass
    for k, v in extra:
        out[k] = v
    return out


ACTIVATIONS = _short_names(
    {k: v for k, v in _classes(activations, activations.BaseActivation).items()
     if k != 'BaseActivation'}, 'Activation',
    [('linear', activations.LinearActivation),
     ('identity', activations.IdentityActivation),
     ('exp', activations.ExpActivation)])

POOLINGS = _short_names(
    {k: v for k, v in _classes(poolings, poolings.BasePoolingType).items()
     if k != 'BasePoolingType'}, 'Pooling',
    [('avg', poolings.AvgPooling), ('sqrtn', poolings.SquareRootNPooling),
     ('cudnn_max', poolings.CudnnMaxPooling),
     ('cudnn_avg', poolings.CudnnAvgPooling)])

OPTIMIZERS = _short_names(
    {k: v for k, v in _classes(optimizers, optimizers.BaseSGDOptimizer).items()
     if k != 'BaseSGDOptimizer'}, 'Optimizer',
    [('decayed_adagrad', optimizers.DecayedAdaGradOptimizer),
     ('sgd', optimizers.MomentumOptimizer)])

REGULARIZATIONS = {
    'L2Regularization': optimizers.L2Regularization,
    'l2': optimizers.L2Regularization
}

LEVELS = {}
for _n in dir(AggregateLevel):
    if _n.isupper():
        LEVELS[_n] = LEVELS[_n.lower()] = getattr(AggregateLevel, _n)
for _n in ('FROM_TIMESTEP', 'FROM_SEQUENCE', 'FROM_NO_SEQUENCE'):
    LEVELS[_n] = LEVELS[_n.lower()] = getattr(layers.ExpandLevel, _n)
LEVELS['non-seq'] = AggregateLevel.EACH_TIMESTEP
LEVELS['seq'] = AggregateLevel.EACH_SEQUENCE

# objects usable anywhere as {type: Name, ...}
OBJECT_TYPES = {}
OBJECT_TYPES.update(LAYER_TYPES)
OBJECT_TYPES.update(PROJECTION_TYPES)
for _n in layer_specs.INPUT_OBJECTS:
    OBJECT_TYPES[_n] = getattr(layers, _n)
for _n in ('ParamAttr', 'ExtraAttr', 'HookAttr'):
    OBJECT_TYPES[_n] = getattr(attrs, _n)
for _table in (ACTIVATIONS, POOLINGS, OPTIMIZERS):
    OBJECT_TYPES.update({k: v for k, v in _table.items() if k[0].isupper()})
OBJECT_TYPES['L2Regularization'] = optimizers.L2Regularization
OBJECT_TYPES['ModelAverage'] = optimizers.ModelAverage

# Argument kinds come from the layer specs (paddle.layer_specs): a spec kind -> how
# convert() treats the value, and the scalar check it gets.
_SPEC_KIND = dict.fromkeys(layer_specs.LAYER_KINDS, 'layer')
_SPEC_KIND.update((k, k) for k in layer_specs.OBJECT_KINDS)
_SCALAR_WANT = {'int': 'int', 'float': 'number', 'bool': 'bool', 'str': 'str'}

# Callables without a spec (settings, data sources, attributes, optimizers): kinds by
# argument name, and the scalars their signatures leave untyped.
_UNSPECIFIED_SCALARS = {'batch_size': 'int', 'learning_rate': 'number'}


def _kind_by_name(key):
    if key == 'act' or key.endswith('_act'):
        return 'act'
    if key.endswith('bias_attr'):
        return 'bias_attr'
    if (key.endswith('param_attr') or key in ('boot_bias', 'padding_attr')):
        return 'param_attr'
    if key.endswith('_attr'):
        return 'extra_attr'
    if key in ('pooling_type', 'pool_type'):
        return 'pooling'
    if key == 'learning_method':
        return 'optimizer'
    if key == 'regularization':
        return 'regularization'
    if key == 'update_hooks':
        return 'hook'
    return 'value'


def _kind(key, spec):
    """How convert() treats argument `key` of a callable (spec: its HelperSpec or None)."""
    if spec is None:
        return _kind_by_name(key)
    return _SPEC_KIND.get(spec.kind(key), 'value')


def _params(func):
    """(ordered {name: Parameter}, accepts_any_keyword) of a helper/class."""
    target = inspect.unwrap(func)
    if inspect.isclass(target):
        out = {}
        var_kw = True
        for klass in target.__mro__:
            init = klass.__dict__.get('__init__')
            if init is None:
                continue
            sig = inspect.signature(init)
            var_kw = False
            for n, p in sig.parameters.items():
                if n == 'self':
                    continue
                if p.kind == p.VAR_KEYWORD:
                    var_kw = True
                elif p.kind != p.VAR_POSITIONAL:
                    out.setdefault(n, p)
            if not var_kw:
                break
        return out, var_kw
    sig = inspect.signature(target)
    out = {}
    var_kw = False
    for n, p in sig.parameters.items():
        if p.kind == p.VAR_KEYWORD:
            var_kw = True
        elif p.kind != p.VAR_POSITIONAL:
            out[n] = p
    return out, var_kw


def _hint(word, choices):
    close = difflib.get_close_matches(str(word), list(choices), n=1)
    return " (did you mean '%s'?)" % close[0] if close else ''


def _desc(value):
    if isinstance(value, Map):
        return 'a mapping'
    if isinstance(value, Seq):
        return 'a list'
    if value is None:
        return 'null'
    return '%s %r' % (type(value).__name__, value)


# ---------------------------------------------------------------------------
# scopes: layer names visible to an entry


class Scope(object):
    def __init__(self, parent=None):
        self.names = {}
        self.parent = parent

    def define(self, name, value):
        self.names[name] = value

    def lookup(self, name):
        scope = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def all_names(self):
        out, scope = [], self
        while scope is not None:
            out.extend(scope.names)
            scope = scope.parent
        return out


# ---------------------------------------------------------------------------
# the builder


class Builder(object):
    def __init__(self, filename, config_args):
        self.filename = filename
        self.cmd_args = dict(config_args or {})
        self.args = {}

    # errors ---------------------------------------------------------------
    def error(self, msg, line):
        return ConfigError(msg, self.filename, line)

    # config args and conditions ---------------------------------------------
    def read_config_args(self, section):
        if section is None:
            return
        if not isinstance(section, Map):
            raise self.error('config_args must be a mapping of name: default',
                             getattr(section, 'line', 0))
        for name, default in section.items():
            line = section.line_of(name)
            if isinstance(default, (Map, Seq)):
                raise self.error(
                    "config_args: '%s' must have a scalar default, got %s" %
                    (name, _desc(default)), line)
            value = default
            if name in self.cmd_args:
                value = self._convert_arg(name, self.cmd_args[name], default,
                                          line)
            self.args[name] = value

    def _convert_arg(self, name, text, default, line):
        try:
            if isinstance(default, bool):
                if text in ('True', 'true', '1'):
                    return True
                if text in ('False', 'false', '0'):
                    return False
                raise ValueError
            if isinstance(default, int):
                return int(text)
            if isinstance(default, float):
                return float(text)
        except ValueError:
            raise self.error(
                "config arg '%s'=%r cannot be converted to %s (the type of "
                "its default)" % (name, text, type(default).__name__), line)
        return text

    _ARG_RE = re.compile(r'\$\{([A-Za-z_][A-Za-z0-9_]*)\}')

    def substitute(self, value, line):
        if not isinstance(value, str) or '${' not in value:
            return value

        def get(name):
            if name not in self.args:
                raise self.error(
                    "unknown config arg '${%s}' (declare it under "
                    "config_args:)%s" % (name, _hint(name, self.args)), line)
            return self.args[name]

        m = self._ARG_RE.fullmatch(value)
        if m:
            return get(m.group(1))
        return self._ARG_RE.sub(lambda m: str(get(m.group(1))), value)

    def condition(self, cond, line):
        """`when:` value -> bool.  true/false, NAME, 'not NAME'."""
        if isinstance(cond, bool):
            return cond
        if not isinstance(cond, str):
            raise self.error(
                "when: must be a config arg name, 'not NAME' or a boolean, "
                "got %s" % _desc(cond), line)
        text = cond.strip()
        negate = False
        if text.startswith('not '):
            negate, text = True, text[4:].strip()
        if text.startswith('${') and text.endswith('}'):
            text = text[2:-1]
        if text not in self.args:
            raise self.error(
                "when: unknown config arg '%s' (declare it under "
                "config_args:)%s" % (text, _hint(text, self.args)), line)
        return bool(self.args[text]) != negate

    # values -------------------------------------------------------------------
    def convert(self, value, key, param, scope, line, owner, spec=None):
        """Turn the YAML value of argument `key` into what the helper takes (spec: the
        helper's HelperSpec, which says what kind of value the argument holds)."""
        value = self.substitute(value, line)
        kind = _kind(key, spec)
        if value is None:
            return None
        if kind == 'step':
            return self.make_step(value, scope, line, owner)
        if isinstance(value, Seq) and kind != 'value' or (
                isinstance(value, Seq) and any(
                    isinstance(v, Map) and 'type' in v for v in value)):
            return [
                self.convert(v, key, param, scope, value.line_of(i), owner,
                             spec)
                for i, v in enumerate(value)
            ]
        if kind == 'layer':
            if isinstance(value, str):
                found = scope.lookup(value)
                if found is None:
                    raise self.error(
                        "%s: key '%s': '%s' is not a layer defined above%s" %
                        (owner, key, value, _hint(value, scope.all_names())),
                        line)
                return found
            if isinstance(value, Map):
                return self.call_object(value, scope, OBJECT_TYPES, owner)
            raise self.error(
                "%s: key '%s' must be a layer name, a list of them or a "
                "{type: ...} mapping, got %s" % (owner, key, _desc(value)),
                line)
        if kind == 'act':
            return self.named_object(value, key, ACTIVATIONS, 'activation',
                                     scope, line, owner)
        if kind == 'pooling':
            return self.named_object(value, key, POOLINGS, 'pooling type',
                                     scope, line, owner)
        if kind == 'optimizer':
            return self.named_object(value, key, OPTIMIZERS, 'optimizer',
                                     scope, line, owner)
        if kind == 'regularization':
            if isinstance(value, (int, float)) and not isinstance(
                    value, bool):
                return optimizers.L2Regularization(value)
            return self.named_object(value, key, REGULARIZATIONS,
                                     'regularization', scope, line, owner)
        if kind == 'level':
            if isinstance(value, str) and value in LEVELS:
                return LEVELS[value]
            raise self.error(
                "%s: key '%s' must be one of %s, got %s" %
                (owner, key, ', '.join(sorted(
                    k for k in LEVELS if k.islower())), _desc(value)), line)
        if kind in ('param_attr', 'bias_attr', 'extra_attr'):
            if isinstance(value, bool) and kind != 'extra_attr':
                return value
            if isinstance(value, Map):
                if 'type' in value:
                    return self.call_object(value, scope, OBJECT_TYPES, owner)
                cls = attrs.ExtraAttr if kind == 'extra_attr' else \
                    attrs.ParamAttr
                return self.call(cls, cls.__name__, value, scope,
                                 "%s: key '%s'" % (owner, key), ())
            raise self.error(
                "%s: key '%s' must be a mapping of %s arguments%s, got %s" %
                (owner, key, 'ExtraAttr' if kind == 'extra_attr' else
                 'ParamAttr', '' if kind == 'extra_attr' else ' or a boolean',
                 _desc(value)), line)
        if kind == 'hook':
            if isinstance(value, Map):
                return self.call(attrs.HookAttr, 'HookAttr', value, scope,
                                 "%s: key '%s'" % (owner, key), ())
            raise self.error("%s: key '%s' must be a mapping {type: ..., "
                             "mask_filename: ...}" % (owner, key), line)
        # plain values
        if isinstance(value, Map):
            if 'type' in value and isinstance(value['type'], str) and \
                    value['type'] in OBJECT_TYPES:
                return self.call_object(value, scope, OBJECT_TYPES, owner)
            return self.plain(value, line)
        if isinstance(value, Seq):
            return self.plain(value, line)
        self.check_scalar(value, key, param, line, owner, spec)
        return value

    def plain(self, value, line):
        """Map/Seq -> dict/list with ${args} substituted."""
        if isinstance(value, Map):
            return dict((k, self.plain(v, value.line_of(k)))
                        for k, v in value.items())
        if isinstance(value, Seq):
            return [self.plain(v, value.line_of(i))
                    for i, v in enumerate(value)]
        value = self.substitute(value, line)
        # equal strings as one object, as Python's interned literals are: pickled
        # provider args then match their Python twin's byte for byte (pickle memo)
        return sys.intern(value) if isinstance(value, str) else value

    def check_scalar(self, value, key, param, line, owner, spec=None):
        if spec is not None:
            want = _SCALAR_WANT.get(spec.kind(key))
        else:
            want = self._unspecified_want(key, param)
        ok = True
        if want == 'bool':
            ok = isinstance(value, bool)
        elif want == 'number':
            ok = isinstance(value, (int, float)) and not isinstance(
                value, bool)
        elif want == 'int':
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif want == 'str':
            ok = isinstance(value, str)
        if not ok:
            words = {
                'bool': 'true or false',
                'number': 'a number',
                'int': 'an integer',
                'str': 'a string'
            }
            raise self.error("%s: key '%s' must be %s, got %s" %
                             (owner, key, words[want], _desc(value)), line)

    @staticmethod
    def _unspecified_want(key, param):
        """The scalar check of an argument of a callable without a spec."""
        if key in _UNSPECIFIED_SCALARS:
            return _UNSPECIFIED_SCALARS[key]
        if key == 'name' or key.endswith('_name'):
            return 'str'
        default = param.default if param is not None else inspect._empty
        if isinstance(default, bool):
            return 'bool'
        if isinstance(default, (int, float)):
            return 'number'
        if isinstance(default, str):
            return 'str'
        return None

    def named_object(self, value, key, table, what, scope, line, owner):
        if isinstance(value, str):
            if value in table:
                return table[value]()
            raise self.error(
                "%s: key '%s': unknown %s '%s'%s" %
                (owner, key, what, value, _hint(value, table)), line)
        if isinstance(value, Map):
            return self.call_object(value, scope, dict(OBJECT_TYPES, **table),
                                    owner)
        raise self.error("%s: key '%s' must be a %s name (e.g. %s) or a "
                         "{type: ...} mapping, got %s" %
                         (owner, key, what, sorted(table)[-1], _desc(value)),
                         line)

    # calls --------------------------------------------------------------------
    def call_object(self, entry, scope, table, owner):
        tname = entry.get('type')
        if not isinstance(tname, str):
            raise self.error("%s: a {type: ...} mapping needs 'type' naming "
                             "a helper or class, got %s" %
                             (owner, _desc(tname)), entry.line)
        if tname not in table:
            raise self.error("%s: unknown type '%s'%s" %
                             (owner, tname, _hint(tname, table)),
                             entry.line_of('type'))
        what = tname
        if isinstance(entry.get('name'), str):
            what = "%s '%s'" % (tname, entry['name'])
        result = self.call(table[tname], tname, entry, scope, what,
                           ENTRY_META_KEYS)
        self.register(result, entry, scope)
        return result

    def call(self, func, tname, entry, scope, owner, meta):
        params, var_kw = _params(func)
        spec = layer_specs.HELPERS.get(tname)
        kwargs = {}
        for key, value in entry.items():
            if key in meta:
                continue
            line = entry.line_of(key)
            if not isinstance(key, str):
                raise self.error('%s: keys must be names, got %s' %
                                 (owner, _desc(key)), line)
            if key not in params and not var_kw:
                raise self.error(
                    "%s: unknown key '%s'%s" %
                    (owner, key, _hint(key, params) or
                     ' (accepted: %s)' % ', '.join(params)), line)
            kwargs[key] = self.convert(value, key, params.get(key), scope,
                                       line, owner, spec)
        missing = [
            n for n, p in params.items()
            if p.default is inspect._empty and n not in kwargs and
            n != 'name'
        ]
        if missing:
            raise self.error('%s: missing required key%s %s' %
                             (owner, 's' if len(missing) > 1 else '',
                              ', '.join("'%s'" % m for m in missing)),
                             entry.line)
        try:
            return func(**kwargs)
        except ConfigError as e:
            if e.filename is not None:
                raise
            raise self.error(self._prefixed(owner, tname, e.msg), entry.line)
        except RecursionError:
            raise
        except Exception as e:  # a helper bug or an unchecked bad value
            text = str(e)
            msg = '%s: %s' % (type(e).__name__, text) if not isinstance(
                e, TypeError) else text
            raise self.error(self._prefixed(owner, tname, msg), entry.line)

    @staticmethod
    def _prefixed(owner, tname, msg):
        if msg.startswith(tname) or msg.startswith(owner):
            if owner != tname and not msg.startswith(owner):
                return '%s: %s' % (owner, msg)
            return msg
        return '%s: %s' % (owner, msg)

    def register(self, result, entry, scope):
        results = result if isinstance(result, (list, tuple)) else [result]
        outs = [r for r in results if isinstance(r, LayerOutput)]
        for r in outs:
            scope.define(r.name, r)
        if not outs:
            return
        name = entry.get('name')
        if isinstance(name, str) and len(outs) == 1 and \
                name not in (o.name for o in outs):
            scope.define(name, outs[0])
        alias = entry.get('as')
        if alias is None:
            return
        aliases = alias if isinstance(alias, list) else [alias]
        if len(aliases) != len(outs) or not all(
                isinstance(a, str) for a in aliases):
            raise self.error(
                "'as' must be a name (or a list of %d names, one per output)"
                % len(outs), entry.line_of('as'))
        for a, o in zip(aliases, outs):
            scope.define(a, o)

    # sections -----------------------------------------------------------------
    def build_entries(self, entries, scope, table, section, what, line=0):
        if entries is None:
            return
        if not isinstance(entries, Seq):
            raise self.error(
                '%s must be a list of entries (- type: ...), got %s' %
                (section, _desc(entries)), getattr(entries, 'line', line))
        for i, entry in enumerate(entries):
            line = entries.line_of(i)
            where = '%s[%d]' % (section, i)
            if not isinstance(entry, Map):
                raise self.error(
                    '%s must be a mapping with a type: key, got %s' %
                    (where, _desc(entry)), line)
            if 'type' not in entry:
                raise self.error("%s: missing key 'type' (the %s name)" %
                                 (where, what), entry.line)
            tname = entry['type']
            if not isinstance(tname, str) or tname not in table:
                if isinstance(tname, str) and tname in OBJECT_TYPES:
                    hint = (' (%s is not a %s; use it inside an input: list)'
                            % (tname, what))
                else:
                    hint = _hint(tname, table)
                raise self.error('%s: unknown %s type %s%s' %
                                 (where, what, _desc(tname), hint),
                                 entry.line_of('type'))
            if 'when' in entry and not self.condition(entry['when'],
                                                      entry.line_of('when')):
                continue
            name = entry.get('name')
            if name is not None and not isinstance(name, str):
                raise self.error("%s: key 'name' must be a string, got %s" %
                                 (where, _desc(name)), entry.line_of('name'))
            owner = "%s '%s'" % (tname, name) if name else '%s (%s)' % (
                where, tname)
            result = self.call(table[tname], tname, entry, scope, owner,
                               ENTRY_META_KEYS)
            self.register(result, entry, scope)

    def make_step(self, spec, scope, line, owner):
        if not isinstance(spec, Map):
            raise self.error(
                '%s: step must be a mapping {inputs: [names], layers: [...], '
                'output: name}' % owner, line)
        for k in spec:
            if k not in ('inputs', 'layers', 'output'):
                raise self.error(
                    "%s: step: unknown key '%s'%s" %
                    (owner, k, _hint(k, ('inputs', 'layers', 'output'))),
                    spec.line_of(k))
        names = spec.get('inputs') or Seq()
        if isinstance(names, str):
            names = [names]
        if not all(isinstance(n, str) for n in names):
            raise self.error('%s: step: inputs must be a list of names' %
                             owner, spec.line_of('inputs'))
        if 'output' not in spec:
            raise self.error("%s: step: missing key 'output'" % owner,
                             spec.line)
        output = spec['output']
        builder = self

        def step(*args):
            if len(args) != len(names):
                raise builder.error(
                    '%s: step receives %d input(s) but declares %d in inputs:'
                    % (owner, len(args), len(names)), spec.line_of('inputs'))
            local = Scope(scope)
            for n, a in zip(names, args):
                local.define(n, a)
            builder.build_entries(spec.get('layers'), local, LAYER_TYPES,
                                  'step layers', 'layer',
                                  spec.line_of('layers'))
            outs = output if isinstance(output, list) else [output]
            result = []
            for i, o in enumerate(outs):
                got = local.lookup(o) if isinstance(o, str) else None
                if got is None:
                    raise builder.error(
                        "%s: step output %s is not a layer of the step%s" %
                        (owner, _desc(o), _hint(o, local.names)),
                        spec.line_of('output'))
                result.append(got)
            return result[0] if len(result) == 1 else result

        return step

    def build(self, doc):
        if doc is None:
            raise self.error('empty YAML config', 1)
        if not isinstance(doc, Map):
            raise self.error(
                'a YAML config must be a mapping with keys %s' %
                ', '.join(TOP_LEVEL_KEYS), getattr(doc, 'line', 1))
        for key in doc:
            if key not in TOP_LEVEL_KEYS:
                raise self.error(
                    "unknown top-level key '%s'%s" %
                    (key, _hint(key, TOP_LEVEL_KEYS) or
                     ' (accepted: %s)' % ', '.join(TOP_LEVEL_KEYS)),
                    doc.line_of(key))
        self.read_config_args(doc.get('config_args'))
        scope = Scope()
        if 'settings' in doc:
            sec = doc['settings']
            if not isinstance(sec, Map):
                raise self.error('settings must be a mapping of settings() '
                                 'arguments', doc.line_of('settings'))
            sec.line = doc.line_of('settings')
            self.call(optimizers.settings, 'settings', sec, scope,
                      'settings', ())
        if 'data' in doc:
            sec = doc['data']
            if not isinstance(sec, Map):
                raise self.error(
                    'data must be a mapping of define_py_data_sources2 '
                    'arguments', doc.line_of('data'))
            sec.line = doc.line_of('data')
            if 'when' not in sec or self.condition(sec['when'],
                                                   sec.line_of('when')):
                self.call(data_sources.define_py_data_sources2,
                          'define_py_data_sources2', sec, scope, 'data',
                          ('when', ))
                problem = untrusted_data_module(sec.get('module'), self.filename)
                if problem:
                    raise self.error(problem, sec.line_of('module'))
        if 'layers' not in doc:
            raise self.error("missing top-level key 'layers'", doc.line)
        self.build_entries(doc['layers'], scope, LAYER_TYPES, 'layers',
                           'layer', doc.line_of('layers'))
        self.build_entries(doc.get('evaluators'), scope, EVALUATOR_TYPES,
                           'evaluators', 'evaluator',
                           doc.line_of('evaluators'))
        if doc.get('inputs') is not None:
            networks.inputs(
                self.layer_list(doc['inputs'], scope, 'inputs',
                                doc.line_of('inputs')))
        if 'outputs' not in doc:
            raise self.error(
                "missing top-level key 'outputs' (the cost or output "
                "layers)", doc.line)
        outs = self.layer_list(doc['outputs'], scope, 'outputs',
                               doc.line_of('outputs'))
        if not outs:
            raise self.error('outputs: no output layer selected',
                             doc.line_of('outputs'))
        networks.outputs(outs)

    def layer_list(self, value, scope, section, line):
        """Names (or {when: cond, layers: [names]} groups) -> layers."""
        value = self.substitute(value, line)
        if isinstance(value, str):
            value = Seq([value])
            value.item_lines = [line]
        if not isinstance(value, Seq):
            raise self.error('%s must be a layer name or a list of them, got '
                             '%s' % (section, _desc(value)), line)
        out = []
        for i, item in enumerate(value):
            iline = value.line_of(i)
            item = self.substitute(item, iline)
            if isinstance(item, Map):
                for k in item:
                    if k not in ('when', 'layers'):
                        raise self.error(
                            "%s[%d]: unknown key '%s' (a group takes when: "
                            "and layers:)" % (section, i, k), item.line_of(k))
                if 'layers' not in item:
                    raise self.error("%s[%d]: missing key 'layers'" %
                                     (section, i), item.line)
                if 'when' in item and not self.condition(
                        item['when'], item.line_of('when')):
                    continue
                out.extend(
                    self.layer_list(item['layers'], scope, section,
                                    item.line_of('layers')))
                continue
            if not isinstance(item, str):
                raise self.error('%s[%d] must be a layer name, got %s' %
                                 (section, i, _desc(item)), iline)
            found = scope.lookup(item)
            if found is None:
                raise self.error(
                    "%s: '%s' is not a layer defined in layers:%s" %
                    (section, item, _hint(item, scope.all_names())), iline)
            out.append(found)
        return out


def build(doc, filename, config_args):
    Builder(filename, config_args).build(doc)
