"""Turns the aclImdb tarball (aclImdb_v1.tar.gz) into what dataprovider.py reads.

    python preprocess.py -i data/aclImdb_v1.tar.gz -o data/pre-imdb

reads aclImdb/{train,test}/{pos,neg}/*.txt straight from the tarball (or from an
extracted aclImdb folder) and writes, as v1's preprocess did:
  train_part_000, test_part_000  one review a line, "<label>\\t\\t<tokens>", shuffled
  train.list, test.list          the part files
  labels.list                    "neg\\t0" and "pos\\t1"
  dict.txt                       "<word>\\t<count>" over the training reviews, most frequent first
"""
import argparse
import collections
import os
import random
import re
import tarfile

LABELS = ("neg", "pos")
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[^\sa-z0-9]")


def tokenize(text):
    """Lower-case tokens; punctuation marks are tokens of their own, HTML line breaks are spaces."""
    return _TOKEN.findall(text.replace("<br />", " ").lower())


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def read_reviews(source):
    """{split: [(label, text)]} from the tarball or an extracted aclImdb folder."""
    found = {"train": [], "test": []}
    member = re.compile(r"(?:^|/)aclImdb/(train|test)/(pos|neg)/[^/]+\.txt$")

    def add(name, read):
        m = member.search(name.replace(os.sep, "/"))
        if m:
            found[m.group(1)].append((LABELS.index(m.group(2)), read().decode("utf-8", "replace")))

    if os.path.isdir(source):
        for root, dirs, files in os.walk(source):
            dirs.sort()  # a fixed order, so the seeded shuffle repeats
            for f in sorted(files):
                path = os.path.join(root, f)
                add(os.path.relpath(path, os.path.dirname(source.rstrip("/"))), lambda p=path: _read(p))
    else:
        with tarfile.open(source) as tar:
            for info in tar:
                if info.isfile():
                    add(info.name, lambda i=info: tar.extractfile(i).read())
    if not found["train"]:
        raise ValueError("%s holds no aclImdb/train/{pos,neg}/*.txt reviews" % source)
    return found


def write_split(rows, path, rng):
    rows = [(label, " ".join(tokenize(text))) for label, text in rows]
    rng.shuffle(rows)
    with open(path, "w") as f:
        for label, tokens in rows:
            f.write("%d\t\t%s\n" % (label, tokens))
    return rows


def preprocess(source, out_dir, seed=0):
    os.makedirs(out_dir, exist_ok=True)
    rng = random.Random(seed)
    counts = collections.Counter()
    for split, rows in sorted(read_reviews(source).items(), reverse=True):  # train first
        if not rows:
            continue
        part = os.path.join(out_dir, "%s_part_000" % split)
        tokenized = write_split(rows, part, rng)
        if split == "train":
            for _, tokens in tokenized:
                counts.update(tokens.split())
        with open(os.path.join(out_dir, "%s.list" % split), "w") as f:
            f.write(os.path.abspath(part) + "\n")
    with open(os.path.join(out_dir, "labels.list"), "w") as f:
        f.writelines("%s\t%d\n" % (name, i) for i, name in enumerate(LABELS))
    with open(os.path.join(out_dir, "dict.txt"), "w") as f:
        f.writelines("%s\t%d\n" % (w, c) for w, c in sorted(counts.items(), key=lambda wc: (-wc[1], wc[0])))
    return len(counts)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-i", "--input", required=True, help="aclImdb_v1.tar.gz or an extracted aclImdb folder")
    ap.add_argument("-o", "--output", default="data/pre-imdb")
    args = ap.parse_args(argv)
    words = preprocess(args.input, args.output)
    print("wrote %s (%d words in dict.txt)" % (args.output, words))


if __name__ == "__main__":
    main()
