"""paddle make_diagram / python -m paddle.utils.make_model_diagram, and
config_parser_utils."""

import subprocess
import sys

H = 'from paddle.trainer_config_helpers import *\nsettings(batch_size=10)\n'

CONF = H + '''
x = data_layer(name='x', size=6)
def step(y):
    mem = memory(name='rnn', size=4)
    return fc_layer(input=[y, mem], size=4, name='rnn')
r = recurrent_group(step=step, input=x, reverse=True, name='grp')
outputs(fc_layer(input=last_seq(input=r, name='last'), size=2,
                 act=SoftmaxActivation(), name='out'))
'''


def test_diagram_text(write_config, tmp_path):
    from paddle.utils.make_model_diagram import make_diagram
    dot = tmp_path / 'model.dot'
    text = make_diagram(write_config(CONF), str(dot))
    assert dot.read_text() == text
    lines = text.splitlines()
    assert lines[0] == 'digraph graphname {' and lines[-1] == '}'
    assert 'subgraph cluster_0 {' in lines
    assert 'style=dashed;' in lines
    assert 'label = "grp <==";' in lines
    # one box per layer, with type, activation and bias
    boxes = [l for l in lines if 'shape=box' in l]
    # x, x@grp, rnn+delay1@grp, rnn@grp, rnn, last, out (as in v1, the
    # recurrent_layer_group layer itself is the cluster, not a box)
    assert len(boxes) == 7
    assert any('label="out type=fc\\lact=softmax bias=_out.wbias "' in l
               for l in boxes)
    assert any('label="last type=seqlastins\\lact=linear "' in l or
               'label="last type=seqlastins"' in l for l in boxes)
    # memory edge is dashed; input edges carry the parameter name
    assert any(l.endswith('[style=dashed];') for l in lines)
    assert any('[label="_out.w0"]' in l for l in lines)


def test_module_cli_and_paddle_command(write_config, tmp_path):
    conf = write_config(CONF)
    dot = tmp_path / 'a.dot'
    r = subprocess.run([sys.executable, '-m', 'paddle.utils.make_model_diagram',
                        conf, str(dot)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert dot.read_text().startswith('digraph graphname {')
    from paddle.trainer import cli
    assert 'make_diagram' in cli.COMMANDS and 'make_diagram' in cli.USAGE
    dot2 = tmp_path / 'b.dot'
    assert cli.main(['make_diagram', conf, str(dot2)]) == 0
    assert dot2.read_text() == dot.read_text()


def test_cli_errors(write_config, tmp_path, capsys):
    from paddle.utils.make_model_diagram import main
    assert main([]) == 2
    capsys.readouterr()
    bad = write_config(H + 'outputs(fc_layer(input=nothere, size=2))\n')
    assert main([bad, str(tmp_path / 'x.dot')]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and 'nothere' in err


def test_config_parser_utils():
    from paddle.trainer_config_helpers import (AdamOptimizer, data_layer,
                                               fc_layer, outputs, settings)
    from paddle.trainer_config_helpers.config_parser_utils import (
        parse_network_config, parse_optimizer_config)

    def network():
        a = data_layer(name='a', size=3)
        outputs(fc_layer(input=a, size=2, name='f'))

    def optimizer():
        settings(batch_size=7, learning_rate=0.1,
                 learning_method=AdamOptimizer())

    mc = parse_network_config(network)
    assert [l.name for l in mc.layers] == ['a', 'f']
    assert list(mc.output_layer_names) == ['f']
    oc = parse_optimizer_config(optimizer)
    assert oc.batch_size == 7 and oc.learning_method == 'adam'
    assert abs(oc.learning_rate - 0.1) < 1e-12
