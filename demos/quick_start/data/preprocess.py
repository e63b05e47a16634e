"""Amazon reviews (v1's quick_start real data) -> train.txt, test.txt, dict.txt.

    python preprocess.py reviews_Electronics_5.json.gz OUT_DIR [--seed 1024]

Input: one JSON review per line (gzip or plain) with "overall" (the stars) and
"reviewText". As in v1: 5 stars is positive (1), under 3 negative (0); texts
are lower-cased and tokenized (v1 used the Moses tokenizer, here a regular
expression that splits off punctuation the same way), duplicates dropped,
classes balanced 1:1, a tenth of them (at most 12500 per class) held out for
testing. Writes "label<TAB>tokens" lines, train.list / test.list, and dict.txt
("word<TAB>count", 'unk' first, then the 30000 most frequent words).
"""
import argparse
import gzip
import json
import os
import random
import re
from collections import Counter

TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|n't|'[a-z]+|[^\sa-z0-9]")


def tokenize(text):
    return " ".join(TOKEN.findall(text.lower()))


def read_reviews(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    review = json.loads(line)
                    yield float(review["overall"]), review.get("reviewText", "")
                except (ValueError, KeyError) as e:
                    raise ValueError("%s:%d: not a review (%s)" % (path, n, e))


def split_reviews(reviews, seed=1024, max_test=12500):
    """(train, test) lists of (label, tokens), balanced and shuffled."""
    pos, neg = set(), set()
    for stars, text in reviews:
        tokens = tokenize(text)
        if tokens and stars == 5.0:
            pos.add(tokens)
        elif tokens and stars < 3.0:
            neg.add(tokens)
    rng = random.Random(seed)
    pos, neg = sorted(pos), sorted(neg)
    rng.shuffle(pos)
    rng.shuffle(neg)
    n = min(len(pos), len(neg))
    n_test = min(max_test, n // 10)
    train = [(1, t) for t in pos[:n - n_test]] + [(0, t) for t in neg[:n - n_test]]
    test = [(1, t) for t in pos[n - n_test:n]] + [(0, t) for t in neg[n - n_test:n]]
    rng.shuffle(train)
    rng.shuffle(test)
    return train, test


def preprocess(path, out_dir, seed=1024, dict_size=30000):
    train, test = split_reviews(read_reviews(path), seed)
    os.makedirs(out_dir, exist_ok=True)
    counts = Counter(w for _, tokens in train + test for w in tokens.split())
    for name, samples in (("train", train), ("test", test)):
        with open(os.path.join(out_dir, name + ".txt"), "w") as f:
            f.write("".join("%d\t%s\n" % s for s in samples))
        with open(os.path.join(out_dir, name + ".list"), "w") as f:
            f.write(os.path.join(out_dir, name + ".txt") + "\n")
    with open(os.path.join(out_dir, "dict.txt"), "w") as f:
        f.write("unk\t-1\n")
        f.write("".join("%s\t%d\n" % wc for wc in sorted(counts.items(), key=lambda wc: (-wc[1], wc[0]))[:dict_size]))
    return len(train), len(test)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("reviews")
    p.add_argument("out_dir")
    p.add_argument("--seed", type=int, default=1024)
    args = p.parse_args(argv)
    n_train, n_test = preprocess(args.reviews, args.out_dir, args.seed)
    print("%d training and %d test reviews in %s" % (n_train, n_test, args.out_dir))


if __name__ == "__main__":
    main()
