"""The saved passes of `paddle train`: writing `save_dir/pass-%05d/` atomically, loading
parameters, and which passes to keep (--keep_last, --save_only_one, --keep_best) and when
to stop (--early_stop_patience).

A kill at any instant leaves every complete pass in place: a pass is written under a
temporary name, synced, and renamed in (or, when it exists already, swapped in with one
atomic exchange); `tidy()` at the next start removes what dead runs left behind."""
import ctypes
import errno
import hashlib
import json
import logging
import os
import re
import shutil

from paddle.trainer import preprocessing

LOG = logging.getLogger("paddle")
OPTIMIZER_DIR = "optimizer"  # inside pass-%05d: optimizer state for exact --start_pass resumption
BEST_LINK = "best"           # save_dir/best -> pass-%05d, the best pass so far (--keep_best)
METRICS_FILE = "metrics.json"  # inside pass-%05d: the pass's training and test results
_PASS_NAME = re.compile(r"^pass-(\d{5,})$")
# What an interrupted save, removal or --keep_best link leaves: NAME.tmp-PID, .old-PID, .removing-PID
_LEFTOVER = re.compile(r"^(pass-\d{5,}|%s)\.(tmp|old|removing)-(\d+)$" % BEST_LINK)


class UsageError(Exception):
    """A mistake on the command line or in the save directory: printed as one line."""


def config_fingerprint(model_config):
    """sha256 of the serialized ModelConfig: equal for the same network and parameters
    whatever the config file is called, different when a layer or parameter differs."""
    return hashlib.sha256(model_config.SerializeToString(deterministic=True)).hexdigest()


def pass_origin(path):
    """(the config file the pass at `path` was trained with, its fingerprint): from
    metrics.json's "config", else path.txt (v1 passes, passes of older runs: no fingerprint);
    (None, None) when the directory says nothing."""
    try:
        with open(os.path.join(path, METRICS_FILE)) as f:
            origin = json.load(f).get("config") or {}
        if origin.get("file"):
            return origin["file"], origin.get("fingerprint")
    except (OSError, ValueError, AttributeError):
        pass
    try:
        with open(os.path.join(path, "path.txt")) as f:
            return f.read().strip() or None, None
    except OSError:
        return None, None


def pass_dir(save_dir, pass_id):
    return os.path.join(save_dir, "pass-%05d" % pass_id)


def saved_passes(save_dir):
    """Pass numbers of the complete passes (with their `done` file), ascending."""
    return sorted(_complete_passes(save_dir))


def saved_pass_path(save_dir, pass_id):
    """The directory holding complete pass `pass_id`, or None."""
    return _complete_passes(save_dir).get(pass_id)


def _complete_passes(save_dir):
    """{pass number: directory}: pass-%05d with its `done` file, or where a run died between
    the two renames of re-saving it (file systems that cannot swap atomically) the complete
    copy it left, the newer (.tmp-PID) first, until tidy() renames it back."""
    if not os.path.isdir(save_dir):
        return {}
    found = {}
    for name in os.listdir(save_dir):
        path = os.path.join(save_dir, name)
        if os.path.islink(path) or not os.path.exists(os.path.join(path, "done")):
            continue
        m, left = _PASS_NAME.match(name), _dead_leftover(name)
        if m:
            rank, number = 0, int(m.group(1))
        elif left and left.group(2) in ("tmp", "old") and left.group(1) != BEST_LINK:
            rank, number = (1 if left.group(2) == "tmp" else 2), int(left.group(1)[5:])
        else:
            continue
        if number not in found or rank < found[number][0]:
            found[number] = (rank, path)
    return {number: path for number, (_, path) in found.items()}


def _dead_leftover(name):
    """The match of a leftover name (NAME.KIND-PID) whose process no longer runs, else None.
    Our own pid counts as dead: readers and tidy() run before this process saves (and in a
    container every run may be pid 1)."""
    m = _LEFTOVER.match(name)
    if m and (int(m.group(3)) == os.getpid() or not _process_alive(int(m.group(3)))):
        return m
    return None


def _process_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def tidy(save_dir):
    """Cleans up after runs that died while saving: a pass that an interrupted two-step
    swap left only as a complete leftover is renamed back into place, then the leftovers of
    processes that no longer run are removed (those of live ones, e.g. another run saving
    into the same directory, are left alone)."""
    if not os.path.isdir(save_dir):
        return
    dead = []
    for name in sorted(os.listdir(save_dir)):
        m = _dead_leftover(name)
        if m:
            dead.append((m.group(1), m.group(2), os.path.join(save_dir, name)))
    # The newer copy (tmp) first: it is complete when it has its `done` file.
    for final, kind, path in sorted(dead, key=lambda d: d[1] != "tmp"):
        target = os.path.join(save_dir, final)
        if kind != "removing" and final != BEST_LINK and not os.path.lexists(target) \
                and os.path.exists(os.path.join(path, "done")):
            os.rename(path, target)
            LOG.warning("Restored %s from %s, left by a run that died while saving it", target, path)
    for final, kind, path in dead:
        if os.path.lexists(path):
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.remove(path)
            LOG.info("Removed %s, left by a run that died while saving", path)
    if dead:
        _sync_dir(save_dir)


def _sync_dir(path):
    """Makes renames and removals inside `path` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sync_tree(path):
    """Flushes every file under `path` (parameters written by the engine included) to disk, so
    a renamed-in pass survives a power loss too: one syncfs (Linux) for the whole file system,
    which costs one journal commit where an fsync per file costs one each."""
    if _LIBC is not None and hasattr(_LIBC, "syncfs"):
        fd = os.open(path, os.O_RDONLY)
        try:
            if _LIBC.syncfs(fd) == 0:
                return
        finally:
            os.close(fd)
    for base, _, names in os.walk(path):
        for name in names:
            fd = os.open(os.path.join(base, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        _sync_dir(base)


try:
    _LIBC = ctypes.CDLL(None, use_errno=True)
except OSError:
    _LIBC = None
_AT_FDCWD, _RENAME_EXCHANGE = -100, 2
_renameat2 = getattr(_LIBC, "renameat2", None)  # glibc >= 2.28


def _exchange(a, b):
    """Atomically swaps the directories `a` and `b` (Linux renameat2 RENAME_EXCHANGE);
    False where the C library or the file system cannot."""
    if _renameat2 is None:
        return False
    if _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), a)


def _remove(path):
    """Renames first, so an interrupted removal never leaves a half-deleted pass behind."""
    doomed = path + ".removing-%d" % os.getpid()
    os.rename(path, doomed)
    shutil.rmtree(doomed)


class BestPass(object):
    """--keep_best=METRIC[:min|:max]: the best pass by METRIC ("cost" or an evaluator field
    as the log names it) of the end-of-pass test, or of the training pass when the config
    has no test data. Without a suffix the direction is the field's own (`fields`: the
    evaluators' [(name, value, higher_is_better)], e.g. Trainer.getTestEvalFields()); costs
    fall. --early_stop_patience=N stops after N passes without a better one."""

    def __init__(self, spec, patience, fields):
        name, _, direction = spec.partition(":")
        if direction not in ("", "min", "max"):
            raise UsageError("--keep_best=%s: the direction after ':' must be min or max" % spec)
        if not direction:
            # (a name two evaluators report: the later one's, as in the metrics record)
            directions = {field: better for field, _, better in fields}
            higher = False if name in ("cost", "AvgCost") else directions.get(name, False)
            if higher is None:
                raise UsageError("--keep_best=%s: %s is a count or a setting, not a measure of quality; "
                                 "add :min or :max to track it anyway" % (spec, name))
            direction = "max" if higher else "min"
        self.name, self.higher = name, direction == "max"
        self.patience = patience
        self.best_pass, self.best_value, self.stale = None, None, 0

    def describe(self):
        return "%s (%s is better)" % (self.name, "higher" if self.higher else "lower")

    def value_of(self, record):
        """The metric in a monitor record (AvgCost stands for cost)."""
        key = "AvgCost" if self.name in ("cost", "AvgCost") else None
        value = record[key] if key else record.get("eval", {}).get(self.name)
        if value is None:
            known = ["cost"] + sorted(record.get("eval", {}))
            raise UsageError("--keep_best=%s: no such metric; the test reports %s" % (self.name, ", ".join(known)))
        return value

    def resume(self, path, pass_id):
        """Picks up the best pass of an earlier run from the metrics.json of pass `pass_id`
        at `path` (the pass save_dir/best points to); False when that pass did not record
        itself as the best by this metric."""
        try:
            with open(os.path.join(path, METRICS_FILE)) as f:
                saved = json.load(f)
            value, best_pass = saved["best"][self.name], saved["best"]["pass"]
        except (OSError, ValueError, KeyError, TypeError):
            return False
        if not isinstance(value, (int, float)) or isinstance(value, bool) or best_pass != pass_id:
            return False
        self.best_value, self.best_pass = value, best_pass
        return True

    def update(self, pass_id, record):
        """True when this pass is the best so far."""
        value = self.value_of(record)
        better = self.best_value is None or (value > self.best_value if self.higher else value < self.best_value)
        if better:
            self.best_pass, self.best_value, self.stale = pass_id, value, 0
        else:
            self.stale += 1
        return better

    def should_stop(self):
        return self.patience > 0 and self.stale >= self.patience


class Checkpoints(object):
    """Loads and saves the parameters of one `paddle train` run in save_dir. `fingerprint`
    (config_fingerprint of the run's ModelConfig) marks every pass it saves, so passes of
    another config in save_dir are found before they are overwritten or mixed."""

    def __init__(self, api, trainer, save_dir, config_file, version_text,
                 missing_strategy="fail", keep_last=0, best=None, fingerprint=None):
        self.api, self.trainer = api, trainer
        self.save_dir, self.config_file = save_dir, config_file
        self.version_text = version_text
        self.missing_strategy = missing_strategy
        self.keep_last, self.best = keep_last, best
        self.fingerprint = fingerprint

    # ---------------------------------------------------------------- the save dir
    def claim(self, start_pass, overwrite=False):
        """Before a training run writes into save_dir: refuses passes of another config
        (removes them with --overwrite), and keeps save_dir/best only when it is this run's
        to resume (see _check_best_link)."""
        foreign = self.foreign_passes()
        if foreign and not overwrite:
            (number, origin), more = foreign[0], len(foreign) - 1
            raise UsageError(
                "--save_dir=%s holds %s of another config: %s was trained with %s, this run is %s. Use "
                "another --save_dir, or --overwrite to remove %s" % (
                    self.save_dir, "%d passes" % len(foreign) if more else "a pass",
                    os.path.basename(pass_dir(self.save_dir, number)), origin, self.config_file,
                    "them" if more else "it"))
        for number, origin in foreign:
            LOG.warning("--overwrite: removing %s (trained with %s)", pass_dir(self.save_dir, number), origin)
            _remove(saved_pass_path(self.save_dir, number))
        self._check_best_link(start_pass)

    def foreign_passes(self):
        """[(pass number, its config file)] of the complete passes in save_dir whose config
        fingerprint differs from this run's (passes without one are taken as they are)."""
        out = []
        if self.fingerprint is None:
            return out
        for number in saved_passes(self.save_dir):
            origin, fingerprint = pass_origin(saved_pass_path(self.save_dir, number))
            if fingerprint is not None and fingerprint != self.fingerprint:
                out.append((number, origin))
        return out

    def _check_best_link(self, start_pass):
        """save_dir/best is resumed only by a run resuming with --start_pass, and only when it
        is a link to a complete pass inside save_dir from before start_pass, trained with this
        config; any other `best` (a fresh run's leftover, a link planted to elsewhere, a pass
        of another config) is removed with a warning, so it can neither steer --keep_best nor
        keep an old pass from --keep_last."""
        link = os.path.join(self.save_dir, BEST_LINK)
        if not os.path.lexists(link):
            return
        if not os.path.islink(link):
            raise UsageError("%s is not the link --keep_best makes (a %s): move it away" % (
                link, "directory" if os.path.isdir(link) else "file"))
        target = os.readlink(link)
        m = _PASS_NAME.match(target)
        path = saved_pass_path(self.save_dir, int(m.group(1))) if m else None
        if start_pass <= 0:
            why = "this run starts at pass 0"
        elif m is None:
            why = "it does not point to a pass directory inside %s" % self.save_dir
        elif path is None or os.path.realpath(path) != os.path.realpath(os.path.join(self.save_dir, target)):
            why = "%s is not a complete pass" % target
        elif int(m.group(1)) >= start_pass:
            why = "%s is not before --start_pass=%d" % (target, start_pass)
        elif self.fingerprint is not None and pass_origin(path)[1] != self.fingerprint:
            why = "%s was trained with another config (%s)" % (target, pass_origin(path)[0])
        elif self.best is not None and not self.best.resume(path, int(m.group(1))):
            why = "%s does not record the best %s" % (target, self.best.name)
        else:
            if self.best is not None:
                LOG.info("Resuming the best pass so far: %d (%s=%g)", self.best.best_pass, self.best.name,
                         self.best.best_value)
            return
        LOG.warning("Removing %s -> %s from an earlier run: %s", link, target, why)
        os.remove(link)

    # ---------------------------------------------------------------- loading
    def load(self, path):
        if not os.path.isdir(path):
            raise UsageError("model directory %s does not exist" % path)
        gm = self.trainer.getGradientMachine()
        for p in gm.getParameters():
            f = os.path.join(path, p.getName())
            try:
                if os.path.exists(f):
                    p.load(f)
                elif self.missing_strategy == "zero":
                    p.getBuf(self.api.PARAMETER_VALUE).toNumpyArrayInplace()[:] = 0
                elif self.missing_strategy == "fail":
                    raise UsageError("parameter file %s is missing (use --load_missing_parameter_strategy=rand|zero)"
                                     % f)
            except (UsageError, ValueError, RuntimeError, OSError) as e:
                raise UsageError("%s%s" % (e, self._origin_note(path))) from None
        origin, fingerprint = pass_origin(path)
        other = fingerprint is not None and self.fingerprint is not None and fingerprint != self.fingerprint
        # (fine-tuning loads another network's pass on purpose; the log says whose it is)
        LOG.info("Loaded parameters from %s%s", path, " (trained with %s, another network)" % origin if other else "")

    def _origin_note(self, path):
        """Where the pass at `path` came from, for errors loading it into this run's network."""
        origin, fingerprint = pass_origin(path)
        if origin is None:
            return "; %s does not say which config trained it (no metrics.json or path.txt)" % path
        if fingerprint is not None and self.fingerprint is not None:
            same = "the same network as" if fingerprint == self.fingerprint else "another network than"
            return "; %s was trained with %s (%s %s)" % (path, origin, same, self.config_file)
        return "; %s was trained with %s (this run: %s)" % (path, origin, self.config_file)

    def load_initial(self, init_model_path, start_pass):
        """--init_model_path, or for --start_pass=N the parameters and optimizer state of pass N-1."""
        if init_model_path:
            self.load(init_model_path)
        elif start_pass > 0:
            path = saved_pass_path(self.save_dir, start_pass - 1)
            if path is None:
                raise UsageError("--start_pass=%d needs a complete %s (with its 'done' file)"
                                 % (start_pass, pass_dir(self.save_dir, start_pass - 1)))
            self.load(path)
            state = os.path.join(path, OPTIMIZER_DIR)
            if os.path.isdir(state):
                self.trainer.loadOptimizerState(state)
            else:
                LOG.warning("%s has no optimizer state: momentum and moments restart from zero", path)

    # ---------------------------------------------------------------- saving
    def save(self, pass_id, results):
        """Writes pass-%05d (parameters, optimizer state, the config, `results` as
        metrics.json) under a temporary name and renames it into place."""
        final = pass_dir(self.save_dir, pass_id)
        tmp = final + ".tmp-%d" % os.getpid()
        if os.path.exists(tmp):
            shutil.rmtree(tmp)
        os.makedirs(tmp)
        self.trainer.saveParameters(tmp)
        os.makedirs(os.path.join(tmp, OPTIMIZER_DIR))
        self.trainer.saveOptimizerState(os.path.join(tmp, OPTIMIZER_DIR))
        shutil.copy(self.config_file, tmp)
        with open(os.path.join(tmp, "path.txt"), "w") as f:
            f.write(os.path.basename(self.config_file))
        results = dict(results, config={"file": self.config_file, "fingerprint": self.fingerprint})
        with open(os.path.join(tmp, METRICS_FILE), "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
        preprocessing.save(tmp, preprocessing.fitted_states())  # the readers' statistics and vocabularies
        with open(os.path.join(tmp, "done"), "w") as f:
            f.write(self.version_text)
        _sync_tree(tmp)
        if not os.path.exists(final):
            os.rename(tmp, final)
        elif _exchange(tmp, final):  # pass-N is the old one, then the new one: never missing
            shutil.rmtree(tmp)
        else:  # two renames: a kill between them leaves the old pass as .old-PID, for tidy()
            old = final + ".old-%d" % os.getpid()
            os.rename(final, old)
            os.rename(tmp, final)
            shutil.rmtree(old)
        _sync_dir(self.save_dir)
        LOG.info("Saving parameters to %s", final)

    def link_best(self, pass_id):
        """Points save_dir/best at pass-%05d (a relative symlink, replaced atomically)."""
        link = os.path.join(self.save_dir, BEST_LINK)
        tmp = link + ".tmp-%d" % os.getpid()
        os.symlink(os.path.basename(pass_dir(self.save_dir, pass_id)), tmp)
        os.replace(tmp, link)
        LOG.info("Best pass so far: %d (%s=%g)", pass_id, self.best.name, self.best.best_value)

    def retain(self, newest):
        """--keep_last=K: removes complete pass directories up to `newest` but the K last
        ones and the best one."""
        if self.keep_last <= 0:
            return
        passes = [p for p in saved_passes(self.save_dir) if p <= newest]
        keep = set(passes[-self.keep_last:])
        if self.best is not None and self.best.best_pass is not None:
            keep.add(self.best.best_pass)
        for p in passes:
            if p not in keep:
                _remove(saved_pass_path(self.save_dir, p))

    def end_of_pass(self, pass_id, train, test, due, last):
        """After a pass (`train`/`test`: its monitor records; test None without test data):
        saves it when `due` (--saving_period), when it is the last or the best so far, and
        keeps --keep_last. Returns True when --early_stop_patience says to stop."""
        best = self.best
        improved = best is not None and best.update(pass_id, test or train)
        stop = best is not None and best.should_stop()
        if stop:
            LOG.info("Early stop: %s has not improved for %d passes (best %g at pass %d)",
                     best.name, best.stale, best.best_value, best.best_pass)
        if due or last or improved or stop:
            results = {"train": train, "test": test}
            if best is not None:
                results["best"] = {"pass": best.best_pass, best.name: best.best_value}
            self.save(pass_id, results)
            if improved:
                self.link_best(pass_id)
            self.retain(pass_id)
        return stop
