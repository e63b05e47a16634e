"""demos/seq2seq translation path (v1's seqToseq): data/get_data.py lays WMT14-format tarballs
out as v1 did and preprocess.py writes the pasted splits, file lists and <s>/<e>/<unk>
dictionaries; v1's translation/train.conf and gen.conf train and beam-search on them; on the
offline toy corpus the README's commands give a BLEU (translation/eval_bleu.py) far above
what a model that learned nothing gets, and translation/translate.py translates a new sentence."""
import collections
import gzip
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile

import pytest

from demo_run import CLI, ROOT, run

DEMO = os.path.join(ROOT, "demos", "seq2seq")
pytest.importorskip("sacrebleu")


@pytest.fixture
def work(tmp_path):
    path = str(tmp_path / "seq2seq")
    shutil.copytree(DEMO, path, ignore=shutil.ignore_patterns("model", "gen_result", "output", "toy", "wmt14",
                                                              "pre-*", "__pycache__"))
    return path


def add_file(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


TRAIN = {"nc9": [("le chat noir .", "the black cat ."), ("un chien mange .", "a dog eats .")],
         "ep7_pc45": [("le chien voit le chat .", "the dog sees the cat ."),
                      ("la souris mange le fromage .", "the mouse eats the cheese ."),
                      ("le chat mange la souris .", "the cat eats the mouse .")]}
TEST = [("un chat voit .", "a cat sees ."), ("le rat dort .", "the rat sleeps .")]
GEN = [("le chien noir .", "the black dog ."), ("une souris .", "a mouse .")]


def write_wmt14_tarballs(raw_dir):
    """bitexts.tgz (bitexts.selected/NAME.{fr,en}.gz) and dev+test.tgz (dev/ntst1213.*,
    dev/ntst14.* and another test set) as v1's LIUM source holds them."""
    os.makedirs(raw_dir)
    with tarfile.open(os.path.join(raw_dir, "bitexts.tgz"), "w:gz") as tar:
        for stem, pairs in TRAIN.items():
            for column, language in enumerate(("fr", "en")):
                text = "".join(p[column] + "\n" for p in pairs).encode()
                add_file(tar, "bitexts.selected/%s.%s.gz" % (stem, language), gzip.compress(text))
    with tarfile.open(os.path.join(raw_dir, "dev+test.tgz"), "w:gz") as tar:
        for stem, pairs in (("ntst1213", TEST), ("ntst14", GEN), ("ntst11", [("x .", "y .")])):
            for column, language in enumerate(("fr", "en")):
                add_file(tar, "dev/%s.%s" % (stem, language), "".join(p[column] + "\n" for p in pairs).encode())


def read(path):
    with open(path) as f:
        return f.read().splitlines()


def expected_dict(sentences):
    counts = collections.Counter(w for s in sentences for w in s.split())
    # falling frequency, ties in order of first use
    return ["<s>", "<e>", "<unk>"] + sorted(counts, key=lambda w: -counts[w])


def test_get_data_lays_out_wmt14_and_preprocess_writes_v1s_files(work):
    write_wmt14_tarballs(os.path.join(work, "data", "wmt14"))
    out = run(["data/get_data.py", "wmt14"], work, blas_threads=1)
    assert "wrote data/pre-wmt14" in out, out
    raw = os.path.join(work, "data", "wmt14")
    assert sorted(os.listdir(os.path.join(raw, "train"))) == ["ep7_pc45.src", "ep7_pc45.trg", "nc9.src", "nc9.trg"]
    assert sorted(os.listdir(os.path.join(raw, "gen"))) == ["ntst14.src", "ntst14.trg"]
    pre = os.path.join(work, "data", "pre-wmt14")
    train_pairs = TRAIN["ep7_pc45"] + TRAIN["nc9"]  # files by name
    assert read(os.path.join(pre, "train", "train")) == ["%s\t%s" % p for p in train_pairs]
    assert read(os.path.join(pre, "test", "test")) == ["%s\t%s" % p for p in TEST]
    assert read(os.path.join(pre, "gen", "gen")) == ["%s\t%s" % p for p in GEN]
    for split in ("train", "test", "gen"):
        assert read(os.path.join(pre, split + ".list")) == ["data/pre-wmt14/%s/%s" % (split, split)]
    assert read(os.path.join(pre, "src.dict")) == expected_dict(p[0] for p in train_pairs)
    assert read(os.path.join(pre, "trg.dict")) == expected_dict(p[1] for p in train_pairs)

    # v1's configs, unmodified, train (the 512-wide model) and beam-search on them
    run(CLI + ["train", "--config=translation/train.conf", "--config_args=dataset=wmt14", "--save_dir=model",
               "--num_passes=1", "--log_period=0", "--dot_period=0"], work, blas_threads=1)
    run(CLI + ["train", "--job=test", "--config=translation/gen.conf", "--config_args=dataset=wmt14,beam_size=2",
               "--init_model_path=model/pass-00000"], work, blas_threads=1)
    blocks = read(os.path.join(work, "translation", "gen_result"))
    assert [b for b in blocks if "\t" not in b and b] == ["0", "1"], blocks  # one block per gen sentence
    trg_words = set(read(os.path.join(pre, "trg.dict")))
    assert all(set(line.split("\t")[2].split()) <= trg_words for line in blocks if line.count("\t") == 2)
    out = run(["translation/eval_bleu.py", "translation/gen_result", "--dataset", "wmt14"], work, blas_threads=1)
    assert re.search(r"BLEU = \d+\.\d\d \(2 sentences\)", out), out


def test_preprocess_dictionary_size_and_merged_dictionary(work):
    write_wmt14_tarballs(os.path.join(work, "data", "wmt14"))
    run(["data/get_data.py", "wmt14"], work, blas_threads=1)  # lays out data/wmt14 (and pre-wmt14)
    shutil.copytree(os.path.join(work, "data", "wmt14"), os.path.join(work, "data", "small"),
                    ignore=shutil.ignore_patterns("*.tgz"))
    run(["preprocess.py", "-i", "data/small", "-d", "5", "-m"], work, blas_threads=1)
    src = read(os.path.join(work, "data", "pre-small", "src.dict"))
    pairs = TRAIN["ep7_pc45"] + TRAIN["nc9"]
    assert src == expected_dict([s for p in pairs for s in p])[:5]
    assert read(os.path.join(work, "data", "pre-small", "trg.dict")) == src


def test_preprocess_names_an_unpaired_file_and_a_line_mismatch(work):
    raw = os.path.join(work, "data", "bad")
    os.makedirs(os.path.join(raw, "train"))
    for split in ("test", "gen"):
        os.makedirs(os.path.join(raw, split))
        for suffix in (".src", ".trg"):
            with open(os.path.join(raw, split, "a" + suffix), "w") as f:
                f.write("x\n")
    with open(os.path.join(raw, "train", "a.src"), "w") as f:
        f.write("x\n")
    p = subprocess.run([sys.executable, "preprocess.py", "-i", "data/bad"], cwd=work, capture_output=True, text=True)
    assert p.returncode != 0 and "a.trg" in p.stderr, p.stderr[-500:]
    shutil.rmtree(os.path.join(work, "data", "pre-bad"))
    with open(os.path.join(raw, "train", "a.trg"), "w") as f:
        f.write("x\ny\n")
    p = subprocess.run([sys.executable, "preprocess.py", "-i", "data/bad"], cwd=work, capture_output=True, text=True)
    assert p.returncode != 0 and "1 source lines but 2 target lines" in p.stderr, p.stderr[-500:]


def test_eval_bleu_scores_the_best_beam_result(work, tmp_path):
    reference = tmp_path / "gen"
    reference.write_text("a b c d e\tthe cat eats the mouse .\nf g\tthe dog sleeps on the mat .\n")
    result = tmp_path / "gen_result"
    # v1's beam format: id, then rank<TAB>score<TAB> words per result, best first
    result.write_text("1\n0\t-0.1\t the dog sleeps on the mat . <e>\n1\t-2.0\t a dog .\n\n"
                      "0\n0\t-0.2\t the cat eats the mouse . <e>\n1\t-3.0\t cat .\n\n")
    out = run(["translation/eval_bleu.py", str(result), "--reference", str(reference)], work, blas_threads=1)
    assert "BLEU = 100.00 (2 sentences)" in out, out
    result.write_text("0\n0\t-0.2\t the cat eats the mouse . <e>\n\n")
    p = subprocess.run([sys.executable, "translation/eval_bleu.py", str(result), "--reference", str(reference)],
                       cwd=work, capture_output=True, text=True)
    assert p.returncode != 0 and "no result for sentence 1" in p.stderr, p.stderr[-500:]


def test_toy_corpus_translation_trains_and_beam_search_beats_chance_bleu(work):
    run(["data/get_data.py"], work, blas_threads=1)
    run(CLI + ["train", "--config=translation/train.conf", "--save_dir=model", "--num_passes=1",
               "--log_period=0", "--dot_period=0"], work, blas_threads=1)
    run(CLI + ["train", "--job=test", "--config=translation/gen.conf", "--init_model_path=model/pass-00000"], work,
        blas_threads=1)
    out = run(["translation/eval_bleu.py", "translation/gen_result"], work, blas_threads=1)
    bleu = float(re.search(r"BLEU = (\S+) \(200 sentences\)", out).group(1))
    # the English sentences of the gen split in a random order of lines score about 3
    assert bleu > 50, out

    out = run(["translation/translate.py", "--model", "model/pass-00000", "le chat noir mange la souris ."], work,
              blas_threads=1).splitlines()
    at = out.index("le chat noir mange la souris .")
    results = [line.split("\t") for line in out[at + 1:at + 4]]
    assert [int(r[0]) for r in results] == [0, 1, 2], out
    scores = [float(r[1]) for r in results]
    assert scores == sorted(scores, reverse=True) and scores[0] <= 0, out
    assert results[0][2] == "the black cat eats the mouse .", out
