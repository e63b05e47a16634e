"""Runs one page's code blocks in reading order, as a reader would: Python blocks share one
namespace (each in a fresh config parse, with the config language imported, as a config file
sees it), shell blocks run in bash (`set -e`); each in its own working directory.

    python run_page_blocks.py SESSION_DIR BLOCKS.json

BLOCKS.json: [{"where": "docs/x.md:12", "lang": "python", "text": "...", "cwd": "demos/mnist"}].
Stops at the first failing block, naming it; exits 0 when all ran.
"""
import json
import os
import subprocess
import sys
import traceback


def config_language():
    from paddle.parser.execute import begin_parse
    import paddle.trainer_config_helpers as helpers
    begin_parse()
    return {n: getattr(helpers, n) for n in helpers.__all__}


def main(session, blocks_file):
    with open(blocks_file) as f:
        blocks = json.load(f)
    namespace = dict(config_language(), __name__="__main__")
    for block in blocks:
        cwd = os.path.join(session, block["cwd"])
        sys.stdout.write("--- %s (%s, in %s)\n" % (block["where"], block["lang"], block["cwd"] or "."))
        sys.stdout.flush()
        if block["lang"] == "python":
            os.chdir(cwd)
            from paddle.parser.execute import begin_parse
            begin_parse()
            try:
                exec(compile(block["text"], block["where"], "exec"), namespace)
            except BaseException:
                sys.stdout.write("FAILED %s\n%s" % (block["where"], traceback.format_exc()))
                return 1
        else:
            p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block["text"]], cwd=cwd)
            if p.returncode:
                sys.stdout.write("FAILED %s: exit status %d\n" % (block["where"], p.returncode))
                return 1
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
