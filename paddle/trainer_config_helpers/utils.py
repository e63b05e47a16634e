"""Small utilities of the helper package."""

import functools
import logging

__all__ = ['deprecated']

logger = logging.getLogger('paddle')


def deprecated(instead):
    def decorator(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            logger.warning('%s is deprecated, use %s instead',
                           func.__name__, instead)
            return func(*args, **kwargs)

        return wrapper

    return decorator
