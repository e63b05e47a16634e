"""The documentation site (docs/) builds as CI builds it: Sphinx with warnings as errors,

    sphinx-build -W -b html docs docs/_build/html

(here into a temporary folder), and the pages generated at build time say what the code says."""
import html
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = os.path.join(ROOT, "docs")
sys.path.insert(0, os.path.join(DOCS, "_ext"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # doc_scope

import paddle_cli_docs  # noqa: E402  (docs/_ext: the `paddle` command reference)


def sphinx_build(out, *options):
    return subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-j", "1", "-q", *options,
                           "-d", str(out / "doctrees"), DOCS, str(out / "html")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("docs")
    build = sphinx_build(out, "-W", "--keep-going")
    assert build.returncode == 0, build.stderr[-6000:]
    return out / "html"


def page_text(site, name):
    with open(site / name, encoding="utf-8") as f:
        text = re.sub(r"<[^>]+>", " ", f.read())
    return re.sub(r"\s+", " ", html.unescape(text))


def test_the_site_builds_without_warnings(site):
    for page in ("index.html", "cli.html", "ref_layers_basic.html", "ref_providers.html", "engine_api.html",
                 "ARCHITECTURE.html", "benchmarks.html"):
        assert (site / page).is_file(), page


def test_every_flag_of_every_subcommand_is_on_the_cli_page(site):
    text = page_text(site, "cli.html")
    parsers = paddle_cli_docs.command_parsers()
    assert set(parsers) >= {"train", "predict", "serve", "merge_model", "export_onnx"}
    for name, parser in parsers.items():
        assert ("paddle %s" % name) in text, name
        if parser is None:
            continue
        for action in paddle_cli_docs.documented_actions(parser):
            for flag in action.option_strings:
                assert flag in text, "paddle %s %s" % (name, flag)


def test_the_v1_flags_that_change_nothing_are_listed_with_their_reason(site):
    from paddle.trainer.v1_flags import IGNORED_FLAGS
    text = page_text(site, "cli.html")
    for flag, reason in IGNORED_FLAGS.items():
        assert "--%s %s" % (flag, reason) in text, flag


def test_the_flag_tables_follow_the_parser(tmp_path, monkeypatch):
    """A flag added to `paddle train` appears in the generated table with its default and help."""
    parser = paddle_cli_docs.command_parser("train")
    parser.add_argument("--brand_new_flag", type=int, default=7, help="a flag the page must show")
    table = paddle_cli_docs.flags_table(parser, paddle_cli_docs.documented_actions(parser))
    assert "--brand_new_flag 7 a flag the page must show" in re.sub(r"\s+", " ", table.astext())


def test_every_public_name_of_the_reference_is_on_the_site(site):
    """Each public function and class of the config language, PyDataProvider2, the readers
    and py_paddle (tests/docs/doc_scope.py) is documented on some page: a module split or a
    new name cannot fall out of the reference."""
    from doc_scope import public_callables
    ids = set()
    for page in site.glob("*.html"):
        ids |= set(re.findall(r'\bid="([^"]+)"', page.read_text(encoding="utf-8")))
    missing = []
    for qualname, obj, is_method in public_callables():
        if is_method:
            continue
        own = "%s.%s" % (getattr(obj, "__module__", ""), getattr(obj, "__qualname__", ""))
        if own not in ids and qualname not in ids:
            missing.append("%s (defined in %s)" % (qualname, own))
    assert not missing, "add an automodule of their module to a docs/ref_*.md page: %s" % missing
