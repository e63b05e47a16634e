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
    """Train/test data from a PyDataProvider2 @provider function.

    train_list / test_list: path of a text file listing data files (or
    None to skip). module, obj, args may each be a 2-item (train, test)
    pair. A non-string args is pickled (protocol 0) into load_data_args.
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
    """b0 spelling (removed from __all__ in b1): like
    define_py_data_sources2 but, by default, for the old PyDataProvider
    (DataConfig type "py"); data_cls=None gives "py2". train_async sets
    async_load_data of the train source. (b0's bugs with a list of files
    and a (train, test) obj pair are not reproduced.)"""
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
