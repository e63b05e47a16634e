"""Gets the translation data into what translation/train.conf and gen.conf read.

    python data/get_data.py            # offline: a generated French-English corpus -> data/pre-toy
    python data/get_data.py wmt14      # v1's WMT14 fr-en subset (network, ~1 GB) -> data/pre-wmt14

Both first lay the raw corpus out as v1's data/wmt14_data.sh did (train/, test/ and gen/,
each with NAME.src French and NAME.trg English files), then run preprocess.py on it.
wmt14 downloads v1's source, the LIUM "cslm_joint_paper" selection of WMT14 (bitexts.tgz:
the training bitexts; dev+test.tgz: newstest2012+2013 `ntst1213` for testing, newstest2014
`ntst14` for generating), unless the two tarballs are already in data/wmt14/, and builds
30000-word dictionaries as v1's README did.
"""
import gzip
import os
import shutil
import sys
import tarfile
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.path.dirname(HERE)
sys.path[:0] = [HERE, DEMO]

import preprocess  # noqa: E402  (demos/seq2seq/preprocess.py)
import toy_corpus  # noqa: E402

WMT14_URL = "http://www-lium.univ-lemans.fr/~schwenk/cslm_joint_paper/data/"
WMT14_TARBALLS = ("bitexts.tgz", "dev+test.tgz")
WMT14_DICT_SIZE = 30000
TOY_SPLITS = (('train', 'toy', 10000, 1), ('test', 'ntst1213', 500, 2), ('gen', 'ntst14', 200, 3))
SUFFIX_OF_LANGUAGE = {'fr': '.src', 'en': '.trg'}


def write_toy(raw_dir):
    for split, name, count, seed in TOY_SPLITS:
        os.makedirs(os.path.join(raw_dir, split), exist_ok=True)
        pairs = toy_corpus.sentence_pairs(count, seed)
        for column, suffix in enumerate(('.src', '.trg')):
            preprocess.write_lines(os.path.join(raw_dir, split, name + suffix), [p[column] for p in pairs])


def download(url, path):
    print("downloading %s" % url)
    with urllib.request.urlopen(url) as response, open(path + '.part', 'wb') as out:
        shutil.copyfileobj(response, out)
    os.rename(path + '.part', path)


def renamed(filename):
    """NAME.fr -> NAME.src, NAME.en -> NAME.trg (None for other files)."""
    stem, _, language = filename.rpartition('.')
    suffix = SUFFIX_OF_LANGUAGE.get(language)
    return stem + suffix if stem and suffix else None


def unpack_wmt14(raw_dir):
    """bitexts.selected/*.{fr,en}.gz -> train/, dev/ntst1213.* -> test/, dev/ntst14.* -> gen/."""
    with tarfile.open(os.path.join(raw_dir, WMT14_TARBALLS[0])) as tar:
        os.makedirs(os.path.join(raw_dir, 'train'), exist_ok=True)
        for member in tar.getmembers():
            name = os.path.basename(member.name)
            target = renamed(name[:-len('.gz')] if name.endswith('.gz') else name)
            if not member.isfile() or target is None:
                continue
            data = tar.extractfile(member).read()
            with open(os.path.join(raw_dir, 'train', target), 'wb') as out:
                out.write(gzip.decompress(data) if name.endswith('.gz') else data)
    with tarfile.open(os.path.join(raw_dir, WMT14_TARBALLS[1])) as tar:
        for member in tar.getmembers():
            name = os.path.basename(member.name)
            split = {'ntst1213': 'test', 'ntst14': 'gen'}.get(name.rpartition('.')[0])
            if not member.isfile() or split is None or renamed(name) is None:
                continue
            os.makedirs(os.path.join(raw_dir, split), exist_ok=True)
            with open(os.path.join(raw_dir, split, renamed(name)), 'wb') as out:
                out.write(tar.extractfile(member).read())
    for split in ('train', 'test', 'gen'):
        if not os.path.isdir(os.path.join(raw_dir, split)):
            raise ValueError("%s: the tarballs held no %s data" % (raw_dir, split))


def main(argv):
    dataset = argv[0] if argv else 'toy'
    if dataset not in ('toy', 'wmt14'):
        sys.exit("usage: python data/get_data.py [toy|wmt14]")
    raw_dir = os.path.join('data', dataset)
    os.chdir(DEMO)  # the file lists hold paths relative to demos/seq2seq, where paddle runs
    if os.path.exists(preprocess.output_path_of(raw_dir)):
        print("%s exists: nothing to do" % preprocess.output_path_of(raw_dir))
        return
    if dataset == 'toy':
        write_toy(raw_dir)
        dict_size = -1
    else:
        os.makedirs(raw_dir, exist_ok=True)
        for name in WMT14_TARBALLS:
            if not os.path.exists(os.path.join(raw_dir, name)):
                download(WMT14_URL + name, os.path.join(raw_dir, name))
        unpack_wmt14(raw_dir)
        dict_size = WMT14_DICT_SIZE
    preprocess.main(['-i', raw_dir, '-d', str(dict_size)])


if __name__ == '__main__':
    main(sys.argv[1:])
