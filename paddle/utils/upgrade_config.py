"""`paddle upgrade_config FILE...`: rewrites the Python 2 idioms of v1 configs and data
providers (see paddle.parser.python2) so that they run on Python 3 as they are.

Without --write it prints a unified diff and exits 1 when a file would change (0 when none
would); with --write it rewrites the files, keeping FILE.bak unless --no-backup.
"""
import argparse
import difflib
import os
import shutil
import stat
import sys
import tempfile

from paddle.parser.python2 import upgrade_source

__all__ = ['upgrade_file', 'main']


def _read(path):
    """(bytes, text with universal newlines); regular files only: a FIFO would block."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise OSError('not a regular file')
    with open(path, 'rb') as f:
        raw = f.read()
    return raw, raw.decode('utf-8').replace('\r\n', '\n').replace('\r', '\n')


def _replace_with(path, data):
    """Writes `data` to a new temporary file beside `path` (mkstemp: O_EXCL, a fresh name,
    so no planted file or symlink is followed), then renames it onto `path` (a rename
    replaces a symlink at `path` rather than writing through it)."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),
                               prefix=os.path.basename(path) + '.', suffix='.upgrade-tmp')
    try:
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
        return tmp
    except BaseException:
        os.unlink(tmp)
        raise


def upgrade_file(path, write=False, backup=True):
    """(changed, diff text) for one file; rewrites it when `write`."""
    if write and os.path.islink(path):
        raise OSError('is a symbolic link (to %s): upgrade the file it points to' % os.readlink(path))
    raw, old = _read(path)
    new = upgrade_source(old, path)
    if new == old or (not old.endswith('\n') and new == old + '\n'):
        return False, ''
    diff = ''.join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), path, path + ' (Python 3)'))
    if write:
        done = []
        try:
            if backup:
                done.append((_replace_with(path, raw), path + '.bak'))
                shutil.copymode(path, done[-1][0])
            done.append((_replace_with(path, new.encode('utf-8')), path))
            shutil.copymode(path, done[-1][0])
            for tmp, dest in done:
                os.replace(tmp, dest)
        finally:
            for tmp, _ in done:
                if os.path.exists(tmp):
                    os.unlink(tmp)
    return True, diff


def main(argv=None):
    p = argparse.ArgumentParser(prog='paddle upgrade_config', description=__doc__.split('\n\n')[0])
    p.add_argument('files', nargs='+', metavar='FILE', help='configs and data providers (Python files)')
    p.add_argument('--write', action='store_true', help='rewrite the files (default: show the diff)')
    p.add_argument('--no-backup', action='store_true', help='with --write: keep no FILE.bak')
    args = p.parse_args(argv)
    changed, failed = 0, 0
    for path in args.files:
        try:
            did, diff = upgrade_file(path, args.write, not args.no_backup)
        except (OSError, UnicodeDecodeError, SyntaxError) as e:
            sys.stderr.write('paddle upgrade_config: %s: %s\n' % (path, e))
            failed += 1
            continue
        if did:
            changed += 1
            if args.write:
                sys.stderr.write('upgraded %s%s\n' % (path, '' if args.no_backup else ' (was kept as %s.bak)' % path))
            else:
                sys.stdout.write(diff)
    if failed:
        return 2
    if not args.write:
        sys.stderr.write('%d of %d file(s) would change%s\n' % (
            changed, len(args.files), '; rerun with --write to rewrite them' if changed else ''))
        return 1 if changed else 0
    return 0


if __name__ == '__main__':
    sys.exit(main())
