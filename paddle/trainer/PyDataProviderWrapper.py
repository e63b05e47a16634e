"""v1's first Python data provider API (PyDataProviderWrapper, used through PyData /
define_py_data_sources). It is not supported: importing it says what to use instead."""

raise ImportError(
    "paddle.trainer.PyDataProviderWrapper (v1's first provider API) is not supported: write the "
    "provider with PyDataProvider2 (from paddle.trainer.PyDataProvider2 import *; @provider("
    "input_types=[...]) on a generator of samples) and declare it in the config with "
    "define_py_data_sources2(train_list, test_list, module, obj)")
