"""Label the arguments of one predicate of a sentence with a trained db_lstm model.

    python predict.py output/pass-00004 "det1 noun3 verb2 det0 noun7" 2 [--predicate LEMMA]
                      [--config_args=dataset=conll05,...]

The number is the predicate's position (0-based); its dictionary entry is the
word itself unless --predicate names the lemma. Prints word/LABEL pairs."""
import argparse

from paddle.trainer.config_parser import parse_config
from py_paddle import swig_paddle as api, DataProviderConverter

import conll05
import dataprovider


class Settings(object):
    pass


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model_dir")
    p.add_argument("sentence")
    p.add_argument("position", type=int)
    p.add_argument("--predicate", default=None)
    p.add_argument("--config_args", default="", help="the training run's config args, e.g. hidden_dim=64")
    args = p.parse_args(argv)
    words = args.sentence.split()
    if not 0 <= args.position < len(words):
        p.error("position %d is outside the sentence's %d words" % (args.position, len(words)))
    config_args = ",".join(a for a in (args.config_args, "is_predict=1") if a)
    dataset = dict(kv.split("=", 1) for kv in config_args.split(",")).get("dataset", "synthetic")
    word_list, predicate_list, label_list = conll05.dictionaries(dataset)
    settings = Settings()
    dataprovider.hook(settings, *[{w: i for i, w in enumerate(d)} for d in (word_list, label_list, predicate_list)])

    api.initPaddle("--use_gpu=0")
    gm = api.GradientMachine.createFromConfigProto(parse_config("db_lstm.py", config_args).model_config)
    gm.loadParameters(args.model_dir)
    marks = ["O"] * len(words)
    marks[args.position] = "B-V"  # feature_line finds the predicate by its label
    line = conll05.feature_line(words, args.predicate or words[args.position], marks)
    convert = DataProviderConverter(settings.input_types[:-1])
    ids = gm.forwardTest(convert([dataprovider.sample(settings, line, with_label=False)]))[0]["id"]
    print(" ".join("%s/%s" % (w, label_list[i]) for w, i in zip(words, ids)))


if __name__ == "__main__":
    main()
