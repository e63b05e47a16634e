"""What the reference documents: every public callable of the user-facing packages.

The docstring rules (tests/docs/test_docstrings.py) and the example runner
(tests/docs/test_doc_examples.py) both walk exactly this list, so a name added to
a package's ``__all__`` is checked from the moment it exists.
"""
import importlib
import inspect

# module -> the names it exports (None: its __all__)
MODULES = {
    "paddle.trainer_config_helpers": None,
    "paddle.trainer_config_helpers.layer_math": None,
    "paddle.trainer.PyDataProvider2": None,
    "paddle.trainer.readers": None,
    "py_paddle.swig_paddle": None,
    "py_paddle.deploy": ["load_trained_machine", "merge_model", "saved_preprocessing", "RawPredictor"],
}

# swig_paddle names that are not part of the engine API a user programs against:
# SWIG's STL container wrappers, its iterator, its globals object and the typing module
# it happens to import.
NOT_API = {"DoubleVector", "FloatVector", "IntVector", "SizeVector", "StringVector", "IntFloatPair",
           "IntFloatPairVector", "VectorList", "SwigPyIterator", "cvar", "typing"}


def _exported(module):
    names = MODULES[module.__name__]
    if names is None:
        names = getattr(module, "__all__", None)
    if names is None:  # SWIG modules have no __all__
        names = [n for n in dir(module) if not n.startswith("_")]
    return [n for n in names if n not in NOT_API]


def public_callables():
    """(qualified name, object, is_method) for every public function and class, and every
    public method a class defines itself, in a stable order."""
    seen = set()
    out = []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in _exported(module):
            obj = getattr(module, name)
            if inspect.ismodule(obj) or not callable(obj) or id(obj) in seen:
                continue
            seen.add(id(obj))
            out.append(("%s.%s" % (module_name, name), obj, False))
            if inspect.isclass(obj):
                for attr, member in sorted(vars(obj).items()):
                    if attr.startswith("_") or not callable(member) or isinstance(member, type):
                        continue
                    out.append(("%s.%s.%s" % (module_name, name, attr), member, True))
    return out
