"""Sharded tables (`mpiexec -n 2 paddle train --local=0`): each row of a sparse_update table
lives on one rank. Two ranks train what one process with two threads trains, each rank holds
about half of the table, rank 0 saves whole v1 files that resume on any number of ranks, and a
rank that dies ends the job."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

from paddle.trainer import distributed

from test_data_parallel import (HERE, MPIEXEC, ROOT, _env, assert_same_parameters, kill_rank_1_mid_pass, needs_mpi,
                                parameters, pass_numbers, train)

LSTM = ["--config=lstm_text.py", "--config_args=sparse=1", "--seed=7", "--dot_period=0", "--log_period=5"]


def paddle_train(ranks, args, save_dir, cwd=HERE):
    """`paddle train` as users run it (rank 0 alone saves, into save_dir)."""
    cmd = [sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())", "train",
           "--save_dir=" + str(save_dir)] + args
    p = subprocess.run(([MPIEXEC, "-n", str(ranks)] if ranks > 1 else []) + cmd, cwd=cwd, env=_env(save_dir),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stderr


def state(pass_dir, name):
    return np.fromfile(os.path.join(str(pass_dir), "optimizer", name), dtype=np.float32)[4:]


@needs_mpi
def test_a_sharded_embedding_trains_what_one_process_with_two_threads_trains(tmp_path):
    """Rows are fetched from their owners, gradient rows go back to them, and the owners run
    AdaGrad with lazy L2 decay on their rows alone; every rank tests (rows from all ranks)."""
    args = LSTM + ["--num_passes=2", "--test_period=5"]
    sharded = train(2, args + ["--local=0"], HERE, tmp_path / "sharded")
    threads = train(1, args + ["--trainer_count=2"], HERE, tmp_path / "threads")
    assert pass_numbers(sharded) == pass_numbers(threads)
    for p in ("pass-00000", "pass-00001"):
        rank0 = parameters(tmp_path / "sharded" / "rank-0" / p)
        assert_same_parameters(rank0, parameters(tmp_path / "threads" / "rank-0" / p), exact=False)
        np.testing.assert_allclose(state(tmp_path / "sharded" / "rank-0" / p, "emb.gradient_squaresum"),
                                   state(tmp_path / "threads" / "rank-0" / p, "emb.gradient_squaresum"), rtol=1e-5)
        # rank 0 alone writes a sharded table (the other ranks' rows streamed in); dense ones are everywhere
        rank1 = parameters(tmp_path / "sharded" / "rank-1" / p)
        assert "emb" not in rank1 and sorted(rank1) == sorted(set(rank0) - {"emb"})
        assert_same_parameters(rank1, {k: v for k, v in rank0.items() if k != "emb"}, exact=True)


@needs_mpi
def test_threads_inside_sharded_ranks_compose(tmp_path):
    """2 ranks x 2 threads: the replicas read the rank's shard and the rows fetched for it."""
    args = LSTM + ["--num_passes=1"]
    train(2, args + ["--local=0", "--trainer_count=2"], HERE, tmp_path / "sharded")
    train(1, args + ["--trainer_count=4"], HERE, tmp_path / "threads")
    assert_same_parameters(parameters(tmp_path / "sharded" / "rank-0" / "pass-00000"),
                           parameters(tmp_path / "threads" / "rank-0" / "pass-00000"), exact=False)


@needs_mpi
def test_what_needs_every_row_on_every_rank_is_refused(tmp_path):
    shutil.copy(os.path.join(HERE, "train.list"), str(tmp_path))
    text = open(os.path.join(HERE, "lstm_text.py")).read()
    (tmp_path / "average.py").write_text(text.replace("settings(", "settings(model_average=ModelAverage(0.5), "))
    p = subprocess.run([MPIEXEC, "-n", "2", sys.executable, os.path.join(HERE, "every_rank_saves.py"), "train",
                        "--config=average.py", "--config_args=sparse=1", "--local=0", "--num_passes=1"],
                       cwd=str(tmp_path), env=_env(tmp_path), capture_output=True, text=True, timeout=120)
    assert p.returncode != 0 and "not with sharded tables (--local=0)" in p.stderr, p.stderr[-2000:]


@needs_mpi
def test_a_dense_input_reading_a_sharded_table_is_refused(tmp_path):
    """A dense input would read rows that live on the other rank (zeros here): a clear error, in
    the first forward, not a silently wrong test pass."""
    shutil.copy(os.path.join(HERE, "train.list"), str(tmp_path))
    (tmp_path / "ctr.py").write_text(open(os.path.join(HERE, "ctr.py")).read().replace("'ctr_provider'", "'dense'"))
    (tmp_path / "dense.py").write_text(
        "from paddle.trainer.PyDataProvider2 import *\n"
        "@provider(input_types={'features': dense_vector(200), 'label': integer_value(2)})\n"
        "def process(settings, filename):\n"
        "    for i in range(32):\n"
        "        yield [0.5] * 200, i % 2\n")
    p = subprocess.run([MPIEXEC, "-n", "2", sys.executable, os.path.join(HERE, "every_rank_saves.py"), "train",
                        "--config=ctr.py", "--local=0", "--num_passes=1"],
                       cwd=str(tmp_path), env=_env(tmp_path), capture_output=True, text=True, timeout=120)
    assert p.returncode != 0 and "the sharded table 'table' (--local=0) is read by a dense input" in p.stderr, \
        p.stderr[-2000:]


def test_one_process_has_nothing_to_shard():
    class Args(object):
        local = "0"
    assert distributed.shards_tables(Args(), None) is False  # (a warning says so)
    Args.local = "1"
    assert distributed.shards_tables(Args(), object()) is False


@needs_mpi
def test_saved_shards_resume_on_another_number_of_ranks(tmp_path):
    """pass-00000 of two sharded ranks resumes in one process, and one process's resumes on
    two sharded ranks: each trains the pass-00001 the uninterrupted runs trained."""
    args = LSTM + ["--num_passes=2"]
    sharded_log = paddle_train(2, args + ["--local=0"], tmp_path / "sharded")
    paddle_train(1, args + ["--trainer_count=2"], tmp_path / "threads")
    for source, ranks, extra, name in ((tmp_path / "sharded", 1, ["--trainer_count=2"], "one"),
                                      (tmp_path / "threads", 2, ["--local=0"], "two")):
        resumed = tmp_path / name
        shutil.copytree(str(source / "pass-00000"), str(resumed / "pass-00000"))
        paddle_train(ranks, args + extra + ["--start_pass=1"], resumed)
        assert_same_parameters(parameters(resumed / "pass-00001"), parameters(source / "pass-00001"), exact=False)
    # and --init_model_path reads the sharded save whole: one process tests what rank 0 tested
    log = paddle_train(1, LSTM + ["--job=test", "--init_model_path=%s" % (tmp_path / "sharded" / "pass-00001")],
                       tmp_path / "test")
    tested = [line for line in log.splitlines() if " Pass=pass-00001 " in line]
    assert tested and tested[0].split(" AvgCost=")[1].split()[0] == last_test_cost(sharded_log), log[-2000:]


def last_test_cost(log):
    tested = [line for line in log.splitlines() if " Test samples=" in line]
    assert tested, log[-2000:]
    return tested[-1].split(" cost=")[1].split()[0]


@needs_mpi
def test_each_rank_holds_about_half_of_a_million_row_table(tmp_path):
    """sparse_ctr's 1M x 64 table through benchmarks/scaleout.py's worker: sharded, a rank's
    memory holds its 500k rows plus the last batch's fetched rows."""
    rows = {}
    for mode in ("overlap", "sharded"):
        p = subprocess.run([MPIEXEC, "-n", "2", sys.executable, os.path.join(ROOT, "benchmarks", "scaleout.py"),
                            "--worker", "sparse_ctr", "--ranks", "2", "--modes", mode, "--steps", "2"],
                           env=_env(tmp_path), capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr[-2000:]
        rows[mode] = json.loads([line for line in p.stdout.splitlines() if line.startswith("{")][-1])
    assert rows["overlap"]["table_rows_resident"] == [1000000, 1000000]
    for resident in rows["sharded"]["table_rows_resident"]:
        assert 500000 <= resident < 650000  # owned rows + about 5k fetched rows
    assert rows["sharded"]["sparse_bytes_per_step"] > 0


@needs_mpi
def test_a_rank_dying_ends_a_sharded_job(tmp_path):
    kill_rank_1_mid_pass(tmp_path, HERE, LSTM + ["--num_passes=400", "--log_period=0", "--local=0"])


@needs_mpi
def test_a_sparse_input_fc_layer_reads_fetched_rows(tmp_path):
    """fc_layer on sparse binary input (sparse_ctr's lookup): its forward reads the rows fetched
    for the batch from the compact block of fetched rows, and trains what two threads train."""
    args = ["--config=ctr.py", "--seed=7", "--dot_period=0", "--log_period=5", "--num_passes=2",
            "--test_period=5"]
    sharded = train(2, args + ["--local=0"], HERE, tmp_path / "sharded")
    threads = train(1, args + ["--trainer_count=2"], HERE, tmp_path / "threads")
    assert pass_numbers(sharded) == pass_numbers(threads)
    for p in ("pass-00000", "pass-00001"):
        assert_same_parameters(parameters(tmp_path / "sharded" / "rank-0" / p),
                               parameters(tmp_path / "threads" / "rank-0" / p), exact=False)


@needs_mpi
def test_only_owned_rows_of_the_table_range_take_memory(tmp_path):
    """The rows fetched from other ranks live in a compact block, never in the table's own
    address range: of the 1M x 64 table a rank's range holds its 500k rows exactly."""
    p = subprocess.run([MPIEXEC, "-n", "2", sys.executable, os.path.join(ROOT, "benchmarks", "scaleout.py"),
                        "--worker", "sparse_ctr", "--ranks", "2", "--modes", "sharded", "--steps", "2"],
                       env=_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    r = json.loads([line for line in p.stdout.splitlines() if line.startswith("{")][-1])
    for resident, fetched in zip(r["table_rows_resident"], r["table_rows_fetched"]):
        assert resident - fetched == 500000
        assert 1000 < fetched < 20000  # the other rank's rows that this rank's 256 samples read


def stats_lines(log):
    """--show_parameter_stats_period's lines: {(parameter, occurrence): [avg_abs_val, max_val, avg_abs_grad, max_grad]}."""
    out, seen = {}, {}
    for line in log.splitlines():
        if " avg_abs_val=" not in line:
            continue
        words = line.split("]", 1)[1].split()
        k = (words[0], seen.get(words[0], 0))
        seen[words[0]] = k[1] + 1
        out[k] = [float(w.split("=")[1]) for w in words[1:]]
    assert out, log[-2000:]
    return out


@needs_mpi
def test_parameter_stats_of_a_sharded_table_cover_every_rank(tmp_path):
    """Rank 0 logs the whole table's value and gradient statistics (every rank's rows), as the
    unsharded run does."""
    args = LSTM + ["--num_passes=1", "--show_parameter_stats_period=4"]
    sharded = stats_lines(train(2, args + ["--local=0"], HERE, tmp_path / "sharded"))
    unsharded = stats_lines(train(2, args, HERE, tmp_path / "unsharded"))
    assert sorted(sharded) == sorted(unsharded) and ("emb", 2) in sharded
    for k in unsharded:
        np.testing.assert_allclose(sharded[k], unsharded[k], rtol=1e-4, err_msg=str(k))


@needs_mpi
def test_sharded_tables_with_each_rank_reading_its_own_files(tmp_path):
    """--data_sharding=files: 3 files on 2 ranks, so rank 1 runs out first and trains on empty
    batches (still answering the row requests of rank 0) until rank 0 is done; the sharded
    table trains what the unsharded one trains on the same files."""
    (tmp_path / "train.list").write_text("a\nb\nc\n")
    args = ["--config=" + os.path.join(HERE, "lstm_text.py"), "--config_args=sparse=1", "--num_passes=2",
            "--seed=7", "--dot_period=0", "--data_sharding=files"]
    sharded = train(2, args + ["--local=0"], str(tmp_path), tmp_path / "sharded")
    unsharded = train(2, args, str(tmp_path), tmp_path / "unsharded")
    assert pass_numbers(sharded) == pass_numbers(unsharded)
    for p in ("pass-00000", "pass-00001"):
        rank0 = parameters(tmp_path / "sharded" / "rank-0" / p)
        assert_same_parameters(rank0, parameters(tmp_path / "unsharded" / "rank-0" / p), exact=True)
        assert_same_parameters(parameters(tmp_path / "sharded" / "rank-1" / p),
                               {k: v for k, v in rank0.items() if k != "emb"}, exact=True)
