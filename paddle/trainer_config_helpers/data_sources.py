"""define_py_data_sources2: PyDataProvider2 train/test data sources
(and b0's define_py_data_sources, the older `type: "py"` provider)."""

import pickle

from paddle.parser import (ConfigError, PyData, TestData,
                                          TrainData,
                                          create_data_config_proto)

__all__ = ['define_py_data_sources2', 'define_py_data_sources']


def _split(value, what, helper='define_py_data_sources2'):
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise ConfigError(
                '%s: %s given as a list must have 2 '
                'items (train, test), got %d' % (helper, what, len(value)))
        return value[0], value[1]
    return value, value


def _file_list(files, default_name):
    """A list of file names is written to ./train.list / ./test.list."""
    if isinstance(files, (list, tuple)):
        bad = [each for each in files if not isinstance(each, str)]
        if bad:  # checked before ./train.list is overwritten (v1 failed while writing it)
            raise ConfigError('define_py_data_sources2: file list entries must be '
                              'file names (strings), got %s %r' % (type(bad[0]).__name__, bad[0]))
        with open(default_name, 'w') as f:
            for each in files:
                f.write('%s\n' % each)
        return default_name
    if not isinstance(files, str):
        raise ConfigError('define_py_data_sources2: file list must be a '
                          'path (string) or a list of file names, got %s' %
                          type(files).__name__)
    return files


def _args_string(args):
    if args is None:
        return ''
    if isinstance(args, str):
        return args
    return pickle.dumps(args, 0).decode('latin-1')


def _py_data2(files, load_data_module, load_data_object, load_data_args):
    data = create_data_config_proto()
    data.type = 'py2'
    data.files = files
    data.load_data_module = load_data_module
    data.load_data_object = load_data_object
    data.load_data_args = load_data_args
    data.async_load_data = False
    return data


def define_py_data_sources2(train_list, test_list, module, obj, args=None):
    """Declares the training and test data: a PyDataProvider2 ``@provider`` and the
    file lists it reads.

    Fills ``data_config`` (train) and ``test_data_config`` of the TrainerConfig with
    DataConfig type ``py2``. When training, the trainer imports ``module`` (found
    on the config's directory or the working directory), takes the provider ``obj``
    from it, creates it with ``args`` as keyword arguments (plus is_train,
    input_order, file_list), and calls its generator for each line of the file
    list. Called in the config, usually right after the data layers.

    Args:
        train_list (str, list of str or None): the training file list: the path of
            a text file with one entry (usually a data file path) per line, or a
            list of entries, which is written to ``./train.list`` (relative to the
            working directory) and used from there. None: no training data.
        test_list (str, list of str or None): the test file list, the same way
            (``./test.list``). None: no test data.
        module (str or pair of str): the Python module holding the provider, e.g.
            ``'mnist_provider'``; a (train, test) pair to use different ones.
        obj (str or pair of str): the provider's name in that module (the decorated
            function), or a (train, test) pair.
        args (dict or pair of dicts, optional): keyword arguments for the provider's
            constructor and init_hook (e.g. a dictionary path); pickled into
            ``load_data_args``. A (train, test) list or tuple gives each source its
            own; a str is stored as is (an already pickled value).

    Raises:
        ConfigError: module or obj not names, a pair without 2 items, or a file list
            that is neither a path nor a list of file names.

    Example:
        >>> cfg = parse_trainer_config(lambda: define_py_data_sources2(
        ...     ['part-0.txt', 'part-1.txt'], None, module='mnist_provider', obj='process',
        ...     args={'dictionary': 'words.txt'}))
        >>> cfg.data_config.type, cfg.data_config.files, cfg.data_config.load_data_object
        ('py2', 'train.list', 'process')
        >>> open('train.list').read().split(), cfg.HasField('test_data_config')
        (['part-0.txt', 'part-1.txt'], False)
    """
    train_module, test_module = _split(module, 'module')
    train_obj, test_obj = _split(obj, 'obj')
    train_args, test_args = _split(args, 'args') if isinstance(
        args, (list, tuple)) else (args, args)
    for m, o in ((train_module, train_obj), (test_module, test_obj)):
        if not isinstance(m, str) or not isinstance(o, str):
            raise ConfigError(
                'define_py_data_sources2: module and obj must be names '
                '(strings), got %s and %s' % (type(m).__name__,
                                              type(o).__name__))

    if train_list is not None:
        TrainData(
            _py_data2(
                files=_file_list(train_list, 'train.list'),
                load_data_module=train_module,
                load_data_object=train_obj,
                load_data_args=_args_string(train_args)))
    if test_list is not None:
        TestData(
            _py_data2(
                files=_file_list(test_list, 'test.list'),
                load_data_module=test_module,
                load_data_object=test_obj,
                load_data_args=_args_string(test_args)))


def define_py_data_sources(train_list, test_list, module, obj, args=None,
                           train_async=False, data_cls=PyData):
    """v1's older spelling of define_py_data_sources2, for the first-generation
    ``PyDataProvider`` (DataConfig type ``py``).

    Arguments as in define_py_data_sources2. With the default ``data_cls`` the
    sources get type ``py``, which this toolkit's trainer does not run (it asks
    you to port the reader to a PyDataProvider2 @provider); ``data_cls=None``
    declares ``py2`` sources, i.e. behaves like define_py_data_sources2. (v1's
    mistakes with a list of files and a (train, test) obj pair are not reproduced.)

    Args:
        train_list (str, list of str or None): the training file list (a path, or
            entries written to ``./train.list``).
        test_list (str, list of str or None): the test file list (``./test.list``);
            not both None.
        module (str or pair of str): the provider's module, or a (train, test) pair.
        obj (str or pair of str): the provider's name in it, or a pair.
        args (optional): the provider's arguments (pickled) or a (train, test) pair.
        train_async (bool, default False): set ``async_load_data`` on the training
            source (v1 loaded it in a background thread; this toolkit always does).
        data_cls (callable or None, default PyData): the parser's DataConfig maker
            (PyData: type ``py``); None: type ``py2``.

    Example:
        >>> cfg = parse_trainer_config(lambda: define_py_data_sources(
        ...     'train.txt', 'test.txt', module='provider', obj='process', data_cls=None))
        >>> cfg.data_config.type, cfg.test_data_config.files
        ('py2', 'test.txt')
    """
    helper = 'define_py_data_sources'
    if train_list is None and test_list is None:
        raise ConfigError('%s: train_list and test_list are both None' %
                          helper)
    train_module, test_module = _split(module, 'module', helper)
    train_obj, test_obj = _split(obj, 'obj', helper)
    train_args, test_args = _split(args, 'args', helper) if isinstance(
        args, (list, tuple)) else (args, args)
    for m, o in ((train_module, train_obj), (test_module, test_obj)):
        if not isinstance(m, str) or not isinstance(o, str):
            raise ConfigError(
                '%s: module and obj must be names (strings), got %s and %s'
                % (helper, type(m).__name__, type(o).__name__))

    def source(files, default_name, m, o, a, async_load):
        files = _file_list(files, default_name)
        if data_cls is None:
            d = _py_data2(files=files, load_data_module=m,
                          load_data_object=o, load_data_args=_args_string(a))
            d.async_load_data = bool(async_load)
            return d
        return data_cls(files=files, load_data_module=m, load_data_object=o,
                        load_data_args=_args_string(a),
                        async_load_data=bool(async_load))

    if train_list is not None:
        TrainData(source(train_list, 'train.list', train_module, train_obj,
                         train_args, train_async))
    if test_list is not None:
        TestData(source(test_list, 'test.list', test_module, test_obj,
                        test_args, False))
