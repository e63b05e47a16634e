"""The folders of the C++ engine follow its data flow, and every #include says so.

LAYERS is the layering, lowest first: a file may include files of its own layer and of the
layers below it, never of one above. Every project include (a quoted #include, or a SWIG
%include) is written from the repository root, without `..`, and names a file that exists.
Folders that only use the engine (tests, tools, demos, benchmarks) may include any layer.
"""
import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Lowest first. A file belongs to the longest entry that prefixes its path.
LAYERS = (
    "engine/Errors.h",  # the exception types: everything throws them, they include nothing of ours
    "engine/math/",     # buffers, devices, kernels, the thread pool, matrix operations
    "engine/",          # tensors (Argument), parameters, JSON and the config schema, activations, input files
    "layers/",          # Layer, its families and their helpers
    "trainer/",         # networks, recurrent groups, optimizers, evaluators, distribution
    "swig/",            # the API the bindings wrap
)
USERS = ("tests/", "tools/", "demos/", "benchmarks/")  # include any layer, nobody includes them
SOURCE_EXTENSIONS = (".h", ".hpp", ".c", ".cc", ".cpp", ".cu", ".cuh", ".inc", ".i")
GENERATED = ("swig/paddle_wrap.cpp",)  # SWIG's output: it repeats paddle.i's includes
INCLUDE = re.compile(r'^\s*[#%]\s*include\s+"([^"]+)"', re.M)


def layer_of(path):
    """The index in LAYERS of a repository path, len(LAYERS) for USERS, None when it is in neither."""
    if path.startswith(USERS):
        return len(LAYERS)
    owners = [i for i, prefix in enumerate(LAYERS) if path == prefix or (prefix.endswith("/") and path.startswith(prefix))]
    return max(owners, key=lambda i: len(LAYERS[i])) if owners else None


def include_problems(root, paths):
    """Every breach of the rules above among `paths` (repository paths of source files under `root`)."""
    problems = []
    for path in paths:
        source_layer = layer_of(path)
        if source_layer is None:
            problems.append("%s: in no folder of LAYERS or USERS" % path)
            continue
        with open(os.path.join(root, path), errors="replace") as f:
            text = f.read()
        for name in INCLUDE.findall(text):
            where = "%s includes \"%s\"" % (path, name)
            if ".." in name.split("/") or name.startswith("./"):
                problems.append(where + ": a relative path (write it from the repository root)")
            elif not os.path.isfile(os.path.join(root, name)):
                problems.append(where + ": no such file from the repository root")
            elif layer_of(name) is None or layer_of(name) >= len(LAYERS):
                problems.append(where + ": outside the engine's layers")
            elif layer_of(name) > source_layer:
                problems.append(where + ": upward, from %s to %s" % (LAYERS[source_layer] if source_layer < len(LAYERS)
                                                                   else "a user", LAYERS[layer_of(name)]))
    return problems


def source_files():
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    return sorted(p for p in listed if p.endswith(SOURCE_EXTENSIONS) and p not in GENERATED
                  and os.path.isfile(os.path.join(ROOT, p)))


def test_every_include_follows_the_layers():
    files = source_files()
    assert {layer_of(p) for p in files} >= set(range(len(LAYERS))), "a layer of LAYERS holds no file"
    assert len(files) > 100  # the engine's sources were found
    problems = include_problems(ROOT, files)
    assert not problems, "\n".join(problems)


def _tree(tmp_path, files):
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    return sorted(files)


GOOD = {
    "engine/Errors.h": "#pragma once\n",
    "engine/math/Buffer.h": '#include "engine/Errors.h"\n',
    "engine/Argument.h": '#include "engine/math/Buffer.h"\n',
    "layers/Layer.h": '#include "engine/Argument.h"\n#include <vector>\n',
    "trainer/Trainer.h": '#include "layers/Layer.h"\n',
    "swig/paddle.i": '%include "trainer/Trainer.h"\n',
    "tests/cpp/t.cpp": '#include "swig/paddle.i"\n',
}


def test_the_checker_passes_a_tree_that_keeps_the_rules(tmp_path):
    assert include_problems(tmp_path, _tree(tmp_path, GOOD)) == []


@pytest.mark.parametrize("path, line, says", [
    ("engine/math/Buffer.h", '#include "layers/Layer.h"', "upward, from engine/math/ to layers/"),
    ("engine/Errors.h", '#include "engine/math/Buffer.h"', "upward, from engine/Errors.h to engine/math/"),
    ("layers/Layer.h", '  #  include "trainer/Trainer.h"', "upward, from layers/ to trainer/"),
    ("trainer/Trainer.h", '%include "swig/paddle.i"', "upward, from trainer/ to swig/"),
    ("layers/Layer.h", '#include "../engine/Argument.h"', "a relative path"),
    ("layers/Layer.h", '#include "Argument.h"', "no such file from the repository root"),
    ("engine/Argument.h", '#include "tests/cpp/t.cpp"', "outside the engine's layers"),
    ("plugins/Extra.cpp", '#include "engine/Errors.h"', "in no folder of LAYERS or USERS"),
])
def test_the_checker_finds_a_planted_breach(tmp_path, path, line, says):
    files = dict(GOOD)
    files[path] = files.get(path, "") + line + "\n"
    problems = include_problems(tmp_path, _tree(tmp_path, files))
    assert len(problems) == 1 and problems[0].startswith(path) and says in problems[0], problems
