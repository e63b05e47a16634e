"""The `paddle` command's reference, read from its argument parsers when the site is built.

Every subcommand builds its parser inside its own entry point (paddle/trainer/cli.py's
COMMANDS). `command_parsers()` runs each entry point with argparse's parsing replaced by a
capture, so the page shows exactly the flags the command accepts and cannot drift from it;
tests/docs/test_page_examples.py checks the pages' `paddle ...` lines with the same parsers.

In a page (MyST):

    ```{paddle-usage}
    ```

    ```{paddle-command} train
    ```
"""
import argparse
import contextlib
import io

from docutils import nodes
from docutils.parsers.rst import Directive


class _Captured(Exception):
    def __init__(self, parser):
        super().__init__(parser.prog)
        self.parser = parser


def _capture(self, args=None, namespace=None):
    raise _Captured(self)


def _capture_intermixed(self, args=None, namespace=None):
    self.paddle_intermixed = True  # the command parses with parse_intermixed_args
    raise _Captured(self)


def command_parser(name):
    """The argparse parser `paddle NAME` parses its arguments with, or None for a subcommand
    that takes none (`paddle version`)."""
    from paddle.trainer.cli import COMMANDS
    saved = argparse.ArgumentParser.parse_known_args, argparse.ArgumentParser.parse_known_intermixed_args
    argparse.ArgumentParser.parse_known_args = _capture
    argparse.ArgumentParser.parse_known_intermixed_args = _capture_intermixed
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            COMMANDS[name]([])
    except _Captured as captured:
        return captured.parser
    finally:
        argparse.ArgumentParser.parse_known_args, argparse.ArgumentParser.parse_known_intermixed_args = saved
    return None


def check_command_line(argv):
    """None if `paddle ARGV` parses (unknown flags, bad values and missing arguments do not),
    else argparse's message. Only parses: nothing runs."""
    from paddle.trainer.cli import COMMANDS
    from paddle.trainer import v1_flags
    name, args = ("version" if argv[0] == "--version" else argv[0]), list(argv[1:])
    if name not in COMMANDS:
        return "no subcommand %r (known: %s)" % (name, ", ".join(COMMANDS))
    parser = command_parser(name)
    if parser is None:
        return "paddle %s takes no arguments, got %s" % (name, args) if args else None
    if name == "train":  # gflags spellings; the flag files and environment they name are not read here
        expanded = ("--flagfile", "--fromenv", "--tryfromenv")
        args = v1_flags.normalize([a for a in args if not a.startswith(expanded)])
    errors = io.StringIO()
    parse = parser.parse_intermixed_args if getattr(parser, "paddle_intermixed", False) else parser.parse_args
    try:
        with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
            parse(args)
    except SystemExit as e:
        if e.code:
            return errors.getvalue().strip().splitlines()[-1]
    return None


def unknown_flags(argv):
    """The flags of `paddle ARGV` that its subcommand does not have (values, positionals and
    missing arguments aside: for commands quoted in prose, with placeholders)."""
    from paddle.trainer.cli import COMMANDS
    from paddle.trainer import v1_flags
    name, args = ("version" if argv[0] == "--version" else argv[0]), list(argv[1:])
    if name not in COMMANDS:
        return ["no subcommand %r" % name]
    parser = command_parser(name)
    known = {s for a in (parser._actions if parser else []) for s in a.option_strings}
    flags = [a.split("=", 1)[0] for a in args if a.startswith("-") and a != "-"]
    if name == "train":
        flags = [f.split("=", 1)[0] for f in v1_flags.normalize(flags)]
    return [f for f in flags if f not in known]


def command_parsers():
    """{subcommand: its parser or None}, in the order `paddle --help` lists them."""
    from paddle.trainer.cli import COMMANDS
    return {name: command_parser(name) for name in COMMANDS}


def train_flag_groups():
    """`paddle train`'s flags by where they come from: (title, {dest}) in page order; the v1
    flags that are accepted and ignored come separately (v1_flags.IGNORED_FLAGS)."""
    from paddle.trainer import distributed, v1_flags
    from paddle.trainer.cli import _bool

    gradient = argparse.ArgumentParser(add_help=False)
    distributed.add_flags(gradient.add_argument)
    v1 = argparse.ArgumentParser(add_help=False)
    v1_flags.add_flags(v1, _bool)
    gradient_dests = {a.dest for a in gradient._actions}
    v1_dests = {a.dest for a in v1._actions} - set(v1_flags.IGNORED_FLAGS)
    return [("How gradients travel between processes (under mpiexec)", gradient_dests),
            ("v1 flags with an effect (paddle/trainer/v1_flags.py)", v1_dests)]


def _default_text(action):
    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
        return "off" if action.default is False else "on"
    default = action.default
    if default is argparse.SUPPRESS or default in ("", None) or not action.option_strings:
        return ""
    if isinstance(default, bool):
        return str(int(default))
    return str(default)


def _help_text(parser, action):
    text = action.help or ""
    params = dict(vars(action), prog=parser.prog)
    if action.choices is not None:
        params["choices"] = ", ".join(map(str, action.choices))
    try:
        text = text % params
    except (KeyError, TypeError, ValueError):
        pass
    if action.choices is not None:
        text += " (one of: %s)" % ", ".join(map(str, action.choices))
    if not action.option_strings:
        text += " (%s)" % ("optional" if action.nargs in ("?", "*") else "required")
    return text


def documented_actions(parser):
    """The actions --help shows: every flag and positional except -h and hidden ones."""
    return [a for a in parser._actions
            if a.help is not argparse.SUPPRESS and not isinstance(a, argparse._HelpAction)]


def _spelling(action):
    if action.option_strings:
        return ", ".join(action.option_strings)
    return action.metavar or action.dest


def _cell(content):
    entry = nodes.entry()
    if isinstance(content, nodes.Node):
        entry += content
    else:
        entry += nodes.paragraph(text=content)
    return entry


def _table(header, rows, widths):
    table = nodes.table()
    group = nodes.tgroup(cols=len(header))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    group += head
    row = nodes.row()
    for title in header:
        row += _cell(title)
    head += row
    body = nodes.tbody()
    group += body
    for cells in rows:
        row = nodes.row()
        for content in cells:
            row += _cell(content)
        body += row
    return table


def _literal_paragraph(text):
    para = nodes.paragraph()
    para += nodes.literal(text=text)
    return para


def _literal_block(text):
    block = nodes.literal_block(text=text)
    block["language"] = "text"
    return block


def flags_table(parser, actions):
    rows = [(_literal_paragraph(_spelling(a)), _default_text(a), _help_text(parser, a)) for a in actions]
    return _table(["flag", "default", "meaning"], rows, [25, 12, 63])


def _part(title, children):
    return [nodes.rubric(text=title)] + children


class PaddleCommand(Directive):
    """The usage line, description and every flag of one `paddle` subcommand."""
    required_arguments = 1
    has_content = False

    def run(self):
        name = self.arguments[0]
        parser = command_parser(name)
        if parser is None:
            return [nodes.paragraph(text="paddle %s takes no flags." % name)]
        out = []
        if parser.description:
            out.append(nodes.paragraph(text=parser.description))
        out.append(_literal_block(parser.format_usage().strip()))
        actions = documented_actions(parser)
        if name != "train":
            out.append(flags_table(parser, actions))
            return out
        from paddle.trainer.v1_flags import IGNORED_FLAGS
        groups = train_flag_groups()
        grouped = set().union(*(dests for _, dests in groups))
        out.append(flags_table(parser, [a for a in actions if a.dest not in grouped]))
        for title, dests in groups:
            out += _part(title, [flags_table(parser, [a for a in actions if a.dest in dests])])
        ignored = sorted(IGNORED_FLAGS)
        rows = [(_literal_paragraph("--" + flag), IGNORED_FLAGS[flag]) for flag in ignored]
        out += _part("v1 flags accepted and ignored (with a warning)", [
            nodes.paragraph(text="Real v1 command lines keep working: each of these flags is accepted, and "
                                 "paddle train warns once that it changes nothing, and why."),
            _table(["flag", "why it changes nothing"], rows, [35, 65])])
        return out


class PaddleUsage(Directive):
    """`paddle --help`: the list of subcommands."""
    has_content = False

    def run(self):
        from paddle.trainer.cli import USAGE
        return [_literal_block(USAGE.rstrip())]


def setup(app):
    app.add_directive("paddle-command", PaddleCommand)
    app.add_directive("paddle-usage", PaddleUsage)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
