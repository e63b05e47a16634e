"""CoNLL-05 words + props files -> v1's db_lstm feature file and dictionaries.

    python preprocess.py test.wsj.words test.wsj.props OUT_DIR

writes OUT_DIR/feature (one line per predicate, see conll05.py), the
dictionaries wordDict.txt, verbDict.txt and targetDict.txt (labels in the
chunk evaluator's IOB order), and train.list / test.list naming the feature
file (v1 trained and tested on the public WSJ test section too).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import conll05  # noqa: E402


def write_lines(lines, path):
    with open(path, "w") as f:
        f.write("".join(line + "\n" for line in lines))


def preprocess(words_file, props_file, out_dir):
    with open(words_file) as w, open(props_file) as p:
        triples = list(conll05.pairs(w.read().splitlines(), p.read().splitlines()))
    os.makedirs(out_dir, exist_ok=True)
    feature = os.path.join(out_dir, "feature")
    write_lines([conll05.feature_line(*t) for t in triples], feature)
    write_lines(conll05.word_dict(words for words, _, _ in triples), os.path.join(out_dir, "wordDict.txt"))
    write_lines(sorted({predicate for _, predicate, _ in triples}), os.path.join(out_dir, "verbDict.txt"))
    write_lines(conll05.label_dict(labels for _, _, labels in triples), os.path.join(out_dir, "targetDict.txt"))
    for name in ("train", "test"):
        write_lines([os.path.abspath(feature)], os.path.join(out_dir, name + ".list"))
    return len(triples)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("words_file")
    p.add_argument("props_file")
    p.add_argument("out_dir")
    args = p.parse_args(argv)
    n = preprocess(args.words_file, args.props_file, args.out_dir)
    print("%d predicate-sentence pairs in %s" % (n, os.path.join(args.out_dir, "feature")))


if __name__ == "__main__":
    main()
