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
import os
import re
import sys

__all__ = ['plot_paddle_curve', 'read_paddle_log', 'draw_curves', 'main']

NUMBER = r'([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)'
_PASS = re.compile(r'\bPass=(\d+)\b')
_TEST = re.compile(r'\bTest samples=\d+')


def _value(line, key):
    m = re.search(r'(?:^|\s)%s=%s' % (re.escape(key), NUMBER), line)
    return float(m.group(1)) if m else None


def read_paddle_log(lines, keys):
    """{'pass': [ids], 'train': {key: [values]}, 'test': {key: [values or None]}} of the
    log's per-pass lines (batch lines are skipped) and the test lines after them."""
    passes, train, test = [], {k: [] for k in keys}, {k: [] for k in keys}
    for line in lines:
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
        passes.append(int(m.group(1)))
        for k, v in zip(keys, values):
            train[k].append(v)
            test[k].append(None)
    return {'pass': passes, 'train': train, 'test': test}


def plot_paddle_curve(keys, inputfile, outputfile, format='png', show_fig=False):
    """Plots KEYs (default AvgCost) of the log read from `inputfile` (a file object or
    a path) into `outputfile` (a binary file object or a path) in `format`."""
    keys = list(keys) or ['AvgCost']
    if isinstance(inputfile, str):
        with open(inputfile) as f:
            log = read_paddle_log(f, keys)
    else:
        log = read_paddle_log(inputfile, keys)
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
    fig, ax = pyplot.subplots(figsize=(7, 4.5))
    for i, k in enumerate(keys):
        color = 'C%d' % (i % 10)
        for kind, style, marker, label in (('train', '-', 'o', k), ('test', '--', 's', 'Test ' + k)):
            pts = [(p, v) for p, v in zip(log['pass'], log[kind][k]) if v is not None]
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
    inputfile = open(args.input) if args.input else sys.stdin
    try:
        if args.output:
            with open(args.output, 'wb') as out:
                ok = plot_paddle_curve(args.key, inputfile, out, fmt)
        else:
            ok = plot_paddle_curve(args.key, inputfile, sys.stdout.buffer, fmt)
    finally:
        if args.input:
            inputfile.close()
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
