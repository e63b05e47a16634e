"""What `paddle train` reports while it runs: the start-up summary, v1's log lines or a
progress bar (--progress), the metrics file (--metrics_file, JSON lines) and TensorBoard
events (--tensorboard_dir).

Every report starts as one record (a dict) built from the trainer's statistics, so the
log line, the metrics file and TensorBoard always show the same numbers:

    event   "batch" (every --log_period batches), "pass" (end of a pass) or "test"
    pass, batch, samples, time (seconds since the run started), lr, AvgCost,
    eval {evaluator field: value}; "batch" adds CurrentCost and current_eval, "pass"
    adds pass_time and samples_per_sec; "test" records of `--job=test` name their model.

The evaluator numbers are the engine's typed fields (see Evals); no engine text is parsed.
"""
import collections
import contextlib
import json
import logging
import os
import shutil
import sys
import time

# `paddle plot` reads metrics files and logs back with plotcurve, which checks them (regular
# files only, FILE:LINE errors for malformed records).
from paddle.utils.plotcurve import plot, read_metrics  # noqa: F401

LOG = logging.getLogger("paddle")
PROGRESS_MODES = ("auto", "bar", "log")


class Evals(collections.namedtuple("Evals", "text fields")):
    """What the evaluators report at one moment: `text`, the engine's "name=value ..." for the
    log line (written from the fields), and `fields`, the same numbers as data:
    [(name, value, higher_is_better)]. Records, TensorBoard and --keep_best read the fields."""

    @classmethod
    def of_pass(cls, trainer):
        return cls(trainer.getPassEval(), trainer.getPassEvalFields())

    @classmethod
    def of_period(cls, trainer):
        return cls(trainer.getPeriodEval(), trainer.getPeriodEvalFields())

    @classmethod
    def of_test(cls, trainer):
        return cls(trainer.getTestEval(), trainer.getTestEvalFields())

    def values(self):
        """{field name: value}; a name two evaluators both report keeps the later one's value
        (the log line shows both)."""
        return {name: value for name, value, _ in self.fields}

    def log_text(self, label):
        """" Eval: name=value ..." for the log line, nothing when there are no evaluators."""
        text = self.text.strip()
        return " %s %s" % (label, text) if text else ""


# ---------------------------------------------------------------- start-up summary
def summary_lines(config, train_data, test_data):
    """The network (every layer's type and output size), its parameter count and the data."""
    model = config.model_config
    weights = sum(int(p.size) for p in model.parameters)
    lines = ["Network: %d layers, %d parameters (%s weights), batch_size=%d" % (
        len(model.layers), len(model.parameters), format(weights, ","), config.opt_config.batch_size)]
    width = max([len(l.name) for l in model.layers] + [5])
    type_width = max([len(l.type) for l in model.layers] + [4])
    lines.append("  %-*s  %-*s %8s" % (width, "layer", type_width, "type", "size"))
    for layer in model.layers:
        lines.append("  %-*s  %-*s %8d" % (width, layer.name, type_width, layer.type, layer.size))
    for kind, data in (("train", train_data), ("test", test_data)):
        data = getattr(data, "provider", data)  # under mpiexec: a rank's share of the provider
        if data is not None and hasattr(data, "file_list"):  # (ranks other than 0 test on no data)
            files = len(data.file_list)
            samples = data.expected_samples() if hasattr(data, "expected_samples") else None
            samples = samples or None  # 0: a count the provider set for its own purposes, not a pass
            lines.append("%s data: %s (%d file%s%s)" % (
                kind.capitalize(), data.file_list_path, files, "" if files == 1 else "s",
                "" if samples is None else ", %s samples" % format(samples, ",")))
    return lines


# ---------------------------------------------------------------- writers
class MetricsFile(object):
    """--metrics_file: one JSON object per line, appended (a resumed run continues the file)."""

    def __init__(self, path):
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        self.f = open(path, "a")

    def write(self, record):
        self.f.write(json.dumps(record, sort_keys=True) + "\n")
        self.f.flush()  # readable while training runs

    def close(self):
        self.f.close()


class TensorBoardWriter(object):
    """--tensorboard_dir: scalars under train/ (log periods, step = batches trained in this
    run), pass/ (pass ends, step = pass) and test/ (end-of-pass tests at the pass, tests
    within a pass under test_period/ at the batch step)."""

    def __init__(self, folder):
        try:
            from tensorboardX import SummaryWriter
        except ImportError:
            raise RuntimeError("--tensorboard_dir needs the tensorboardX package: pip install tensorboardX")
        self.writer = SummaryWriter(folder)

    def write(self, record, step, prefix):
        for key in ("AvgCost", "CurrentCost", "lr", "samples_per_sec", "pass_time"):
            if key in record:
                self.writer.add_scalar("%s/%s" % (prefix, key), record[key], step)
        for key, value in record.get("eval", {}).items():
            self.writer.add_scalar("%s/%s" % (prefix, key), value, step)
        self.writer.flush()

    def close(self):
        self.writer.close()


class _EndDots(logging.Filter):
    """A handler filter that ends the monitor's line of progress dots before a log line."""

    def __init__(self, monitor):
        super(_EndDots, self).__init__()
        self.monitor = monitor

    def filter(self, record):
        self.monitor.break_line()
        return True


class _Bar(object):
    """A tqdm bar over the samples of one pass, with rate and, once the pass size is known
    or estimated, ETA; log lines are printed above it."""

    def __init__(self, pass_id, total):
        from tqdm import tqdm
        try:
            width = os.get_terminal_size(sys.stderr.fileno()).columns
        except (OSError, ValueError):
            width = 0
        # a terminal that reports no size (some ptys, CI) gets $COLUMNS x $LINES or 80x24
        fixed = shutil.get_terminal_size()
        size = {"dynamic_ncols": True} if width else {"ncols": fixed.columns, "nrows": fixed.lines}
        self.bar = tqdm(total=total, desc="Pass %d" % pass_id, unit="sample", file=sys.stderr,
                        leave=False, smoothing=0.1, **size)

    def update(self, samples, cost, total=None):
        if total and total != self.bar.total:
            self.bar.total = max(total, self.bar.n + samples)  # an estimate never ends the bar early
        self.bar.update(samples)
        self.bar.set_postfix_str("AvgCost=%.4g" % cost, refresh=False)

    def close(self):
        self.bar.close()


# ---------------------------------------------------------------- the monitor
class Monitor(object):
    """The reports of one run. `progress` is "bar" (tqdm on stderr) or "log" (v1's dots);
    "auto" picks the bar when stderr is a terminal."""

    def __init__(self, progress="auto", metrics_file="", tensorboard_dir="", dot_period=1, log_period=100):
        if progress not in PROGRESS_MODES:
            raise ValueError("--progress must be one of %s" % "|".join(PROGRESS_MODES))
        if progress == "auto":
            progress = "bar" if sys.stderr.isatty() else "log"
        if progress == "bar":
            try:
                import tqdm  # noqa: F401
            except ImportError:
                LOG.warning("--progress=bar needs the tqdm package (pip install tqdm): logging instead")
                progress = "log"
        self.progress = progress
        self.dot_period, self.log_period = dot_period, log_period
        self.metrics = MetricsFile(metrics_file) if metrics_file else None
        self.board = TensorBoardWriter(tensorboard_dir) if tensorboard_dir else None
        self.started = time.time()
        self.batches_run = 0        # batches trained in this run (TensorBoard's step)
        self.pass_samples = None    # samples per pass, once a pass has shown it
        self._estimate = None       # else a callable giving the data's estimate (or None)
        self._bar = None
        self._pass_started = None
        self._dots = False          # progress dots on the current line (log mode)

    @contextlib.contextmanager
    def logging_around_bar(self):
        """Routes the log through tqdm while a bar may be on screen, so lines print above it;
        in log mode, ends a line of progress dots before any log line."""
        if self.progress != "bar":
            handlers = {h for name in ("paddle", "paddle.data_provider") for h in logging.getLogger(name).handlers}
            dots = _EndDots(self)
            for h in handlers:
                h.addFilter(dots)
            try:
                yield
            finally:
                for h in handlers:
                    h.removeFilter(dots)
            return
        from tqdm.contrib.logging import logging_redirect_tqdm
        with logging_redirect_tqdm(loggers=[LOG, logging.getLogger("paddle.data_provider")]):
            yield

    def _emit(self, record, step, prefix):
        if self.metrics is not None:
            self.metrics.write(record)
        if self.board is not None:
            self.board.write(record, step, prefix)

    def _base(self, event, pass_id, batch_id, samples, cost):
        return {"event": event, "pass": pass_id, "batch": batch_id, "samples": samples,
                "time": round(time.time() - self.started, 3), "AvgCost": cost / max(samples, 1)}

    # -- training
    def start_pass(self, pass_id, estimate=None):
        """`estimate`: a callable giving the samples the pass will read (None if unknown), for
        the bar's total and ETA before a pass has ended (e.g. DataProvider.expected_samples)."""
        self._pass_started = time.time()
        self._estimate = estimate
        if self.progress == "bar":
            self._bar = _Bar(pass_id, self._expected())

    def _expected(self):
        if self.pass_samples:
            return self.pass_samples
        return (self._estimate() or None) if self._estimate is not None else None

    def break_line(self):
        """Ends a line of progress dots, so what is printed next starts a line of its own."""
        if self._dots:
            self._dots = False
            sys.stderr.write("\n")
            sys.stderr.flush()

    def batch_done(self, trainer, batch_id, batch_size):
        self.batches_run += 1
        if self._bar is not None:
            n = trainer.getPassSamples()
            self._bar.update(batch_size, trainer.getPassCost() / max(n, 1), self._expected())
        elif self.dot_period > 0 and batch_id % self.dot_period == 0:
            sys.stderr.write(".")
            sys.stderr.flush()
            self._dots = True

    def log_period_done(self, trainer, pass_id, batch_id):
        """v1's `Batch=` line every --log_period batches; then the period statistics restart."""
        self.break_line()
        n, pn = trainer.getPassSamples(), trainer.getPeriodSamples()
        evals, current = Evals.of_pass(trainer), Evals.of_period(trainer)
        record = self._base("batch", pass_id, batch_id, n, trainer.getPassCost())
        record.update(CurrentCost=trainer.getPeriodCost() / max(pn, 1), lr=trainer.getLearningRate(),
                      eval=evals.values(), current_eval=current.values())
        LOG.info(" Batch=%d samples=%d AvgCost=%g CurrentCost=%g%s%s", batch_id, n, record["AvgCost"],
                 record["CurrentCost"], evals.log_text("Eval:"), current.log_text("CurrentEval:"))
        self._emit(record, self.batches_run, "train")

    def end_pass(self, trainer, pass_id, batch_id):
        """v1's `Pass=` line plus time, samples/s and learning rate at its end; returns the record."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        self.break_line()
        n = trainer.getPassSamples()
        elapsed = time.time() - self._pass_started
        self.pass_samples = n
        evals = Evals.of_pass(trainer)
        record = self._base("pass", pass_id, batch_id, n, trainer.getPassCost())
        record.update(eval=evals.values(), lr=trainer.getLearningRate(),
                      pass_time=round(elapsed, 6), samples_per_sec=round(n / max(elapsed, 1e-9), 1))
        LOG.info(" Pass=%d Batch=%d samples=%d AvgCost=%g%s time=%.2fs samples_per_sec=%.0f lr=%g",
                 pass_id, batch_id, n, record["AvgCost"], evals.log_text("Eval:"), elapsed,
                 record["samples_per_sec"], record["lr"])
        self._emit(record, pass_id, "pass")
        return record

    def test_done(self, pass_id, batch_id, samples, cost, evals, at_pass_end):
        """v1's `Test samples=` line of a test during training (`evals`: its Evals); returns the record."""
        self.break_line()
        LOG.info(" Test samples=%d cost=%g%s", samples, cost / max(samples, 1), evals.log_text("Eval:"))
        record = self._base("test", pass_id, batch_id, samples, cost)
        record["eval"] = evals.values()
        if at_pass_end:
            self._emit(record, pass_id, "test")
        else:
            self._emit(record, self.batches_run, "test_period")
        return record

    def model_tested(self, model, samples, cost, evals):
        """--job=test: v1's `Pass=` line of one evaluated model (`evals`: its Evals)."""
        LOG.info(" Pass=%s samples=%d AvgCost=%g%s", model, samples, cost / max(samples, 1), evals.log_text("Eval:"))
        record = self._base("test", model, None, samples, cost)
        record["eval"] = evals.values()
        self._emit(record, model if isinstance(model, int) else 0, "test")
        return record

    def close(self):
        if self._bar is not None:
            self._bar.close()
        for writer in (self.metrics, self.board):
            if writer is not None:
                writer.close()
