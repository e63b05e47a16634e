"""Sequence demos end to end through `paddle train` on their generated data:
demos/sequence_tagging (embedding -> 5-word window -> tanh -> CRF, decoded by
crf_decoding and scored by the chunk evaluator) and demos/quick_start (a corpus
whose label is the order of two words: bag-of-words models stay at chance, an
LSTM learns it)."""
import os
import re

import numpy as np
import pytest

from test_cli import ROOT, paddle

TAGGING = os.path.join(ROOT, "demos", "sequence_tagging")
QUICK = os.path.join(ROOT, "demos", "quick_start")

CHUNK_TEST = re.compile(r"\]  Test samples=(\d+) cost=(\S+) Eval: __chunk_evaluator_0__=(\S+) precision=(\S+) "
                        r"recall=(\S+) true_chunks=(\d+) result_chunks=(\d+) correct_chunks=(\d+)$", re.M)
CLS_TEST = re.compile(r"\]  Test samples=(\d+) cost=(\S+) Eval: classification_error_evaluator=(\S+)$", re.M)


def test_crf_tagger_reaches_chunk_f1(tmp_path):
    out = str(tmp_path / "out")
    code, _, err = paddle(["train", "--config=trainer_config.crf.py", "--save_dir=" + out, "--num_passes=3",
                           "--log_period=1000", "--seed=1"], TAGGING)
    assert code == 0, err[-3000:]
    tests = CHUNK_TEST.findall(err)
    assert len(tests) == 3 and all(int(t[0]) == 500 for t in tests), err[-2000:]
    f1 = float(tests[-1][2])
    assert f1 >= 0.95, tests
    assert "crfw" in os.listdir(os.path.join(out, "pass-00002"))

    # The saved model decodes through the SWIG API (prediction branch of the config).
    from py_paddle import swig_paddle as api, DataProviderConverter
    from paddle.trainer.PyDataProvider2 import integer_value_sequence
    from paddle.trainer.config_parser import parse_config
    import sys
    sys.path.insert(0, TAGGING)
    try:
        import dataprovider
    finally:
        sys.path.pop(0)
    cwd = os.getcwd()
    os.chdir(TAGGING)
    try:
        conf = parse_config("trainer_config.crf.py", "is_predict=1")  # the config imports dataprovider
    finally:
        os.chdir(cwd)
        sys.modules.pop("dataprovider", None)  # other demos have their own dataprovider module
    gm = api.GradientMachine.createFromConfigProto(conf.model_config)
    gm.loadParameters(os.path.join(out, "pass-00002"))
    sents = dataprovider.generate("test", 50)
    convert = DataProviderConverter([integer_value_sequence(dataprovider.VOCAB_SIZE)])
    res = gm.forwardTest(convert([[w] for w, _ in sents]))[0]
    want = np.concatenate([t for _, t in sents])
    assert res["id"].shape == want.shape
    assert (res["id"] == want).mean() > 0.95


@pytest.mark.parametrize("config,passes,check", [
    ("trainer_config.lr.py", 3, lambda err: err >= 0.4),      # bag of words: chance (0.5)
    ("trainer_config.emb.py", 3, lambda err: err >= 0.4),     # averaged embeddings: chance
    ("trainer_config.cnn.py", 3, lambda err: err <= 0.3),     # 3-word windows: order nearby only
    ("trainer_config.lstm.py", 2, lambda err: err <= 0.05),   # the LSTM sees the order
], ids=["bow", "emb-avg", "cnn", "lstm"])
def test_word_order_needs_a_sequence_model(config, passes, check, tmp_path):
    code, _, err = paddle(["train", "--config=" + config, "--save_dir=" + str(tmp_path / "out"),
                           "--num_passes=%d" % passes, "--log_period=1000", "--seed=1"], QUICK)
    assert code == 0, err[-3000:]
    tests = CLS_TEST.findall(err)
    assert len(tests) == passes and all(int(t[0]) == 500 for t in tests), err[-2000:]
    assert check(float(tests[-1][2])), tests


def test_lstm_and_attention_groups_train_data_parallel(tmp_path):
    """--trainer_count=2 splits batches of sequences across two replicas."""
    code, _, err = paddle(["train", "--config=trainer_config.lstm.py", "--save_dir=" + str(tmp_path / "lstm"),
                           "--num_passes=2", "--trainer_count=2", "--log_period=1000", "--seed=1"], QUICK)
    assert code == 0, err[-3000:]
    assert float(CLS_TEST.findall(err)[-1][2]) <= 0.05
    seq2seq = os.path.join(ROOT, "demos", "seq2seq")
    code, _, err = paddle(["train", "--config=train.conf", "--save_dir=" + str(tmp_path / "s2s"), "--num_passes=1",
                           "--trainer_count=2", "--log_period=1000", "--seed=1"], seq2seq)
    assert code == 0, err[-3000:]
    assert float(CLS_TEST.findall(err)[-1][2]) <= 0.05  # per-token error on held-out sequences
