"""The GPU runs a kernel's indices concurrently, in no order. On the CPU, Kernel.h runs
them as a loop; PADDLE_REVERSE_KERNELS=1 runs that loop backwards. Every engine test
must pass either way, which catches loop bodies that read what another index writes."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("PADDLE_REVERSE_KERNELS") == "1", reason="already the reversed run")
def test_engine_tests_pass_with_kernel_loops_reversed():
    env = dict(os.environ, PADDLE_REVERSE_KERNELS="1")
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", HERE,
                        "-k", "not cuda_source and not kernel_bodies and not loops_reversed"],
                       env=env, capture_output=True, text=True, cwd=os.path.dirname(os.path.dirname(HERE)))
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]
    passed = int(p.stdout.strip().splitlines()[-1].split(" passed")[0].split()[-1])
    assert passed > 300, p.stdout[-500:]
