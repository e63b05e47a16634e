"""The README stays a newcomer's page and the architecture page stays a map: their size limits
(issue 31), and no page line too long to read in a diff."""
import glob
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def test_readme_is_at_most_150_lines():
    assert len(read("README.md").splitlines()) <= 150


def test_architecture_is_a_map_of_at_most_1500_words():
    text = read(os.path.join("docs", "ARCHITECTURE.md"))
    words = re.findall(r"\S+", text)
    assert len(words) <= 1500, len(words)
    long_lines = [n + 1 for n, line in enumerate(text.splitlines()) if len(line) > 300]
    assert not long_lines, long_lines


def test_the_readme_links_into_pages_that_exist():
    links = re.findall(r"\]\((docs/[^)#]+)", read("README.md"))
    assert len(links) >= 10
    missing = [link for link in links if not os.path.isfile(os.path.join(ROOT, link))]
    assert not missing, missing


def test_every_page_is_on_the_site():
    """A page under docs/ that no toctree names would be built but unreachable (Sphinx warns,
    and the -W build fails); this names the page at once."""
    index = read(os.path.join("docs", "index.md"))
    named = set(re.findall(r"^([A-Za-z_0-9]+)$", index, re.M))
    pages = {os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(ROOT, "docs", "*.md"))}
    assert pages - {"index"} <= named, sorted(pages - {"index"} - named)
