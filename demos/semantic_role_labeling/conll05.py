"""CoNLL-05 SRL data -> v1's db_lstm feature lines, and the synthetic stand-in.

CoNLL-05 ships, per section, a words file (one token per line, a blank line
between sentences) and a props file (per token: the predicate's lemma or '-',
then one bracket column per predicate: '(A0*', '*', '*)', '(V*)', ...).
`pairs` turns them into one (words, predicate, IOB labels) triple per
predicate, and `feature_line` into v1's 9 tab-separated fields:

    sentence  predicate  ctx_n2  ctx_n1  ctx_0  ctx_p1  ctx_p2  marks  labels

(the words around the predicate, 'bos'/'eos' past the ends, and a 0/1 mark on
the 5-word window around it). `label_dict` orders the labels as the chunk
evaluator's IOB scheme wants: B-X, I-X per chunk type, then O.
"""
import random


def blocks(lines):
    """Lists of non-blank lines, split at blank lines."""
    block = []
    for line in list(lines) + [""]:
        if line.strip():
            block.append(line.split())
        elif block:
            yield block
            block = []


def bracket_labels(column, where):
    """IOB labels of one props column ('(A0*', '*', '*)', '(V*)')."""
    labels, current = [], None
    for tag in column:
        if tag.startswith("("):
            current = tag[1:tag.index("*")]
            labels.append("B-" + current)
        elif tag.startswith("*") and current is not None:
            labels.append("I-" + current)
        elif tag == "*":
            labels.append("O")
        else:
            raise ValueError("%s: bad props tag %r" % (where, tag))
        if tag.endswith(")"):
            current = None
    return labels


def pairs(word_lines, props_lines):
    """(words, predicate, labels) per predicate of every sentence."""
    sentences, props = list(blocks(word_lines)), list(blocks(props_lines))
    if len(sentences) != len(props):
        raise ValueError("words file has %d sentences, props file %d" % (len(sentences), len(props)))
    for n, (words, rows) in enumerate(zip(sentences, props)):
        if len(words) != len(rows):
            raise ValueError("sentence %d: %d words but %d props rows" % (n + 1, len(words), len(rows)))
        predicates = [row[0] for row in rows if row[0] != "-"]
        for k, predicate in enumerate(predicates):
            column = [row[k + 1] for row in rows]
            yield [w[0] for w in words], predicate, bracket_labels(column, "sentence %d" % (n + 1))


def feature_line(words, predicate, labels):
    v = labels.index("B-V")
    ctx = [words[i] if 0 <= i < len(words) else ("bos" if i < 0 else "eos") for i in range(v - 2, v + 3)]
    marks = ["1" if abs(i - v) <= 2 else "0" for i in range(len(words))]
    return "\t".join([" ".join(words), predicate] + ctx + [" ".join(marks), " ".join(labels)])


def label_dict(label_lists):
    """Labels in chunk-evaluator IOB order: B-T, I-T for every type T, then O."""
    types = sorted({l[2:] for labels in label_lists for l in labels if l != "O"})
    return [p + t for t in types for p in ("B-", "I-")] + ["O"]


def word_dict(sentences):
    """<unk>, bos, eos, then the words by frequency."""
    count = {}
    for words in sentences:
        for w in words:
            count[w] = count.get(w, 0) + 1
    return ["<unk>", "bos", "eos"] + sorted(count, key=lambda w: (-count[w], w))


# ---- the synthetic stand-in --------------------------------------------------
# Word classes; a sentence is a run of phrases with one or two verbs, and the
# labels of one predicate follow rules relative to it: the noun phrase right
# before it is A0, the one right after it A1, a preposition + noun phrase after
# that AM-LOC, a time word anywhere AM-TMP; everything else (the other verb's
# arguments included) is O.
CLASSES = {"det": 5, "adj": 15, "noun": 40, "verb": 20, "prep": 6, "time": 6, "other": 10}


def _vocab():
    return {c: ["%s%d" % (c, i) for i in range(n)] for c, n in CLASSES.items()}


def _np(rng, vocab):
    return ([rng.choice(vocab["det"])] if rng.random() < 0.6 else []) + \
        [rng.choice(vocab["adj"]) for _ in range(rng.choice([0, 0, 1, 2]))] + [rng.choice(vocab["noun"])]


def synthetic_sentence(rng, vocab):
    """(words, predicate, labels) of one generated sentence."""
    words, labels = [], []

    def add(ws, tag):
        words.extend(ws)
        labels.extend(["O"] * len(ws) if tag == "O" else ["B-" + tag] + ["I-" + tag] * (len(ws) - 1))

    if rng.random() < 0.4:
        add(_np(rng, vocab) + [rng.choice(vocab["verb"])] + [rng.choice(vocab["other"])], "O")
    if rng.random() < 0.3:
        add([rng.choice(vocab["time"])], "AM-TMP")
    add(_np(rng, vocab), "A0")
    predicate = rng.choice(vocab["verb"])
    add([predicate], "V")
    if rng.random() < 0.8:
        add(_np(rng, vocab), "A1")
    if rng.random() < 0.5:
        add([rng.choice(vocab["prep"])] + _np(rng, vocab), "AM-LOC")
    if rng.random() < 0.3:
        add([rng.choice(vocab["other"])] + _np(rng, vocab), "O")
    return words, predicate, labels


def synthetic(split, size):
    rng, vocab = random.Random({"train": 1, "test": 2}.get(split, 3)), _vocab()
    return [synthetic_sentence(rng, vocab) for _ in range(size)]


def synthetic_dicts():
    """(words, predicates, labels) dictionaries of the synthetic data."""
    vocab = _vocab()
    words = ["<unk>", "bos", "eos"] + [w for c in sorted(vocab) for w in vocab[c]]
    return words, vocab["verb"], label_dict([["B-A0", "B-A1", "B-AM-LOC", "B-AM-TMP", "B-V"]])


def read_dict(path):
    with open(path) as f:
        return [line.strip() for line in f]


def dictionaries(dataset):
    """(words, predicates, labels) of 'conll05' (data/*Dict.txt) or the synthetic set."""
    if dataset == "conll05":
        return tuple(read_dict("data/%s.txt" % n) for n in ("wordDict", "verbDict", "targetDict"))
    return synthetic_dicts()
