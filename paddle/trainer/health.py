"""Training health (`paddle train --check_health`, on by default): cheap checks on what the
trainer has anyway, each warning at most once per run, in one line with its fix.

  input scale  the first batches of each dense data layer: columns whose typical magnitudes
               differ by more than SCALE_RATIO (raw features such as wine's proline ~750
               beside hue ~1 saturate the first layer)
  saturation   softmax/sigmoid layers' outputs in the first batches of a fresh run: nearly
               every row at 0 or 1 before anything was learned
  gradients    parameter gradient statistics (those --show_parameter_stats_period prints) on
               sampled batches: all zero twice in a row, not finite, or grown STEEP times
               since the first sample while the cost is above the first batch's (gradients
               of deep or recurrent nets may grow that much while the cost falls)
  flat cost    a pass's average cost equal to the previous pass's, or three windows of
               WINDOW batches with the same mean cost

The checks sample: the input check reads the first batches only, the layer outputs and
gradient statistics are read on batches 1, 2, 4, 8, ... (and every 1000th), so a step costs
nothing measurable.
"""
import math
import re

import numpy as np

SCALE_RATIO = 100.0   # column magnitudes further apart than this: normalise them
SATURATED = 1e-4      # an output within this of 0 or 1 is saturated
SATURATED_SHARE = 0.9  # of the rows (softmax) or values (sigmoid)
STEEP = 1e3           # gradient growth that counts as exploding
WINDOW = 50           # batches per window of the flat-cost check
FLAT = 1e-5           # relative change below which a cost has not moved
_INPUT_ROWS = 32      # rows the input check collects (at most _INPUT_BATCHES batches)
_INPUT_BATCHES = 4
_EARLY_BATCHES = 64   # the saturation check looks at the run's first batches only
_STAT = re.compile(r"^(\S+)\s+avg_abs_val=(\S+) max_val=(\S+) avg_abs_grad=(\S+) max_grad=(\S+)$")
OFF = "(--check_health=0 turns these checks off)"


def sampled(batch):
    """Batches 1, 2, 4, 8, ... 512, then every 1000th: where the costlier checks look."""
    return (batch & (batch - 1)) == 0 and batch <= 512 or batch % 1000 == 0


def column_names(provider, slot_name, width):
    """Names of a dense input's columns where a built-in reader knows them (the csv reader's
    header), else None."""
    settings = getattr(getattr(provider, "provider", provider), "settings", None)
    if settings is None or getattr(settings, "feature_slot", None) != slot_name:
        return None
    features = (getattr(settings, "fitted", None) or {}).get("features") or []
    names = [f.get("name") for f in features]
    if len(names) != width or not all(isinstance(n, str) for n in names):
        return None  # widened columns (one-hot) or no header: numbers instead
    return names


def scale_problem(values, names=None):
    """(ratio, large columns, small columns) when the typical magnitudes of the columns of
    `values` (rows x columns) differ by more than SCALE_RATIO, else None. A column's typical
    magnitude is the median of its non-zero |x|; columns zero in half the rows or more
    (pixels at the border, one-hot or count features) are left out, as their scale says
    little."""
    a = np.abs(np.asarray(values, dtype=np.float64))
    if a.ndim != 2 or a.shape[0] < 8 or a.shape[1] < 2:
        return None
    dense = (a > 0).mean(axis=0) > 0.5
    if dense.sum() < 2:
        return None
    cols = np.flatnonzero(dense)
    with np.errstate(invalid="ignore"):
        typical = np.nanmedian(np.where(a[:, cols] > 0, a[:, cols], np.nan), axis=0)
    ok = np.isfinite(typical)
    cols, typical = cols[ok], typical[ok]
    if len(cols) < 2 or typical.min() <= 0:
        return None
    ratio = typical.max() / typical.min()
    if ratio <= SCALE_RATIO:
        return None
    order = np.argsort(typical)

    def named(i):
        return "%s ~%.3g" % (names[cols[i]] if names else "column %d" % cols[i], typical[i])
    return ratio, [named(i) for i in order[::-1][:2]], [named(i) for i in order[:2]]


def saturated_share(values, kind):
    """The share of a softmax layer's rows with one probability at 1, or of a sigmoid
    layer's values at 0 or 1."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return 0.0
    if kind == "softmax":
        return float((v.max(axis=1) > 1 - SATURATED).mean())
    return float(((v < SATURATED) | (v > 1 - SATURATED)).mean())


def parse_stats(lines):
    """{parameter: (avg_abs_val, max_val, avg_abs_grad, max_grad)} of Trainer.getParameterStats()."""
    out = {}
    for line in lines:
        m = _STAT.match(line.strip())
        if m:
            out[m.group(1)] = tuple(float(x) for x in m.groups()[1:])
    return out


class Health(object):
    """The checks of one training run. `say(message)` prints a warning (the monitor ends a
    line of progress dots first). `fresh`: the run starts from random parameters (not
    --init_model_path or --start_pass), so confident outputs mean saturation."""

    def __init__(self, model_config, trainer, say, fresh=True):
        self.trainer, self.say, self.fresh = trainer, say, fresh
        self.inputs = list(model_config.input_layer_names)
        self.watched = [(l.name, l.active_type) for l in model_config.layers  # (a 1-wide softmax is always 1)
                        if (l.active_type == "sigmoid" or l.active_type == "softmax" and l.size > 1)
                        and "@" not in l.name]
        self.trainable = {p.name for p in model_config.parameters if not p.is_static}
        self.warned = set()
        self.batches = 0
        self._rows = {}        # data layer -> collected rows of the input check
        self._input_batches = 0
        self._first_grad = {}  # parameter -> the first non-zero avg_abs_grad seen
        self._zero_before = False
        self._pass_cost = None
        self._window, self._window_means = [], []
        self._last_cost = None
        self._first_cost = self._cost = None  # the run's first batch cost, the latest one

    def _warn(self, kind, text):
        if kind not in self.warned:
            self.warned.add(kind)
            self.say("Training health: %s %s" % (text, OFF))

    def wants_stats(self):
        """Whether the next batch should record its parameter statistics."""
        return sampled(self.batches + 1)

    # ---------------------------------------------------------------- per batch
    def batch_done(self, batch, provider, stats_lines=None):
        """After a training batch: `batch` the provider's Batch, `stats_lines` the parameter
        statistics when this batch recorded them."""
        self.batches += 1
        if self._input_batches < _INPUT_BATCHES:
            self._collect_inputs(batch, provider)
        # (after the input check: badly scaled inputs are the likelier cause, to be named first)
        if self.fresh and self._input_batches >= _INPUT_BATCHES and self.batches <= _EARLY_BATCHES \
                and sampled(self.batches):
            self._check_saturation()
        self._track_cost()
        if stats_lines is not None:
            self._check_gradients(parse_stats(stats_lines))

    def _collect_inputs(self, batch, provider):
        self._input_batches += 1
        enough = True
        for name, slot in zip(self.inputs, batch.slots):
            value = getattr(slot, "value", None)
            if not isinstance(value, np.ndarray) or value.ndim != 2 or getattr(slot, "ids", None) is not None:
                continue
            rows = self._rows.setdefault(name, [])
            rows.append(value)
            enough = enough and sum(len(r) for r in rows) >= _INPUT_ROWS
        if not (enough or self._input_batches == _INPUT_BATCHES):
            return
        self._input_batches = _INPUT_BATCHES  # checked once
        for name, rows in sorted(self._rows.items()):
            values = np.concatenate(rows)
            found = scale_problem(values, column_names(provider, name, values.shape[1]))
            if found:
                ratio, large, small = found
                self._warn("scale", "the columns of input '%s' are %.0fx apart in scale (%s vs %s); normalise them: "
                           "args={'preprocess': {'columns': 'zscore'}} with a built-in reader "
                           "(docs/readers.md), (x - mean) / std in your own provider"
                           % (name, ratio, ", ".join(large), ", ".join(small)))
                break
        self._rows = {}

    def _check_saturation(self):
        for name, kind in self.watched:
            try:
                value = self.trainer.getLayerOutput(name).getSlotValue(0)
            except Exception:  # a layer the engine keeps no output of (inside a group)
                continue
            if value is None:
                continue
            share = saturated_share(value.copyToNumpyMat(), kind)
            if share >= SATURATED_SHARE:
                self._warn("saturation", "%.0f%% of the %s outputs of layer '%s' are saturated (%s) at batch %d "
                           "of a fresh model, so their gradients vanish; normalise the inputs, or lower the "
                           "learning rate or the initial weights (param_attr=ParamAttr(initial_std=...))"
                           % (100 * share, kind, name, "a probability at 1" if kind == "softmax" else "at 0 or 1",
                              self.batches))
                return

    def _check_gradients(self, stats):
        grads = {n: s[2:] for n, s in stats.items() if n in self.trainable}
        if not grads:
            return
        bad = [n for n, (avg, peak) in grads.items() if not (math.isfinite(avg) and math.isfinite(peak))]
        if bad:
            self._warn("gradients", "the gradients of %s are not finite at batch %d; lower the learning rate, "
                       "clip them (settings(gradient_clipping_threshold=...)) or normalise the inputs"
                       % (", ".join(sorted(bad)[:3]), self.batches))
            return
        zero = all(peak == 0 for _, peak in grads.values())
        if zero and self._zero_before:
            self._warn("gradients", "every gradient has been zero on the batches sampled up to batch %d, so "
                       "nothing learns (saturated outputs, dead relu units, or a cost that clips); normalise the "
                       "inputs or lower the learning rate" % self.batches)
        self._zero_before = zero
        for n, (avg, _) in grads.items():
            first = self._first_grad.get(n)
            if not first:
                if avg > 0:
                    self._first_grad[n] = avg
            elif avg > STEEP * first and self._first_cost is not None and self._cost > self._first_cost:
                self._warn("gradients", "the gradients of '%s' grew %.0fx since the first batches (mean |g| %.3g -> "
                           "%.3g at batch %d): they are exploding; lower the learning rate or clip them "
                           "(settings(gradient_clipping_threshold=...))" % (n, avg / first, first, avg, self.batches))
                return

    # ---------------------------------------------------------------- the cost
    def _track_cost(self):
        """Feeds the batch's own cost (the pass totals' growth) to windows of WINDOW batches."""
        total, samples = self.trainer.getPassCost(), self.trainer.getPassSamples()
        before_total, before_samples = self._last_cost or (0.0, 0)
        if samples < before_samples:  # a new pass: its totals restarted
            before_total, before_samples = 0.0, 0
        self._last_cost = (total, samples)
        if samples == before_samples:
            return
        self._cost = (total - before_total) / (samples - before_samples)
        if self._first_cost is None:
            self._first_cost = self._cost
        self._window.append(self._cost)
        if len(self._window) < WINDOW:
            return
        self._window_means.append(float(np.mean(self._window)))
        self._window = []
        last = self._window_means[-3:]
        if len(last) == 3 and _flat(last[0], last[1]) and _flat(last[1], last[2]):
            self._flat_cost(3 * WINDOW, last[-1])

    def pass_done(self, avg_cost, batches):
        """After a pass: its average cost."""
        if self._pass_cost is not None and batches and _flat(self._pass_cost, avg_cost):
            self._flat_cost(batches * 2, avg_cost)
        self._pass_cost = avg_cost

    def _flat_cost(self, batches, cost):
        self._warn("flat", "the cost has not moved for %d batches (%g): the model is not learning; see the other "
                   "health warnings, raise the learning rate, or normalise the inputs" % (batches, cost))


def _flat(a, b):
    """a and b are equal to FLAT (and not both zero: a cost of 0 has nothing left to learn)."""
    scale = max(abs(a), abs(b))
    return scale > 0 and abs(a - b) <= FLAT * scale
