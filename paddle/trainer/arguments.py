"""The argument parser of every `paddle` subcommand: exact flag names (no abbreviations),
each flag's default in --help, and a "did you mean" for an unknown flag."""
import argparse
import difflib


class HelpFormatter(argparse.HelpFormatter):
    """Shows the default of every flag, as v1 spelled values (booleans 0/1, empty as none)."""

    def _get_help_string(self, action):
        default = action.default
        if action.help is argparse.SUPPRESS or default is argparse.SUPPRESS or not action.option_strings:
            return action.help
        shown = "none" if default in ("", None) else int(default) if isinstance(default, bool) else default
        return "%s (default: %s)" % (action.help, str(shown).replace("%", "%%"))


class ArgumentParser(argparse.ArgumentParser):
    _UNKNOWN = "unrecognized arguments: "

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)  # --num_pass is not --num_passes
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        if message.startswith(self._UNKNOWN):
            hints = [h for h in map(self.suggestion, message[len(self._UNKNOWN):].split()) if h]
            if hints:
                message += " (%s)" % "; ".join(hints)
        super().error(message)

    def suggestion(self, arg):
        """'--num_pass=1: did you mean --num_passes?' for a flag close to one of ours, else None."""
        if not arg.startswith("-"):
            return None
        flags = [s for a in self._actions if a.help is not argparse.SUPPRESS for s in a.option_strings
                 if s.startswith("--")]
        close = difflib.get_close_matches(arg.split("=", 1)[0], flags, n=1, cutoff=0.7)
        return "%s: did you mean %s?" % (arg, close[0]) if close else None
