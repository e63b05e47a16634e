"""Decorators that fill in default arguments of helpers (auto names, default
ParamAttr / bias / activation).  The auto-name counters belong to the parse (its
ParseState): every parse starts them at 0, and two parses do not share them."""

import functools
import inspect

from paddle.parser import ConfigError, state

from .activations import TanhActivation
from .attrs import ParamAttr

__all__ = [
    'wrap_name_default', 'wrap_param_attr_default', 'wrap_bias_attr_default',
    'wrap_act_default', 'wrap_param_default', 'reset_name_counters'
]


def _positional_limit(func):
    """How many arguments may be passed by position: the required ones,
    or func.v1_positional where a b1 signature made required arguments
    optional to also accept a b0 spelling."""
    if getattr(func, 'v1_positional', None) is not None:
        return func.v1_positional
    spec = inspect.getfullargspec(func)
    if spec.varargs:
        return None
    n = len(spec.args)
    if spec.defaults:
        n -= len(spec.defaults)
    return n


def _unset(kwargs, name):
    return name not in kwargs or kwargs[name] is None


def wrap_param_default(param_names=None,
                       default_factory=None,
                       not_set_callback=_unset):
    """For each name in param_names that the caller left unset, call
    default_factory(func) and pass the result as that keyword."""

    def decorator(func):
        limit = _positional_limit(inspect.unwrap(func))
        order = list(inspect.signature(inspect.unwrap(func)).parameters)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if limit is not None and len(args) > limit:
                raise ConfigError(
                    '%s() takes %d positional argument(s); pass the others '
                    'by keyword' % (func.__name__, limit))
            given = order[:len(args)]  # v1 configs also pass these by position
            for name in param_names:
                if name not in given and not_set_callback(kwargs, name):
                    kwargs[name] = default_factory(func)
            return func(*args, **kwargs)

        return wrapper

    return decorator


class DefaultNameFactory(object):
    """'__<prefix>_<N>__' names; N counts this factory's names in the current parse."""

    def __init__(self, name_prefix):
        self.__name_prefix__ = name_prefix

    def __call__(self, func):
        prefix = self.__name_prefix__
        if prefix is None:
            prefix = func.__name__
        counters = state.name_counters
        n = counters.get(self, 0)
        counters[self] = n + 1
        return '__%s_%d__' % (prefix, n)

    def reset(self):
        state.name_counters.pop(self, None)


def reset_name_counters():
    """Starts the auto names of the current parse over at 0 (a new parse starts at 0 anyway)."""
    state.name_counters.clear()


def wrap_name_default(name_prefix=None, name_param='name'):
    """Auto name '__<prefix>_<N>__' (prefix defaults to the function name),
    one counter per decorated function."""
    factory = DefaultNameFactory(name_prefix)
    return wrap_param_default([name_param], factory)


def wrap_param_attr_default(param_names=None, default_factory=None):
    if param_names is None:
        param_names = ['param_attr']
    if default_factory is None:
        default_factory = lambda _: ParamAttr()
    return wrap_param_default(param_names, default_factory)


def wrap_bias_attr_default(param_names=None,
                           default_factory=None,
                           has_bias=True):
    """has_bias=True: None/True -> zero-initialised bias; False -> none.
    has_bias=False: only True turns the default bias on."""
    if param_names is None:
        param_names = ['bias_attr']
    if default_factory is None:
        default_factory = lambda _: ParamAttr(initial_std=0., initial_mean=0.)

    def not_set(kwargs, name):
        if has_bias:
            return name not in kwargs or kwargs[name] is None or \
                kwargs[name] is True
        return name in kwargs and kwargs[name] is True

    return wrap_param_default(param_names, default_factory, not_set)


def wrap_act_default(param_names=None, act=None):
    if param_names is None:
        param_names = ['act']
    if act is None:
        act = TanhActivation()
    return wrap_param_default(param_names, lambda _: act)
