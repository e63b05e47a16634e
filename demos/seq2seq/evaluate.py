"""Exact-match accuracy of a gen_result file against the reversed test sources.

    python evaluate.py gen_result [test.list entry, default test:500] [vocab]
"""
import sys

from dataprovider import EOS, samples


def exact_match(result_path, entry="test:500", vocab=24):
    sources = {i: [int(t) for t in seq] for i, seq in samples(entry, vocab)}
    with open(result_path) as f:
        blocks = [b for b in f.read().strip().split("\n\n") if b]
    right = 0
    for block in blocks:
        lines = block.split("\n")
        best = [int(t) for t in lines[1].split("\t")[-1].split()]  # rank 0: the best result
        if best and best[-1] == EOS:
            best = best[:-1]
        right += best == sources[int(lines[0])][::-1]
    return right, len(blocks)


if __name__ == "__main__":
    args = sys.argv[1:]
    right, total = exact_match(args[0], *(args[1:2] or ["test:500"]), *[int(a) for a in args[2:3]])
    print("exact match: %d / %d = %.4f" % (right, total, right / max(total, 1)))
