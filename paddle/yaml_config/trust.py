"""What a YAML config may make training import. A YAML config is data, but its `data:`
section names a provider module, which is code: it must live in the config's folder (or be
paddle's own readers) unless PADDLE_YAML_ANY_MODULE=1 says a module from elsewhere is trusted."""
import importlib.machinery
import importlib.util
import os
import sys

PADDLE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def untrusted_data_module(name, config_file):
    """The error message when `data: module: NAME` of config_file resolves outside the
    config's folder and paddle, else None."""
    if not isinstance(name, str) or os.environ.get('PADDLE_YAML_ANY_MODULE') == '1':
        return None
    folder = os.path.dirname(os.path.abspath(config_file))
    if importlib.machinery.PathFinder.find_spec(name.split('.')[0], [folder]) is not None:
        return None  # beside the config (even when a namesake was imported from elsewhere)
    added = folder not in sys.path
    if added:  # (training finds a provider beside the config)
        sys.path.append(folder)
    try:
        origin = _module_origin(name)
    finally:
        if added:
            sys.path.remove(folder)
    if origin is None or (origin and (_inside(origin, folder) or _inside(origin, PADDLE_DIR))):
        return None
    return ("data: module %r resolves outside the config's folder (to %s): a YAML config imports "
            "only a provider beside it or paddle's readers; set PADDLE_YAML_ANY_MODULE=1 to trust it"
            % (name, origin or "a built-in module"))


def _module_origin(name):
    """Where importing `name` would load it from: a path, "" for a built-in module, None
    when it is not found (importing it fails later, with its own error). Only the top-level
    package is looked up: finding `a.b` would import (run) `a`."""
    try:
        spec = importlib.util.find_spec(name.split('.')[0])
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    return os.path.abspath(spec.origin) if spec.origin and spec.has_location else ""


def _inside(path, folder):
    folder = os.path.realpath(folder)
    return os.path.commonpath([os.path.realpath(path), folder]) == folder
