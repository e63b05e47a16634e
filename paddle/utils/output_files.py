"""Opening a file a tool writes for the user (a diagram, a plot, predictions) without
following a link planted at its name or blocking on a FIFO there."""
import errno
import os
import stat

__all__ = ["open_output"]


def open_output(path, mode="w"):
    """`path` opened for writing (created or truncated). A symbolic link at `path` is
    refused (O_NOFOLLOW), not written through; so is anything but a regular file."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK  # (O_NONBLOCK: a FIFO errs, not blocks)
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise OSError(e.errno, "%s is a symbolic link: not written through it (remove it or choose another "
                          "name)" % path) from None
        if e.errno == errno.ENXIO:
            raise OSError(e.errno, "%s is a FIFO: not written" % path) from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "%s is not a regular file: not written" % path)
        os.set_blocking(fd, True)
        os.ftruncate(fd, 0)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, mode)
