"""Helpers shared by the data provider tests."""

import pickle
import types


def data_config(module, obj, files='data.list', args=None, for_test=False):
    """A duck-typed DataConfig message."""
    if args is None:
        pickled = ""
    else:
        pickled = pickle.dumps(args, protocol=0).decode('latin-1')
    return types.SimpleNamespace(
        type='py2', files=files, load_data_module=module,
        load_data_object=obj, load_data_args=pickled, for_test=for_test)
