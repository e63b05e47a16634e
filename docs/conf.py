"""Sphinx configuration of the documentation site.

Build it (warnings are errors, as CI builds it in tests/docs/test_docs_build.py):

    sphinx-build -W -b html docs docs/_build/html
"""
import os
import sys

DOCS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(DOCS))  # the checkout's paddle / py_paddle (an in-place build)
sys.path.insert(0, os.path.join(DOCS, "_ext"))

project = "paddle-v1"
author = "paddle-v1 contributors"
copyright = "the paddle-v1 contributors"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "myst_parser",
    "paddle_cli_docs",  # the `paddle` command's flags, read from its argument parsers at build time
    "paddle_automodules",  # one reference page per family, whatever files the family spans
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store"]

# The reference docstrings are Google style: Args:, Returns:, Raises:, Example: with >>> lines.
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_include_init_with_doc = False
napoleon_use_rtype = False

autodoc_default_options = {"members": True, "undoc-members": True, "member-order": "bysource"}
autodoc_typehints = "description"
autodoc_class_signature = "separated"

myst_heading_anchors = 3  # [text](page.md#a-heading) links
myst_enable_extensions = ["colon_fence"]
suppress_warnings = []

add_module_names = False  # fc_layer(...), not paddle.trainer_config_helpers.layers.basic.fc_layer(...)
smartquotes = False  # flags stay --flag, quotes stay straight

html_theme = "alabaster"
html_title = "paddle-v1"
html_static_path = []
