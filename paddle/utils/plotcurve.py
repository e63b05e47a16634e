"""Learning curves from a `paddle train` log (v1's paddle.utils.plotcurve).

    python -m paddle.utils.plotcurve -i train.log -o curve.png [KEY ...]
    python -m paddle.utils.plotcurve < train.log > curve.png

KEYs name values of the per-pass log lines ("Pass=N ... AvgCost=X Eval: NAME=Y ..."),
AvgCost when none is given; each is drawn against the pass number, with its value from
the "Test samples=... cost=X Eval: NAME=Y" line that follows the pass where there is one
(a test line's cost stands for AvgCost; --test_period's tests within a pass are
left out). Needs matplotlib.
"""
import argparse
import json
import math
import os
import re
import stat
import sys

from paddle.utils.output_files import open_output

__all__ = ['PlotError', 'plot', 'plot_paddle_curve', 'read_paddle_log', 'read_metrics', 'draw_curves', 'main']

NUMBER = r'([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)'
_PASS = re.compile(r'\bPass=(\d+)\b')
_TEST = re.compile(r'\bTest samples=\d+')
_MAX_PASS = 2 ** 53  # pass numbers are drawn as floats: larger ones are not a real log


class PlotError(ValueError):
    """A log or metrics file that cannot be drawn; the message names the file (and line)."""


def _value(line, key):
    m = re.search(r'(?:^|\s)%s=%s' % (re.escape(key), NUMBER), line)
    return float(m.group(1)) if m else None


def _where(name, lineno):
    return '%s:%d' % (name, lineno) if name else 'line %d' % lineno


def read_paddle_log(lines, keys, name=None):
    """{'pass': [ids], 'train': {key: [values]}, 'test': {key: [values or None]}} of the
    log's per-pass lines (batch lines are skipped) and the test lines after them."""
    passes, train, test = [], {k: [] for k in keys}, {k: [] for k in keys}
    for lineno, line in enumerate(lines, 1):
        if _TEST.search(line) and passes:
            # The trainer tests right after logging a pass; later test lines before the
            # next Pass= line are --test_period tests in the middle of the next pass.
            for k in keys:
                v = _value(line, 'cost' if k == 'AvgCost' else k)
                if v is not None and test[k][-1] is None:
                    test[k][-1] = v
            continue
        m = _PASS.search(line)
        if not m or 'CurrentCost=' in line:
            continue
        values = [_value(line, k) for k in keys]
        if all(v is None for v in values):
            continue
        if int(m.group(1)) >= _MAX_PASS:
            raise PlotError('%s: pass number %s is too large for a log of paddle train'
                            % (_where(name, lineno), m.group(1)[:30]))
        passes.append(int(m.group(1)))
        for k, v in zip(keys, values):
            train[k].append(v)
            test[k].append(None)
    return {'pass': passes, 'train': train, 'test': test}


def _metric(record, key, where):
    value = record.get('AvgCost' if key == 'cost' else key)
    if value is None:  # an evaluator's value
        evals = record.get('eval', {})
        if not isinstance(evals, dict):
            raise PlotError('%s: "eval" is %s, expected an object of name: value' % (where, type(evals).__name__))
        value = evals.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PlotError('%s: %s is %r, expected a number' % (where, key, value))
    return float(value)


def read_metrics(lines, keys, name=None):
    """A --metrics_file (JSON lines) in read_paddle_log's shape: per pass record the KEYs,
    and on the test side the end-of-pass test that follows it."""
    passes, train, test = [], {k: [] for k in keys}, {k: [] for k in keys}
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = _where(name, lineno)
        try:
            record = json.loads(line)
        except ValueError as e:
            raise PlotError('%s: not a JSON line of a metrics file (%s)' % (where, e))
        if not isinstance(record, dict):
            raise PlotError('%s: expected a JSON object, got %s' % (where, type(record).__name__))
        event, pass_id = record.get('event'), record.get('pass')
        if event not in ('pass', 'test') or (event == 'test' and pass_id is None):
            continue
        if isinstance(pass_id, bool) or not isinstance(pass_id, int) or not 0 <= pass_id < _MAX_PASS:
            raise PlotError('%s: a "%s" record needs "pass": a pass number, got %.40r' % (where, event, pass_id))
        if event == 'pass':
            passes.append(pass_id)
            for k in keys:
                train[k].append(_metric(record, k, where))
                test[k].append(None)
        elif passes and pass_id == passes[-1]:
            # a test of the pass just logged (tests within the next pass carry its number)
            for k in keys:
                test[k][-1] = _metric(record, k, where)
    return {'pass': passes, 'train': train, 'test': test}


def _read_lines(source):
    """The lines of `source` (a path; '-' is standard input): regular files only, so a
    FIFO or a device is an error rather than a hang."""
    if source == '-':
        return sys.stdin.readlines()
    try:
        st = os.stat(source)
    except OSError as e:
        raise PlotError('cannot read %s: %s' % (source, e.strerror))
    if not stat.S_ISREG(st.st_mode):
        raise PlotError('%s is not a regular file' % source)
    try:
        with open(source, encoding='utf-8') as f:
            return f.readlines()
    except UnicodeDecodeError as e:
        raise PlotError('%s is not a text log or metrics file (%s)' % (source, e.reason))
    except OSError as e:
        raise PlotError('cannot read %s: %s' % (source, e.strerror))


def plot(source, output, keys=()):
    """`paddle plot`: learning curves of a metrics file or a log of paddle train (a path)
    into a picture; False when there is nothing to draw. PlotError for a bad file."""
    keys = list(keys) or ['AvgCost']
    lines = _read_lines(source)
    is_metrics = next((l.lstrip().startswith('{') for l in lines if l.strip()), False)
    read = read_metrics if is_metrics else read_paddle_log
    log = read(lines, keys, source)
    fmt = os.path.splitext(output)[1][1:] or 'png'
    return draw_curves(log, keys, output, fmt)


def plot_paddle_curve(keys, inputfile, outputfile, format='png', show_fig=False):
    """Plots KEYs (default AvgCost) of the log read from `inputfile` (a file object or
    a path) into `outputfile` (a binary file object or a path) in `format`."""
    keys = list(keys) or ['AvgCost']
    if isinstance(inputfile, str):
        log = read_paddle_log(_read_lines(inputfile), keys, inputfile)
    else:
        log = read_paddle_log(inputfile, keys, getattr(inputfile, 'name', None))
    return draw_curves(log, keys, outputfile, format, show_fig)


def draw_curves(log, keys, outputfile, format='png', show_fig=False):
    """Draws `log` (as read_paddle_log returns it) into `outputfile`; False when it has no pass."""
    try:
        import matplotlib
        if not show_fig:
            matplotlib.use('Agg')  # no display needed
        import matplotlib.pyplot as pyplot
        import matplotlib.ticker
    except ImportError:
        raise ImportError('plotcurve needs matplotlib: pip install matplotlib')
    if not log['pass']:
        sys.stderr.write('plotcurve: no "Pass=" lines with %s in the log\n' % ', '.join(keys))
        return False
    missing = [k for k in keys if all(v is None for v in log['train'][k] + log['test'][k])]
    if missing:
        sys.stderr.write('plotcurve: no values of %s in the log\n' % ', '.join(missing))
        return False
    for k in keys:
        for kind in ('train', 'test'):
            bad = [p for p, v in zip(log['pass'], log[kind][k]) if v is not None and not math.isfinite(v)]
            if bad:
                sys.stderr.write('plotcurve: %s%s is not finite in pass %s: left out\n'
                                 % ('Test ' if kind == 'test' else '', k, ', '.join(map(str, bad[:10]))))
    if not any(v is not None and math.isfinite(v) for k in keys for v in log['train'][k] + log['test'][k]):
        sys.stderr.write('plotcurve: no finite values of %s in the log\n' % ', '.join(keys))
        return False
    fig, ax = pyplot.subplots(figsize=(7, 4.5))
    for i, k in enumerate(keys):
        color = 'C%d' % (i % 10)
        for kind, style, marker, label in (('train', '-', 'o', k), ('test', '--', 's', 'Test ' + k)):
            pts = [(p, v) for p, v in zip(log['pass'], log[kind][k]) if v is not None and math.isfinite(v)]
            if pts:
                ax.plot(*zip(*pts), color=color, linestyle=style, marker=marker, markersize=3, label=label)
    ax.set_xlabel('pass')
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.grid(True, alpha=0.3)
    ax.legend(loc='best')
    fig.tight_layout()
    if show_fig:
        pyplot.show()
    fig.savefig(outputfile, format=format)
    pyplot.close(fig)
    return True


def main(argv=None):
    p = argparse.ArgumentParser(prog='python -m paddle.utils.plotcurve',
                                description='Plot training and test curves from a paddle log.')
    p.add_argument('key', nargs='*', help='values to plot (default: AvgCost)')
    p.add_argument('-i', '--input', help='the log file (default: standard input)')
    p.add_argument('-o', '--output', help='the figure file (default: standard output)')
    p.add_argument('--format', help='figure format: png, pdf, ps, eps or svg (default: from -o, else png)')
    args = p.parse_args(argv)
    fmt = args.format or (os.path.splitext(args.output)[1][1:] if args.output else '') or 'png'
    keys, source = args.key or ['AvgCost'], args.input or '-'
    try:
        log = read_paddle_log(_read_lines(source), keys, source)
        if args.output:
            with open_output(args.output, 'wb') as out:
                ok = draw_curves(log, keys, out, fmt)
        else:
            ok = draw_curves(log, keys, sys.stdout.buffer, fmt)
    except (PlotError, OSError) as e:
        sys.stderr.write('plotcurve: %s\n' % e)
        return 2
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
