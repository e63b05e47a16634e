"""Config errors: ConfigError (one line, FILE:LINE: message) and the checks that raise it."""

import logging
import math
import numbers


logger = logging.getLogger('paddle')
if not logger.handlers:
    _h = logging.StreamHandler()
    _h.setFormatter(
        logging.Formatter('[%(levelname)s %(asctime)s %(filename)s:'
                          '%(lineno)s] %(message)s'))
    logger.addHandler(_h)
    logger.setLevel(logging.INFO)
    logger.propagate = False


class ConfigError(Exception):
    """A user error in a trainer config.

    ``str(err)`` is a single line: ``FILE:LINE: message`` once the parser
    has located the user's config line (``filename``/``lineno``
    attributes), ``FILE: message`` for an error about the whole file
    (unreadable, not UTF-8: lineno 0 or None), else just the message.
    """

    def __init__(self, msg, filename=None, lineno=None, layer=None):
        msg = ' '.join(str(msg).split('\n'))
        Exception.__init__(self, msg)
        self.msg = msg
        self.filename = filename
        self.lineno = lineno
        self.layer = layer

    def __str__(self):
        if self.filename is not None and self.lineno:
            return '%s:%s: %s' % (self.filename, self.lineno, self.msg)
        if self.filename is not None:
            return '%s: %s' % (self.filename, self.msg)
        return self.msg


def config_assert(cond, msg):
    if not cond:
        raise ConfigError(msg)


def config_error(msg):
    raise ConfigError(msg)


def _layer_ctx(name, type_=None):
    if type_:
        return "layer '%s' (%s)" % (name, type_)
    return "layer '%s'" % name


def type_of(x):
    return type(x)


def as_int(value, what, low=None):
    """An integer (integral floats too: Python 2 '/' results), never a bool or a string."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        result = int(value)
    elif (isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
          and value == int(value)):
        result = int(value)
    else:
        raise ConfigError('%s must be an integer, got %r' % (what, value))
    if low is not None and result < low:
        bound = 'a positive integer' if low == 1 else 'an integer >= %d' % low
        raise ConfigError('%s must be %s, got %d' % (what, bound, result))
    return result


def as_bool(value, what):
    """True/False (0 and 1 too); a string such as 'no' is an error, not True."""
    if isinstance(value, numbers.Integral) and value in (0, 1):
        return bool(value)
    raise ConfigError('%s must be True or False, got %r' % (what, value))


def as_float(value, what, low=None, high=None, low_open=False, high_open=False):
    """A finite number (never a bool or a string) in [low, high]; *_open excludes that end."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ConfigError('%s must be a number, got %r' % (what, value))
    result = float(value)
    if not math.isfinite(result):
        raise ConfigError('%s must be a finite number, got %r' % (what, result))
    too_low = low is not None and (result <= low if low_open else result < low)
    too_high = high is not None and (result >= high if high_open else result > high)
    if too_low or too_high:
        raise ConfigError('%s must be in %s%s, %s%s, got %r' % (
            what, '(' if low_open else '[', '-inf' if low is None else low,
            'inf' if high is None else high, ')' if high_open or high is None else ']', result))
    return result
