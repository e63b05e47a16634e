"""The engine from Java (`paddle build_java`, demos/java) and from C++ (demos/cpp):
their predictions equal Python's, Java training lowers the cost, and engine errors
arrive as Java exceptions."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from paddle.proto import message_to_json
from paddle.trainer.config_parser import parse_config
from py_paddle import swig_paddle as api
from py_paddle.deploy import merge_model

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MNIST = os.path.join(ROOT, "demos", "mnist")
JAVA_DEMO = os.path.join(ROOT, "demos", "java")
CPP_DEMO = os.path.join(ROOT, "demos", "cpp")
JAVA_BATCH = 128  # Predict.java's batch size

pytestmark = [pytest.mark.skipif(shutil.which("javac") is None, reason="no JDK (javac) on PATH"),
              pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ to compile the JNI wrapper")]


def environment():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if any(n.startswith("_swig_paddle") for n in os.listdir(os.path.join(ROOT, "py_paddle"))):
        env["PYTHONPATH"] = ROOT  # in-place developer build
    return env


def run(cmd, cwd, check=True):
    p = subprocess.run(cmd, cwd=cwd, env=environment(), capture_output=True, text=True, timeout=600)
    assert not check or p.returncode == 0, "%s\n%s\n%s" % (" ".join(cmd), p.stdout[-3000:], p.stderr[-3000:])
    return p


def paddle(args, cwd):
    return run([sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())"] + args, cwd)


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """A directory with the digits data files (demos/java/prepare_data.py)."""
    out = tmp_path_factory.mktemp("java")
    run([sys.executable, os.path.join(JAVA_DEMO, "prepare_data.py"), str(out)], JAVA_DEMO)
    return out


@pytest.fixture(scope="module")
def java(work):
    """The classpath of the binding (built by the documented command) and the compiled examples."""
    build = work / "build"
    p = paddle(["build_java", "--output", str(build)], str(work))
    assert "wrote" in p.stdout
    classes = work / "classes"
    sources = [os.path.join(JAVA_DEMO, n) for n in ("Predict.java", "Train.java", "Digits.java")]
    run(["javac", "-cp", str(build / "paddle.jar"), "-d", str(classes)]
        + sources + [os.path.join(ROOT, "tests", "java", "ApiChecks.java")], str(work))
    return os.pathsep.join([str(build / "paddle.jar"), str(classes)])


def java_run(classpath, args, cwd):
    return run(["java", "-cp", classpath] + args, str(cwd))


@pytest.fixture(scope="module")
def model(work):
    """(pass directory, merged model) of the digits MLP (is_predict=1) with random weights."""
    cwd = os.getcwd()
    os.chdir(MNIST)
    try:
        conf = parse_config("mlp.py", "is_predict=1").model_config
        gm = api.GradientMachine.createByConfigJson(message_to_json(conf), False, 7)
        gm.randParameters()
        pass_dir = str(work / "pass-00000")
        os.makedirs(pass_dir)
        gm.saveParameters(pass_dir)
        merged = str(work / "mlp.paddle")
        merge_model("mlp.py", pass_dir, merged, "is_predict=1")
    finally:
        os.chdir(cwd)
    return pass_dir, merged


def read_split(path):
    sys.path.insert(0, JAVA_DEMO)
    try:
        from prepare_data import read_split as read
    finally:
        sys.path.remove(JAVA_DEMO)
    return read(path)


def forward(gm, images):
    """The first output of a test-mode forward over one batch of images."""
    args = api.Arguments.createArguments(1)
    args.setSlotValueFromBuffer(0, np.ascontiguousarray(images, dtype=np.float32))
    return gm.forwardTest(args)[0]["value"]


def test_java_and_cpp_predict_what_python_predicts(java, model, work, monkeypatch):
    pass_dir, merged = model
    images, labels = read_split(str(work / "digits_test.bin"))
    monkeypatch.chdir(MNIST)
    from_pass = api.GradientMachine.createFromConfigProto(parse_config("mlp.py", "is_predict=1").model_config)
    from_pass.loadParameters(pass_dir)
    want = forward(from_pass, images)
    from_file = api.GradientMachine.createFromMergedModel(merged)
    assert forward(from_file, images).tolist() == want.tolist()

    p = java_run(java, ["Predict", merged, str(work / "digits_test.bin"), str(work / "java.bin")], work)
    got = np.fromfile(str(work / "java.bin"), dtype="<f4").reshape(want.shape)
    # Predict.java runs batches of 128 rows: compare with Python on the same batches too.
    batched = np.concatenate([forward(from_file, images[i:i + JAVA_BATCH]) for i in range(0, len(images), JAVA_BATCH)])
    assert np.abs(got - batched).max() <= 1e-6
    assert np.abs(got - want).max() <= 1e-6
    accuracy = float(np.mean(want.argmax(axis=1) == labels))
    assert "%d images, accuracy %.4f" % (len(labels), accuracy) in p.stdout

    exe = str(work / "predict")
    flags = paddle(["build_java", "--cxxflags"], str(work)).stdout.split()
    run(["g++", "-O2", os.path.join(CPP_DEMO, "predict.cpp"), "-o", exe] + flags, str(work))
    p = run([exe, merged, str(work / "digits_test.bin"), str(work / "cpp.bin")], str(work))
    got = np.fromfile(str(work / "cpp.bin"), dtype="<f4").reshape(want.shape)
    assert np.abs(got - want).max() <= 1e-6
    assert "%d images, accuracy %.4f" % (len(labels), accuracy) in p.stdout
    p = run([exe, merged + ".missing", str(work / "digits_test.bin")], str(work), check=False)
    assert p.returncode == 1 and "cannot open merged model" in p.stderr


@pytest.fixture(scope="module")
def trainer_json(work):
    """The digits MLP's TrainerConfig as JSON, as the Java examples take it."""
    config = work / "mlp.json"
    config.write_text(paddle(["dump_config", "mlp.py", "--whole", "--format=json"], MNIST).stdout)
    return config


def test_java_training_of_one_pass_lowers_the_cost(java, work, trainer_json):
    config = trainer_json
    save = work / "trained"
    p = java_run(java, ["Train", str(config), str(work / "digits_train.bin"), "1", str(save)], work)
    costs = [float(c) for c in re.findall(r"pass 0 batch \d+ cost ([0-9.]+)", p.stdout)]
    assert len(costs) == 4, p.stdout  # 1437 samples, batches of 32, a line every 10 batches
    assert costs[-1] < 0.5 * costs[0], costs
    # The saved parameters are v1's files: Python loads them.
    gm = api.GradientMachine.createByConfigJson(message_to_json(parse_config(
        os.path.join(MNIST, "mlp.py"), "is_predict=1").model_config), False, 1)
    gm.loadParameters(str(save))
    images, labels = read_split(str(work / "digits_test.bin"))
    assert np.mean(forward(gm, images).argmax(axis=1) == labels) > 0.8


def test_engine_errors_are_java_exceptions_and_buffers_cross(java, model, work, trainer_json):
    _, merged = model
    p = java_run(java, ["ApiChecks", merged, "64", str(trainer_json)], work)
    results = dict(line.split(": ", 1) for line in p.stdout.splitlines())
    assert results["bad model path"].startswith("java.io.UncheckedIOException: cannot open merged model")
    assert results["bad input shape"].startswith("java.lang.IllegalArgumentException: data layer 'pixel' has size 64")
    assert results["array size"].startswith("java.lang.IllegalArgumentException: Matrix.createDenseFromArray")
    assert results["index"].startswith("java.lang.IndexOutOfBoundsException")
    assert results["slot index"].startswith("java.lang.IndexOutOfBoundsException")
    assert results["null array"].startswith("java.lang.NullPointerException")
    assert results["heap buffer"].startswith("java.lang.IllegalArgumentException: the FloatBuffer must be direct")
    assert results["byte order"].startswith("java.lang.IllegalArgumentException: the FloatBuffer is")
    assert results["wrong output size"].startswith("java.lang.IllegalArgumentException: Matrix.copyToArray")
    assert results["array round trip"] == "ok [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]"
    assert results["buffer round trip"] == "ok 3x2 [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]"
    assert results["vectors"] == "ok 2 -2.0 [7, 8, 9]"
    assert results["gradient machine equals predictor"] == "ok true 6"
    assert results["init"] == "ok false 1"
    assert results["predictor threads"] == "ok true"
    assert results["v1 training loop"].startswith("ok true"), results["v1 training loop"]
    assert results["evaluator fields"] == "ok 1 classification_error_evaluator -1 true"


def test_build_java_without_a_jdk_says_so(tmp_path):
    env = dict(environment(), JAVA_HOME=str(tmp_path))
    p = subprocess.run([sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())",
                        "build_java", "--output", str(tmp_path)], env=env, capture_output=True, text=True)
    assert p.returncode == 1
    assert "paddle build_java: error: %s is not a JDK (no include/jni.h)" % tmp_path in p.stderr
