"""The front end (config language, parser, YAML, data providers, messages) never imports
the engine binding py_paddle: configs parse and providers load on a machine without the
compiled engine, and py_paddle may build on the front end without an import circle."""
import subprocess
import sys

FRONT_END = [
    "paddle.proto", "paddle.trainer.config_parser", "paddle.trainer_config_helpers",
    "paddle.yaml_config", "paddle.trainer.PyDataProvider2", "paddle.trainer.data_provider",
    "paddle.trainer.batch_conversion",
    "paddle.utils.dump_config", "paddle.utils.make_model_diagram",
]


def test_front_end_modules_do_not_import_the_engine():
    code = ("import importlib, sys\n"
            "for m in %r:\n"
            "    importlib.import_module(m)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'py_paddle'))\n" % FRONT_END)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out
