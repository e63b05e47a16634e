"""PyDataProvider2: the v1 user API for writing data providers.

A data provider is a generator function decorated with ``@provider(...)``::

    from paddle.trainer.PyDataProvider2 import *

    @provider(input_types={'pixel': dense_vector(784), 'label': integer_value(10)})
    def process(settings, filename):
        for pixels, label in read(filename):
            yield {'pixel': pixels, 'label': label}

``@provider`` turns the function into a *class*.  The runtime
(:mod:`paddle.trainer.data_provider`) instantiates that class once per data
source with keyword arguments: the unpickled ``args`` of
``define_py_data_sources2`` plus ``is_train``, ``file_list`` and
``input_order`` (the model's data layer names).  The instance is the
``settings`` object handed to ``init_hook`` and, as first argument, to the
generator for every entry of the file list.

This module only describes providers; batching, shuffling, pooling, caching
and conversion to numpy buffers live in :mod:`paddle.trainer.data_provider`.
"""

import collections
import collections.abc
import functools  # noqa: F401  (exported by v1's star import)
import inspect
import itertools  # noqa: F401  (exported by v1's star import)
import logging
import math
import numbers
import pickle

import numpy as np

from paddle.trainer import input_types
from paddle.trainer.input_types import *  # noqa: F401,F403  (re-exported: the input types are part of this API)
from paddle.trainer.input_types import CacheType, DataType, InputType

__all__ = input_types.__all__ + [
    # decorator and helpers
    'provider', 'deserialize_args', 'DataError',
    # v1's generator wrappers (public names of its module)
    'SingleSlotWrapper', 'InputOrderWrapper', 'CheckWrapper', 'CheckInputTypeWrapper',
    # modules v1 providers received through the star import (v1's module had no
    # __all__); cPickle is Python 3's pickle
    'logging', 'collections', 'functools', 'itertools', 'cPickle',
]

cPickle = pickle


# ---------------------------------------------------------------------------
# Logging.  v1 logged through a logger configured at import time; we use a
# named logger (the CLI may reconfigure it) that prints INFO and above.
# ---------------------------------------------------------------------------

LOGGER_NAME = "paddle.data_provider"


def _get_logger():
    logger = logging.getLogger(LOGGER_NAME)
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter(
            "[%(levelname)s %(asctime)s %(filename)s:%(lineno)s] %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    return logger


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

class DataError(ValueError):
    """Bad data from a provider: a sample that does not fit the declared input types.

    Raised by the data runtime (and by the engine's checks of a batch, translated
    back to the sample) with a message that names, where known, the provider (its
    source file and function), the file list entry, the sample's index within that
    entry, and the slot with its declared type, e.g. ``data provider
    p.py:process, file list entry 0 'train.txt', sample 12, slot 1 'label'
    (integer_value(10)): integer value 10 out of range [0, 10)``. Every argument
    is kept as an attribute of the same name. A ValueError, and picklable (it
    crosses process boundaries intact).

    Args:
        detail (str): what is wrong.
        provider (str, optional): the provider, as ``file:function``.
        file_entry (str, optional): the file list entry being read.
        file_index (int, optional): that entry's index in the file list.
        sample_index (int, optional): the sample's index within the entry.
        slot_index (int, optional): the offending slot's position.
        slot_name (str, optional): its data layer name.
        input_type (InputType, optional): its declared type.

    Example:
        >>> err = DataError('integer value 10 out of range [0, 10)', file_entry='train.txt',
        ...                 file_index=0, sample_index=12, slot_index=1, slot_name='label',
        ...                 input_type=integer_value(10))
        >>> print(err)
        file list entry 0 'train.txt', sample 12, slot 1 'label' (integer_value(10)): integer value 10 out of range [0, 10)
        >>> isinstance(err, ValueError), err.sample_index
        (True, 12)
    """

    def __init__(self, detail, provider=None, file_entry=None, file_index=None,
                 sample_index=None, slot_index=None, slot_name=None,
                 input_type=None):
        self.detail = detail
        self.provider = provider
        self.file_entry = file_entry
        self.file_index = file_index
        self.sample_index = sample_index
        self.slot_index = slot_index
        self.slot_name = slot_name
        self.input_type = input_type
        ValueError.__init__(self, self._format())

    def _format(self):
        where = []
        if self.provider is not None:
            where.append("data provider %s" % self.provider)
        if self.file_entry is not None or self.file_index is not None:
            if self.file_index is not None:
                where.append("file list entry %d %r" %
                             (self.file_index, self.file_entry))
            else:
                where.append("file list entry %r" % (self.file_entry,))
        if self.sample_index is not None:
            where.append("sample %d" % self.sample_index)
        if self.slot_index is not None or self.slot_name is not None:
            slot = "slot"
            if self.slot_index is not None:
                slot += " %d" % self.slot_index
            if self.slot_name is not None:
                slot += " '%s'" % self.slot_name
            if self.input_type is not None:
                slot += " (%r)" % (self.input_type,)
            where.append(slot)
        if where:
            return "%s: %s" % (", ".join(where), self.detail)
        return str(self.detail)

    def __reduce__(self):
        return (_rebuild_data_error,
                (self.detail, self.provider, self.file_entry, self.file_index,
                 self.sample_index, self.slot_index, self.slot_name,
                 self.input_type))


def _rebuild_data_error(*args):
    return DataError(*args)


# ---------------------------------------------------------------------------
# Sample checking (check=True)
# ---------------------------------------------------------------------------

def _is_sequence(value):
    if isinstance(value, np.ndarray):
        return value.ndim >= 1
    if isinstance(value, (str, bytes, dict)):
        return False
    return isinstance(value, collections.abc.Sequence)


def _is_integer(value):
    return (isinstance(value, (numbers.Integral, np.integer)) and
            not isinstance(value, (bool, np.bool_)))


def _is_real(value):
    return (isinstance(value, (numbers.Real, np.number)) and
            not isinstance(value, (bool, np.bool_)))


def _describe(value):
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return "%s %s" % (type(value).__name__, text)


def _check_leaf(input_type, value):
    """Returns None when ``value`` (one time step) fits ``input_type``, else a
    description of the problem."""
    dim = input_type.dim
    tp = input_type.type
    if tp == DataType.Dense:
        if not _is_sequence(value):
            return "expected a dense vector of %d numbers, got %s" % (
                dim, _describe(value))
        try:
            arr = np.asarray(value)
        except (ValueError, TypeError):
            return "dense vector is ragged or not numeric: %s" % _describe(value)
        if arr.dtype.kind not in "biuf":
            return "dense vector must hold numbers, got dtype %s" % arr.dtype
        if arr.size != dim:
            return "expected a dense vector of %d numbers, got %d" % (dim, arr.size)
        if arr.dtype.kind == "f" and not np.isfinite(arr).all():
            bad = int(np.flatnonzero(~np.isfinite(arr.ravel()))[0])
            return "dense value %d is %s (not finite)" % (bad, arr.ravel()[bad])
        return None
    if tp == DataType.Index:
        if not _is_integer(value):
            return "expected an integer in [0, %d), got %s" % (
                dim, _describe(value))
        if value < 0 or value >= dim:
            return "integer value %d out of range [0, %d)" % (value, dim)
        return None
    if tp in (DataType.SparseNonValue, DataType.SparseValue):
        if not _is_sequence(value):
            return "expected a list of %s, got %s" % (
                "ids" if tp == DataType.SparseNonValue else "(id, value) pairs",
                _describe(value))
        ids = []
        for k in value:
            if tp == DataType.SparseValue:
                if not _is_sequence(k) or len(k) != 2:
                    return "expected an (id, value) pair, got %s" % _describe(k)
                k, v = k[0], k[1]
                if not _is_real(v):
                    return "sparse value must be a number, got %s" % _describe(v)
                if not math.isfinite(v):
                    return "sparse value of id %s is %s (not finite)" % (k, v)
            if not _is_integer(k):
                return "sparse id must be an integer, got %s" % _describe(k)
            if k < 0 or k >= dim:
                return "sparse id %d out of range [0, %d)" % (k, dim)
            ids.append(k)
        if len(set(ids)) != len(ids):
            return "sparse ids are not unique: %s" % _describe(list(value))
        return None
    return "unsupported input type %r" % (input_type,)


def _check_value(input_type, value, level):
    if level == 0:
        return _check_leaf(input_type, value)
    if not _is_sequence(value):
        return "expected a %s, got %s" % (
            "sequence" if level == 1 else "sequence of sub-sequences",
            _describe(value))
    for k, step in enumerate(value):
        err = _check_value(input_type, step, level - 1)
        if err is not None:
            what = "sub-sequence" if level == 2 else "timestep"
            return "%s %d: %s" % (what, k, err)
    return None


def check_sample(input_types, sample):
    """Validates one normalized sample (one value per slot, in slot order)
    against ``input_types``.  Returns ``None`` when it fits, else a tuple
    ``(slot_index, message)``."""
    if len(sample) != len(input_types):
        return (None, "sample has %d slots, expected %d" %
                (len(sample), len(input_types)))
    for i, (value, tp) in enumerate(zip(sample, input_types)):
        if value is None:
            return (i, "value is missing (None)")
        err = _check_value(tp, value, tp.seq_type)
        if err is not None:
            return (i, err)
    return None


# ---------------------------------------------------------------------------
# The @provider decorator
# ---------------------------------------------------------------------------

_TRUE_STRINGS = ('t', 'true', 'on', '1', 'yes', 'y')
_FALSE_STRINGS = ('f', 'false', 'off', '0', 'no', 'n')


def _parse_should_shuffle(value, logger):
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, (int, np.integer)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        low = value.strip().lower()
        if low in _TRUE_STRINGS:
            return True
        if low in _FALSE_STRINGS:
            return False
    logger.warning("Could not recognize should_shuffle (%r); using the default "
                   "(shuffle when training, not when testing). Use a bool or "
                   "one of %r.", value, _TRUE_STRINGS + _FALSE_STRINGS)
    return None


def _source_of(func):
    try:
        path = inspect.getsourcefile(func) or func.__code__.co_filename
    except (TypeError, AttributeError):
        path = None
    name = getattr(func, "__name__", repr(func))
    if path:
        return "%s:%s" % (path, name)
    return name


def provider(input_types=None, should_shuffle=None, pool_size=-1,
             min_pool_size=-1, can_over_batch_size=True, calc_batch_size=None,
             cache=CacheType.NO_CACHE, check=False, check_fail_continue=False,
             init_hook=None, **outter_kwargs):
    """Turns a generator function ``f(settings, filename)`` into a data provider.

    This is how a v1 user feeds data: write a generator that reads one entry of the
    file list (usually a file name) and yields samples, decorate it with
    ``@provider(input_types=...)`` and name it in define_py_data_sources2(...,
    module='my_provider', obj='process'). The decorator returns a *class*; the
    trainer creates one instance per data source (train, test) and calls
    ``instance.generator(instance, entry)`` for each line of the file list. The
    instance is the ``settings`` the generator and ``init_hook`` receive, holding
    the options below as attributes plus ``is_train``, ``input_order`` (the model's
    data layer names), ``file_list``, ``logger``, ``slots`` (the resolved input
    types) and whatever init_hook stores.

    A sample is a list or tuple with one value per slot, in input_types order; a
    dict keyed by data layer name (input_types must then be a dict too); or, with a
    single slot, the bare value. Values follow the slot's InputType (see
    dense_vector, sparse_binary_vector, integer_value and their sequence forms).

    Batching: samples go into a pool; a batch is drawn once the pool holds
    max(batch_size, min(pool_size, min_pool_size)) samples or the files are done,
    uniformly at random from the pool when shuffling (then the next sample also
    comes from a randomly chosen file), in order otherwise. With both sizes -1 a
    whole pass is read before the first batch.

    Args:
        input_types (list or dict of InputType, optional): the slots, in the order of
            the model's data layers (a list) or keyed by data layer name (a dict,
            reordered to the model's input_layer_names). May be left None when
            init_hook sets ``settings.input_types``.
        should_shuffle (bool, optional): shuffle the samples; None: shuffle when
            training, not when testing. The strings t/true/on/1/yes/y and
            f/false/off/0/no/n are accepted (anything else warns and uses None).
        pool_size (int, default -1): the most samples (calc_batch_size weight) read
            ahead into the pool; -1: unlimited.
        min_pool_size (int, default -1): draw batches only once the pool holds this
            many (capped by pool_size), for a better shuffle; -1: the whole pass.
        can_over_batch_size (bool, default True): with calc_batch_size, whether a
            batch may go over batch_size by its last sample (False: that sample waits
            for the next batch).
        calc_batch_size (callable, optional): ``calc_batch_size(sample) -> int``, a
            sample's weight towards batch_size (e.g. its number of words); default 1.
        cache (int, default CacheType.NO_CACHE): CacheType.CACHE_PASS_IN_MEM keeps
            the first pass's samples in memory and replays them in later passes.
        check (bool, default False): check every sample against input_types
            (sizes, id ranges, finite values) and raise DataError naming the file,
            sample and slot.
        check_fail_continue (bool, default False): with check, drop a bad sample
            with a warning instead of raising.
        init_hook (callable, optional): ``init_hook(settings, file_list, **kwargs)``,
            called once when the provider is created, before input_types are
            resolved. kwargs hold ``is_train``, ``input_order`` and the ``args``
            dict of define_py_data_sources2. It may set ``settings.input_types``,
            load dictionaries into settings, and set ``settings.num_samples`` (the
            samples of a pass) for the progress bar's total in the first pass.
        **outter_kwargs: v1's deprecated ``slots=`` (the old name of input_types,
            with a warning); other keys are ignored.

    Returns:
        A decorator: applied to the generator, it returns the provider class (named
        after the generator, with its docstring).

    Raises:
        ValueError: when the provider is created: no input types, a dict lacking a
            data layer of the model, or an entry that is not an InputType.

    Example:
        >>> def hook(settings, file_list, dictionary, **kwargs):
        ...     settings.word_ids = dictionary
        >>> @provider(input_types={'words': integer_value_sequence(3), 'label': integer_value(2)},
        ...           init_hook=hook, should_shuffle=False)
        ... def process(settings, line):
        ...     text, label = line.split('|')
        ...     yield {'words': [settings.word_ids[w] for w in text.split()], 'label': int(label)}
        >>> s = process(file_list=['a b|1'], input_order=['label', 'words'], is_train=True,
        ...             dictionary={'a': 0, 'b': 1, 'c': 2})
        >>> s.slots, next(s.generator(s, s.file_list[0]))
        ([integer_value(2), integer_value_sequence(3)], {'words': [0, 1], 'label': 1})
    """

    def __wrapper__(generator):
        class DataProvider(object):
            _paddle_provider_ = True
            _provider_source_ = _source_of(generator)

            def __init__(self, file_list=None, **kwargs):
                self.logger = _get_logger()
                self.input_types = None
                self.should_shuffle = _parse_should_shuffle(should_shuffle,
                                                            self.logger)
                self.pool_size = pool_size
                self.min_pool_size = min_pool_size
                self.can_over_batch_size = can_over_batch_size
                self.calc_batch_size = (calc_batch_size
                                        if callable(calc_batch_size) else None)
                self.file_list = list(file_list) if file_list is not None else []
                self.generator = generator
                self.cache = cache
                self.check = check
                self.check_fail_continue = check_fail_continue
                self.input_order = kwargs.get('input_order')
                self.is_train = kwargs.get('is_train', True)
                self.slots = None
                if init_hook is not None:
                    init_hook(self, file_list=self.file_list, **kwargs)

                if 'slots' in outter_kwargs:
                    self.logger.warning("setting slots value is deprecated, "
                                        "please use input_types instead.")
                    self.slots = outter_kwargs['slots']
                if input_types is not None:
                    self.slots = input_types
                if self.input_types is not None:
                    self.slots = self.input_types
                if self.slots is None:
                    raise ValueError(
                        "data provider %s: input_types is not set; pass "
                        "input_types to @provider or set settings.input_types "
                        "in init_hook" % self._provider_source_)

                # Resolve the slot list in the model's data layer order.
                self.use_dynamic_order = isinstance(self.slots, dict)
                if self.use_dynamic_order:
                    declared = self.slots
                    order = self.input_order
                    if order is None:
                        order = list(declared.keys())
                    missing = [name for name in order if name not in declared]
                    if missing:
                        raise ValueError(
                            "data provider %s: input_types has no entry for "
                            "data layer(s) %s (declared: %s)" %
                            (self._provider_source_, ", ".join(map(repr, missing)),
                             ", ".join(map(repr, declared))))
                    self.slot_names = list(order)
                    self.slots = [declared[name] for name in order]
                else:
                    self.slots = list(self.slots)
                    self.slot_names = (list(self.input_order)
                                       if self.input_order is not None and
                                       len(self.input_order) == len(self.slots)
                                       else None)
                for i, tp in enumerate(self.slots):
                    if not isinstance(tp, InputType):
                        raise ValueError(
                            "data provider %s: input type %d is %r, not an "
                            "InputType (use dense_vector(...), integer_value(...)"
                            " ...)" % (self._provider_source_, i, tp))

        DataProvider.__name__ = getattr(generator, "__name__", "DataProvider")
        DataProvider.__qualname__ = getattr(generator, "__qualname__",
                                            DataProvider.__name__)
        DataProvider.__module__ = getattr(generator, "__module__", __name__)
        DataProvider.__doc__ = getattr(generator, "__doc__", None)
        return DataProvider

    return __wrapper__


# ---------------------------------------------------------------------------
# v1's generator wrappers.  The runtime (data_provider) does this work itself; these
# keep v1's public classes for providers and tools that composed them by hand.  Each
# wraps a generator called as generator(settings, filename).
# ---------------------------------------------------------------------------

class SingleSlotWrapper(object):
    """v1's generator wrapper for one-slot providers: wraps each bare value in a
    one-item list (dict samples pass through).

    The runtime does this itself (a one-slot provider may yield the bare value);
    the class remains for code that composed v1's wrappers by hand. Calling the
    wrapper as ``wrapper(settings, filename)`` runs the wrapped generator.

    Args:
        generator (callable): a generator function ``generator(settings, filename)``.

    Example:
        >>> def gen(settings, filename):
        ...     yield 1
        ...     yield {'label': 2}
        >>> list(SingleSlotWrapper(gen)(None, 'f'))
        [[1], {'label': 2}]
    """

    def __init__(self, generator):
        self.generator = generator

    def __call__(self, obj, filename):
        for item in self.generator(obj, filename):
            yield item if isinstance(item, dict) else [item]


class InputOrderWrapper(object):
    """v1's generator wrapper turning dict samples into lists in ``input_order``
    (a missing key gives None; list samples pass through).

    The runtime does this itself for providers whose input_types is a dict.

    Args:
        generator (callable): a generator function ``generator(settings, filename)``.
        input_order (list of str): the data layer names, in the model's order.

    Example:
        >>> def gen(settings, filename):
        ...     yield {'x': [0.5], 'label': 1}
        >>> list(InputOrderWrapper(gen, ['label', 'x'])(None, 'f'))
        [[1, [0.5]]]
    """

    def __init__(self, generator, input_order):
        self.generator = generator
        self.input_order = input_order

    def __call__(self, obj, filename):
        for item in self.generator(obj, filename):
            if isinstance(item, dict):
                yield [item.get(name) for name in self.input_order]
            else:
                yield item


class CheckWrapper(object):
    """v1's generator wrapper checking every (list) sample against ``input_types``:
    a bad one is logged, then dropped (``check_fail_continue``) or raised as a
    DataError naming the slot.

    The runtime does this itself for ``@provider(check=True)``.

    Args:
        generator (callable): a generator function ``generator(settings, filename)``
            yielding samples as lists in slot order.
        input_types (list of InputType): the slots.
        check_fail_continue (bool): drop bad samples instead of raising.
        logger (logging.Logger): where the warnings go.

    Example:
        >>> def gen(settings, filename):
        ...     yield [[0.5, 0.5], 1]
        ...     yield [[0.5, 0.5], 7]
        >>> wrapper = CheckWrapper(gen, [dense_vector(2), integer_value(2)], True,
        ...                        logging.getLogger('doc'))
        >>> list(wrapper(None, 'f'))    # the second sample's label is out of range
        [[[0.5, 0.5], 1]]
    """

    def __init__(self, generator, input_types, check_fail_continue, logger):
        self.generator = generator
        self.input_types = input_types
        self.check_fail_continue = check_fail_continue
        self.logger = logger

    def __call__(self, obj, filename):
        for items in self.generator(obj, filename):
            bad = check_sample(self.input_types, items)
            if bad is not None:
                slot, msg = bad
                self.logger.warning("Item (%r) does not fit the input types: %s", items, msg)
                if self.check_fail_continue:
                    continue
                raise DataError(msg, slot_index=slot,
                                input_type=None if slot is None else self.input_types[slot])
            yield items


class CheckInputTypeWrapper(object):
    """v1's generator wrapper refusing dict samples when ``input_types`` is not a
    dict (a dict sample names its slots, so the types must be named too): raises
    DataError; other samples pass through.

    Args:
        generator (callable): a generator function ``generator(settings, filename)``.
        input_types (list or dict of InputType): the provider's declared types.
        logger (logging.Logger): where the error is logged.

    Example:
        >>> def gen(settings, filename):
        ...     yield {'label': 1}
        >>> wrapper = CheckInputTypeWrapper(gen, [integer_value(2)], logging.getLogger('doc'))
        >>> try:
        ...     list(wrapper(None, 'f'))
        ... except DataError as err:
        ...     print(err)
        a dict sample needs input_types given as a dict keyed by data layer name, got list
    """

    def __init__(self, generator, input_types, logger):
        self.generator = generator
        self.input_types = input_types
        self.logger = logger

    def __call__(self, obj, filename):
        for items in self.generator(obj, filename):
            if isinstance(items, dict) and not isinstance(self.input_types, dict):
                msg = ("a dict sample needs input_types given as a dict keyed by data "
                       "layer name, got %s" % type(self.input_types).__name__)
                self.logger.error(msg)
                raise DataError(msg)
            yield items


def is_provider(obj):
    """True when ``obj`` is a class produced by ``@provider``."""
    return isinstance(obj, type) and getattr(obj, "_paddle_provider_", False)


def deserialize_args(args):
    """Unpickles the ``load_data_args`` of a DataConfig: the ``args`` dict that
    define_py_data_sources2 pickled, which the runtime passes to the provider's
    constructor (and init_hook) as keyword arguments.

    Args:
        args (bytes, str, dict or None): the pickle (a str is taken as the latin-1
            spelling of its bytes, as a protobuf string field holds it); an empty
            value or None gives ``{}``; a dict is returned as is.

    Returns:
        dict (or whatever was pickled): the arguments.

    Example:
        >>> deserialize_args(cPickle.dumps({'dictionary': 'words.txt'}, protocol=0).decode('latin-1'))
        {'dictionary': 'words.txt'}
        >>> deserialize_args(''), deserialize_args(None)
        ({}, {})
    """
    if args is None:
        return {}
    if isinstance(args, dict):
        return args
    if isinstance(args, str):
        if not args:
            return {}
        try:
            data = args.encode('latin-1')
        except UnicodeEncodeError:
            data = args.encode('utf-8')
    else:
        data = bytes(args)
        if not data:
            return {}
    return pickle.loads(data, encoding='latin1')
