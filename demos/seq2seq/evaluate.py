"""Exact-match accuracy of a gen_result file against the reversed test sources.

    python evaluate.py gen_result [test.list entry, default test:500] [vocab]
"""
import sys

from reversal_provider import EOS, samples


def best_results(text):
    """{sample id: best tokens (strings)} from v1's seq_text_printer output: blocks ("id", then
    "rank<TAB>score<TAB> ids" per result) with several results per sample, else lines
    "id<TAB> ids"."""
    best = {}
    for block in (b for b in text.strip().split("\n\n") if b):
        lines = block.split("\n")
        if "\t" in lines[0]:  # one result per sample: one line each
            for line in lines:
                sample, ids = line.split("\t", 1)
                best[int(sample)] = ids.split()
        else:
            best[int(lines[0])] = lines[1].split("\t")[-1].split()  # rank 0
    return best


def exact_match(result_path, entry="test:500", vocab=24):
    sources = {i: [int(t) for t in seq] for i, seq in samples(entry, vocab)}
    with open(result_path) as f:
        best = best_results(f.read())
    right = 0
    for sample, words in best.items():
        tokens = [int(t) for t in words]
        if tokens and tokens[-1] == EOS:
            tokens = tokens[:-1]
        right += tokens == sources[sample][::-1]
    return right, len(best)


if __name__ == "__main__":
    args = sys.argv[1:]
    right, total = exact_match(args[0], *(args[1:2] or ["test:500"]), *[int(a) for a in args[2:3]])
    print("exact match: %d / %d = %.4f" % (right, total, right / max(total, 1)))
