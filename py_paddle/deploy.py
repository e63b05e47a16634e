"""Deployment: `paddle merge_model` writes a trained pass as one file (v1's paddle_merge_model).

The file holds the network's ModelConfig and all its parameters, so a program can
serve the model without the config's Python: `GradientMachine.createFromMergedModel`
or `Predictor.createFromMergedModel` from Python, Java or C++ (see the README section "Deploying a model").
"""
import argparse
import os

from paddle.proto import message_to_json
from paddle.trainer.config_parser import parse_config
from py_paddle import swig_paddle as api


def load_trained_machine(model_config, model_dir, use_gpu=False, config_name="the config"):
    """A GradientMachine of `model_config` (a ModelConfig message) with the parameters of a
    saved pass; a missing parameter file is an OSError naming it."""
    if not os.path.isdir(model_dir):
        raise OSError("model directory %s does not exist" % model_dir)
    gm = api.GradientMachine.createByConfigJson(message_to_json(model_config), use_gpu, 1)
    missing = [p.getName() for p in gm.getParameters() if not os.path.exists(os.path.join(model_dir, p.getName()))]
    if missing:
        raise OSError("%s has no file for parameter(s) %s of %s (is it the right pass directory and config?)"
                      % (model_dir, ", ".join(missing), config_name))
    gm.loadParameters(model_dir)
    return gm


def merge_model(config, model_dir, output, config_args=""):
    """Writes `output` from the config file and the parameter files in `model_dir`."""
    gm = load_trained_machine(parse_config(config, config_args).model_config, model_dir, config_name=config)
    tmp = output + ".tmp-%d" % os.getpid()
    try:
        gm.saveMergedModel(tmp)
        os.replace(tmp, output)  # a reader never sees half a file
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return gm.getParameterSize()


def main(argv):
    p = argparse.ArgumentParser(prog="paddle merge_model", description=__doc__.splitlines()[0])
    p.add_argument("--config", "--config_file", dest="config", required=True, help="the trainer config")
    p.add_argument("--model_dir", required=True, help="a saved pass, e.g. output/pass-00009")
    p.add_argument("--output", "--model_file", dest="output", required=True, help="the merged model to write")
    p.add_argument("--config_args", default="",
                   help="config arguments, e.g. is_predict=1 for a config that has a prediction variant")
    args = p.parse_args(argv)
    n = merge_model(args.config, args.model_dir, args.output, args.config_args)
    print("paddle merge_model: wrote %s (%d parameters)" % (args.output, n))
    return 0
