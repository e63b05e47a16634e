"""Runtime for PyDataProvider2 providers: file lists, pooling, shuffling,
batching, caching, conversion to numpy buffers and background prefetching.

Typical use (the trainer does this once per data source)::

    dp = DataProvider(trainer_config.data_config,
                      model_config.input_layer_names,
                      batch_size=128, is_train=True, seed=1)
    for pass_id in range(num_passes):
        for batch in dp.batches():          # one pass
            batch.num_samples, batch.size   # samples / calc_batch_size total
            for slot in batch.slots:        # SlotData, in input_layer_names order
                slot.value, slot.ids, slot.seq_starts, ...
    dp.close()

``dp.reset()`` starts a new pass (abandoning the current one) and lets the
background thread begin loading early; ``dp.next_batch()`` returns the next
:class:`Batch` of the current pass, or None at its end.

Loading runs in a background thread that reads the provider's generators,
forms batches and converts them to numpy arrays, keeping up to ``prefetch``
ready batches in a bounded queue.  Exceptions raised there (by the user's
generator, by ``calc_batch_size`` or by bad data) are re-raised by
``next_batch()`` in the consuming thread.
"""

import importlib
import importlib.util
import numbers
import os
import queue
import random
import re
import stat
import sys
import threading
import traceback

import numpy as np

from paddle.trainer.batch_conversion import (  # noqa: F401  (re-exported)
    Batch, SlotData, _SlotError, _convert, _seq_len, convert_samples)
from paddle.parser.python2 import install_import_hook
from paddle.trainer import v1_data_sources
from paddle.trainer.PyDataProvider2 import (
    CacheType, DataError, _describe, _get_logger, check_sample, deserialize_args, is_provider)

__all__ = ['DataProvider', 'Batch', 'SlotData', 'DataError',
           'convert_samples', 'load_file_list']


# v1's other data sources, and what to write instead.
_PORT = ("write the reader as a PyDataProvider2 provider (@provider with input_types, "
         "from paddle.trainer.PyDataProvider2 import *) and declare it with "
         "define_py_data_sources2(train_list, test_list, module, obj)")
UNSUPPORTED_DATA_TYPES = {
    'py': "v1's first Python provider (PyData / define_py_data_sources, PyDataProviderWrapper); " + _PORT,
    'multi': "MultiData combines several sources; " + _PORT + " that yields all slots",
}


# ---------------------------------------------------------------------------
# File lists
# ---------------------------------------------------------------------------

def load_file_list(path):
    """Reads a file list: one entry per line, kept verbatim (a trailing
    carriage return is dropped); empty lines are entries too. Regular
    files only: a FIFO would block, /dev/zero never end."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise OSError("file list %s is not a regular file" % path)
    with open(path, 'r', encoding='utf-8', errors='surrogateescape',
              newline='') as f:
        text = f.read()
    if not text:
        return []
    lines = text.split('\n')
    if lines[-1] == '':
        lines.pop()
    return [line[:-1] if line.endswith('\r') else line for line in lines]


# ---------------------------------------------------------------------------
# The provider runtime
# ---------------------------------------------------------------------------

class _End(object):
    pass


_END = _End()


class _Failure(object):
    def __init__(self, exc):
        self.exc = exc


class _Pool(object):
    """Samples waiting to be batched.  Shuffling draws uniformly at random,
    otherwise first in first out; ``weight`` is the calc_batch_size total."""

    def __init__(self, shuffle, rng):
        self.shuffle = shuffle
        self.rng = rng
        self.items = []
        self.head = 0
        self.weight = 0

    def __len__(self):
        return len(self.items) - self.head

    def add(self, entry):
        self.items.append(entry)
        self.weight += entry[3]

    def take(self):
        items = self.items
        if self.shuffle:
            i = self.rng.randrange(len(items))
            items[i], items[-1] = items[-1], items[i]
            entry = items.pop()
        else:
            entry = items[self.head]
            items[self.head] = None
            self.head += 1
            if self.head > 4096 and self.head * 2 > len(items):
                del items[:self.head]
                self.head = 0
        self.weight -= entry[3]
        return entry

    def put_back(self, entry):
        if self.shuffle:
            self.items.append(entry)
        elif self.head > 0:
            self.head -= 1
            self.items[self.head] = entry
        else:
            self.items.insert(0, entry)
        self.weight += entry[3]


class _PassRun(object):
    """One pass: the prefetch thread and its queue."""

    def __init__(self, pass_id, prefetch):
        self.pass_id = pass_id
        self.queue = queue.Queue(maxsize=max(1, prefetch))
        self.stop = threading.Event()
        self.thread = None
        self.consumed = False
        self.finished = False
        self.files_done = 0          # file list entries read to their end
        self.samples_in_done = 0     # the samples they held

    def put(self, item):
        while not self.stop.is_set():
            try:
                self.queue.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False


def _import_provider_module(name):
    """The provider module; a v1 provider written in Python 2, and the modules it imports
    from its own folder, are converted in memory (paddle.parser.python2's import hook, with a
    warning that says how to convert each file for good)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is not None and spec.origin and spec.origin.endswith('.py'):
        install_import_hook(os.path.dirname(os.path.abspath(spec.origin)))
    return importlib.import_module(name)


def _annotate(exc, text):
    if hasattr(exc, 'add_note'):
        try:
            exc.add_note(text)
        except Exception:
            pass


def _exit_site(exc):
    """'file:line' of the sys.exit call that raised `exc` (its innermost Python frame)."""
    frames = traceback.extract_tb(exc.__traceback__)
    return "%s:%d" % (frames[-1].filename, frames[-1].lineno) if frames else "an unknown place"


def _is_integral(value):
    return (isinstance(value, (numbers.Integral, np.integer)) and
            not isinstance(value, (bool, np.bool_)))


class DataProvider(object):
    """Runs a PyDataProvider2 provider described by a DataConfig message.

    :param data_config: a DataConfig (read by attribute: ``type`` must be
        "py2"; ``files`` is the path of the file list, relative to the cwd;
        ``load_data_module``, ``load_data_object``, ``load_data_args``).
    :param input_layer_names: the model's data layer names; slots of every
        batch come in this order.
    :param batch_size: samples per batch (as counted by calc_batch_size).
    :param is_train: passed to the provider; decides shuffling when the
        provider leaves should_shuffle as None.  Default: not
        ``data_config.for_test``.
    :param seed: seed of the shuffling RNG (v1 ``--seed``); each pass uses a
        stream derived from (seed, pass index).  0 or None: seeded from the
        OS.
    :param shuffle: force shuffling on/off (e.g. False for --job=test);
        None follows the provider.
    :param prefetch: number of ready batches the loader thread keeps queued.
    :param config_dir: directory of the trainer config, put on sys.path (after
        the cwd) so the provider module is importable; also tried for a
        relative file list path missing from the cwd.
    :param model_config: the ModelConfig, handed to providers that ask for it
        (``wants_model_config``, as the ``synthetic`` reader does).
    :param start_pass: index of the first pass (a run resumed at pass k
        shuffles pass k exactly as an uninterrupted run does).
    """

    def __init__(self, data_config, input_layer_names, batch_size,
                 is_train=None, seed=1, shuffle=None, prefetch=2,
                 config_dir=None, start_pass=0, model_config=None):
        dc_type = getattr(data_config, 'type', 'py2')
        if dc_type in v1_data_sources.SOURCES:  # v1's text and binary files: built-in providers
            data_config, dc_type = v1_data_sources.provider_config(data_config), 'py2'
        if dc_type not in ('py2', ''):
            raise ValueError("DataConfig type %r is not supported: %s" % (
                dc_type, UNSUPPORTED_DATA_TYPES.get(dc_type, "use a PyDataProvider2 provider")))
        if int(batch_size) <= 0:
            raise ValueError("batch_size must be positive, got %r" % (batch_size,))
        self.batch_size = int(batch_size)
        if is_train is None:
            is_train = not bool(getattr(data_config, 'for_test', False))
        self.is_train = bool(is_train)
        self.prefetch = int(prefetch)
        self.logger = _get_logger()
        if seed is None or seed == 0:
            seed = int.from_bytes(os.urandom(8), 'little')
        self.seed = seed
        self.input_layer_names = list(input_layer_names)

        module_name = getattr(data_config, 'load_data_module', '')
        object_name = getattr(data_config, 'load_data_object', '')
        if not module_name or not object_name:
            raise ValueError("DataConfig needs load_data_module and "
                             "load_data_object (got %r, %r)" %
                             (module_name, object_name))
        self._extend_sys_path(config_dir)
        cls = self._load_provider_class(module_name, object_name)
        self.provider_source = getattr(cls, '_provider_source_',
                                       "%s.%s" % (module_name, object_name))

        list_path = getattr(data_config, 'files', '')
        if not list_path:
            raise ValueError("DataConfig.files (the file list path) is empty "
                             "for data provider %s" % self.provider_source)
        self.file_list_path = self._find_file_list(list_path, config_dir)
        self.file_list = load_file_list(self.file_list_path)

        kwargs = deserialize_args(getattr(data_config, 'load_data_args', ''))
        if not isinstance(kwargs, dict):
            raise ValueError("load_data_args must unpickle to a dict, got %r"
                             % (type(kwargs).__name__,))
        kwargs = dict(kwargs)
        kwargs['is_train'] = self.is_train
        kwargs['input_order'] = list(self.input_layer_names)
        kwargs['file_list'] = list(self.file_list)
        if getattr(cls, 'wants_model_config', False) and model_config is not None:
            kwargs.setdefault('model_config', model_config)
        self.settings = cls(**kwargs)

        types = list(self.settings.slots)
        if len(types) != len(self.input_layer_names):
            raise ValueError(
                "data provider %s declares %d input types %r but the model has "
                "%d data layers %r" % (self.provider_source, len(types), types,
                                       len(self.input_layer_names),
                                       self.input_layer_names))
        self.input_types = types

        s = self.settings
        if shuffle is not None:
            self.shuffle = bool(shuffle)
        elif s.should_shuffle is None:
            self.shuffle = self.is_train
        else:
            self.shuffle = bool(s.should_shuffle)
        self._dict_types = bool(getattr(s, 'use_dynamic_order', False))
        self._calc = s.calc_batch_size if callable(s.calc_batch_size) else None
        self._cache_mode = int(s.cache or 0)
        self._cache = None
        self._run = None
        self._closed = False
        self.pass_id = int(start_pass) - 1
        self._last_pass_samples = None

    # -- construction helpers ---------------------------------------------

    @classmethod
    def from_trainer_config(cls, trainer_config, for_test=False, **kwargs):
        """Builds the train (or, with for_test, the test) provider of a
        TrainerConfig: batch size from opt_config, slot order from
        model_config.input_layer_names, config_dir from config_file."""
        data_config = (trainer_config.test_data_config if for_test
                       else trainer_config.data_config)
        names = list(trainer_config.model_config.input_layer_names)
        kwargs.setdefault('batch_size', trainer_config.opt_config.batch_size)
        kwargs.setdefault('is_train', not for_test)
        kwargs.setdefault('model_config', trainer_config.model_config)
        config_file = getattr(trainer_config, 'config_file', '')
        if config_file:
            kwargs.setdefault('config_dir',
                              os.path.dirname(os.path.abspath(config_file)))
        return cls(data_config, names, **kwargs)

    @staticmethod
    def _extend_sys_path(config_dir):
        """Makes the cwd (as v1's ``paddle`` wrapper did) and the config's
        directory importable, in that order of priority."""
        wanted = [os.getcwd()]
        if config_dir:
            wanted.append(os.path.abspath(config_dir))
        for path in reversed(wanted):
            if path not in sys.path:
                sys.path.insert(0, path)
        install_import_hook(*wanted)

    @staticmethod
    def _load_provider_class(module_name, object_name):
        try:
            module = _import_provider_module(module_name)
        except ImportError as exc:
            raise ImportError("cannot import data provider module %r "
                              "(cwd %s): %s" % (module_name, os.getcwd(), exc))
        try:
            cls = getattr(module, object_name)
        except AttributeError:
            raise AttributeError("data provider module %r (%s) has no object %r"
                                 % (module_name,
                                    getattr(module, '__file__', '?'),
                                    object_name))
        if not is_provider(cls):
            raise TypeError("%s.%s is not a data provider: decorate the "
                            "generator with @provider(...)" %
                            (module_name, object_name))
        return cls

    @staticmethod
    def _find_file_list(path, config_dir):
        if os.path.exists(path) or os.path.isabs(path) or not config_dir:
            return path
        alt = os.path.join(config_dir, path)
        return alt if os.path.exists(alt) else path

    def expected_samples(self):
        """The samples a pass reads, for a progress bar's total: the last complete pass's
        count, else what the provider declares (``settings.num_samples``, set by its init
        hook), else the samples of the files read so far: all of them once every entry is
        read to its end (with the default pool, before the first batch), else, for an
        unshuffled list read in order, their mean times the number of entries; None when
        unknown (and always with calc_batch_size, whose batch sizes are not samples)."""
        if self._calc is not None:
            return None
        if self._last_pass_samples is not None:
            return self._last_pass_samples
        declared = getattr(self.settings, 'num_samples', None)
        if _is_integral(declared) and declared >= 0:
            return int(declared)
        run = self._run
        if run is not None and run.files_done and (not self.shuffle or run.files_done == len(self.file_list)):
            return int(round(run.samples_in_done * len(self.file_list) / float(run.files_done)))
        return None

    # -- passes -------------------------------------------------------------

    def reset(self):
        """Starts a new pass (stopping the current one); the loader thread
        begins filling the queue right away."""
        if self._closed:
            raise RuntimeError("DataProvider is closed")
        self._stop_run()
        self.pass_id += 1
        run = _PassRun(self.pass_id, self.prefetch)
        run.thread = threading.Thread(
            target=self._producer_main, args=(run,),
            name="paddle-data-%s-pass%d" % (self.settings.__class__.__name__,
                                            self.pass_id),
            daemon=True)
        self._run = run
        run.thread.start()

    def next_batch(self):
        """The next :class:`Batch` of the current pass, or None once the pass
        is over (a pass starts on the first call or after :meth:`reset`)."""
        run = self._run
        if run is None:
            self.reset()
            run = self._run
        if run.finished:
            return None
        run.consumed = True
        while True:
            try:
                item = run.queue.get(timeout=0.1)
                break
            except queue.Empty:
                if not run.thread.is_alive() and run.queue.empty():
                    run.finished = True
                    raise RuntimeError("data provider loader thread ended "
                                       "without finishing the pass")
        if isinstance(item, Batch):
            return item
        run.finished = True
        run.thread.join()
        if isinstance(item, _Failure):
            raise item.exc
        return None

    def batches(self):
        """Iterates over the batches of one pass.  Starts a new pass unless
        one was just started by :meth:`reset` and not consumed yet."""
        run = self._run
        if run is None or run.consumed or run.finished:
            self.reset()
        while True:
            batch = self.next_batch()
            if batch is None:
                return
            yield batch

    __iter__ = batches

    def close(self):
        """Stops the loader thread.  The provider cannot be used afterwards."""
        if not self._closed:
            self._stop_run()
            self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _stop_run(self, timeout=10.0):
        run = self._run
        self._run = None
        if run is None or run.thread is None:
            return
        run.stop.set()
        # Unblock a loader waiting on a full queue.
        while True:
            try:
                run.queue.get_nowait()
            except queue.Empty:
                break
        if run.thread is not threading.current_thread():
            run.thread.join(timeout)
            if run.thread.is_alive():
                self.logger.warning(
                    "data provider %s: loader thread of pass %d did not stop "
                    "within %.0fs (generator blocked?); abandoning it",
                    self.provider_source, run.pass_id, timeout)

    # -- the loader thread ------------------------------------------------

    def _producer_main(self, run):
        try:
            for batch in self._generate_pass(run):
                if not run.put(batch):
                    return
            run.put(_END)
        except BaseException as exc:  # re-raised by next_batch()
            run.put(_Failure(exc))

    def _data_error(self, detail, file_index=None, sample_index=None,
                    slot=None):
        names = self.input_layer_names
        return DataError(
            detail, provider=self.provider_source,
            file_entry=(self.file_list[file_index]
                        if file_index is not None else None),
            file_index=file_index, sample_index=sample_index,
            slot_index=slot,
            slot_name=names[slot] if slot is not None else None,
            input_type=self.input_types[slot] if slot is not None else None)

    def _open_generators(self):
        s = self.settings
        gens = []
        for index, entry in enumerate(self.file_list):
            try:
                it = s.generator(s, entry)
            except SystemExit as exc:
                raise self._data_error("the provider called sys.exit(%r) at %s" % (exc.code, _exit_site(exc)),
                                       index) from None
            except Exception as exc:
                _annotate(exc, "while opening file list entry %d %r in data "
                               "provider %s" % (index, entry,
                                                self.provider_source))
                raise
            try:
                it = iter(it)
            except TypeError:
                raise TypeError("data provider %s returned %s for file list "
                                "entry %d %r; it must be a generator (use "
                                "yield)" % (self.provider_source,
                                            type(it).__name__, index, entry))
            gens.append([it, index, 0])
        return gens

    def _normalize(self, item, file_index, sample_index):
        nslots = len(self.input_types)
        names = self.input_layer_names
        if isinstance(item, dict):
            if not self._dict_types:
                raise self._data_error(
                    "the generator yielded a dict but input_types is a list; "
                    "declare input_types as a dict keyed by data layer name",
                    file_index, sample_index)
            try:
                sample = [item[name] for name in names]
            except KeyError:
                missing = [name for name in names if name not in item]
                raise self._data_error(
                    "yielded dict has no value for data layer(s) %s (keys: %s)"
                    % (", ".join(map(repr, missing)),
                       ", ".join(map(repr, item))), file_index, sample_index)
        elif nslots == 1:
            sample = [item]
        else:
            n = _seq_len(item)
            if n is None:
                raise self._data_error(
                    "expected a list/tuple of %d slot values (%s) or a dict, "
                    "got %s" % (nslots, ", ".join(names), _describe(item)),
                    file_index, sample_index)
            if n != nslots:
                raise self._data_error(
                    "the sample has %d slot values, expected %d (%s)" %
                    (n, nslots, ", ".join(names)), file_index, sample_index)
            sample = item
        if self.settings.check:
            bad = check_sample(self.input_types, sample)
            if bad is not None:
                err = self._data_error(bad[1], file_index, sample_index, bad[0])
                if self.settings.check_fail_continue:
                    self.logger.warning("dropping sample: %s", err)
                    return None
                raise err
        return sample

    def _generate_pass(self, run):
        s = self.settings
        rng = random.Random("paddle-data:%s:%d" % (self.seed, run.pass_id))
        pool = _Pool(self.shuffle, rng)
        batch_size = self.batch_size
        inf = float('inf')
        pool_size = s.pool_size if (s.pool_size is not None and
                                    s.pool_size > 0) else inf
        min_pool = (s.min_pool_size if (s.min_pool_size is not None and
                                        s.min_pool_size >= 0) else inf)
        # Draw a batch once the pool holds this much (or the files ran out).
        need = max(batch_size, min(pool_size, min_pool))
        can_over = bool(s.can_over_batch_size)
        calc = self._calc

        recording = None
        gens = []
        if self._cache_mode == CacheType.CACHE_PASS_IN_MEM and \
                self._cache is not None:
            for entry in self._cache:
                pool.add(entry)
        else:
            if self._cache_mode == CacheType.CACHE_PASS_IN_MEM:
                recording = []
            gens = self._open_generators()

        produced = 0
        try:
            while True:
                while gens and pool.weight < need:
                    if run.stop.is_set():
                        return
                    gi = rng.randrange(len(gens)) if (self.shuffle and
                                                      len(gens) > 1) else 0
                    gen = gens[gi]
                    try:
                        item = next(gen[0])
                    except StopIteration:
                        del gens[gi]
                        run.files_done += 1
                        run.samples_in_done += gen[2]
                        continue
                    except SystemExit as exc:  # would end the trainer with its code and no word
                        raise self._data_error("the provider called sys.exit(%r) at %s" % (
                            exc.code, _exit_site(exc)), gen[1], gen[2]) from None
                    except Exception as exc:
                        _annotate(exc, "while reading file list entry %d %r "
                                       "(after %d samples) in data provider %s"
                                  % (gen[1], self.file_list[gen[1]], gen[2],
                                     self.provider_source))
                        raise
                    sample_index = gen[2]
                    gen[2] += 1
                    sample = self._normalize(item, gen[1], sample_index)
                    if sample is None:
                        continue
                    weight = 1
                    if calc is not None:
                        weight = calc(sample)
                        if not _is_integral(weight) or weight < 0:
                            raise self._data_error(
                                "calc_batch_size returned %r; it must return a "
                                "non-negative int" % (weight,), gen[1],
                                sample_index)
                        weight = int(weight)
                    entry = (sample, gen[1], sample_index, weight)
                    pool.add(entry)
                    if recording is not None:
                        recording.append(entry)
                if run.stop.is_set():
                    return
                if not len(pool):
                    if self.is_train and not produced:  # a pass of nothing would "train" and save
                        raise self._data_error(
                            "a training pass read no samples: the file list %s has %d entries and the "
                            "provider yielded nothing for them" % (self.file_list_path, len(self.file_list)))
                    break
                entries = []
                total = 0
                while total < batch_size and len(pool):
                    entry = pool.take()
                    if (calc is not None and not can_over and entries and
                            total + entry[3] > batch_size):
                        pool.put_back(entry)
                        break
                    entries.append(entry)
                    total += entry[3]
                produced += len(entries)
                yield self._make_batch(entries, total)
            if recording is not None:
                self._cache = recording
            self._last_pass_samples = produced
        finally:
            for gen in gens:
                close = getattr(gen[0], 'close', None)
                if close is not None:
                    try:
                        close()
                    except Exception as exc:
                        self.logger.warning("closing generator of file list "
                                            "entry %d failed: %r", gen[1], exc)

    def _make_batch(self, entries, total):
        samples = [entry[0] for entry in entries]
        try:
            slots = _convert(self.input_types, samples, self.input_layer_names)
        except _SlotError as err:
            entry = entries[err.pos]
            raise self._data_error(err.detail, entry[1], entry[2], err.slot)
        return Batch(slots, len(entries), total, self.input_layer_names, [(e[1], e[2]) for e in entries])

    def batch_error(self, batch, detail):
        """The engine refused a batch with `detail`, which names a sample by its place in the
        batch ("sequence 3 is empty", "sample 5 has label 7"): a DataError naming the provider,
        file and sample instead, or None when the place cannot be told."""
        if getattr(batch, "origins", None) is None:
            return None
        pos = slot_index = None
        if "is empty" in detail:  # the first empty sequence (the engine stops at it)
            for k, slot in enumerate(batch.slots):
                if slot.seq_starts is not None:
                    empty = np.flatnonzero(np.diff(slot.seq_starts) == 0)
                    if len(empty):
                        pos, slot_index = int(empty[0]), k
                        break
        else:
            m = re.search(r"\b(sequence|sample) (\d+)\b", detail)
            if m is not None:
                pos = self._position(batch, m.group(1), int(m.group(2)))
        if pos is None or not 0 <= pos < len(batch.origins):
            return None
        file_index, sample_index = batch.origins[pos]
        if slot_index is not None:
            return self._data_error("an empty sequence (%s)" % detail, file_index, sample_index, slot_index)
        return self._data_error(detail, file_index, sample_index)

    @staticmethod
    def _position(batch, kind, index):
        """The batch position of the engine's "sequence K" (a sample's sequence) or "sample R"
        (a row: a sample when no slot is a sequence, a time step when every slot is a sequence cut
        the same way; None when slots are mixed, as the row could be either)."""
        starts = [slot.seq_starts for slot in batch.slots if slot.seq_starts is not None]
        if kind == "sequence" or not starts:
            return index
        if len(starts) < len(batch.slots):
            return None
        if all(np.array_equal(s, starts[0]) for s in starts) and index < starts[0][-1]:
            return int(np.searchsorted(starts[0], index, "right")) - 1
        return None
