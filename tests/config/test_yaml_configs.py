"""configs/: every model exists as a Python config and a YAML config that
dump to the identical ModelConfig (and TrainerConfig with --whole); the
VGG / ResNet parameter counts match the models they are named after."""

import os

import pytest

from paddle.trainer.config_parser import parse_config
from paddle.utils.dump_config import dump_config, main as dump_main

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CONFIGS = os.path.join(ROOT, 'configs')

# model -> config_args variants to compare
MODELS = {
    'mlp': ['', 'is_predict=1'],
    'lenet': [''],
    'vgg_cifar': [''],
    'resnet_cifar': [''],
    'text_lstm': ['', 'is_predict=1', 'dict_dim=777'],
    'text_cnn': ['', 'dict_dim=50'],
    'bilstm': [''],
    'seq2seq_attention': ['', 'source_dict_dim=100,target_dict_dim=200'],
    'crf_tagger': [''],
    'recommendation': ['num_users=10,num_movies=20'],
}


def _path(name, ext):
    return os.path.join(CONFIGS, name + ext)


def test_every_model_has_both_twins():
    names = {os.path.splitext(f)[0] for f in os.listdir(CONFIGS)
             if f.endswith(('.py', '.yaml'))}
    assert names == set(MODELS)
    for n in names:
        assert os.path.exists(_path(n, '.py')), n
        assert os.path.exists(_path(n, '.yaml')), n


@pytest.mark.parametrize('name,args', [(n, a) for n, vs in MODELS.items()
                                       for a in vs])
@pytest.mark.parametrize('whole', [False, True])
def test_python_and_yaml_dump_identically(name, args, whole):
    py = dump_config(_path(name, '.py'), args, whole=whole)
    ym = dump_config(_path(name, '.yaml'), args, whole=whole)
    assert py == ym
    assert 'layers {' in py


def test_json_dumps_identical_too():
    assert dump_config(_path('seq2seq_attention', '.py'), fmt='json') == \
        dump_config(_path('seq2seq_attention', '.yaml'), fmt='json')


def _trainable(conf):
    return sum(p.size for p in conf.model_config.parameters
               if not p.is_static)


def resnet20_counts():
    """(trainable, static) parameter counts of ResNet-20 for CIFAR-10 (He et
    al. 2016, table 6): conv weights (no bias) + batch norm scale/shift per
    channel; 1x1 projection shortcuts where the width changes; fc 64 -> 10.
    Batch norm's moving mean / variance are the static ones."""
    bn_channels = []

    def conv_bn(k, cin, cout):
        bn_channels.append(cout)
        return k * k * cin * cout + 2 * cout

    n = conv_bn(3, 3, 16)
    cin = 16
    for cout in (16, 32, 64):
        for i in range(3):
            if cin != cout:
                n += conv_bn(1, cin, cout)
            n += conv_bn(3, cin, cout) + conv_bn(3, cout, cout)
            cin = cout
    n += 64 * 10 + 10
    return n, 2 * sum(bn_channels)


def test_resnet20_parameter_count():
    # ResNet-20 for CIFAR-10 (He et al. 2016, table 6): 0.27M parameters.
    n, n_static = resnet20_counts()
    conf = parse_config(_path('resnet_cifar', '.yaml'))
    assert _trainable(conf) == n == 272474
    assert round(n / 1e6, 2) == 0.27
    # batch norm moving mean / variance are static parameters
    statics = sum(p.size for p in conf.model_config.parameters if p.is_static)
    assert statics == n_static
    assert sum(1 for l in conf.model_config.layers if l.type == 'addto') == 9


def small_vgg_count():
    """Trainable parameters of v1's small_vgg (CIFAR-10): 3x3 convs 64x2,
    128x2, 256x3, 512x3, each with a shared bias and batch norm, 5 max-pools
    (32 -> 1), fc 512 + batch norm, fc 10."""
    widths = [64, 64, 128, 128, 256, 256, 256, 512, 512, 512]
    n, cin = 0, 3
    for w in widths:
        n += 9 * cin * w + w  # conv weight + shared bias
        n += 2 * w  # batch norm scale + shift
        cin = w
    n += 512 * 512 + 512  # fc (1x1x512 -> 512)
    n += 2 * 512  # batch norm
    n += 512 * 10 + 10  # softmax fc
    return n


def test_small_vgg_parameter_count():
    n = small_vgg_count()
    for ext in ('.py', '.yaml'):
        conf = parse_config(_path('vgg_cifar', ext))
        assert _trainable(conf) == n


def test_seq2seq_has_a_recurrent_group_with_attention():
    conf = parse_config(_path('seq2seq_attention', '.yaml'))
    mc = conf.model_config
    assert mc.type == 'recurrent_nn'
    names = [s.name for s in mc.sub_models]
    assert 'decoder_group' in names
    group = mc.sub_models[names.index('decoder_group')]
    assert 'gru_decoder@decoder_group' in [m.layer_name for m in group.memories]
    assert any(l.type == 'gru_step' for l in mc.layers)


def test_dump_config_command_accepts_yaml(capsys):
    assert dump_main([_path('mlp', '.yaml'), 'is_predict=1', '--whole']) == 0
    out = capsys.readouterr().out
    assert out == dump_config(_path('mlp', '.py'), 'is_predict=1', whole=True)


def test_paddle_cli_dump_config_accepts_yaml(capsys):
    from paddle.trainer import cli
    assert cli.cmd_dump_config([_path('lenet', '.yaml'),
                                '--format=yaml']) == 0
    out = capsys.readouterr().out
    assert 'conv1_conv' in out


def test_yml_suffix_is_accepted(tmp_path):
    src = open(_path('mlp', '.yaml')).read()
    p = tmp_path / 'mlp.yml'
    p.write_text(src)
    assert dump_config(str(p)) == dump_config(_path('mlp', '.py'))
