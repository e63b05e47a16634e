"""scikit-learn's wine data as a user has it: a raw CSV (unscaled features, proline ~750
beside hue ~1, string class names), with file lists and a small classifier config."""
import os

import numpy as np

CONFIG = """
from paddle.trainer_config_helpers import *
define_py_data_sources2(train_list='train.list', test_list='test.list', module='paddle.trainer.readers',
                        obj='csv', args={{'label_column': 'species'{preprocess}}})
settings(batch_size=16, learning_rate=0.01, learning_method=MomentumOptimizer(0.9))
x = data_layer(name='features', size=13)
h = fc_layer(input=x, size={hidden}, act=ReluActivation())
out = fc_layer(input=h, size=3, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='label', size=3)))
"""
ZSCORE = ", 'preprocess': {'columns': 'zscore'}"  # the fix the health warning names


def write_wine(folder, name="wine.py", hidden=32, preprocess=""):
    """The CSVs (140 training rows, 38 test rows), their lists and config `name` in `folder`;
    returns the config's path."""
    from sklearn.datasets import load_wine
    data = load_wine()
    order = np.random.RandomState(0).permutation(len(data.target))
    columns = [n.replace("/", "_") for n in data.feature_names] + ["species"]
    for split, rows in (("train", order[:140]), ("test", order[140:])):
        path = os.path.join(folder, split + ".csv")
        if not os.path.exists(path):
            with open(path, "w") as f:
                f.write(",".join(columns) + "\n")
                for i in rows:
                    f.write(",".join("%g" % v for v in data.data[i]) + "," + data.target_names[data.target[i]] + "\n")
        with open(os.path.join(folder, split + ".list"), "w") as f:
            f.write(split + ".csv\n")
    config = os.path.join(folder, name)
    with open(config, "w") as f:
        f.write(CONFIG.format(hidden=hidden, preprocess=preprocess))
    return config
