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


def test_diagram_text_expanded(write_config, tmp_path):
    """--expand_groups: every layer a box, agents included, as v1 drew them."""
    from paddle.utils.make_model_diagram import make_diagram
    dot = tmp_path / 'model.dot'
    text = make_diagram(write_config(CONF), str(dot), expand_groups=True)
    assert dot.read_text() == text
    lines = text.splitlines()
    assert lines[0] == 'digraph graphname {' and lines[-1] == '}'
    assert 'subgraph cluster_0 {' in lines
    assert 'style=dashed;' in lines
    assert 'label = "grp <==";' in lines
    boxes = [l for l in lines if 'shape=box' in l]
    # x, x@grp, rnn+delay1@grp, rnn@grp, rnn, last, out (the recurrent_layer_group
    # layer itself is the cluster, not a box)
    assert len(boxes) == 7
    assert any('label="out type=fc size=2\\lact=softmax bias=_out.wbias "' in l
               for l in boxes)
    assert any('label="rnn+delay1@grp type=agent size=4"' in l for l in boxes)
    # memory edge is dashed; input edges carry the parameter name
    assert any(l.endswith('[style=dashed];') for l in lines)
    assert any('[label="_out.w0"]' in l for l in lines)


def _boxes(text):
    """{box id: label} and the edges [(src label, dst label, attrs)] of a dot text."""
    import re
    boxes = dict(re.findall(r'^(l\d+) \[label="(.*)", shape=box\];$', text, re.M))
    edges = [(boxes[a], boxes[b], attrs) for a, b, attrs in
             re.findall(r'^(l\d+) -> (l\d+)(.*);$', text, re.M)]
    return boxes, edges


def test_groups_collapse_agents_into_labelled_edges(write_config, tmp_path):
    from paddle.utils.make_model_diagram import make_diagram
    text = make_diagram(write_config(CONF), str(tmp_path / 'm.dot'))
    boxes, edges = _boxes(text)
    names = sorted(label.split(' ')[0] for label in boxes.values())
    assert names == ['last', 'out', 'rnn', 'x']  # no agent, the step layer without '@grp'
    by_name = {label.split(' ')[0]: label for label in boxes.values()}
    rnn = by_name['rnn']
    assert (by_name['x'], rnn, ' [label="_rnn@grp.w0"]') in edges  # the in-link, into the cluster
    assert (rnn, rnn, ' [style=dashed, label="memory rnn"]') in edges  # the memory
    assert (rnn, by_name['last'], '') in edges  # the out-link, out of the cluster
    cluster = text.split('subgraph cluster_0 {')[1].split('}')[0]
    assert 'label="rnn type=fc size=4' in cluster and 'label="x ' not in cluster


def test_seq2seq_demo_diagram(tmp_path, monkeypatch):
    """The attention decoder: step layers readable inside the cluster, static inputs and
    the boot layer drawn as labelled edges from the encoder."""
    import os
    import shutil
    import subprocess
    from paddle.utils.make_model_diagram import make_diagram
    demo = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), 'demos', 'seq2seq')
    monkeypatch.chdir(demo)
    monkeypatch.syspath_prepend(demo)
    dot = tmp_path / 's2s.dot'
    text = make_diagram('train.conf', str(dot))
    boxes, edges = _boxes(text)
    assert not [l for l in boxes.values() if 'agent' in l or '@' in l.split(' ')[0]]
    by_name = {label.split(' ')[0]: label for label in boxes.values()}
    gru = by_name['gru_decoder']
    assert gru.startswith('gru_decoder type=gru_step size=64')
    assert (gru, by_name['__simple_attention_0___transform'],
            ' [style=dashed, label="memory gru_decoder"]') in edges
    assert (by_name['__mixed_1__'], gru, ' [style=dotted, label="boot gru_decoder"]') in edges
    statics = [(a.split(' ')[0], b.split(' ')[0]) for a, b, attrs in edges if attrs == ' [label="static"]']
    assert ('__concat_0__', '__simple_attention_0___expand') in statics
    assert ('__mixed_0__', '__simple_attention_0___combine') in statics
    assert (gru, by_name['__mixed_3__'], ' [label="_output.w"]') in edges  # out-link to the projection
    assert len(boxes) == 23  # 13 outer layers, the 2 encoder GRU steps, 8 decoder steps
    expanded = make_diagram('train.conf', str(tmp_path / 'full.dot'), expand_groups=True)
    assert len(_boxes(expanded)[0]) == 36 and 'type=scatter_agent' in expanded
    if shutil.which('dot'):
        for path in (dot, tmp_path / 'full.dot'):
            subprocess.run(['dot', '-Tsvg', str(path), '-o', str(path) + '.svg'], check=True)


def test_conv_config_shows_image_geometry(tmp_path):
    import os
    from paddle.utils.make_model_diagram import make_diagram
    lenet = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), 'configs', 'lenet.py')
    boxes, edges = _boxes(make_diagram(lenet, str(tmp_path / 'lenet.dot')))
    labels = sorted(boxes.values())
    assert any(l.startswith('pixel type=data size=784 image=1x28x28') for l in labels)
    assert any(l.startswith('conv1_conv type=exconv size=11520 image=20x24x24') for l in labels)
    assert any(l.startswith('conv2_pool type=pool size=800 image=50x4x4') for l in labels)
    assert any(l.startswith('fc1 type=fc size=500\\l') for l in labels)  # no geometry


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
    dot3 = tmp_path / 'c.dot'
    assert cli.main(['make_diagram', conf, str(dot3), '--expand_groups']) == 0
    assert 'type=agent' in dot3.read_text() and 'type=agent' not in dot.read_text()


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


def test_a_failing_dot_leaves_an_earlier_picture_as_it_was(write_config, tmp_path, monkeypatch):
    import os
    import pytest
    from paddle.utils.make_model_diagram import DiagramError, make_diagram
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    fake = bin_dir / 'dot'
    fake.write_text('#!/bin/sh\necho "Error: renderer crashed" >&2\nexit 3\n')
    fake.chmod(0o755)
    monkeypatch.setenv('PATH', str(bin_dir) + os.pathsep + os.environ['PATH'])
    picture = tmp_path / 'model.png'
    picture.write_bytes(b'an earlier picture')
    with pytest.raises(DiagramError) as e:
        make_diagram(write_config(CONF), str(picture))
    assert 'dot -Tpng failed: Error: renderer crashed' in str(e.value)
    assert picture.read_bytes() == b'an earlier picture'
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == '.png') == ['model.png']
