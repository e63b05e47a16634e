"""`paddle train` with v1's validation layers in a config: their values in the pass lines,
and --predict_file holding the samples they were computed from."""
import re
import textwrap

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from test_cli import paddle

PROVIDER = """
import numpy as np
from paddle.trainer.PyDataProvider2 import *

@provider(input_types=[dense_vector(4), integer_value(2), integer_value(5)])
def process(settings, filename):
    rng = np.random.RandomState(0)
    for i in range(200):
        x = rng.randn(4)
        yield x.tolist(), int(x[0] + 0.5 * x[1] + 0.5 * rng.randn() > 0), int(rng.randint(5))
"""

CONFIG = """
from paddle.trainer_config_helpers import *
from paddle.trainer.config_parser import Inputs, Layer
define_py_data_sources2(train_list='train.list', test_list=None, module='provider', obj='process')
settings(batch_size=20, learning_rate=0.01, learning_method=MomentumOptimizer(0.9))
x = data_layer(name='x', size=4)
y = data_layer(name='y', size=2)
q = data_layer(name='q', size=5)
prob = fc_layer(input=x, size=2, act=SoftmaxActivation())
Layer(name='auc', type='auc-validation', inputs=[prob.name, 'y'])
Layer(name='pnpair', type='pnpair-validation', inputs=[prob.name, 'y', 'q'])
Inputs('x', 'y', 'q')  # q feeds no output, so outputs() alone would leave it out
outputs(classification_cost(input=prob, label=y))
"""


def pnpair_ratio(score, label, query):
    pos = neg = 0
    for i in range(len(score)):
        for j in range(i + 1, len(score)):
            if query[i] == query[j] and label[i] != label[j] and score[i] != score[j]:
                if (label[i] > label[j]) == (score[i] > score[j]):
                    pos += 1
                else:
                    neg += 1
    return pos / neg


def test_train_prints_the_validation_values_and_writes_the_predict_file(tmp_path):
    (tmp_path / "provider.py").write_text(textwrap.dedent(PROVIDER))
    (tmp_path / "config.py").write_text(textwrap.dedent(CONFIG))
    (tmp_path / "train.list").write_text("dummy\n")
    predict = tmp_path / "predict.txt"
    code, _, err = paddle(["train", "--config=config.py", "--num_passes=2", "--log_period=5",
                           "--save_dir=" + str(tmp_path / "out"), "--predict_file=" + str(predict)],
                          str(tmp_path))
    assert code == 0, err
    assert "--predict_file is accepted" not in err
    passes = re.findall(r"\]  Pass=(\d) Batch=10 samples=200 AvgCost=\S+ "
                        r"Eval: classification_error_evaluator=\S+ auc=(\S+) pnpair=(\S+) time=", err, re.M)
    assert [p[0] for p in passes] == ["0", "1"], err
    assert re.search(r"\]  Batch=5 samples=100 .* Eval: .* auc=\S+ pnpair=\S+ +CurrentEval: .* auc=\S+ pnpair=",
                     err)
    # the file holds the last pass's samples as the pnpair layer (the last one) wrote them
    rows = np.loadtxt(str(predict))
    assert rows.shape == (200, 3)
    score, label, query = rows[:, 0], rows[:, 1].astype(int), rows[:, 2].astype(int)
    assert set(label) == {0, 1} and set(query) <= set(range(5))
    auc, pnpair = float(passes[1][1]), float(passes[1][2])
    assert auc == pytest.approx(roc_auc_score(label, score), abs=1e-3)
    assert pnpair == pytest.approx(pnpair_ratio(score, label, query), rel=1e-4)
