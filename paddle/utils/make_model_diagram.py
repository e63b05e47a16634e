"""Write a Graphviz dot diagram of a trainer config's network.

    python -m paddle.utils.make_model_diagram CONFIG DOT_FILE [CONFIG_ARGS]
    paddle make_diagram CONFIG DOT_FILE [CONFIG_ARGS]

One box per layer labelled `NAME type=TYPE` (` <==` when reversed), with a
second line `act=... bias=...` when the layer has an activation or a bias;
an edge per layer input, labelled with the input's parameter name; each
recurrent layer group is a dashed cluster, with edges for its in/out links
and memories (dashed: memory layer -> its delayed link). Render with
`dot -Tpng DOT_FILE -o model.png`.
"""

import sys

from paddle.trainer.config_parser import ConfigError, parse_config

__all__ = ['make_layer_label', 'diagram_text', 'make_diagram', 'main']


def _quote(text):
    return text.replace('\\', '\\\\').replace('"', '\\"')


def make_layer_label(layer_config):
    """`name type=T` (+ ` <==` if reversed) and, on a second left-aligned
    line, `act=A bias=B ` for what the layer has."""
    label = '%s type=%s' % (_quote(layer_config.name), layer_config.type)
    if layer_config.reversed:
        label += ' <=='
    extra = ''
    if layer_config.active_type:
        extra += 'act=%s ' % layer_config.active_type
    if layer_config.bias_parameter_name:
        extra += 'bias=%s ' % _quote(layer_config.bias_parameter_name)
    if extra:
        label += '\\l' + extra
    return label


def diagram_text(model_config):
    """The dot text for a ModelConfig."""
    layers = list(model_config.layers)
    ids = {l.name: i for i, l in enumerate(layers)}
    out = ['digraph graphname {', 'node [width=0.375,height=0.25];']

    def node(i):
        return 'l%d [label="%s", shape=box];' % (i, make_layer_label(
            layers[i]))

    groups = [s for s in model_config.sub_models if s.name != 'root']
    in_cluster = set()
    for n, sub in enumerate(groups):
        label = sub.name + ' '
        if sub.reversed:
            label += '<=='
        out.append('subgraph cluster_%d {' % n)
        out.append('style=dashed;')
        out.append('label = "%s";' % _quote(label))
        in_cluster.add(sub.name)
        for lname in sub.layer_names:
            if lname in ids:
                in_cluster.add(lname)
                out.append(node(ids[lname]))
        out.append('}')
    for i, l in enumerate(layers):
        if l.name not in in_cluster:
            out.append(node(i))

    def edge(src, dst, attrs=''):
        if src in ids and dst in ids:
            out.append('l%d -> l%d%s;' % (ids[src], ids[dst], attrs))

    for sub in groups:
        for link in list(sub.in_links) + list(sub.out_links):
            edge(link.layer_name, link.link_name)
        for mem in sub.memories:
            if mem.boot_layer_name:
                edge(mem.boot_layer_name, mem.layer_name)
            edge(mem.layer_name, mem.link_name, ' [style=dashed]')
    for i, l in enumerate(layers):
        for ipt in l.inputs:
            if ipt.input_layer_name in ids:
                out.append('l%d -> l%d [label="%s"];' %
                           (ids[ipt.input_layer_name], i,
                            _quote(ipt.input_parameter_name)))
    out.append('}')
    return '\n'.join(out) + '\n'


def make_diagram(config_file, dot_file, config_arg_str=''):
    """Parse config_file (with "k=v,..." config args) and write the dot
    diagram of its network to dot_file."""
    conf = parse_config(config_file, config_arg_str or '')
    text = diagram_text(conf.model_config)
    with open(dot_file, 'w') as f:
        f.write(text)
    return text


USAGE = ('usage: python -m paddle.utils.make_model_diagram CONFIG_FILE '
         'DOT_FILE [CONFIG_ARGS]\n')


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ('-h', '--help'):
        sys.stdout.write(USAGE)
        return 0
    if not 2 <= len(argv) <= 3 or any(a.startswith('--') for a in argv):
        sys.stderr.write(USAGE)
        return 2
    try:
        make_diagram(argv[0], argv[1], argv[2] if len(argv) == 3 else '')
    except ConfigError as e:
        sys.stderr.write('%s\n' % e)
        return 1
    except OSError as e:
        sys.stderr.write('make_model_diagram: %s\n' % e)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
