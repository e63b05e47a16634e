"""Each parse runs against its own ParseState: two parses in two threads at once, or a
config that parses another config mid-parse, give what each gives alone, and v1's module
globals (g_config, g_layer_map, settings ...) read the parse of the thread reading them."""
import os
import textwrap
import threading

import pytest

import paddle.trainer.config_parser as cp
from paddle.parser import ConfigError, state
from paddle.trainer.config_parser import parse_config

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIGS = os.path.join(ROOT, 'configs')

# Two configs that differ in everything a parse keeps: settings, auto names (fc_layer and
# friends without a name), image geometry, a recurrent group's sub-model, config args.
IMAGE_BODY = """\
settings(batch_size=get_config_arg('bs', int, 8), learning_rate=0.01)
img = data_layer(name='image', size=3 * 8 * 8, height=8, width=8)
sync()
conv = img_conv_layer(input=img, filter_size=3, num_filters=4, num_channels=3, padding=1)
sync()
pool = img_pool_layer(input=conv, pool_size=2, stride=2)
hidden = fc_layer(input=pool, size=16)
sync()
prob = fc_layer(input=hidden, size=10, act=SoftmaxActivation())
sync()
outputs(classification_cost(input=prob, label=data_layer(name='label', size=10)))
"""

SEQUENCE_BODY = """\
settings(batch_size=get_config_arg('bs', int, 3), learning_method=AdamOptimizer())
words = data_layer(name='words', size=get_config_arg('dict', int, 50))
emb = embedding_layer(input=words, size=6)
sync()

def step(x):
    mem = memory(name='rnn_state', size=5)
    sync()
    return fc_layer(input=[x, mem], size=5, name='rnn_state')

rnn = recurrent_group(step=step, input=emb)
sync()
last = last_seq(input=fc_layer(input=rnn, size=4))
sync()
outputs(regression_cost(input=fc_layer(input=last, size=2), label=data_layer(name='y', size=2)))
"""


def _callable_config(body, sync):
    """A callable config (a fresh namespace each, as a config file has) that calls sync()
    at its marked points."""
    ns = {'sync': sync}
    src = 'from paddle.trainer_config_helpers import *\n\ndef conf():\n' + textwrap.indent(body, '    ')
    exec(compile(src, '<%s config>' % id(ns), 'exec'), ns)
    return ns['conf']


def _no_sync():
    pass


def _importing_config(path, **local_args):
    """A callable config (in a namespace of its own) that Imports `path` with `local_args`."""
    ns = {'local_args': local_args}
    exec('def conf():\n    Import(%r, local_args)\n' % path, ns)
    return ns['conf']


def _run_threads(jobs, iterations, barrier):
    """Runs each job(i) for i in range(iterations) in its own thread; (results, errors). A
    failing job breaks the barrier, so that the other one stops waiting for it."""
    results = [[] for _ in jobs]
    errors = []

    def worker(k):
        try:
            for i in range(iterations):
                results[k].append(jobs[k](i))
        except BaseException as e:  # noqa: B902 (reported by the main thread)
            errors.append(e)
            barrier.abort()

    threads = [threading.Thread(target=worker, args=(k, )) for k in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not any(t.is_alive() for t in threads), 'a parse thread hangs'
    return results, errors


def test_two_parses_interleaved_step_by_step_give_what_each_gives_alone():
    """The two threads meet at a barrier at every sync() of their configs, so each one's
    layers are made while the other's parse is half done; with one shared parse state, the
    second begin would wipe the first parse and the layers would land in the wrong config."""
    alone_image = str(parse_config(_callable_config(IMAGE_BODY, _no_sync), 'bs=16'))
    alone_seq = str(parse_config(_callable_config(SEQUENCE_BODY, _no_sync), 'bs=5,dict=40'))
    assert alone_image != alone_seq
    barrier = threading.Barrier(2, timeout=60)
    image = _callable_config(IMAGE_BODY, barrier.wait)
    seq = _callable_config(SEQUENCE_BODY, barrier.wait)
    (got_image, got_seq), errors = _run_threads(
        [lambda i: str(parse_config(image, 'bs=16')), lambda i: str(parse_config(seq, 'bs=5,dict=40'))], 20, barrier)
    assert not errors, errors
    assert len(got_image) == len(got_seq) == 20
    assert all(text == alone_image for text in got_image)
    assert all(text == alone_seq for text in got_seq)


@pytest.mark.parametrize('seq2seq_file, image_file', [('seq2seq_attention.py', 'resnet_cifar.py'),
                                                       ('seq2seq_attention.yaml', 'lenet.py')])
def test_two_config_files_parsed_concurrently_give_their_protostr_alone(seq2seq_file, image_file):
    """The project's configs (recurrent groups, images, data sources, config args; Python and
    YAML), each thread starting every parse together with the other."""
    seq2seq = os.path.join(CONFIGS, seq2seq_file)
    resnet = os.path.join(CONFIGS, image_file)
    seq_args = 'source_dict_dim=300,target_dict_dim=200'
    alone = {seq2seq: str(parse_config(seq2seq, seq_args)), resnet: str(parse_config(resnet))}
    barrier = threading.Barrier(2, timeout=60)

    def job(path, args):
        def run(i):
            barrier.wait()
            return str(parse_config(path, args))
        return run

    (got_seq, got_resnet), errors = _run_threads([job(seq2seq, seq_args), job(resnet, '')], 8, barrier)
    assert not errors, errors
    assert got_seq == [alone[seq2seq]] * 8
    assert got_resnet == [alone[resnet]] * 8


def test_an_error_in_one_thread_is_located_in_its_own_config(write_config):
    """A failing parse next to a good one: its error names its own file and line, the other
    parse is unharmed."""
    bad = write_config('from paddle.trainer_config_helpers import *\nsync()\n'
                       'x = data_layer(name="x", size=2)\nsync()\nfc_layer(input=x, size=0)\n', 'bad.py')
    barrier = threading.Barrier(2, timeout=60)
    good = _callable_config(IMAGE_BODY, barrier.wait)
    alone_good = str(parse_config(_callable_config(IMAGE_BODY, _no_sync)))

    def parse_bad(i):
        try:  # the config file's sync(): the barrier, passed by Import's local_args
            parse_config(_importing_config(bad, sync=barrier.wait))
        except ConfigError as e:
            # the two sync() calls the image config makes after these two
            barrier.wait()
            barrier.wait()
            return str(e)
        return 'parsed'

    (got_bad, got_good), errors = _run_threads([parse_bad, lambda i: str(parse_config(good))], 3, barrier)
    assert not errors, errors
    assert got_good == [alone_good] * 3
    assert all(msg.startswith('%s:5: ' % bad) for msg in got_bad), got_bad


def test_a_config_that_parses_another_mid_parse_keeps_its_own(write_config):
    inner = write_config("""\
        from paddle.trainer_config_helpers import *
        settings(batch_size=2)
        a = fc_layer(input=data_layer(name='inner_in', size=3), size=get_config_arg('n', int, 1))
        outputs(fc_layer(input=a, size=2))
        """, 'inner.py')
    outer_text = """\
        from paddle.trainer_config_helpers import *
        import paddle.trainer.config_parser as v1
        settings(batch_size=7, learning_rate=0.5)
        x = data_layer(name='x', size=4)
        h = fc_layer(input=x, size=3)
        NESTED
        assert sorted(v1.g_layer_map) == ['__fc_layer_0__', 'x'], sorted(v1.g_layer_map)
        assert v1.settings['batch_size'] == 7
        outputs(fc_layer(input=h, size=2))
        """
    nested = write_config(outer_text.replace(
        'NESTED', "inner_config = v1.parse_config(%r, 'n=6')\n        "
                  "assert inner_config.opt_config.batch_size == 2" % inner), 'outer.py')
    plain = write_config(outer_text.replace('NESTED', 'pass'), 'plain.py')
    inner_alone = parse_config(inner, 'n=6')
    assert [l.name for l in inner_alone.model_config.layers][1] == '__fc_layer_0__'
    expected = str(parse_config(plain))
    got = parse_config(nested)
    # the outer parse's names go on from its own counters, its settings stay its own
    assert str(got) == expected
    assert [l.name for l in got.model_config.layers] == [
        'x', '__fc_layer_0__', '__fc_layer_1__']
    assert got.opt_config.batch_size == 7
    # after the top-level parse, v1's globals read it (not the nested one)
    assert cp.g_config is got and sorted(cp.g_layer_map) == ['__fc_layer_0__', '__fc_layer_1__', 'x']
    assert str(parse_config(inner, 'n=6')) == str(inner_alone)


def test_an_error_after_a_nested_parse_points_at_the_outer_config(write_config):
    inner = write_config('from paddle.trainer_config_helpers import *\n'
                         'outputs(data_layer(name="i", size=1))\n', 'inner.py')
    outer = write_config('from paddle.trainer_config_helpers import *\n'
                         'from paddle.trainer.config_parser import parse_config\n'
                         'parse_config(%r)\n'
                         'fc_layer(input=data_layer(name="x", size=2), size=-1)\n' % inner, 'outer.py')
    with pytest.raises(ConfigError) as err:
        parse_config(outer)
    assert str(err.value).startswith('%s:4: ' % outer)


def test_v1_globals_read_the_parse_of_their_own_thread(write_config):
    """A raw config reads g_config / g_layer_map / settings mid-parse; each thread sees its
    own, and the main thread's last parse stays what it reads afterwards."""
    mine = parse_config(write_config("""\
        from paddle.trainer_config_helpers import *
        settings(batch_size=1)
        outputs(data_layer(name='main_only', size=1))
        """, 'main.py'))
    barrier = threading.Barrier(2, timeout=60)
    raw = """\
        from paddle.trainer.config_parser import *
        Settings(batch_size=BS, algorithm='sgd', learning_rate=0.1)
        Layer(name='NAME', type='data', size=3)
        sync()
        seen.append((sorted(g_layer_map), g_config, settings['batch_size']))
        sync()
        Layer(name='NAME_out', type='fc', size=2, active_type='tanh', inputs=[Input('NAME')])
        Outputs('NAME_out')
        sync()
        seen.append(sorted(g_layer_map))
        """
    paths = [write_config(raw.replace('NAME', name).replace('BS', str(bs)), name + '.py')
             for name, bs in (('left', 11), ('right', 22))]
    seen = [[], []]

    def job(k):
        def run(i):
            config = parse_config(_importing_config(paths[k], sync=barrier.wait, seen=seen[k]))
            layers_mid_parse, config_mid_parse, batch_size = seen[k][-2]
            assert config_mid_parse is config and config.opt_config.batch_size == batch_size
            # this thread's finished parse is what its v1 globals read now
            return config is cp.g_config and sorted(cp.g_layer_map) == sorted(seen[k][-1])
        return run

    (left, right), errors = _run_threads([job(0), job(1)], 4, barrier)
    assert not errors, errors
    assert left == right == [True] * 4
    assert [(entry[0], entry[2]) for entry in seen[0][::2]] == [(['left'], 11)] * 4
    assert [(entry[0], entry[2]) for entry in seen[1][::2]] == [(['right'], 22)] * 4
    assert seen[0][1::2] == [['left', 'left_out']] * 4 and seen[1][1::2] == [['right', 'right_out']] * 4
    assert cp.g_config is mine and sorted(cp.g_layer_map) == ['main_only']
    assert state.config is mine


def test_threads_that_never_parsed_do_not_see_another_threads_parse(write_config):
    parsed = parse_config(write_config('from paddle.trainer_config_helpers import *\n'
                                       'outputs(data_layer(name="only_here", size=1))\n'))
    seen = []
    t = threading.Thread(target=lambda: seen.append(sorted(cp.g_layer_map)))
    t.start()
    t.join(60)
    assert seen == [[]] and cp.g_config is parsed
