"""`paddle upgrade_config FILE...`: rewrites the Python 2 idioms of v1 configs and data
providers (see paddle.parser.python2) so that they run on Python 3 as they are.

Without --write it prints a unified diff and exits 1 when a file would change (0 when none
would); with --write it rewrites the files, keeping FILE.bak unless --no-backup.
"""
import argparse
import difflib
import os
import shutil
import sys

from paddle.parser.python2 import upgrade_source

__all__ = ['upgrade_file', 'main']


def upgrade_file(path, write=False, backup=True):
    """(changed, diff text) for one file; rewrites it when `write`."""
    with open(path, encoding='utf-8') as f:
        old = f.read()
    new = upgrade_source(old, path)
    if new == old or (not old.endswith('\n') and new == old + '\n'):
        return False, ''
    diff = ''.join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), path, path + ' (Python 3)'))
    if write:
        if backup:
            shutil.copyfile(path, path + '.bak')
        tmp = path + '.upgrade-tmp'
        with open(tmp, 'w', encoding='utf-8') as f:
            f.write(new)
        shutil.copymode(path, tmp)
        os.replace(tmp, path)
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
