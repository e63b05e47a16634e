"""`paddle predict` on the digits MLP (demos/mnist/mlp.py, a few passes): every format holds
what forwardTest of the SWIG API computes for the same samples (to float32 rounding: the
reference runs all samples in one batch, the command in the config's batches of 32), the predicted classes reach
> 90% accuracy, and a merged model predicts the same as its pass directory."""
import json
import os
import sys

import numpy as np
import pytest

from test_cli import DEMO, paddle


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("predict_model"))
    code, _, err = paddle(["train", "--config=mlp.py", "--save_dir=" + out, "--num_passes=3",
                           "--dot_period=0", "--seed=1"], DEMO)
    assert code == 0, err[-2000:]
    return os.path.join(out, "pass-00002")


@pytest.fixture(scope="module")
def reference(model):
    """(test images, labels, forwardTest probabilities) through the SWIG API."""
    from paddle.trainer.config_parser import parse_config
    from py_paddle import swig_paddle as api
    from py_paddle.util import DataProviderConverter
    from paddle.trainer.PyDataProvider2 import dense_vector
    sys.path.insert(0, DEMO)
    try:
        from mnist_provider import load_digits_split
        images, labels = load_digits_split("test")
    finally:
        sys.path.remove(DEMO)
    api.initPaddle("--use_gpu=0")
    conf = parse_config(os.path.join(DEMO, "mlp.py"), "is_predict=1")
    gm = api.GradientMachine.createFromConfigProto(conf.model_config)
    gm.loadParameters(model)
    args = DataProviderConverter([dense_vector(64)]).convert([[x] for x in images])
    probs = gm.forwardTest(args)[0]["value"]
    return np.asarray(images), np.asarray(labels), probs


def predict(args, tmp_path):
    code, out, err = paddle(["predict", "--config=mlp.py", "--config_args=is_predict=1"] + args, DEMO)
    assert code == 0, err[-2000:]
    return out


@pytest.mark.parametrize("fmt", ["text", "npy", "jsonl"])
def test_formats_match_forward_test(model, reference, fmt, tmp_path):
    _, labels, probs = reference
    dest = tmp_path / ("pred." + fmt)
    out = predict(["--model_dir=" + model, "--output=" + str(dest), "--format=" + fmt], tmp_path)
    assert "360 samples" in out
    if fmt == "text":  # v1's --predict_output_dir rows
        rows = dest.read_text().splitlines()
        assert all(r.endswith(";") and r.count(";") == 1 for r in rows)
        got = np.array([[float(v) for v in r[:-1].split()] for r in rows])
        np.testing.assert_allclose(got, probs, rtol=1e-4, atol=1e-7)  # %g keeps 6 digits
    elif fmt == "npy":
        got = np.load(str(dest))
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, probs, rtol=1e-4, atol=1e-7)
    else:
        lines = [json.loads(l) for l in dest.read_text().splitlines()]
        assert len(lines) == 360 and all(list(l) == ["__fc_layer_2__"] for l in lines)
        got = np.array([l["__fc_layer_2__"] for l in lines], np.float32)
        np.testing.assert_allclose(got, probs, rtol=1e-4, atol=1e-7)
    assert got.shape == (360, 10)
    assert (got.argmax(1) == probs.argmax(1)).all()
    assert (got.argmax(1) == labels).mean() > 0.9


def test_ids_several_layers_data_list_and_merged_model(model, reference, tmp_path):
    images, labels, probs = reference
    # a config whose outputs are a max_id layer (ids) and the probabilities
    conf = tmp_path / "mlp_ids.py"
    conf.write_text(open(os.path.join(DEMO, "mlp.py")).read().replace(
        "    outputs(predict)", "    outputs(maxid_layer(input=predict, name='best'), predict)"))
    dest = tmp_path / "ids.jsonl"
    code, _, err = paddle(["predict", "--config=" + str(conf), "--config_args=is_predict=1", "--model_dir=" + model,
                           "--output=" + str(dest), "--format=jsonl"], DEMO)
    assert code == 0, err[-2000:]
    rows = [json.loads(l) for l in dest.read_text().splitlines()]
    assert [r["best"] for r in rows] == probs.argmax(1).tolist()
    text = tmp_path / "ids.txt"
    code, _, err = paddle(["predict", "--config=" + str(conf), "--config_args=is_predict=1", "--model_dir=" + model,
                           "--output=" + str(text)], DEMO)
    assert code == 0, err[-2000:]
    first = text.read_text().splitlines()[0]
    assert first.startswith("%d;" % probs[0].argmax()) and first.count(";") == 2

    # --output_layers picks layers (a hidden one too): an .npz archive by layer
    npz = tmp_path / "two.npz"
    predict(["--model_dir=" + model, "--output=" + str(npz), "--format=npy",
             "--output_layers=__fc_layer_1__,__fc_layer_2__"], tmp_path)
    arrays = np.load(str(npz))
    assert sorted(arrays.files) == ["__fc_layer_1__", "__fc_layer_2__"]
    assert arrays["__fc_layer_1__"].shape == (360, 512)
    np.testing.assert_allclose(arrays["__fc_layer_2__"], probs, rtol=1e-4, atol=1e-7)

    # --data_list reads another list (the training split here)
    train_list = tmp_path / "train.list"
    train_list.write_text("data/train\n")
    dest = tmp_path / "train.npy"
    out = predict(["--model_dir=" + model, "--output=" + str(dest), "--format=npy",
                   "--data_list=" + str(train_list)], tmp_path)
    assert "1437 samples" in out and np.load(str(dest)).shape == (1437, 10)

    # a merged model predicts exactly what its pass directory does
    merged = tmp_path / "model.paddle"
    code, _, err = paddle(["merge_model", "--config=mlp.py", "--config_args=is_predict=1", "--model_dir=" + model,
                           "--output=" + str(merged)], DEMO)
    assert code == 0, err
    dest, from_dir = tmp_path / "merged.npy", tmp_path / "dir.npy"
    predict(["--model_file=" + str(merged), "--output=" + str(dest), "--format=npy"], tmp_path)
    predict(["--model_dir=" + model, "--output=" + str(from_dir), "--format=npy"], tmp_path)
    np.testing.assert_array_equal(np.load(str(dest)), np.load(str(from_dir)))


def test_predict_output_dir_rows_are_the_same_text(model, tmp_path):
    """`paddle train --job=test --predict_output_dir` writes with the same function."""
    pred_dir = tmp_path / "pred"
    code, _, err = paddle(["train", "--config=mlp.py", "--job=test", "--config_args=is_predict=1",
                           "--init_model_path=" + model, "--predict_output_dir=" + str(pred_dir)], DEMO)
    assert code == 0, err[-2000:]
    dest = tmp_path / "pred.txt"
    predict(["--model_dir=" + model, "--output=" + str(dest)], tmp_path)
    assert (pred_dir / "rank-00000").read_text() == dest.read_text()


def test_errors_are_one_line(model, tmp_path):
    for args, message in [(["--model_dir=" + model, "--output=x", "--output_layers=nope"], "no layer 'nope'"),
                          (["--model_dir=" + str(tmp_path / "missing"), "--output=x"], "does not exist"),
                          (["--model_file=" + str(tmp_path / "none.paddle"), "--output=x"], "does not exist")]:
        code, _, err = paddle(["predict", "--config=mlp.py", "--config_args=is_predict=1"] + args, DEMO)
        assert code == 1 and message in err and len(err.strip().splitlines()) == 1, err
    code, _, err = paddle(["predict", "--config=mlp.py", "--output=x"], DEMO)
    assert code == 2 and "--model_dir" in err  # one of --model_dir / --model_file is required


def test_sequence_outputs_in_every_format(tmp_path):
    """Per-token outputs: text keeps v1's one row per token, each sample's rows ended by an
    empty line; jsonl gives each sample the list of its rows; npy stacks the rows and keeps
    the sequence starts across batches."""
    from paddle.trainer.predict import LayerResult, PredictionWriter
    batches = [[LayerResult("tags", np.array([3, 1, 4], np.int32), np.array([0, 2, 3], np.int32)),
                LayerResult("prob", np.array([[.5, .5], [.25, .75], [1, 0]], np.float32),
                            np.array([0, 2, 3], np.int32))],
               [LayerResult("tags", np.array([1, 5], np.int32), np.array([0, 2], np.int32)),
                LayerResult("prob", np.array([[0, 1], [.125, .875]], np.float32), np.array([0, 2], np.int32))]]
    for fmt in ("text", "jsonl", "npy"):
        w = PredictionWriter(str(tmp_path / fmt), fmt)
        for b in batches:
            w.write(b)
        w.close()
        assert w.samples == 3
    assert (tmp_path / "text").read_text().splitlines() == [  # a row per token, an empty line ends a sample
        "3;0.5 0.5;", "1;0.25 0.75;", "", "4;1 0;", "", "1;0 1;", "5;0.125 0.875;", ""]
    rows = [json.loads(l) for l in (tmp_path / "jsonl").read_text().splitlines()]
    assert rows == [{"tags": [3, 1], "prob": [[.5, .5], [.25, .75]]}, {"tags": [4], "prob": [[1, 0]]},
                    {"tags": [1, 5], "prob": [[0, 1], [.125, .875]]}]
    arrays = np.load(str(tmp_path / "npy"))
    assert arrays["tags"].tolist() == [3, 1, 4, 1, 5]
    assert arrays["tags.seq_starts"].tolist() == [0, 2, 3, 5] == arrays["prob.seq_starts"].tolist()
    assert arrays["prob"].shape == (5, 2)
