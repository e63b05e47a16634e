"""Config errors: ConfigError (one line, FILE:LINE: message) and the checks that raise it."""

import logging


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
    attributes), else just the message.
    """

    def __init__(self, msg, filename=None, lineno=None, layer=None):
        msg = ' '.join(str(msg).split('\n'))
        Exception.__init__(self, msg)
        self.msg = msg
        self.filename = filename
        self.lineno = lineno
        self.layer = layer

    def __str__(self):
        if self.filename is not None:
            return '%s:%s: %s' % (self.filename, self.lineno, self.msg)
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


def as_int(value, what):
    """Integral value check; accepts integral floats (Python 2 '/' results)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value == int(value):
        return int(value)
    try:
        import numpy
        if isinstance(value, numpy.integer):
            return int(value)
    except ImportError:  # pragma: no cover
        pass
    raise ConfigError('%s must be an integer, got %r' % (what, value))


def as_float(value, what):
    if isinstance(value, bool):
        return float(value)
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ConfigError('%s must be a number, got %r' % (what, value))
