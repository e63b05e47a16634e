"""Every flag of v1 (v0.10) `paddle train` is accepted: honoured, or warned about once with
the reason it is ignored. The list: v0.10's flag definitions (Trainer.cpp, TrainerMain.cpp,
utils/Flags.cpp and the rest of `paddle train --help`), its command-line documentation and
the flags its demo scripts pass."""
import logging

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
}
IGNORED = {
    # trainer and utils flags
    "test_all_data_in_one_period": "1", "average_test_period": "10000000",
    "saving_period_by_batches": "5000", "test_wait": "1", "with_cost": "true",
    "distribute_test": "0", "feat_file": "f.txt", "gpu_id": "0", "parallel_nn": "1",
    "trainer_id": "0", "num_gradient_servers": "1", "comment": "run 1", "port": "20134",
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
    # glog's flags, also in `paddle train --help`
    "log_dir": "./log", "logtostderr": "1", "alsologtostderr": "0", "colorlogtostderr": "0",
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
