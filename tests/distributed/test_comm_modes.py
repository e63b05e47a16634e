"""How gradients travel between 2 ranks: buckets all-reduced while backward runs give the
bits of the exchange after backward; LocalSGD every step and DGC at full density train what
plain data parallel trains; DGC sending 1% of the gradient still learns the digits; every
rank holds the same parameters after each synchronisation."""
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from paddle.trainer import distributed
from test_data_parallel import HERE, MNIST, MPIEXEC, ROOT, _env, assert_same_parameters, needs_mpi, parameters, train

COMMON = ["--seed=7", "--dot_period=0", "--log_period=0"]


def digits(tmp_path, optimizer, evaluator=False, smooth=False):
    """The digits MLP of demos/mnist in tmp_path, with another optimizer (and an error evaluator).
    smooth: tanh for relu (train it at a learning rate of at most 0.001), for the tests that compare
    two orders of the same float operations: a unit whose input rounds to the other side of relu's
    kink changes its gradient outright (one did at batch 41 of 45 once the GEMMs' rounding changed)."""
    for name in ("mnist_provider.py", "train.list", "test.list"):
        shutil.copy(os.path.join(MNIST, name), str(tmp_path))
    text = open(os.path.join(MNIST, "mlp.py")).read()
    text = re.sub(r"settings\(.*\)", "settings(batch_size=32, %s)" % optimizer, text)
    if smooth:
        text = text.replace("ReluActivation()", "TanhActivation()")
    if evaluator:
        text = text.replace("outputs(classification_cost", "classification_error_evaluator(input=predict, label=label)\n"
                                                           "    outputs(classification_cost")
    (tmp_path / "digits.py").write_text(text)
    return "digits.py"


def run(tmp_path, name, config, cwd, extra, passes=1):
    log = train(2, ["--config=" + config, "--num_passes=%d" % passes] + COMMON + extra, str(cwd), tmp_path / name)
    for p in range(passes):
        pass_dir = "pass-%05d" % p
        # every rank holds the very same bits after each pass
        assert_same_parameters(parameters(tmp_path / name / "rank-0" / pass_dir),
                               parameters(tmp_path / name / "rank-1" / pass_dir), exact=True)
    return log


def assert_close(a, b):
    """Equal up to the rounding of a different order of float operations (45 steps of it)."""
    assert sorted(a) == sorted(b) and a
    for name in a:
        np.testing.assert_allclose(a[name], b[name], rtol=1e-4, atol=1e-5, err_msg=name)


def last_pass(tmp_path, name, passes=1):
    return parameters(tmp_path / name / "rank-0" / ("pass-%05d" % (passes - 1)))


@needs_mpi
def test_buckets_reduced_during_backward_equal_the_exchange_after_it(tmp_path):
    """Small buckets (many of them start while backward runs) give the bits of one exchange after backward."""
    run(tmp_path, "overlap", "mlp.py", MNIST, ["--bucket_cap_mb=0.1", "--overlap_allreduce=1"])
    run(tmp_path, "after", "mlp.py", MNIST, ["--bucket_cap_mb=0.1", "--overlap_allreduce=0"])
    assert_same_parameters(last_pass(tmp_path, "overlap"), last_pass(tmp_path, "after"), exact=True)


@needs_mpi
@pytest.mark.parametrize("mode, early", [("overlap", True), ("after", False)])
def test_buckets_start_while_backward_runs_only_when_overlapping(tmp_path, mode, early):
    """benchmarks/scaleout.py's worker on 2 ranks: the mlp's later layers' buckets leave
    before backward reaches the first layer."""
    p = subprocess.run([MPIEXEC, "-n", "2", sys.executable, os.path.join(ROOT, "benchmarks", "scaleout.py"),
                        "--worker", "mlp", "--ranks", "2", "--modes", mode], env=_env(tmp_path),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    r = json.loads([line for line in p.stdout.splitlines() if line.startswith("{")][-1])
    assert r["dense_bytes_per_step"] > 0
    assert (0 < r["started_during_backward"] < 1) if early else r["started_during_backward"] == 0


@needs_mpi
def test_local_sgd_every_step_equals_plain_data_parallel(tmp_path):
    """Momentum SGD is linear in the gradient: averaging each rank's step equals one step on the sum."""
    config = digits(tmp_path, "learning_rate=0.001, learning_method=MomentumOptimizer(0.9)", smooth=True)
    run(tmp_path, "plain", config, tmp_path, [])
    run(tmp_path, "local1", config, tmp_path, ["--local_sgd_steps=1"])
    assert_close(last_pass(tmp_path, "local1"), last_pass(tmp_path, "plain"))
    # K=4: the ranks drift apart between averages; the pass ends with one, so they agree again
    run(tmp_path, "local4", config, tmp_path, ["--local_sgd_steps=4"])
    with pytest.raises(AssertionError):
        assert_close(last_pass(tmp_path, "local4"), last_pass(tmp_path, "plain"))


@needs_mpi
def test_local_sgd_averages_the_rows_of_a_sparse_table_that_some_rank_touched(tmp_path):
    """Only touched rows differ between ranks: averaging them (with every pending lazy L2
    decay caught up first) every step equals plain data parallel's row exchange."""
    config = os.path.join(HERE, "lstm_text.py")
    args = ["--config_args=sparse=1,sgd=1"]
    run(tmp_path, "plain", config, HERE, args)
    run(tmp_path, "local1", config, HERE, args + ["--local_sgd_steps=1"])
    assert_close(last_pass(tmp_path, "local1"), last_pass(tmp_path, "plain"))
    run(tmp_path, "local3", config, HERE, args + ["--local_sgd_steps=3"])  # ranks agree at the pass end


@needs_mpi
def test_dgc_at_full_density_equals_plain_data_parallel(tmp_path):
    """Every entry travels each step, so nothing is left behind: without the momentum
    correction the exchanged sum is plain data parallel's gradient, and the optimizer's
    momentum applies as usual."""
    config = digits(tmp_path, "learning_rate=0.01, learning_method=MomentumOptimizer(0.9)")
    run(tmp_path, "plain", config, tmp_path, [])
    run(tmp_path, "dgc", config, tmp_path, ["--dgc_sparsity=0"])
    assert_same_parameters(last_pass(tmp_path, "dgc"), last_pass(tmp_path, "plain"), exact=True)


@pytest.mark.slow  # a longer training: the whole suite (CI) runs it
@needs_mpi
def test_dgc_momentum_correction_replaces_the_optimizers_momentum(tmp_path):
    """With --dgc_momentum the velocity is kept before compression, so the optimizer's
    momentum is off while DGC runs (else the gradient gets momentum twice): momentum 0.9 in
    the optimizer trains the very bits of momentum 0; before the ramp-up step it applies."""
    momentum = digits(tmp_path, "learning_rate=0.01, learning_method=MomentumOptimizer(0.9)")
    os.rename(str(tmp_path / momentum), str(tmp_path / "momentum.py"))
    sgd = digits(tmp_path, "learning_rate=0.01, learning_method=MomentumOptimizer(0)")
    dgc = ["--dgc_sparsity=0.9", "--dgc_momentum=0.9"]
    log = run(tmp_path, "dgc_momentum", "momentum.py", tmp_path, dgc)
    assert "the optimizer's own momentum is off" in log
    run(tmp_path, "dgc_sgd", sgd, tmp_path, dgc)
    assert_same_parameters(last_pass(tmp_path, "dgc_momentum"), last_pass(tmp_path, "dgc_sgd"), exact=True)
    # a ramp-up longer than the pass: plain all-reduce throughout, and the optimizer's momentum stays
    run(tmp_path, "rampup", "momentum.py", tmp_path, dgc + ["--dgc_rampup_begin_step=100000"])
    run(tmp_path, "plain", "momentum.py", tmp_path, [])
    assert_same_parameters(last_pass(tmp_path, "rampup"), last_pass(tmp_path, "plain"), exact=True)


@pytest.mark.slow  # a longer training: the whole suite (CI) runs it
@needs_mpi
def test_dgc_sending_one_percent_still_learns_the_digits(tmp_path):
    config = digits(tmp_path, "learning_rate=0.01, learning_method=MomentumOptimizer(0)", evaluator=True)
    log = run(tmp_path, "dgc", config, tmp_path, ["--dgc_sparsity=0.99", "--dgc_momentum=0.9"], passes=3)
    errors = [float(m) for m in re.findall(r" Test samples=360 .*?classification_error_evaluator=([0-9.e-]+)", log)]
    assert len(errors) == 3, log[-2000:]
    assert errors[-1] < 0.3  # chance is 0.9 on 10 classes
    # and the two ranks did not train the same as without compression
    run(tmp_path, "plain", config, tmp_path, [], passes=3)
    with pytest.raises(AssertionError):
        assert_close(last_pass(tmp_path, "dgc", 3), last_pass(tmp_path, "plain", 3))


def test_the_collective_records_are_typed_and_inert_in_one_process(tmp_path):
    """Options cross into the engine as a CollectiveOptions record, traffic comes back as a
    CollectiveTraffic record and sharded tables as named columns; a trainer that is not
    distributed takes the options, counts no traffic and has no sharded table (no MPI needed)."""
    from paddle.proto import message_to_json
    from paddle.trainer.config_parser import parse_config
    from py_paddle import swig_paddle as api
    options = distributed.collective_options(api, bucket_mb=4, overlap=False, local_sgd_steps=3, dgc_sparsity=-1,
                                             dgc_rampup_begin_step=2, dgc_momentum=0.5, timeout_seconds=60)
    assert (options.bucketMb, options.overlap, options.localSgdSteps, options.dgcSparsity, options.dgcRampupBeginStep,
            options.dgcMomentum, options.timeoutSeconds) == (4.0, False, 3, -1.0, 2, 0.5, 60.0)
    conf = tmp_path / "tiny.py"
    conf.write_text("from paddle.trainer_config_helpers import *\n"
                    "settings(batch_size=4, learning_rate=0.1)\n"
                    "x = data_layer(name='x', size=3)\n"
                    "out = fc_layer(input=x, size=2, act=SoftmaxActivation())\n"
                    "outputs(classification_cost(input=out, label=data_layer(name='y', size=2)))\n")
    trainer = api.Trainer.create(message_to_json(parse_config(str(conf), "")), False, 1, 1, False, False)
    trainer.setCollectiveOptions(options)
    traffic = trainer.takeCollectiveTraffic()
    assert isinstance(traffic, api.CollectiveTraffic)
    assert (traffic.steps, traffic.denseBytes, traffic.sparseBytes, traffic.dgcBytes, traffic.earlyBytes,
            traffic.mpiSeconds) == (0, 0, 0, 0, 0, 0)
    tables = trainer.getShardedRows()
    assert isinstance(tables, api.ShardedTableRows)
    assert list(tables.names) == list(tables.rows) == list(tables.resident) == list(tables.fetched) == []


@needs_mpi
@pytest.mark.parametrize("overlap", ["1", "0"])
def test_a_step_skipped_for_a_nonfinite_cost_leaves_the_next_step_its_own_exchange(tmp_path, overlap):
    """--skip_nonfinite_batches: the skipped step all-reduced its buckets (the cost is only known
    after backward) but never used them; the next step must exchange its own gradients, so both
    ranks still hold the same bits after the pass, with buckets overlapped with backward or not."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "reliability"))
    from test_data_guards import job
    work = tmp_path / "job"
    args = [a for a in job(str(work), False)[1:] if not a.startswith("--save_dir")]
    conf = (work / "conf.py").read_text()  # batch_norm's moving averages are each rank's own: drop it
    (work / "conf.py").write_text(conf.replace("bn = batch_norm_layer(input=h, act=TanhActivation())", "bn = h"))
    log = run(tmp_path, "skip", "conf.py", work, args[1:] + ["--skip_nonfinite_batches=2", "--bucket_cap_mb=0.0001",
                                                            "--overlap_allreduce=" + overlap])
    assert "Skipped pass 0, batch 2" in log, log[-2000:]


@needs_mpi
def test_bf16_gradient_all_reduce_halves_the_bytes_and_still_learns_the_digits(tmp_path):
    """--allreduce_precision=bf16: dense gradients cross as bfloat16 (half the bytes per step),
    both ranks hold the same bits after every pass, the digits still learn, and the run differs
    from the fp32 exchange (the rounding really happened)."""
    config = digits(tmp_path, "learning_rate=0.001, learning_method=AdamOptimizer()", evaluator=True)
    log = run(tmp_path, "bf16", config, tmp_path, ["--allreduce_precision=bf16"], passes=2)
    errors = [float(m) for m in re.findall(r" Test samples=360 .*?classification_error_evaluator=([0-9.e-]+)", log)]
    assert len(errors) == 2 and errors[-1] < 0.1, log[-2000:]  # chance is 0.9
    run(tmp_path, "fp32", config, tmp_path, [], passes=2)
    bf16, fp32 = last_pass(tmp_path, "bf16", 2), last_pass(tmp_path, "fp32", 2)
    assert any(not np.array_equal(bf16[k], fp32[k]) for k in fp32)
    assert all(np.abs(bf16[k] - fp32[k]).max() < 0.05 for k in fp32)


@needs_mpi
def test_bf16_gradient_all_reduce_sends_half_the_bytes_per_step(tmp_path):
    """benchmarks/scaleout.py's worker on 2 ranks: the bf16 mode's dense bytes per step are
    exactly half the fp32 overlap's."""
    bytes_per_step = {}
    for mode in ("overlap", "bf16"):
        p = subprocess.run([MPIEXEC, "-n", "2", sys.executable, os.path.join(ROOT, "benchmarks", "scaleout.py"),
                            "--worker", "mlp", "--ranks", "2", "--modes", mode], env=_env(tmp_path),
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr[-2000:]
        bytes_per_step[mode] = json.loads([l for l in p.stdout.splitlines() if l.startswith("{")][-1])[
            "dense_bytes_per_step"]
    assert bytes_per_step["overlap"] > 0 and bytes_per_step["bf16"] * 2 == bytes_per_step["overlap"]
