"""Turns a parallel corpus laid out like v1's data/wmt14 into what dataprovider.py reads
(v1's demo/seqToseq/preprocess.py):

    python preprocess.py -i data/wmt14 [-d DICTSIZE] [-m]

INPUT holds train/, test/ and gen/, each with pairs of files NAME.src and NAME.trg (one
tokenized sentence a line, the two files of a pair line by line parallel). Writes
pre-INPUT next to INPUT (and nothing when it exists):
  train/train, test/test, gen/gen   every pair of the split, "source<TAB>target" a line
  train.list, test.list, gen.list   the path of that file
  src.dict, trg.dict                <s>, <e>, <unk>, then the training words by frequency
                                    (ties in order of first use), DICTSIZE entries in all
                                    (-1, the default: every word); -m: one dictionary
                                    of both sides, copied to both files
"""
import collections
import os
import sys
from optparse import OptionParser

SPLITS = ('train', 'test', 'gen')
SUFFIXES = ('.src', '.trg')
SPECIAL = ('<s>', '<e>', '<unk>')


def read_lines(path):
    with open(path, encoding='utf-8') as f:
        return [line.rstrip('\n') for line in f]


def parallel_pairs(split_dir):
    """[(source line, target line)] of every NAME.src/NAME.trg pair in split_dir, by name."""
    names = sorted(f for f in os.listdir(split_dir) if f.endswith(SUFFIXES))
    stems = sorted({n[:-len('.src')] for n in names})
    pairs = []
    for stem in stems:
        paths = [os.path.join(split_dir, stem + s) for s in SUFFIXES]
        missing = [p for p in paths if not os.path.exists(p)]
        if missing:
            raise ValueError("%s: a parallel corpus needs both %s and %s (missing %s)"
                             % (split_dir, stem + SUFFIXES[0], stem + SUFFIXES[1], missing[0]))
        source, target = (read_lines(p) for p in paths)
        if len(source) != len(target):
            raise ValueError("%s: %d source lines but %d target lines"
                             % (os.path.join(split_dir, stem), len(source), len(target)))
        pairs.extend(zip(source, target))
    if not pairs:
        raise ValueError("%s holds no NAME.src/NAME.trg pair" % split_dir)
    return pairs


def build_dict(sentences, dict_size=-1):
    """The special tokens, then the words by falling frequency (ties: first use first)."""
    counts = collections.Counter()
    for sentence in sentences:
        counts.update(sentence.split())
    words = [w for w, _ in sorted(counts.items(), key=lambda kv: -kv[1]) if w not in SPECIAL]
    entries = list(SPECIAL) + words
    return entries if dict_size < 0 else entries[:max(dict_size, len(SPECIAL))]


def write_lines(path, lines):
    with open(path, 'w', encoding='utf-8') as f:
        f.writelines(line + '\n' for line in lines)


def create_dataset(input_path, output_path, dict_size=-1, merge_dict=False):
    """Writes the pasted splits, their lists and the dictionaries; returns the dictionary sizes."""
    os.makedirs(output_path)
    train_pairs = None
    for split in SPLITS:
        pairs = parallel_pairs(os.path.join(input_path, split))
        os.makedirs(os.path.join(output_path, split))
        data_file = os.path.join(output_path, split, split)
        write_lines(data_file, ['%s\t%s' % pair for pair in pairs])
        write_lines(os.path.join(output_path, split + '.list'), [data_file])
        if split == 'train':
            train_pairs = pairs
    if merge_dict:
        merged = build_dict([s for pair in train_pairs for s in pair], dict_size)
        dicts = (merged, merged)
    else:
        dicts = [build_dict([pair[i] for pair in train_pairs], dict_size) for i in (0, 1)]
    for name, entries in zip(('src.dict', 'trg.dict'), dicts):
        write_lines(os.path.join(output_path, name), entries)
    return [len(d) for d in dicts]


def output_path_of(input_path):
    input_path = input_path.rstrip(os.sep)
    return os.path.join(os.path.dirname(input_path), 'pre-' + os.path.basename(input_path))


def main(argv=None):
    parser = OptionParser("usage: python %prog -i INPUT [-d DICTSIZE] [-m]")
    parser.add_option("-i", dest="input", help="the original dataset's folder")
    parser.add_option("-d", dest="dictsize", type="int", default=-1, help="words in each dictionary")
    parser.add_option("-m", "--mergeDict", action="store_true", dest="mergeDict",
                      help="one dictionary for both languages")
    options, _ = parser.parse_args(argv)
    if not options.input:
        parser.error("-i INPUT is required")
    output_path = output_path_of(options.input)
    if os.path.exists(output_path):
        print("%s exists: nothing to do" % output_path)
        return
    sizes = create_dataset(options.input.rstrip(os.sep), output_path, options.dictsize, options.mergeDict)
    print("wrote %s: dictionary sizes %d (source), %d (target)" % ((output_path,) + tuple(sizes)))


if __name__ == '__main__':
    main(sys.argv[1:])
