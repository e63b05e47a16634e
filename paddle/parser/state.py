"""The state of a parse: each parse creates a ParseState and runs against it.

The parse modules read the state through `state`, a proxy that resolves the current
parse's ParseState: the one made current in this thread (a contextvars.ContextVar, so
two threads parse side by side) or, where no parse has begun, the idle default. A parse
started inside another one (a config that parses a config) gets its own state and hands
the outer one back when it ends; a parse at the top stays current after it returns, so
that v1's g_* names and the tools read what it built.
"""
import contextvars
import copy
import os
import sys

from paddle.proto.TrainerConfig_pb2 import TrainerConfig

from .errors import logger
from .registry import DEFAULT_SETTING, DEFAULT_TRAINER_SETTING


class ParseState(object):
    """Everything a parse builds besides the registries: the TrainerConfig under
    construction, the name maps, the sub-model stack, the default_* values and the
    settings. v1 kept these in module globals (g_config, g_layer_map, ...); those names
    still read the current state (see V1_GLOBALS)."""

    def __init__(self):
        self.reset()
        self.in_progress = False  # parse_config is running it (kept by v1's reset mid-parse)

    # not v1 globals: the auto-name counters and whether parse_config is running this state
    INTERNAL = ('name_counters', 'in_progress')

    def reset(self):
        self.default_momentum = None
        self.default_decay_rate = None
        self.default_initial_mean = 0.
        self.default_initial_std = 0.01
        self.default_num_batches_regularization = None
        self.default_initial_strategy = 0
        self.default_initial_smart = False
        self.default_gradient_clipping_threshold = None
        self.default_device = None
        self.default_update_hooks = None
        self.default_compact_func = None
        self.config = TrainerConfig()
        self.layer_map = {}
        self.layer_objs = {}
        self.parameter_map = {}
        self.evaluator_names = set()
        self.command_config_args = {}
        self.py_module_name_list = []
        self.current_submodel = None
        self.root_submodel = None
        self.submodel_map = {}
        self.submodel_stack = []
        self.add_submodel_suffix = False
        self.config_files = []
        self.name_sites = {}  # layer name -> (file, line) of the Inputs()/Outputs() naming it
        self.layer_sites = {}  # layer name -> (file, line) of the config line that made it
        self.settings = copy.deepcopy(DEFAULT_SETTING)
        self.settings_deprecated = dict(usage_ratio=1.)
        self.trainer_settings = copy.deepcopy(DEFAULT_TRAINER_SETTING)
        # v1's g_pass_height_width: layers inherit their first input's image height/width
        # until the first recurrent_layer_group (its inputs are sequences, not images)
        self.pass_height_width = True
        self.config_warnings = []  # the warnings of this parse (config_warning), in order
        self.name_counters = {}  # name factory of wrap_name_default -> the next N of '__<prefix>_N__'


_idle_state = ParseState()  # read where no parse has begun in this context
_current = contextvars.ContextVar('paddle_parse_state', default=None)


def current_state():
    """The ParseState the config language in this thread (context) builds into."""
    current = _current.get()
    return _idle_state if current is None else current


def make_current(parse_state):
    """Makes `parse_state` the current one; returns the token that restore_state takes."""
    return _current.set(parse_state)


def restore_state(token):
    """Hands back the state that was current before make_current gave `token`."""
    _current.reset(token)


class _CurrentStateProxy(object):
    """`state`: reads and writes the attributes of the current ParseState."""
    __slots__ = ()

    def __getattr__(self, name):
        return getattr(current_state(), name)

    def __setattr__(self, name, value):
        setattr(current_state(), name, value)

    def __repr__(self):
        return '<the current parse state: %r>' % current_state()


state = _CurrentStateProxy()

# v1's module-level names for the parse state -> ParseState attributes.
V1_GLOBALS = dict(
    [('g_' + a, a) for a in vars(_idle_state)
     if not a.startswith('settings') and a not in ParseState.INTERNAL and
     a not in ('trainer_settings', 'name_sites', 'layer_sites', 'config_warnings')]
    + [(a, a) for a in ('settings', 'settings_deprecated', 'trainer_settings')])


def v1_global(module_name, name):
    """A module __getattr__ body: v1's g_* names read the current parse state."""
    if name in V1_GLOBALS:
        return getattr(state, V1_GLOBALS[name])
    raise AttributeError("module %r has no attribute %r" % (module_name, name))


def _config_line():
    """(file, line) of the innermost frame of the user's config files, or (None, None)."""
    files = set(state.config_files)
    frame = sys._getframe(1)
    while frame is not None:
        if os.path.abspath(frame.f_code.co_filename) in files:
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back
    return None, None


def config_warning(msg, layer=None):
    """Report a config that v1 accepted but that looks wrong (v1 parsed it without a word):
    one warning per config line and message, ``FILE:LINE: layer 'X': msg``; the parse goes on."""
    filename, lineno = _config_line()
    text = ("layer '%s': %s" % (layer, msg)) if layer else msg
    if filename is not None:
        text = '%s:%s: %s' % (filename, lineno, text)
    if text not in state.config_warnings:
        state.config_warnings.append(text)
        logger.warning(text)


def init_config_environment():
    """v1's name for starting over with an empty parse state (the current one's)."""
    state.reset()
