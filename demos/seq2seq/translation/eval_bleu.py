"""Corpus BLEU of a gen.conf result file against the gen split's reference translations
(v1's translation/eval_bleu.sh, with sacrebleu in place of multi-bleu.perl). From
demos/seq2seq:

    python translation/eval_bleu.py translation/gen_result [--dataset toy|wmt14]

Scores the best beam result of every sentence (its <e> dropped) against the target column
of data/pre-DATASET/gen/gen, on the corpus's own tokens (sacrebleu tokenize='none', as
multi-bleu.perl scores tokenized text). Prints "BLEU = <score> (<n> sentences)".
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from evaluate import best_results  # noqa: E402  (demos/seq2seq/evaluate.py)

END = '<e>'


def read_references(path):
    """The target column of a preprocessed "source<TAB>target" file, one string a line."""
    with open(path, encoding='utf-8') as f:
        return [line.rstrip('\n').split('\t')[1] for line in f]


def corpus_bleu(hypotheses, references):
    try:
        import sacrebleu
    except ImportError:
        sys.exit("eval_bleu.py needs sacrebleu (pip install sacrebleu, or pip install '.[demos]')")
    return sacrebleu.corpus_bleu(hypotheses, [references], tokenize='none', force=True).score


def bleu_of_result(result_path, reference_path):
    """(BLEU, sentence count): every reference line must have a result."""
    references = read_references(reference_path)
    with open(result_path, encoding='utf-8') as f:
        best = best_results(f.read())
    missing = sorted(set(range(len(references))) - set(best))
    if missing:
        raise ValueError("%s has no result for sentence %d of %s (of %d missing)"
                         % (result_path, missing[0], reference_path, len(missing)))
    hypotheses = [' '.join(w for w in best[i] if w != END) for i in range(len(references))]
    return corpus_bleu(hypotheses, references), len(references)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('result', help="gen.conf's result file (translation/gen_result)")
    ap.add_argument('--dataset', default='toy', help='toy or wmt14: picks the reference file')
    ap.add_argument('--reference', help='a "source<TAB>target" file instead (default data/pre-DATASET/gen/gen)')
    args = ap.parse_args(argv)
    reference = args.reference or os.path.join('data', 'pre-' + args.dataset, 'gen', 'gen')
    score, count = bleu_of_result(args.result, reference)
    print("BLEU = %.2f (%d sentences)" % (score, count))


if __name__ == '__main__':
    main()
