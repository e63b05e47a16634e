"""`paddle serve` on a real localhost port: its predictions are the Predictor's, bad requests get
a 4xx naming the field, concurrent requests are batched, reloads under load drop and mix
nothing, a slow request times out, and a stop lets in-flight requests finish."""
import concurrent.futures
import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import numpy as np
import pytest

from paddle.serving.client import Client, ServerError
from paddle.trainer.PyDataProvider2 import dense_vector, integer_value_sequence
from py_paddle import DataProviderConverter, swig_paddle as api

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "demos", "mnist")


def _env():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if any(n.startswith("_swig_paddle") for n in os.listdir(os.path.join(ROOT, "py_paddle"))):
        env["PYTHONPATH"] = ROOT  # in-place developer build
    return env


def paddle(args, cwd):
    p = subprocess.run([sys.executable, "-m", "paddle.trainer.cli"] + args, cwd=cwd, env=_env(),
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return p


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server(object):
    def __init__(self, args, cwd):
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        self.log = open(os.path.join(cwd, "serve-%d.log" % self.port), "w+")
        self.proc = subprocess.Popen([sys.executable, "-m", "paddle.trainer.cli", "serve", "--port=%d" % self.port]
                                     + args, cwd=cwd, env=_env(), stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 120
        while time.time() < deadline:
            assert self.proc.poll() is None, self.output()
            try:
                urllib.request.urlopen(self.url + "/ready", timeout=2).read()
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.2)
        else:
            raise AssertionError("the server did not get ready:\n" + self.output())
        self.client = Client(self.url)

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


@pytest.fixture(scope="module")
def digits_models(tmp_path_factory):
    """Two merged digits MLPs (after pass 0 and pass 1)."""
    out = tmp_path_factory.mktemp("serve_digits")
    paddle(["train", "--config=mlp.py", "--save_dir=" + str(out), "--num_passes=2", "--seed=1", "--dot_period=0"], DEMO)
    models = []
    for p in (0, 1):
        path = str(out / ("mlp-%d.paddle" % p))
        paddle(["merge_model", "--config=mlp.py", "--config_args=is_predict=1",
                "--model_dir=" + str(out / ("pass-%05d" % p)), "--output=" + path], DEMO)
        models.append(path)
    return out, models


@pytest.fixture(scope="module")
def digits_server(digits_models):
    out, models = digits_models
    server = Server(["--model_file=" + models[0], "--max_batch=32", "--max_delay_ms=5", "--max_rows=100",
                     "--max_request_bytes=200000"], str(out))
    yield server
    server.stop()


def predictor_outputs(model_file, types, samples):
    predictor = api.Predictor.createFromMergedModel(model_file)
    out = predictor.forward(DataProviderConverter(types)(samples))
    result = {}
    for i, name in enumerate(predictor.getOutputLayerNames()):
        ids, value = out.getSlotIds(i), out.getSlotValue(i)
        result[name] = ids.copyToNumpyArray() if ids is not None else value.copyToNumpyMat()
    return result


def pixels(n, seed=0):
    return np.random.RandomState(seed).rand(n, 64).astype(np.float32)


def test_predictions_are_the_predictors_bit_for_bit(digits_models, digits_server):
    rows = pixels(20)
    want = predictor_outputs(digits_models[1][0], [dense_vector(64)], [[r] for r in rows])
    got = digits_server.client.predict([{"pixel": r.tolist()} for r in rows])
    (name,) = want
    assert np.array_equal(np.asarray(got["outputs"][name], dtype=np.float32), want[name])
    by_npy = digits_server.client.predict_array(rows)
    assert by_npy["outputs"] == got["outputs"] and by_npy["version"] == got["version"]
    ready = digits_server.client.ready()
    assert ready["inputs"] == {"pixel": {"type": "dense_vector", "dim": 64}} and ready["version"] == got["version"]


def _post(url, body, content_type="application/json"):
    request = urllib.request.Request(url + "/predict", data=body, headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def _npz(**arrays):
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _npy(array):
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


@pytest.mark.parametrize("body, content_type, status, message", [
    (b"{not json", "application/json", 400, "body: not JSON"),
    (b'{"inputs": []}', "application/json", 400, "expected {\"rows\": [...]}, got the field(s) inputs"),
    (b'{"rows": []}', "application/json", 400, "rows: expected a non-empty list"),
    (b'{"rows": [{"pixels": []}]}', "application/json", 400, "rows[0]: unknown field(s) pixels"),
    (b'{"rows": [{}]}', "application/json", 400, "rows[0]: missing field(s) pixel"),
    (json.dumps({"rows": [{"pixel": [0.5] * 64}, {"pixel": [1, 2]}]}).encode(), "application/json", 400,
     "rows[1].pixel: expected a dense vector of 64 numbers, got 2"),
    (json.dumps({"rows": [{"pixel": ["a"] * 64}]}).encode(), "application/json", 400, "rows[0].pixel: dense vector"),
    (json.dumps({"rows": [{"pixel": [float("nan")] + [0.0] * 63}]}).encode(), "application/json", 400,
     "rows[0].pixel: dense value 0 is nan"),
    (json.dumps({"rows": [{"pixel": {"index": [70], "value": [1.0]}}]}).encode(), "application/json", 400,
     "rows[0].pixel: sparse id 70 out of range"),
    (json.dumps({"rows": [{"pixel": {"index": [1, 2], "value": [1.0]}}]}).encode(), "application/json", 400,
     "rows[0].pixel.value: expected 2 numbers"),
    (json.dumps({"rows": [{"pixel": {"weights": 1}}]}).encode(), "application/json", 400,
     "rows[0].pixel: expected a list of numbers or {index, value}"),
    (json.dumps({"rows": [{"pixel": [0.0] * 64}] * 101}).encode(), "application/json", 400,
     "101 rows, more than --max_rows=100"),
    (json.dumps({"rows": [{"pixel": [0.123456789] * 64}] * 100}).encode() + b" " * 200000, "application/json", 413,
     "more than --max_request_bytes=200000"),
    (b"\x93NUMPY garbage", "application/x-npy", 400, "body: not an .npy array"),
    (_npy(np.zeros(64, np.float32)), "application/x-npy", 400, "expected a 2-d array (rows x 64)"),
    (_npy(np.zeros((2, 63), np.float32)), "application/x-npy", 400, "rows[0].pixel: expected a dense vector of 64"),
    (_npz(image=np.zeros((2, 64))), "application/x-npz", 400, "the archive holds image; the model reads pixel"),
])
def test_malformed_requests_get_a_4xx_naming_the_field(digits_server, body, content_type, status, message):
    code, answer = _post(digits_server.url, body, content_type)
    assert code == status, answer
    assert message in answer["error"]
    assert "Traceback" not in answer["error"]


def test_wrong_methods_and_paths_are_4xx_and_the_server_keeps_serving(digits_server):
    for method, path, status in (("GET", "/predict", 405), ("GET", "/nothing", 404), ("POST", "/health", 405)):
        request = urllib.request.Request(digits_server.url + path, method=method, data=b"" if method == "POST" else None)
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(request, timeout=10)
        assert e.value.code == status
    assert digits_server.client.predict([{"pixel": [0.5] * 64}])["outputs"]
    metrics = urllib.request.urlopen(digits_server.url + "/metrics").read().decode()
    assert 'paddle_requests_total{path="/predict",status="400"}' in metrics
    assert "paddle_request_latency_seconds_bucket" in metrics and "paddle_batch_rows_bucket" in metrics


def test_concurrent_requests_are_batched_and_each_gets_its_own_rows(digits_models, digits_server):
    rows = pixels(64, seed=3)
    want = predictor_outputs(digits_models[1][0], [dense_vector(64)], [[r] for r in rows])
    (name,) = want
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(lambda k: digits_server.client.predict([{"pixel": rows[k].tolist()}]), range(64)))
    for k, answer in enumerate(answers):
        # batched with others: the same up to the GEMM's rounding for another batch size
        assert np.allclose(answer["outputs"][name][0], want[name][k], rtol=1e-5, atol=1e-7)
    metrics = urllib.request.urlopen(digits_server.url + "/metrics").read().decode()
    single = float([l for l in metrics.splitlines() if l.startswith('paddle_batch_rows_bucket{le="1.0"}')][0].split()[1])
    total = float([l for l in metrics.splitlines() if l.startswith("paddle_batch_rows_count")][0].split()[1])
    assert single < total  # some forward ran more than one request's rows


def test_reload_under_load_loses_and_mixes_nothing(digits_models, tmp_path):
    out, models = digits_models
    rows = pixels(3, seed=7)
    expected = {}
    for path in models:
        from paddle.serving.app import model_version
        (name, values), = predictor_outputs(path, [dense_vector(64)], [[r] for r in rows]).items()
        expected[model_version(path)] = values
    assert len(expected) == 2
    server = Server(["--model_file=" + models[0], "--max_delay_ms=1", "--workers=2"], str(tmp_path))
    try:
        stop = time.time() + 3
        seen = []

        def hammer(_):
            while time.time() < stop:
                answer = server.client.predict([{"pixel": r.tolist()} for r in rows])
                got = np.asarray(answer["outputs"][name], dtype=np.float32)
                seen.append((answer["version"], np.allclose(got, expected[answer["version"]], rtol=1e-5, atol=1e-7)))

        with concurrent.futures.ThreadPoolExecutor(6) as pool:
            load = [pool.submit(hammer, k) for k in range(6)]
            versions = []
            for k in range(6):
                time.sleep(0.4)
                versions.append(server.client.reload(models[(k + 1) % 2])["version"])
            for f in load:
                f.result()  # no request failed
        assert set(versions) == set(expected)
        assert seen and all(ok for _, ok in seen), [v for v, ok in seen if not ok][:5]
        assert {v for v, _ in seen} == set(expected)  # both versions answered
        with pytest.raises(ServerError) as e:
            server.client.reload(str(tmp_path / "missing.paddle"))
        assert e.value.status == 400 and "still serving version" in e.value.message
        damaged = bytearray(open(models[0], "rb").read())
        assert not damaged.endswith(b"PDEXTRA2")  # (so the byte below lies in the last parameter's values)
        damaged[-4 - 8] ^= 1  # the lowest bit of a value: still finite, only the checksum tells
        with open(tmp_path / "damaged.paddle", "wb") as f:
            f.write(damaged)
        with pytest.raises(ServerError) as e:
            server.client.reload(str(tmp_path / "damaged.paddle"))
        assert e.value.status == 400 and "fails its checksum" in e.value.message, e.value.message
        assert "still serving version" in e.value.message
    finally:
        server.stop()


def test_a_request_without_a_result_in_time_is_cancelled(digits_models, tmp_path):
    """A client still sending its body holds the batch open (it may join it) for up to
    --max_delay_ms: longer than --timeout_ms here."""
    server = Server(["--model_file=" + digits_models[1][0], "--max_delay_ms=1500", "--max_batch=64",
                     "--timeout_ms=200"], str(tmp_path))
    slow = socket.create_connection(("127.0.0.1", server.port))
    try:
        slow.sendall(b"POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 1000\r\n\r\n{\"rows\": [")
        time.sleep(0.3)
        with pytest.raises(ServerError) as e:
            server.client.predict([{"pixel": [0.5] * 64}])
        assert e.value.status == 504 and "--timeout_ms=200" in e.value.message
        slow.close()  # a client that goes away mid-body is no error of the server's
        time.sleep(0.3)
        assert server.client.predict([{"pixel": [0.5] * 64}])["outputs"]
        metrics = urllib.request.urlopen(server.url + "/metrics").read().decode()
        assert 'status="504"' in metrics and 'status="5' not in metrics.replace('status="504"', "")
    finally:
        slow.close()
        server.stop()


def test_a_stop_lets_in_flight_requests_finish(digits_models, tmp_path):
    server = Server(["--model_file=" + digits_models[1][0], "--max_delay_ms=1500", "--max_batch=64"], str(tmp_path))
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pending = pool.submit(server.client.predict, [{"pixel": [0.5] * 64}])
        time.sleep(0.5)  # the request waits in its batch
        server.proc.send_signal(signal.SIGTERM)
        assert pending.result(timeout=30)["outputs"]
    # uvicorn re-raises the signal once it has shut down cleanly
    assert server.proc.wait(30) in (0, -signal.SIGTERM)
    assert "Application shutdown complete" in server.output()
    server.stop()


def test_a_text_lstm_serves_sequences(tmp_path):
    """Word-id sequences in; per row the pooled class probabilities and the max id."""
    conf = os.path.join(ROOT, "configs", "text_lstm.py")
    paddle(["train", "--config=" + conf, "--config_args=dict_dim=50", "--data=synthetic:64", "--num_passes=1",
            "--save_dir=" + str(tmp_path / "out"), "--dot_period=0"], str(tmp_path))
    model = str(tmp_path / "lstm.paddle")
    paddle(["merge_model", "--config=" + conf, "--config_args=dict_dim=50,is_predict=1",
            "--model_dir=" + str(tmp_path / "out" / "pass-00000"), "--output=" + model], str(tmp_path))
    rng = np.random.RandomState(0)
    sentences = [rng.randint(0, 50, size=rng.randint(1, 12)).tolist() for _ in range(9)]
    want = predictor_outputs(model, [integer_value_sequence(50)], [[s] for s in sentences])
    server = Server(["--model_file=" + model], str(tmp_path))
    try:
        got = server.client.predict([{"word": s} for s in sentences])
        assert got["outputs"]["maxid"] == want["maxid"].tolist()
        assert np.array_equal(np.asarray(got["outputs"]["output"], dtype=np.float32), want["output"])
        with pytest.raises(ServerError) as e:
            server.client.predict([{"word": [3, 51]}])
        assert e.value.status == 400 and "rows[0].word: timestep 1: integer value 51 out of range [0, 50)" in e.value.message
        with pytest.raises(ServerError) as e:
            server.client.predict([{"word": 3}])
        assert e.value.status == 400 and "rows[0].word: expected a sequence" in e.value.message
    finally:
        server.stop()


WINE_CONFIG = """\
from paddle.trainer_config_helpers import *
is_predict = get_config_arg('is_predict', bool, False)
define_py_data_sources2(train_list=None if is_predict else 'train.list', test_list='train.list',
                        module='paddle.trainer.readers', obj='csv',
                        args={'label_column': 'species', 'preprocess': {'columns': {'*': 'zscore'}}})
settings(batch_size=10, learning_rate=0.01, learning_method=AdamOptimizer())
hidden = fc_layer(input=data_layer(name='features', size=13), size=16, act=TanhActivation())
prob = fc_layer(input=hidden, size=3, act=SoftmaxActivation(), name='prob')
if is_predict:
    outputs(prob)
else:
    outputs(classification_cost(input=prob, label=data_layer(name='species', size=3)))
"""


def test_a_model_with_preprocessing_takes_raw_rows_and_answers_class_names(tmp_path):
    """The csv reader's fitted normalisation and label vocabulary travel in the merged model:
    raw cells (or {column: cell}) in, the class names out, as RawPredictor gives them."""
    from sklearn.datasets import load_wine
    from py_paddle.deploy import RawPredictor
    wine = load_wine()
    names = [n.replace("/", "_") for n in wine.feature_names]
    with open(str(tmp_path / "train.csv"), "w") as f:
        f.write(",".join(names + ["species"]) + "\n")
        for x, y in zip(wine.data, wine.target):
            f.write(",".join("%g" % v for v in x) + "," + wine.target_names[y] + "\n")
    (tmp_path / "train.list").write_text("train.csv\n")
    (tmp_path / "wine.py").write_text(WINE_CONFIG)
    paddle(["train", "--config=wine.py", "--save_dir=out", "--num_passes=3", "--dot_period=0"], str(tmp_path))
    model = str(tmp_path / "wine.paddle")
    paddle(["merge_model", "--config=wine.py", "--config_args=is_predict=1", "--model_dir=out/pass-00002",
            "--output=" + model], str(tmp_path))
    rows = [["%g" % v for v in x] for x in wine.data[::20]]
    want = RawPredictor(model).predict(rows)
    server = Server(["--model_file=" + model], str(tmp_path))
    try:
        ready = server.client.ready()
        assert ready["raw_rows"] and ready["labels"] == ["class_0", "class_1", "class_2"]
        got = server.client.predict(rows)
        assert got["label"] == want["label"] and got["id"] == want["id"].tolist()
        assert np.array_equal(np.asarray(got["outputs"]["prob"], dtype=np.float32), want["prob"])
        by_name = server.client.predict([dict(zip(names, r)) for r in rows])
        assert by_name["label"] == got["label"]
        with pytest.raises(ServerError) as e:
            server.client.predict([rows[0][:5]])
        assert e.value.status == 400 and "row 0" in e.value.message
    finally:
        server.stop()
    # The training network merged as is: the server answers what the cost scores, without the label.
    training = str(tmp_path / "wine-training.paddle")
    merged = paddle(["merge_model", "--config=wine.py", "--model_dir=out/pass-00002", "--output=" + training],
                    str(tmp_path))
    assert "its outputs are cost layers (__cost_0__), so a Predictor of it wants the label" in merged.stdout
    server = Server(["--model_file=" + training], str(tmp_path))
    try:
        assert server.client.ready()["outputs"] == ["prob"]
        got = server.client.predict(rows)
        assert got["label"] == want["label"] and np.array_equal(np.asarray(got["outputs"]["prob"], np.float32),
                                                                want["prob"])
        assert "outputs the cost layer(s) __cost_0__: serving what they score, prob, without the label" \
            in server.output()
    finally:
        server.stop()
