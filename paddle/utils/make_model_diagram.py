"""Write a Graphviz dot diagram of a trainer config's network.

    python -m paddle.utils.make_model_diagram CONFIG DOT_FILE [CONFIG_ARGS] [--expand_groups]
    paddle make_diagram CONFIG DOT_FILE [CONFIG_ARGS] [--expand_groups]

One box per layer: `NAME type=TYPE size=N` (` <==` when reversed, ` image=CxHxW` where the
layer has an image geometry) and, on a second line, `act=... bias=...` when it has them; an
edge per layer input, labelled with the input's parameter name.

Each recurrent layer group is a dashed cluster holding its step layers, named as in the
config (without the `@group` suffix). The agents that carry data across the group's boundary
are not drawn: an in-link is an edge from the outer layer into the step, an out-link an edge
from the step layer out to its readers, a memory a dashed edge from the layer it remembers
to its readers labelled `memory NAME` (plus a dotted `boot` edge from its boot layer), and a
static input an edge from the outer layer labelled `static`. `--expand_groups` draws every
agent layer and link instead. Render with `dot -Tpng DOT_FILE -o model.png` (Graphviz), or
name a .png/.svg/.pdf instead of a .dot file to have it drawn directly.
"""

import os
import shutil
import subprocess
import sys
import tempfile

from paddle.trainer.config_parser import ConfigError, parse_config
from paddle.utils.output_files import open_output

__all__ = ['make_layer_label', 'diagram_text', 'make_diagram', 'written_note', 'DiagramError', 'main']

IMAGE_FORMATS = ('png', 'svg', 'pdf')
GRAPHVIZ = ("Graphviz's `dot`, which is not on PATH (install Graphviz: apt-get install graphviz, "
            "brew install graphviz or conda install graphviz)")


class DiagramError(Exception):
    """The picture cannot be drawn (no Graphviz, or dot failed): one line."""

AGENT_TYPES = ('scatter_agent', 'agent', 'sequence_agent', 'gather_agent')


def _quote(text):
    return text.replace('\\', '\\\\').replace('"', '\\"')


def make_layer_label(layer_config, name=None):
    """`name type=T size=N` (+ ` image=CxHxW`, + ` <==` if reversed) and, on a second
    left-aligned line, `act=A bias=B ` for what the layer has."""
    l = layer_config
    label = '%s type=%s size=%d' % (_quote(name or l.name), l.type, l.size)
    if l.height and l.width and l.size % (l.height * l.width) == 0:
        label += ' image=%dx%dx%d' % (l.size // (l.height * l.width), l.height, l.width)
    if l.reversed:
        label += ' <=='
    extra = ''
    if l.active_type:
        extra += 'act=%s ' % l.active_type
    if l.bias_parameter_name:
        extra += 'bias=%s ' % _quote(l.bias_parameter_name)
    if extra:
        label += '\\l' + extra
    return label


class _Collapsed(object):
    """Where the agents of the recurrent groups lead: a reader of an agent is drawn as
    reading the agent's source, with an edge style saying what kind of link it is."""

    def __init__(self, groups, layers):
        self.source = {}  # agent (or static-input layer) -> (real source layer, edge attrs)
        self.boots = []  # (boot layer, memory layer, memory name)
        for sub in groups:
            for link in sub.in_links:
                self.source[link.link_name] = (link.layer_name, '')
            for link in sub.out_links:
                self.source[link.link_name] = (link.layer_name, '')
            for mem in sub.memories:
                inputs = [i.input_layer_name for i in layers[mem.layer_name].inputs] \
                    if mem.layer_name in layers else []
                if inputs == [mem.link_name] and mem.boot_layer_name:
                    # a StaticInput: a memory of itself booted with the outer layer
                    for name in (mem.link_name, mem.layer_name):
                        self.source[name] = (mem.boot_layer_name, ' [label="static"]')
                    continue
                mem_name = _short(mem.layer_name, sub.name)
                self.source[mem.link_name] = (
                    mem.layer_name, ' [style=dashed, label="memory %s"]' % _quote(mem_name))
                if mem.boot_layer_name:
                    self.boots.append((mem.boot_layer_name, mem.layer_name, mem_name))

    def resolve(self, name):
        """(the layer drawn for `name`, edge attributes)."""
        attrs = ''
        seen = set()
        while name in self.source and name not in seen:
            seen.add(name)
            name, a = self.source[name]
            attrs = attrs or a
        return name, attrs


def _short(name, group):
    suffix = '@' + group
    return name[:-len(suffix)] if name.endswith(suffix) else name


def diagram_text(model_config, expand_groups=False):
    """The dot text for a ModelConfig; `expand_groups` draws the recurrent groups' agents."""
    layers = list(model_config.layers)
    by_name = {l.name: l for l in layers}
    groups = [s for s in model_config.sub_models if s.name != 'root']
    collapsed = None if expand_groups else _Collapsed(groups, by_name)
    hidden = set()
    if collapsed is not None:
        hidden = {l.name for l in layers if l.type in AGENT_TYPES} | set(collapsed.source)
    hidden |= {l.name for l in layers if l.type == 'recurrent_layer_group'}  # drawn as clusters
    ids = {l.name: i for i, l in enumerate(layers) if l.name not in hidden}
    group_of = {n: sub.name for sub in groups for n in sub.layer_names}
    out = ['digraph graphname {', 'node [width=0.375,height=0.25];']

    def node(l):
        name = l.name if expand_groups else _short(l.name, group_of.get(l.name, ''))
        return 'l%d [label="%s", shape=box];' % (ids[l.name], make_layer_label(l, name))

    for n, sub in enumerate(groups):
        out.append('subgraph cluster_%d {' % n)
        out.append('style=dashed;')
        out.append('label = "%s";' % _quote(sub.name + ' ' + ('<==' if sub.reversed else '')))
        out.extend(node(by_name[name]) for name in sub.layer_names if name in ids)
        out.append('}')
    out.extend(node(l) for l in layers if l.name in ids and l.name not in group_of)

    def edge(src, dst, attrs=''):
        if src in ids and dst in ids:
            out.append('l%d -> l%d%s;' % (ids[src], ids[dst], attrs))

    if expand_groups:
        for sub in groups:
            for link in list(sub.in_links) + list(sub.out_links):
                edge(link.layer_name, link.link_name)
            for mem in sub.memories:
                if mem.boot_layer_name:
                    edge(mem.boot_layer_name, mem.layer_name)
                edge(mem.layer_name, mem.link_name, ' [style=dashed]')
    else:
        for boot, layer, mem_name in collapsed.boots:
            edge(boot, layer, ' [style=dotted, label="boot %s"]' % _quote(mem_name))
    for l in layers:
        if l.name not in ids:
            continue
        for ipt in l.inputs:
            src, attrs = ipt.input_layer_name, ''
            if collapsed is not None:
                src, attrs = collapsed.resolve(src)
            if not attrs and ipt.input_parameter_name:
                attrs = ' [label="%s"]' % _quote(ipt.input_parameter_name)
            edge(src, l.name, attrs)
    out.append('}')
    return '\n'.join(out) + '\n'


def _image_format(path):
    ext = os.path.splitext(path)[1][1:].lower()
    return ext if ext in IMAGE_FORMATS else None


def make_diagram(config_file, dot_file, config_arg_str='', expand_groups=False):
    """Parse config_file (with "k=v,..." config args) and write the dot
    diagram of its network to dot_file, or, when dot_file ends in .png, .svg or
    .pdf, the picture Graphviz draws of it (DiagramError without Graphviz)."""
    fmt = _image_format(dot_file)
    dot = shutil.which('dot')
    if fmt and dot is None:
        raise DiagramError('drawing %s needs %s; or write a .dot file' % (dot_file, GRAPHVIZ))
    conf = parse_config(config_file, config_arg_str or '')
    text = diagram_text(conf.model_config, expand_groups)
    if fmt:
        # Drawn beside the target first: a failing dot leaves an earlier picture as it was.
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(dot_file)), suffix='.' + fmt)
        os.close(fd)
        try:
            p = subprocess.run([dot, '-T' + fmt, '-o', tmp], input=text, capture_output=True, text=True)
            if p.returncode != 0:
                raise DiagramError('dot -T%s failed: %s' % (fmt, (p.stderr.strip().splitlines() or ['?'])[-1]))
            with open(tmp, 'rb') as f, open_output(dot_file, 'wb') as out:  # (refuses a planted link)
                out.write(f.read())
        finally:
            os.unlink(tmp)
        return text
    with open_output(dot_file, 'w') as f:
        f.write(text)
    return text


def written_note(path):
    """The line to print once `path` is written: how to render a .dot file, or that
    rendering needs Graphviz when `dot` is missing."""
    if _image_format(path):
        return 'wrote %s' % path
    if shutil.which('dot') is None:
        return 'wrote %s; rendering it needs %s' % (path, GRAPHVIZ)
    return 'wrote %s; render it with: dot -Tpng %s -o %s.png' % (path, path, os.path.splitext(path)[0])


USAGE = ('usage: python -m paddle.utils.make_model_diagram CONFIG_FILE '
         'DOT_FILE [CONFIG_ARGS] [--expand_groups]\n')


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ('-h', '--help'):
        sys.stdout.write(USAGE)
        return 0
    expand = '--expand_groups' in argv
    argv = [a for a in argv if a != '--expand_groups']
    if not 2 <= len(argv) <= 3 or any(a.startswith('--') for a in argv):
        sys.stderr.write(USAGE)
        return 2
    try:
        make_diagram(argv[0], argv[1], argv[2] if len(argv) == 3 else '', expand)
    except ConfigError as e:
        sys.stderr.write('%s\n' % e)
        return 1
    except (OSError, DiagramError) as e:
        sys.stderr.write('make_model_diagram: %s\n' % e)
        return 1
    sys.stdout.write(written_note(argv[1]) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
