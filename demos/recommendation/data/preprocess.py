"""Preprocess MovieLens-1M (or write and preprocess the synthetic stand-in).

    python preprocess.py ml-1m OUT_DIR          # the real data, after get_data.sh
    python preprocess.py --synthetic OUT_DIR    # generated ml-1m style files first

writes OUT_DIR/meta.json, OUT_DIR/ratings.dat.train, OUT_DIR/ratings.dat.test,
OUT_DIR/train.list and OUT_DIR/test.list (v1's meta + split.py steps).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import movielens  # noqa: E402


def read_lines(path):
    with open(path, encoding="latin-1") as f:  # ml-1m titles are latin-1
        return f.read().splitlines()


def write_lines(lines, path):
    with open(path, "w", encoding="latin-1") as f:
        f.write("".join(line + "\n" for line in lines))


def preprocess(raw_dir, out_dir, test_ratio=0.1, seed=1):
    os.makedirs(out_dir, exist_ok=True)
    meta = movielens.build_meta(read_lines(os.path.join(raw_dir, "users.dat")),
                                read_lines(os.path.join(raw_dir, "movies.dat")))
    movielens.save_meta(meta, os.path.join(out_dir, "meta.json"))
    train, test = movielens.split_ratings(read_lines(os.path.join(raw_dir, "ratings.dat")), test_ratio, seed)
    for name, lines in (("train", train), ("test", test)):
        path = os.path.join(out_dir, "ratings.dat." + name)
        write_lines(lines, path)
        write_lines([os.path.abspath(path)], os.path.join(out_dir, name + ".list"))
    return len(train), len(test)


def write_synthetic(raw_dir, **sizes):
    os.makedirs(raw_dir, exist_ok=True)
    for name, lines in zip(("users", "movies", "ratings"), movielens.synthetic_dataset(**sizes)):
        write_lines(lines, os.path.join(raw_dir, name + ".dat"))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("raw_dir", nargs="?", help="the directory holding users.dat, movies.dat, ratings.dat")
    p.add_argument("out_dir")
    p.add_argument("--synthetic", action="store_true", help="generate OUT_DIR/raw/*.dat first")
    p.add_argument("--test_ratio", type=float, default=0.1)
    args = p.parse_args(argv)
    raw_dir = args.raw_dir
    if args.synthetic:
        raw_dir = os.path.join(args.out_dir, "raw")
        write_synthetic(raw_dir)
    n_train, n_test = preprocess(raw_dir, args.out_dir, args.test_ratio)
    print("%d training and %d test ratings in %s" % (n_train, n_test, args.out_dir))


if __name__ == "__main__":
    main()
