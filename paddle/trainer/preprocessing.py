"""Declarative preprocessing for the built-in readers: what a `preprocess` block declares,
fitted on the TRAINING list, kept as plain JSON, and applied to every row after that.

    args={'label_column': 'species',
          'preprocess': {'columns': {'proline': ['log', 'zscore'], 'region': 'onehot', '*': 'zscore'},
                         'missing': {'*': 'mean', 'region': 'mode'}}}

A reader fits a state when its provider reads the training list (`fit_csv`, `fit_text`) and
registers it under a key made of its arguments; the test provider of the same run, and
`paddle predict` / the Predictor / ONNX export after `load_saved`, apply that state and never
refit on their own data. The state is saved beside the parameters as preprocessing.json
(`save`) and appended to merged models (`paddle merge_model`).
"""
import hashlib
import json
import math
import os
import weakref

import numpy as np

STATE_FILE = 'preprocessing.json'
NA_VALUES = ('', 'NA', 'N/A', 'NaN', 'nan', 'null', 'NULL', 'None', '?')
NUMERIC_STEPS = ('log', 'zscore', 'minmax')
CATEGORICAL = ('onehot', 'id')
TRANSFORMS = NUMERIC_STEPS + CATEGORICAL + ('none', 'drop')
FILL_POLICIES = ('mean', 'median', 'mode')
MISSING_POLICIES = ('error', 'drop') + FILL_POLICIES
# the reader arguments that only say how to read, not what the fitted transform is
_RUNTIME_ARGS = ('file_list', 'is_train', 'input_order', 'model_config', 'slots', 'num_classes')

_fitted = {}  # key -> (weak reference to the training provider alive in this process, its state)
_saved = {}   # reader -> [states] loaded from a model (load_saved): they win over _fitted


class PreprocessError(ValueError):
    pass


# --------------------------------------------------------------------------- the registry

def state_key(reader, args):
    """The key of a reader's fitted state: its name and the arguments that shape the transform."""
    shaping = {k: v for k, v in sorted(args.items()) if k not in _RUNTIME_ARGS}
    text = json.dumps([reader, shaping], sort_keys=True, default=repr)
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def register(state, provider):
    """Makes `state` the one the training `provider` (its settings object) fitted, for as
    long as that provider lives: a test provider of the same run reads with it, and a state of
    an earlier run in this process is forgotten (never applied nor saved with this one)."""
    _fitted.clear()
    _fitted[state['key']] = (weakref.ref(provider), state)


def fitted_states():
    """The states of the training providers alive in this process."""
    return [state for ref, state in _fitted.values() if ref() is not None]


def lookup(reader, key):
    """The state a non-training provider applies: one loaded from a model, else the one the
    live training provider fitted: the one with this key, or the only one of this reader (a
    test source with arguments of its own still reads with the training statistics); None
    if there is none."""
    fitted = [s for s in fitted_states() if s['reader'] == reader]
    for states in (_saved.get(reader, []), fitted):
        for state in states:
            if state['key'] == key:
                return state
        if len(states) == 1:
            return states[0]
    return None


def load_saved(states):
    """Makes `states` (a model's, from `read`) the ones non-training providers apply."""
    _saved.clear()
    for state in states or []:
        _saved.setdefault(state['reader'], []).append(state)


def save(directory, states):
    """Writes the states to directory/preprocessing.json (nothing when there are none)."""
    if states:
        with open(os.path.join(directory, STATE_FILE), 'w') as f:
            json.dump({'version': 1, 'states': states}, f, indent=1, sort_keys=True)


def read(directory):
    """The states saved in a pass directory ([] when it has none)."""
    path = os.path.join(directory, STATE_FILE)
    if not os.path.exists(path):
        return []
    with open(path, encoding='utf-8') as f:
        return from_json(f.read(), path)


def from_json(text, where):
    try:
        doc = json.loads(text)
        return list(doc['states'])
    except (ValueError, KeyError, TypeError) as e:
        raise PreprocessError("%s: not a preprocessing state (%s)" % (where, e))


def to_json(states):
    return json.dumps({'version': 1, 'states': states}, sort_keys=True)


# ------------------------------------------------------------------------------- helpers

def _number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _per_column(spec, name, index, width, default):
    """The entry of a {column: value, '*': value} mapping for a column (by name, then index,
    a negative one counting from the end)."""
    if not isinstance(spec, dict):
        return spec if spec is not None else default
    for k in (name, index, str(index), index - width, str(index - width)):
        if k is not None and k in spec:
            return spec[k]
    return spec.get('*', default)


def _steps(transform, column):
    steps = transform if isinstance(transform, (list, tuple)) else [transform]
    for s in steps:
        if s not in TRANSFORMS:
            raise PreprocessError("preprocess: column %s: unknown transform %r (choose from %s)"
                                  % (column, s, ", ".join(TRANSFORMS)))
    if len(steps) > 1 and any(s not in NUMERIC_STEPS for s in steps):
        raise PreprocessError("preprocess: column %s: only %s chain (got %r)"
                              % (column, "/".join(NUMERIC_STEPS), list(steps)))
    return [s for s in steps if s != 'none']


def _check_missing_policy(policy, column):
    if policy in MISSING_POLICIES or isinstance(policy, (int, float, str)) and not isinstance(policy, bool):
        return
    raise PreprocessError("preprocess: column %s: missing-value policy %r: use one of %s or a constant"
                          % (column, policy, ", ".join(MISSING_POLICIES)))


def _mode(values):
    counts = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return min(counts, key=lambda v: (-counts[v], v))


# ----------------------------------------------------------------------------------- csv

def fit_csv(key, header, label_index, rows, spec, labels=None):
    """The state of a csv reader from the training rows [(where, cells)], `where` being
    "file:line". header: the column names or None; label_index: the label's column or None."""
    spec = dict(spec or {})
    unknown = set(spec) - {'columns', 'missing', 'na_values'}
    if unknown:
        raise PreprocessError("preprocess: unknown key(s) %s (keys: columns, missing, na_values)"
                              % ", ".join(sorted(map(str, unknown))))
    columns, missing = spec.get('columns') or {}, spec.get('missing', 'error')
    na_values = [str(v) for v in spec.get('na_values', NA_VALUES)]
    width = len(header) if header else len(rows[0][1]) if rows else 0
    if isinstance(columns, dict):
        names = set(header or [])
        bad = [c for c in columns if c != '*' and c not in names
               and not (str(c).lstrip('-').isdigit() and -width <= int(c) < width)]
        if bad:
            raise PreprocessError("preprocess: columns %s are not in the data (columns: %s)"
                                  % (", ".join(map(repr, bad)), ", ".join(header or map(str, range(width)))))
    na = set(na_values)
    features = []
    for i in range(width):
        if i == label_index:
            continue
        name = header[i] if header else None
        feature = {'index': i, 'name': name}
        column = _column_name(feature)
        steps = _steps(_per_column(columns, name, i, width, 'none'), column)
        if steps == ['drop']:
            continue
        policy = feature['missing'] = _per_column(missing, name, i, width, 'error')
        _check_missing_policy(policy, column)
        present = [(where, cells[i].strip()) for where, cells in rows if cells[i].strip() not in na]
        if steps and steps[0] in CATEGORICAL:
            feature['encoding'] = steps[0]
            feature['vocabulary'] = sorted({v for _, v in present})
            if policy in FILL_POLICIES:
                feature['fill'] = _mode([v for _, v in present]) if present else ''
            elif policy not in MISSING_POLICIES:
                feature['fill'] = str(policy)
                if feature['fill'] not in feature['vocabulary']:  # a misspelt policy, most likely
                    raise PreprocessError("preprocess: column %s: the fill value %r is not one of its categories "
                                          "(%s) nor a policy (%s)" % (column, policy,
                                                                     ", ".join(feature['vocabulary'][:10]),
                                                                     ", ".join(MISSING_POLICIES)))
        else:
            values = []
            for where, v in present:
                x = _number(v)
                if x is None:
                    raise PreprocessError("%s: column %s: %r is not a number (a category? declare the column "
                                          "'onehot' or 'id' under preprocess.columns)" % (where, column, v))
                values.append(x)
            feature.update(_fit_numeric(steps, values, policy, column, present))
        features.append(feature)
    label = {'index': label_index, 'name': header[label_index] if header and label_index is not None else None}
    if label_index is not None:
        label.update(_fit_labels([(w, c[label_index].strip()) for w, c in rows], labels, na))
    state = {'reader': 'csv', 'key': key, 'header': list(header) if header else None, 'width': width,
             'na_values': na_values, 'features': features, 'label': label}
    state['dim'] = sum(_feature_width(f) for f in features)
    return state


def _fit_numeric(steps, values, policy, column, present):
    out = {'steps': []}
    if policy in FILL_POLICIES:
        if not values:
            raise PreprocessError("preprocess: column %s has no values to take the %s of" % (column, policy))
        fill = {'mean': np.mean, 'median': np.median, 'mode': _mode}[policy](values)
        out['fill'] = float(fill)
    elif policy not in MISSING_POLICIES:
        out['fill'] = _number(policy)
        if out['fill'] is None:
            raise PreprocessError("preprocess: column %s: the fill value %r is not a number" % (column, policy))
    x = np.asarray(values, dtype=np.float64)
    for step in steps:
        if step == 'log':
            if len(x) and x.min() <= -1:
                where = present[int(np.argmin(x))][0]
                raise PreprocessError("%s: column %s: log needs values > -1 (log(1 + x)), got %g"
                                      % (where, column, x.min()))
            x = np.log1p(x)
            out['steps'].append({'op': 'log'})
        elif step == 'zscore':
            mean, std = (float(x.mean()), float(x.std())) if len(x) else (0.0, 1.0)
            out['steps'].append({'op': 'zscore', 'mean': mean, 'std': std if std > 0 else 1.0})
            x = (x - mean) / out['steps'][-1]['std']
        elif step == 'minmax':
            lo, hi = (float(x.min()), float(x.max())) if len(x) else (0.0, 1.0)
            out['steps'].append({'op': 'minmax', 'min': lo, 'range': hi - lo if hi > lo else 1.0})
            x = (x - lo) / out['steps'][-1]['range']
    return out


def _fit_labels(cells, labels, na):
    if labels is not None:
        return {'names': [str(n) for n in labels]}
    found = sorted({v for _, v in cells if v not in na})
    if all(_number(v) is not None and float(v) == int(float(v)) >= 0 for v in found):
        return {'names': None, 'num_classes': max([int(float(v)) for v in found] or [0]) + 1}
    return {'names': found}  # string labels: sorted, so the ids never depend on the row order


def describe_csv(state):
    """One line on what a csv state does, for the training log."""
    kinds = {}
    for f in state['features']:
        kind = f.get('encoding') or '+'.join(s['op'] for s in f['steps']) or 'as is'
        kinds[kind] = kinds.get(kind, 0) + 1
    names = label_names(state)
    return "%d features from %d columns (%s); %s" % (
        state['dim'], len(state['features']), ", ".join("%s %d" % kv for kv in sorted(kinds.items())),
        "classes %s" % ", ".join(names[:10]) + (", ..." if len(names) > 10 else "") if names is not None
        else "%d classes" % num_classes(state))


def _feature_width(feature):
    return len(feature['vocabulary']) if feature.get('encoding') == 'onehot' else 1


def num_classes(state):
    label = state['label']
    return len(label['names']) if label.get('names') is not None else label.get('num_classes', 1)


def label_names(state):
    """The class names in id order, or None (integer labels, or no state)."""
    if not state:
        return None
    return state['label'].get('names') if state['reader'] == 'csv' else state['labels']


class CsvTransform(object):
    """Applies a csv state to rows of cells: features (a float list) and the label id."""

    def __init__(self, state):
        self.state = state
        self.na = set(state['na_values'])
        self.features = state['features']
        names = state['label'].get('names')
        self.label_ids = {n: i for i, n in enumerate(names)} if names is not None else None
        self.vocab = [{v: i for i, v in enumerate(f['vocabulary'])} if 'vocabulary' in f else None
                      for f in self.features]

    def columns_of(self, header, width, where):
        """The cell index of each feature (and of the label, None if absent) in a file with
        `header` (its names, or None) and rows of `width` cells."""
        s = self.state
        if header is not None and s['header'] is not None:
            pos = {n: i for i, n in enumerate(header)}
            missing = [f['name'] for f in self.features if f['name'] not in pos]
            if missing:
                raise PreprocessError("%s: column(s) %s are not in the header (the model reads %s)" % (
                    where, ", ".join(map(repr, missing)), ", ".join(repr(f['name']) for f in self.features)))
            return [pos[f['name']] for f in self.features], pos.get(s['label']['name'])
        if width == s['width']:
            return [f['index'] for f in self.features], s['label']['index']
        feature_cells = [i for i in range(s['width']) if i != s['label']['index']]
        if s['label']['index'] is not None and width == len(feature_cells):  # unlabelled rows
            at = {c: k for k, c in enumerate(feature_cells)}
            return [at[f['index']] for f in self.features], None
        raise PreprocessError("%s: %d columns; the model reads rows of %d (or %d without the label)"
                              % (where, width, s['width'], len(feature_cells)))

    def features_of(self, cells, at, where):
        """The feature vector of one row, or None when the missing-value policy drops it."""
        out = []
        for f, vocab, i in zip(self.features, self.vocab, at):
            raw = cells[i].strip()
            if raw in self.na:
                policy = f['missing']
                if policy == 'drop':
                    return None
                if 'fill' not in f:
                    raise PreprocessError("%s: column %s: missing value %r (set preprocess.missing: "
                                          "drop, mean, median, mode or a constant)"
                                          % (where, _column_name(f), raw))
                raw = f['fill']
            if vocab is not None:
                k = vocab.get(str(raw))
                if f['encoding'] == 'id':
                    out.append(float(len(vocab) if k is None else k))  # unseen: one id past the vocabulary
                else:
                    hot = [0.0] * len(vocab)
                    if k is not None:
                        hot[k] = 1.0  # unseen: all zeros
                    out.extend(hot)
                continue
            x = raw if isinstance(raw, float) else _number(raw)
            if x is None:
                raise PreprocessError("%s: column %s: %r is not a number" % (where, _column_name(f), raw))
            out.append(apply_steps(f['steps'], x))
        return out

    def label_of(self, cell, where):
        raw = cell.strip()
        if raw in self.na:
            raise PreprocessError("%s: the label is missing (%r)" % (where, raw))
        if self.label_ids is not None:
            if raw not in self.label_ids:
                raise PreprocessError("%s: unknown label %r (labels: %s)" % (where, raw, ", ".join(self.label_ids)))
            return self.label_ids[raw]
        x = _number(raw)
        if x is None or x != int(x):
            raise PreprocessError("%s: the label %r is not a class id (an integer)" % (where, raw))
        return int(x)


def _column_name(feature):
    return repr(feature['name']) if feature['name'] is not None else str(feature['index'])


def apply_steps(steps, x):
    for s in steps:
        if s['op'] == 'log':
            x = math.log1p(x)
        elif s['op'] == 'zscore':
            x = (x - s['mean']) / s['std']
        else:
            x = (x - s['min']) / s['range']
    return x


# ---------------------------------------------------------------------------------- text

def fit_text(key, words_of_lines, label_cells, dictionary_words=None, min_count=1, max_size=None,
             oov_token='<unk>', labels=None, lowercase=True):
    """The state of a text reader: its vocabulary (given, or the training words seen min_count
    times, most frequent first, at most max_size of them), the OOV token's id and the labels."""
    if dictionary_words is not None:
        words = list(dictionary_words)
    else:
        counts = {}
        for ws in words_of_lines:
            for w in ws:
                counts[w] = counts.get(w, 0) + 1
        words = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
    if max_size is not None:
        if int(max_size) < 1:
            raise PreprocessError("text reader: max_size must be >= 1, got %r" % (max_size,))
        size = int(max_size)
        words = words[:size] if oov_token in words[:size] else words[:size - 1]  # the OOV token keeps its id
    if oov_token not in words:
        words.append(oov_token)
    if labels is None:  # integer labels as they are; names in sorted order
        found = sorted(set(label_cells))
        labels = (list(range(max(int(x) for x in found) + 1)) if found and all(x.lstrip('-').isdigit()
                                                                                 for x in found) else found)
    return {'reader': 'text', 'key': key, 'vocabulary': words, 'oov': words.index(oov_token),
            'lowercase': bool(lowercase), 'labels': [str(x) for x in labels]}


class TextTransform(object):
    """Applies a text state to the words of a line: their ids, the OOV token's for a word
    outside the vocabulary (and alone for a line without words)."""

    def __init__(self, state):
        self.lowercase, self.oov = state['lowercase'], state['oov']
        self.vocab = {w: i for i, w in enumerate(state['vocabulary'])}

    def ids_of(self, words):
        if self.lowercase:
            words = [w.lower() for w in words]
        return [self.vocab.get(w, self.oov) for w in words] or [self.oov]
