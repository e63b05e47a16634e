"""Every flag of v1 (v0.10) `paddle train` is accepted: honoured, or warned about once with
the reason it is ignored. The list: v0.10's flag definitions (Trainer.cpp, TrainerMain.cpp,
utils/Flags.cpp and the rest of `paddle train --help`), its command-line documentation and
the flags its demo scripts pass."""
import logging
import re

import pytest

from paddle.trainer import cli

# flag -> a value as v1 users wrote it
HONOURED = {
    "config": "trainer_config.py", "config_args": "is_test=1,layer_num=50", "job": "test",
    "save_dir": "./output", "num_passes": "15", "start_pass": "2", "init_model_path": "./data",
    "load_missing_parameter_strategy": "rand", "use_gpu": "false", "trainer_count": "4",
    "log_period": "20", "dot_period": "10", "test_period": "0", "saving_period": "1",
    "save_only_one": "1", "test_pass": "12", "model_list": "./model.list",
    "predict_output_dir": ".", "predict_file": "p.txt", "seed": "1", "show_parameter_stats_period": "100",
    "checkgrad_eps": "1e-5", "local": "1",
    # passed to the config (get_config_arg), as v1's TrainerConfigHelper did
    "trainer_id": "0", "with_cost": "true",
    # flags of the libraries v1's binary linked: job=time's data feeding, the profiler switch,
    # glog's log directory
    "feed_data": "1", "profile_signal": "12", "profile_data_file": "gperf.prof", "log_dir": "./log",
}
IGNORED = {
    # trainer and utils flags
    "test_all_data_in_one_period": "1", "average_test_period": "10000000",
    "saving_period_by_batches": "5000", "test_wait": "1",
    "distribute_test": "0", "feat_file": "f.txt", "gpu_id": "0", "parallel_nn": "1",
    "num_gradient_servers": "1", "comment": "run 1", "port": "20134",
    "ports_num": "1", "ports_num_for_sparse": "0", "nics": "xgbe0,xgbe1", "rdma_tcp": "tcp",
    "log_period_server": "500", "enable_parallel_vector": "0",
    "loadsave_parameters_in_pserver": "0", "beam_size": "1", "show_layer_stat": "0",
    "prev_batch_state": "0", "start_pserver": "0",
    "pservers": "127.0.0.1", "use_old_updater": "0", "enable_grad_share": "104857600",
    "grad_share_block_num": "64", "log_clipping": "0", "log_error_clipping": "0",
    "allow_only_one_model_on_one_gpu": "1", "cudnn_dir": "/usr/local/cuda/lib64",
    "cuda_dir": "/usr/local/cuda/lib64", "warpctc_dir": "/opt/warpctc",
    "cudnn_conv_workspace_limit_in_mb": "4096", "cudnn_version": "5", "rnn_use_batch": "0",
    "diy_beam_search_prob_so": "libprob.so", "external": "0", "data_server_port": "21134",
    "memory_threshold_on_load_data": "1.0", "small_messages": "0",
    "sock_send_buf_size": "41943040", "sock_recv_buf_size": "41943040",
    "parameter_block_size": "0", "parameter_block_size_for_sparse": "0",
    "pserver_num_threads": "1", "async_count": "0", "async_lagged_ratio_min": "1.0",
    "async_lagged_ratio_default": "1.5", "log_barrier_abstract": "1",
    "log_barrier_show_log": "0", "log_barrier_lowest_nodes": "5",
    "check_sparse_distribution_in_pserver": "0", "show_check_sparse_distribution_log": "0",
    "check_sparse_distribution_batches": "100", "check_sparse_distribution_ratio": "0.6",
    "check_sparse_distribution_unbalance_degree": "2", "thread_local_rand_use_global_seed": "0",
    "python_path": "/usr/lib/python2.7", "python_bin": "python2.7",
    "use_mkldnn": "0", "use_mkl_packed": "0",
    "parallel_thread_num": "4", "pool_limit_size": "536870912", "layer_stack_error_only_current_thread": "1",
    # glog's flags, also in `paddle train --help`
    "logtostderr": "1", "alsologtostderr": "0", "colorlogtostderr": "0",
    "stderrthreshold": "2", "minloglevel": "0", "v": "0", "vmodule": "", "logbuflevel": "-1",
    "logbufsecs": "30", "max_log_size": "1800", "stop_logging_if_full_disk": "0",
    "log_prefix": "1", "log_link": "", "logfile_mode": "436", "symbolize_stacktrace": "1",
}

# v1 demo scripts, flags as written there (demo/*/train.sh, test.sh, predict.sh, gen.sh ...)
DEMO_COMMANDS = [
    "--config=vgg_16_cifar.py --dot_period=10 --log_period=100 --test_all_data_in_one_period=1 "
    "--use_gpu=1 --trainer_count=1 --num_passes=300 --save_dir=./cifar_vgg_model",
    "--config=trainer_config.lr.py --save_dir=./output --trainer_count=4 --log_period=20 "
    "--num_passes=15 --use_gpu=false --show_parameter_stats_period=100 "
    "--test_all_data_in_one_period=1",
    "--config=trainer_config.lr.py --use_gpu=false --job=test --init_model_path=output/pass-00003 "
    "--config_args=is_predict=1 --predict_output_dir=.",
    "--config=trainer_config.py --model_list=./model.list --job=test --use_gpu=false "
    "--trainer_count=4 --config_args=is_test=1",
    "--job=test --config=translation/gen.conf --save_dir=data/wmt14_model --use_gpu=false "
    "--num_passes=13 --test_pass=12 --trainer_count=1",
    "--config=./db_lstm.py --use_gpu=0 --log_period=5000 --trainer_count=1 "
    "--show_parameter_stats_period=5000 --save_dir=./output --num_passes=10000 "
    "--average_test_period=10000000 --init_model_path=./data "
    "--load_missing_parameter_strategy=rand --test_all_data_in_one_period=1",
    "--config rnn_crf.py --parallel_nn=1 --use_gpu=1 --dot_period=10 --log_period=1000 "
    "--test_period=0 --num_passes=10",
    "--local=true --job=test --config=./resnet.py --model_list=./model.list --use_gpu=1 "
    "--predict_output_dir=fea_output --config_args=is_test=1,layer_num=50",
    "--config=trainer_config.py --save_dir=./output --trainer_count=4 --log_period=1000 "
    "--dot_period=10 --num_passes=10 --use_gpu=false --show_parameter_stats_period=3000 "
    "--test_wait=1",
    "--use_gpu=0 --config=./sparse_trainer_config.py --saving_period=1 --test_period=0 "
    "--num_passes=4 --dot_period=2 --log_period=20 --trainer_count=10 "
    "--saving_period_by_batches=5000 --local=1",
    "--config=trainer_config.py --save_dir=./output --use_gpu=false --trainer_count=4 "
    "--test_all_data_in_one_period=true --log_period=100 --dot_period=1 --num_passes=50",
]


@pytest.fixture
def warnings():
    seen = []

    class Keep(logging.Handler):
        def emit(self, record):
            seen.append(record.getMessage())

    handler = Keep(logging.WARNING)
    cli.LOG.addHandler(handler)
    yield seen
    cli.LOG.removeHandler(handler)


def _parse(argv):
    return cli._train_parser().parse_args(cli._normalize(argv))


def test_the_whole_v1_flag_list_parses_and_each_ignored_flag_warns_once(warnings):
    argv = ["--%s=%s" % kv for kv in sorted(HONOURED.items()) + sorted(IGNORED.items())]
    args = _parse(argv)
    assert (args.config, args.job, args.trainer_count, args.save_only_one) == \
        ("trainer_config.py", "test", 4, True)
    assert args.checkgrad_eps == 1e-5 and args.use_gpu is False
    cli.warn_ignored_flags(args)
    assert len(warnings) == len(IGNORED)
    for flag in IGNORED:
        (line, ) = [w for w in warnings if w.startswith("--%s " % flag)]
        assert "is accepted for v1 compatibility and ignored: " in line
        assert len(line.split("ignored: ", 1)[1]) > 10  # a reason, not just a label
    assert set(IGNORED) == set(cli.IGNORED_FLAGS)  # no flag ignored without being listed


def test_honoured_flags_do_not_warn(warnings):
    cli.warn_ignored_flags(_parse(["--%s=%s" % kv for kv in sorted(HONOURED.items())]))
    assert warnings == []


@pytest.mark.parametrize("command", DEMO_COMMANDS)
def test_v1_demo_command_lines_parse(command):
    args = _parse(command.split())
    assert args.config


def test_gflags_boolean_spellings():
    args = _parse(["-config=c.py", "--use_gpu", "--nolocal", "--save_only_one", "--noparallel_nn",
                   "--test_all_data_in_one_period"])
    assert args.use_gpu is True and args.save_only_one is True
    assert args.local == "false" and args.parallel_nn == "false"
    assert args.test_all_data_in_one_period == "true"
    assert _parse(["--config=c.py", "--nouse_gpu"]).use_gpu is False


def test_version_needs_no_config(capsys):
    pytest.importorskip("py_paddle.swig_paddle")
    assert cli.cmd_train(["--version"]) == 0
    assert capsys.readouterr().out.startswith("paddle version:")


def test_a_missing_config_is_still_an_error():
    with pytest.raises(SystemExit):
        cli.cmd_train(["--num_passes=1"])


def test_help_gives_every_ignored_flag_its_reason():
    text = " ".join(cli._train_parser().format_help().split()).replace("- ", "-")  # (wrapped at hyphens)
    ignored = text.split("v1 flags accepted and ignored, with the reason: ", 1)[1]
    for part in ignored.rstrip(".").split("; "):
        names, reason = part.split(": ", 1)
        for name in names.split():
            assert cli.IGNORED_FLAGS[name[2:]] == reason, name
    assert sorted(n[2:] for part in ignored.split("; ") for n in part.split(": ", 1)[0].split()) == \
        sorted(cli.IGNORED_FLAGS)


def test_flagfile_fromenv_and_tryfromenv(tmp_path, monkeypatch):
    inner = tmp_path / "inner.flags"
    inner.write_text("--log_period=7\n")
    outer = tmp_path / "train.flags"
    outer.write_text("# v1 flags\n--config=c.py\n\n-trainer_count=2\n--nouse_gpu\n--flagfile=%s\n" % inner)
    monkeypatch.setenv("FLAGS_num_passes", "9")
    monkeypatch.setenv("FLAGS_dot_period", "3")
    args = _parse(["--flagfile=%s" % outer, "--fromenv=num_passes", "--tryfromenv=dot_period,seed",
                   "--log_period=8"])
    assert (args.config, args.trainer_count, args.use_gpu, args.num_passes, args.dot_period, args.seed) == \
        ("c.py", 2, False, 9, 3, 1)
    assert args.log_period == 8  # later flags win, as in gflags
    assert _parse(["--flagfile", str(inner), "--config=c.py"]).log_period == 7
    with pytest.raises(cli.UsageError, match="FLAGS_seed is not set"):
        _parse(["--fromenv=seed"])
    (tmp_path / "bad.flags").write_text("config=c.py\n")
    with pytest.raises(cli.UsageError, match=r"bad.flags:1: expected a flag"):
        _parse(["--flagfile=%s" % (tmp_path / "bad.flags")])
    loop = tmp_path / "loop.flags"
    loop.write_text("--flagfile=%s\n" % loop)
    with pytest.raises(cli.UsageError, match="reads itself again"):
        _parse(["--flagfile=%s" % loop])


def test_profile_signal_toggles_a_profiler(tmp_path):
    import os
    import signal
    from paddle.trainer import v1_flags
    out = tmp_path / "prof.out"
    old = signal.getsignal(signal.SIGUSR2)
    try:
        v1_flags._install_profiler_switch(signal.SIGUSR2, str(out))
        os.kill(os.getpid(), signal.SIGUSR2)
        sum(i * i for i in range(1000))
        assert not out.exists()
        os.kill(os.getpid(), signal.SIGUSR2)
        assert out.exists()
        import pstats
        assert pstats.Stats(str(out)).total_calls > 0
    finally:
        signal.signal(signal.SIGUSR2, old)


# -- the flags' effects in a run ------------------------------------------------------------

CONFIG = """\
from paddle.trainer_config_helpers import *
print("config args: with_cost=%s trainer_id=%s local=%s" % (get_config_arg("with_cost", bool, None),
      get_config_arg("trainer_id", int, None), get_config_arg("local", bool, None)))
define_py_data_sources2("train.list", "train.list", module="prov", obj="process")
settings(batch_size=4, learning_rate=0.1)
x = data_layer(name="x", size=3)
out = fc_layer(input=x, size=2, act=SoftmaxActivation())
if get_config_arg("with_cost", bool, True):
    outputs(classification_cost(out, data_layer(name="y", size=2)))
else:
    outputs(out)
"""

PROVIDER = """\
from paddle.trainer.PyDataProvider2 import *

@provider(input_types={"x": dense_vector(3), "y": integer_value(2)})
def process(settings, name):
    for i in range(20):
        yield {"x": [i % 2, 1.0, -1.0], "y": i % 2}
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "conf.py").write_text(CONFIG)
    (tmp_path / "prov.py").write_text(PROVIDER)
    (tmp_path / "train.list").write_text("x\n")
    return tmp_path


def paddle(args, cwd):
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root, OPENBLAS_NUM_THREADS="1")
    p = subprocess.run([sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())"]
                       + args, cwd=str(cwd), env=env, capture_output=True, text=True, timeout=300)
    return p


def test_with_cost_and_trainer_id_reach_the_config_and_log_dir_gets_the_log(project):
    pytest.importorskip("py_paddle.swig_paddle")
    p = paddle(["train", "--config=conf.py", "--num_passes=1", "--save_dir=out", "--dot_period=0",
                "--trainer_id=3", "--log_dir=logs"], project)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "config args: with_cost=True trainer_id=3 local=True" in p.stdout
    log = (project / "logs" / "paddle_trainer.INFO").read_text()
    assert "Pass=0" in log and "Saving parameters" in log
    p = paddle(["train", "--config=conf.py", "--job=test", "--init_model_path=out/pass-00000", "--nowith_cost",
                "--predict_output_dir=pred"], project)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "config args: with_cost=False trainer_id=0 local=True" in p.stdout
    rows = (project / "pred" / "rank-00000").read_text().splitlines()
    assert len(rows) == 20 and len(rows[0].rstrip(";").split()) == 2  # the softmax, no cost


def test_test_job_and_resume_read_the_config_from_path_txt(project):
    pytest.importorskip("py_paddle.swig_paddle")
    p = paddle(["train", "--config=conf.py", "--num_passes=1", "--save_dir=out", "--dot_period=0"], project)
    assert p.returncode == 0, p.stderr[-2000:]
    assert (project / "out" / "pass-00000" / "path.txt").read_text().strip() == "conf.py"
    p = paddle(["train", "--job=test", "--init_model_path=out/pass-00000"], project)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "Pass=pass-00000 samples=20 AvgCost=" in p.stderr
    p = paddle(["train", "--start_pass=1", "--num_passes=2", "--save_dir=out", "--dot_period=0"], project)
    assert p.returncode == 0, p.stderr[-2000:]
    assert (project / "out" / "pass-00001").is_dir()
    (project / "empty").mkdir()
    p = paddle(["train", "--job=test", "--init_model_path=empty"], project)
    assert p.returncode == 2 and "--config (or --init_model_path=DIR with DIR/path.txt)" in p.stderr


def test_job_time_times_training_steps(project):
    pytest.importorskip("py_paddle.swig_paddle")
    p = paddle(["train", "--config=conf.py", "--job=time", "--test_period=6"], project)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "Burning time end." in p.stderr and "GetData" not in p.stderr
    assert re.search(r"Stat=FwdBwd +total=[\d.]+ avg=[\d.]+ max=[\d.]+ min=[\d.]+ count=6", p.stderr), p.stderr
    p = paddle(["train", "--config=conf.py", "--job=time", "--test_period=20", "--feed_data"], project)
    assert p.returncode == 0, p.stderr[-2000:]
    # 20 samples make 5 batches of 4: the first is the warm-up's, 4 more are read and timed
    assert re.search(r"Stat=FwdBwd .* count=4", p.stderr) and re.search(r"Stat=GetData .* count=5", p.stderr)
