"""The Python packages import one way: no module of paddle/ or py_paddle/ takes part in an
import cycle (module-level or inside functions; importing a submodule imports its packages),
every paddle module imports alone in a fresh interpreter, and no source file outside the
tests passes 800 lines."""
import ast
import glob
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGES = ("paddle", "py_paddle")
# Written by tools, not by us: SWIG's wrapper (it imports the compiled _swig_paddle).
GENERATED = ("_pb2.py", os.path.join("py_paddle", "swig_paddle.py"))


def project_modules():
    """{module name: file path} of every module under the project's packages."""
    out = {}
    for pkg in PACKAGES:
        for folder, _, files in os.walk(os.path.join(ROOT, pkg)):
            for f in files:
                path = os.path.join(folder, f)
                if not f.endswith(".py") or path.endswith(GENERATED):
                    continue
                parts = os.path.relpath(path, ROOT)[:-3].split(os.sep)
                if parts[-1] == "__init__":
                    parts.pop()
                out[".".join(parts)] = path
    return out


def is_module(name):
    """A module file or package (source, generated or compiled) of that name exists."""
    base = os.path.join(ROOT, *name.split("."))
    return os.path.exists(base + ".py") or os.path.isdir(base) or bool(glob.glob(base + ".*.so"))


def imports_of(name, path, modules):
    """Project modules that `name` imports anywhere in its file."""
    is_package = path.endswith("__init__.py")
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # `from X import y` imports the module X.y when there is one, else X
            targets = [base + "." + a.name if is_module(base + "." + a.name) else base for a in node.names]
        else:
            continue
        for t in targets:
            found.update(parents_of(t) - parents_of(name) | {t})
    return {t for t in found if t in modules and t != name}


def parents_of(name):
    """Packages that importing `name` initialises first (a module's own packages are
    already initialising when it runs, so they are no edge of its own)."""
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def find_cycle(graph):
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_no_import_cycle():
    modules = project_modules()
    graph = {name: imports_of(name, path, modules) for name, path in modules.items()}
    assert len(graph) > 40
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_importing_a_submodule_imports_its_packages(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("import a.b.c\n")
    modules = dict.fromkeys(["a", "a.b", "a.b.c", "a.d", "e"], str(source))
    assert imports_of("e", str(source), modules) == {"a", "a.b", "a.b.c"}
    assert imports_of("a.d", str(source), modules) == {"a.b", "a.b.c"}


def test_cycle_finder_reports_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_every_paddle_module_imports_alone():
    # v1's PyDataProviderWrapper exists only to refuse its import with directions
    refusing = {"paddle.trainer.PyDataProviderWrapper"}
    names = sorted(n for n in project_modules()
                   if n.split(".")[0] == "paddle" and not n.endswith("__main__") and n not in refusing)
    code = ("import importlib, sys\n"
            "failed = []\n"
            "for name in %r:\n"
            "    for m in [m for m in sys.modules if m.split('.')[0] == 'paddle']:\n"
            "        del sys.modules[m]\n"
            "    try:\n"
            "        importlib.import_module(name)\n"
            "    except Exception as e:\n"
            "        failed.append('%%s: %%r' %% (name, e))\n"
            "print('\\n'.join(failed))\n" % names)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0 and not p.stdout.strip(), p.stdout + p.stderr[-2000:]


def test_no_python_source_over_800_lines():
    long_files = []
    for top in PACKAGES + ("benchmarks", "demos", "configs", "tools"):
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                path = os.path.join(folder, f)
                if f.endswith(".py") and not path.endswith(GENERATED):
                    with open(path) as fh:
                        n = sum(1 for _ in fh)
                    if n > 800:
                        long_files.append("%s: %d lines" % (os.path.relpath(path, ROOT), n))
    assert not long_files, long_files
