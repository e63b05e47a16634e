"""demos/recommendation: the MovieLens feature-fusion net trains on the synthetic
data below the predict-the-mean cost, predict.py scores a user/movie pair, and
the ml-1m preprocessing reads the real '::'-separated latin-1 format (YAML twins:
test_yaml_twins.py)."""
import json
import os
import re
import shutil
import subprocess
import sys


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "demos", "recommendation")
TEST_COST = re.compile(r"\]  Test samples=(\d+) cost=(\S+)$", re.M)


def environment():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if any(n.startswith("_swig_paddle") for n in os.listdir(os.path.join(ROOT, "py_paddle"))):
        env["PYTHONPATH"] = ROOT  # in-place developer build
    return env


def run(args, cwd, module=True):
    cmd = [sys.executable] + (["-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())"]
                              if module else []) + args
    p = subprocess.run(cmd, cwd=cwd, env=environment(), capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return p


def copy_demo(tmp_path, demo=DEMO):
    work = str(tmp_path / os.path.basename(demo))
    shutil.copytree(demo, work, ignore=shutil.ignore_patterns("output", "__pycache__", "ml-1m*"))
    return work


def test_trains_below_the_mean_baseline_and_predicts(tmp_path):
    work = copy_demo(tmp_path)
    sys.path.insert(0, work)
    try:
        import movielens
        _, split = movielens.synthetic_meta_and_split()
    finally:
        sys.path.pop(0)
        sys.modules.pop("movielens", None)
    train = [movielens.scaled_score(movielens.parse_rating(l)[2]) for l in split["train"]]
    test = [movielens.scaled_score(movielens.parse_rating(l)[2]) for l in split["test"]]
    mean = sum(train) / len(train)
    baseline = sum((t - mean) ** 2 for t in test) / len(test)

    err = run(["train", "--config=trainer_config.py", "--save_dir=output", "--num_passes=2", "--log_period=1000",
               "--dot_period=0", "--config_args=hidden=32,batch_size=200"], work).stderr
    costs = TEST_COST.findall(err)
    assert len(costs) == 2 and int(costs[-1][0]) == len(test), err[-2000:]
    assert float(costs[-1][1]) < 0.8 * baseline, (costs, baseline)

    out = run(["predict.py", "output/pass-00001", "4", "9", "--config_args=hidden=32"], work, module=False).stdout
    score = float(re.search(r"Prediction Score is (\S+)", out).group(1))
    assert 0.0 <= score <= 5.0  # cos * 5 mapped back from -5..5


USERS = ["1::F::1::10::48067", "2::M::56::16::70072", "3::M::25::15::55117", "4::M::45::7::02460",
         "5::F::25::20::55455"]
MOVIES = ["1::Toy Story (1995)::Animation|Children's|Comedy", "2::Jumanji (1995)::Adventure|Children's|Fantasy",
          "3::Grumpier Old Men (1995)::Comedy|Romance", "4::Misérables, Les (1995)::Drama|Musical"]


def test_preprocess_reads_the_real_format(tmp_path):
    raw, out = tmp_path / "ml-1m", tmp_path / "prepared"
    raw.mkdir()
    ratings = ["%d::%d::%d::97830%04d" % (u, m, (u + m) % 5 + 1, u * 10 + m) for u in range(1, 6) for m in range(1, 5)]
    for name, lines in (("users", USERS), ("movies", MOVIES), ("ratings", ratings + ratings[:1])):
        (raw / (name + ".dat")).write_bytes("".join(l + "\n" for l in lines).encode("latin-1"))
    run([os.path.join(DEMO, "data", "preprocess.py"), str(raw), str(out), "--test_ratio=0.3"], str(tmp_path),
        module=False)
    meta = json.loads((out / "meta.json").read_text())
    assert meta["user"]["max_id"] == 5 and meta["movie"]["max_id"] == 4
    assert meta["user"]["features"]["1"] == [1, 0, 10]   # F, age bucket 1 -> 0, occupation 10
    assert meta["user"]["features"]["2"] == [0, 6, 16]   # M, 56 -> the last bucket
    words = meta["movie"]["title_dict"]
    title, genres = meta["movie"]["features"]["4"]
    assert [words[i] for i in title] == ["misérables", "les"]  # latin-1 decoded, year dropped
    assert genres == [7, 11]                                # Drama, Musical
    train = (out / "ratings.dat.train").read_text(encoding="latin-1").split()
    test = (out / "ratings.dat.test").read_text(encoding="latin-1").split()
    assert sorted(train + test) == sorted(ratings + ratings[:1]) and test and train
    assert (out / "train.list").read_text().strip() == str(out / "ratings.dat.train")


def test_trains_on_preprocessed_ml1m_format(tmp_path):
    """The real-data path end to end on a fixture: meta.json and rating files from data/ml-1m-prepared."""
    raw = tmp_path / "ml-1m"
    raw.mkdir()
    ratings = ["%d::%d::%d::0" % (u, m, (u * m) % 5 + 1) for u in range(1, 6) for m in range(1, 5)]
    for name, lines in (("users", USERS), ("movies", MOVIES), ("ratings", ratings)):
        (raw / (name + ".dat")).write_bytes("".join(l + "\n" for l in lines).encode("latin-1"))
    work = copy_demo(tmp_path)
    run([os.path.join(work, "data", "preprocess.py"), str(raw), os.path.join(work, "data", "ml-1m-prepared"),
         "--test_ratio=0.3"], work, module=False)
    n_test = len(open(os.path.join(work, "data", "ml-1m-prepared", "ratings.dat.test")).read().split())
    err = run(["train", "--config=trainer_config.py", "--save_dir=output", "--num_passes=1", "--dot_period=0",
               "--config_args=dataset=ml-1m,hidden=8"], work).stderr
    assert int(TEST_COST.findall(err)[0][0]) == n_test > 0
    out = run(["predict.py", "output/pass-00000", "2", "4", "--config_args=dataset=ml-1m,hidden=8"], work,
              module=False).stdout
    assert "Prediction Score is" in out


def test_preprocess_names_the_bad_line(tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "users.dat").write_text("1::F::1::10\n")
    (raw / "movies.dat").write_text(MOVIES[0] + "\n")
    (raw / "ratings.dat").write_text("1::1::5::0\n")
    p = subprocess.run([sys.executable, os.path.join(DEMO, "data", "preprocess.py"), str(raw), str(tmp_path / "o")],
                       capture_output=True, text=True)
    assert p.returncode != 0 and "users.dat: expected 5" in p.stderr
