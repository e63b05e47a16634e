"""Running a trainer config: the environment a config executes in (config args,
Import, Python 2 builtins), error location (FILE:LINE) and parse_config."""

import inspect
import os
import stat
import sys
import traceback

from .errors import ConfigError, logger
from . import python2
from .registry import _parse_config_hooks, g_config_funcs
from .state import ParseState, current_state, make_current, restore_state, state
from .layer_base import _is_call_signature_error
from .training_settings import update_g_config


def _parse_config_args(config_arg_str):
    args = {}
    if not config_arg_str:
        return args
    for item in config_arg_str.split(','):
        if not item:
            continue
        if '=' not in item:
            raise ConfigError("bad config_args item '%s': expected "
                              "name=value" % item)
        k, v = item.split('=', 1)
        args[k.strip()] = v
    return args


def make_get_config_arg(config_args):
    def get_config_arg(name, type, default=None):
        if type == bool:
            s = config_args.get(name)
            if not s:
                return default
            if s in ('True', '1', 'true'):
                return True
            if s in ('False', '0', 'false'):
                return False
            raise ConfigError(
                "config arg '%s'='%s' is not a boolean (expected "
                "True/1/true or False/0/false)" % (name, s))
        value = config_args.get(name, default)
        try:
            return type(value)
        except (TypeError, ValueError):
            raise ConfigError("config arg '%s'=%r cannot be converted to %s" %
                              (name, value, getattr(type, '__name__', type)))

    return get_config_arg


def _obsolete_setter(k):
    def setter(*args, **kwargs):
        raise ConfigError("obsolete: use settings(%s=...) instead of %s(...)"
                          % (k, k))

    return setter


_PY2_BUILTINS = {
    'xrange': range,
    'basestring': str,
    'unicode': str,
    'long': int,
}


def _py2_builtins():
    import functools
    d = dict(_PY2_BUILTINS)
    d['reduce'] = functools.reduce
    return d


def _get_current_config_arg(name, type, default=None):
    """get_config_arg of the parse running in this thread: a callable config's globals are
    shared by every parse of it, so its get_config_arg (and Import) read the parse's own args."""
    return make_get_config_arg(state.command_config_args)(name, type, default)


def make_config_environment(config_file, config_args):
    funcs = {}
    funcs.update(_py2_builtins())
    funcs.update(g_config_funcs)
    for k in state.settings:
        funcs[k] = _obsolete_setter(k)
    for k in state.settings_deprecated:
        funcs[k] = _obsolete_setter(k)
    config_dir = os.path.dirname(config_file) if config_file else ''
    if not config_dir:
        config_dir = '.'
    funcs['Import'] = make_importer(config_dir, config_args)
    funcs['get_config_arg'] = make_get_config_arg(config_args)
    return funcs


def _read_and_compile(path):
    """(code, converted): a Python 2 config (one that does not compile, or that uses Python 2
    idioms failing only at run time, like d.iteritems()) is converted in memory."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block, /dev/zero never end
            raise ConfigError('cannot read config file: not a regular file', filename=path, lineno=0)
        with open(path) as f:
            src = f.read()
    except (IOError, OSError) as e:
        raise ConfigError('cannot read config file: %s' % e.strerror,
                          filename=path, lineno=0)
    try:
        code = compile(src, path, 'exec', dont_inherit=True)
    except SyntaxError as e:
        code = _try_py2_conversion(src, path)
        if code is not None:
            return code, True
        raise ConfigError(
            'syntax error: %s' % e.msg, filename=path, lineno=e.lineno or 0)
    if python2.looks_like_python2(src):
        converted = _try_py2_conversion(src, path)
        if converted is not None:
            return converted, True
    return code, False


def _try_py2_conversion(src, path):
    """Legacy configs are Python 2: convert them in memory (print statements, ...)."""
    try:
        return python2.compile_converted(src, path)
    except Exception:
        return None


def _run_config_file(path, env):
    """Runs a config file in `env`; the modules it imports from its own folder or the working
    directory are converted from Python 2 as they are imported."""
    python2.install_import_hook(os.path.dirname(os.path.abspath(path)), os.getcwd())
    code, converted = _read_and_compile(path)
    if converted:
        env['__builtins__'] = python2.py2_builtins()
    exec(code, env)


def make_importer(config_dir, config_args):
    """Import(file) for a config; config_args None: the args of the parse running it."""
    def Import(config_file, local_args={}):
        if not config_file.startswith('/'):
            config_file = os.path.join(config_dir, config_file)
            state.config.config_files.append(config_file)
        if not os.path.isfile(config_file):
            # located at the Import(...) line of the importing config
            raise ConfigError('Import: cannot read config file %s' %
                              config_file)
        state.config_files.append(os.path.abspath(config_file))
        args = state.command_config_args if config_args is None else config_args
        env = make_config_environment(config_file, args)
        env['__file__'] = config_file
        env['__name__'] = '__paddle_config__'
        env.update(local_args)
        _run_config_file(config_file, env)

    return Import


def begin_parse():
    """Makes a new, empty ParseState current in this thread (context) and returns it: the
    config language's calls after it build a new config (what parse_config does first)."""
    parse_state = ParseState()
    make_current(parse_state)
    _init_state()
    return parse_state


def _init_state():
    """The current state's start: the parse hooks, the root sub-model."""
    for hook in _parse_config_hooks:
        hook()
    state.config.model_config.type = 'nn'
    state.root_submodel = state.config.model_config.sub_models.add()
    state.root_submodel.name = 'root'
    state.root_submodel.is_recurrent_layer_group = False
    state.current_submodel = state.root_submodel


def _frames_in(tb, files, main_file):
    """(filename, lineno) of traceback entries inside one of ``files`` or a helper module of the
    user's; a helper is named as the main config was (relative to it when that was relative)."""
    out = []
    base = os.path.dirname(os.path.abspath(main_file))
    for fs in traceback.extract_tb(tb):
        if os.path.abspath(fs.filename) in files:
            out.append((fs.filename, fs.lineno))
        elif python2.is_user_file(fs.filename):
            shown = os.path.relpath(os.path.abspath(fs.filename), base)
            if shown.startswith(os.pardir) or os.path.isabs(main_file):
                shown = fs.filename
            else:
                shown = os.path.join(os.path.dirname(main_file), shown)
            out.append((shown, fs.lineno))
    return out


def _describe_exception(e):
    if isinstance(e, ConfigError):
        return e.msg
    if isinstance(e, TypeError) and _is_call_signature_error(e):
        msg = str(e)
        hint = _keyword_hint(e)
        return msg + hint
    hint = python2.python2_hint(e)
    if hint:
        return '%s: %s (%s)' % (type(e).__name__, e, hint)
    if isinstance(e, NameError):
        return '%s' % e
    if isinstance(e, AssertionError) and str(e):
        return 'check failed: %s' % e
    text = str(e)
    return '%s: %s' % (type(e).__name__, text) if text else type(e).__name__


def _keyword_hint(e):
    """For 'f() got an unexpected keyword argument 'x'', list f's keywords."""
    import difflib
    import re
    m = re.search(r"(\w+)\(\) got an unexpected keyword argument '(\w+)'",
                  str(e))
    if not m:
        return ''
    fname, kw = m.group(1), m.group(2)
    func = None
    tb = e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_name == fname:
            break
        tb = tb.tb_next
    for mod_name in ('paddle.trainer_config_helpers', ):
        mod = sys.modules.get(mod_name)
        if mod is not None and hasattr(mod, fname):
            func = getattr(mod, fname)
    if func is None:
        func = g_config_funcs.get(fname)
    if func is None:
        return ''
    try:
        target = inspect.unwrap(func)
        if inspect.isclass(target):
            target = target.__init__
        params = [
            p for p in inspect.signature(target).parameters
            if p not in ('self', 'args', 'kwargs', 'xargs')
        ]
    except (TypeError, ValueError):
        return ''
    close = difflib.get_close_matches(kw, params, n=1)
    if close:
        return " (did you mean '%s'?)" % close[0]
    return ' (accepted: %s)' % ', '.join(params)


def _locate(e, main_file):
    """Attach FILE:LINE of the innermost user config frame to an error."""
    files = set(state.config_files)
    frames = _frames_in(e.__traceback__, files, main_file)
    if frames:
        return frames[-1]
    if isinstance(e, ConfigError) and e.filename is not None:
        return e.filename, e.lineno
    return main_file, _last_line(main_file)


def _last_line(path):
    try:
        with open(path) as f:
            lines = f.read().split('\n')
        for i in range(len(lines) - 1, -1, -1):
            if lines[i].strip():
                return i + 1
    except (IOError, OSError, TypeError):
        pass
    return 0


def parse_config(trainer_config, config_arg_str='', run_file=None):
    """Run a trainer config (a file path or a callable) and return the
    TrainerConfig message.  Raises ConfigError (one line, FILE:LINE: ...).
    ``run_file(path, config_args)``, when given, runs a config file written in
    another front end (paddle.trainer.config_parser passes the YAML one).
    Each parse builds into its own ParseState, so parses in two threads, or one
    started by a config mid-parse, do not see each other."""
    return _parse(trainer_config, config_arg_str, run_file)[0]


def _parse(trainer_config, config_arg_str, run_file):
    """(TrainerConfig, ParseState) of one parse. The new state stays current after a parse
    at the top (v1's g_* names read it); one nested in a running parse hands that back."""
    outer = current_state()
    parse_state = ParseState()
    token = make_current(parse_state)
    try:
        _init_state()
        parse_state.in_progress = True
        return _run_parse(trainer_config, config_arg_str, run_file), parse_state
    finally:
        parse_state.in_progress = False
        if outer.in_progress:
            restore_state(token)


def _run_parse(trainer_config, config_arg_str, run_file):
    """Runs the config against the current (new) state; errors located FILE:LINE."""
    if callable(trainer_config):
        try:
            main_file = inspect.getsourcefile(trainer_config) or \
                trainer_config.__code__.co_filename
        except TypeError:
            main_file = '<config>'
    else:
        main_file = str(trainer_config)
    state.config_files.append(os.path.abspath(main_file))
    try:
        config_args = _parse_config_args(config_arg_str)
        state.command_config_args.update(config_args)
        if callable(trainer_config):
            env = make_config_environment('', config_args)
            env['get_config_arg'] = _get_current_config_arg
            env['Import'] = make_importer('', None)
            trainer_config.__globals__.update(env)
            trainer_config()
        elif run_file is not None:
            run_file(main_file, config_args)
        elif main_file.lower().endswith(('.yaml', '.yml')):
            raise ConfigError('a YAML config is read by paddle.trainer.config_parser.parse_config '
                              '(the YAML front end sits above the config language)', main_file, 0)
        else:
            env = make_config_environment(main_file, config_args)
            env['__file__'] = main_file
            env['__name__'] = '__paddle_config__'
            _run_config_file(main_file, env)
        return update_g_config()
    except ConfigError as e:
        if e.filename is None:
            e.filename, e.lineno = _locate(e, main_file)
        raise e.with_traceback(None)
    except RecursionError:
        raise
    except Exception as e:
        filename, lineno = _locate(e, main_file)
        err = ConfigError(_describe_exception(e), filename, lineno)
        raise err from e


def parse_config_and_serialize(trainer_config, config_arg_str='', run_file=None):
    config, parse_state = _parse(trainer_config, config_arg_str, run_file)
    files = parse_state.config_files
    missing = config.FindInitializationErrors()
    if missing:
        hint = ''
        if 'opt_config.batch_size' in missing:
            hint = ' (call settings(batch_size=...))'
        raise ConfigError(
            'incomplete config, missing required fields: %s%s' %
            (', '.join(missing), hint),
            filename=files[0] if files else '<config>',
            lineno=_last_line(files[0]) if files else 0)
    return config.SerializeToString()


def get_config_funcs():
    return dict(g_config_funcs)
