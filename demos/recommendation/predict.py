"""Predict the rating a user gives a movie with a trained recommendation model.

    python predict.py output/pass-00009 USER_ID MOVIE_ID [--config_args=dataset=ml-1m]

prints 'Prediction Score is X' (X on the 1..5 scale; v1's prediction.py asked
for the ids interactively)."""
import argparse

from paddle.trainer.config_parser import parse_config
from py_paddle import swig_paddle as api, DataProviderConverter

import dataprovider
import movielens


class Settings(object):
    pass


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model_dir")
    p.add_argument("user_id", type=int)
    p.add_argument("movie_id", type=int)
    p.add_argument("--config_args", default="", help="the training run's config args, e.g. hidden=64")
    args = p.parse_args(argv)
    config_args = ",".join(a for a in (args.config_args, "is_predict=1") if a)
    conf = parse_config("trainer_config.py", config_args)
    dataset = dict(kv.split("=", 1) for kv in config_args.split(",")).get("dataset", "synthetic")
    settings = Settings()
    dataprovider.hook(settings, **({"meta_file": "data/ml-1m-prepared/meta.json"} if dataset == "ml-1m" else {}))
    api.initPaddle("--use_gpu=0")
    gm = api.GradientMachine.createFromConfigProto(conf.model_config)
    gm.loadParameters(args.model_dir)
    line = "%d::%d::3::0" % (args.user_id, args.movie_id)  # the rating field is not used
    features = dataprovider.sample(settings.meta, line)[:-1]
    convert = DataProviderConverter(settings.input_types[:-1])
    similarity = gm.forwardTest(convert([features]))[0]["value"][0, 0]
    print("Prediction Score is %.2f" % ((similarity + 5) / 2))  # undo score * 2 - 5


if __name__ == "__main__":
    main()
