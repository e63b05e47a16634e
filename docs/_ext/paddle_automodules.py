"""`paddle-automodules`: an automodule for every module whose name matches a pattern, so a
family split over several files (networks.py and networks_recurrent.py) stays on its page
without the page naming each file. Used inside ```{eval-rst} blocks:

    .. paddle-automodules:: paddle.trainer_config_helpers.networks*

A pattern that matches no module is an error (a renamed family must not vanish silently).
"""
import fnmatch
import importlib
import pkgutil

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective


def matching_modules(pattern):
    package, _, leaf = pattern.rpartition(".")
    names = [m.name for m in pkgutil.iter_modules(importlib.import_module(package).__path__)]
    return ["%s.%s" % (package, n) for n in sorted(names) if fnmatch.fnmatchcase(n, leaf)]


class PaddleAutomodules(SphinxDirective):
    required_arguments = 1
    optional_arguments = 20

    def run(self):
        lines = []
        for pattern in self.arguments:
            modules = matching_modules(pattern)
            if not modules:
                raise self.error("paddle-automodules: no module matches %r" % pattern)
            for module in modules:
                lines += [".. rubric:: ``%s``" % module, "", ".. automodule:: %s" % module, ""]
        content = StringList(lines, source=self.get_source_info()[0])
        holder = nodes.container()
        self.state.nested_parse(content, self.content_offset, holder)
        return holder.children


def setup(app):
    app.add_directive("paddle-automodules", PaddleAutomodules)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
