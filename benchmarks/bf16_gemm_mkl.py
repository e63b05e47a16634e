#!/usr/bin/env python3
"""The engine's bf16 GEMM against MKL's (`cblas_gemm_bf16bf16f32`), one thread, same products.

    pip install mkl==2026.2.0 mkl-include==2026.2.0   # into any environment; --mkl names its prefix
    python benchmarks/bf16_gemm_mkl.py [--mkl PREFIX] [--append benchmarks/RESULTS.md]

Issue 32 asks whether a well-kept library beats our bf16 kernels. This compiles
benchmarks/bf16_gemm_mkl.cpp against the engine built in place (py_paddle/libpaddle_engine.so
and the repository's headers) and MKL's sequential library, and times the products of the
bf16 benchmarks (lstm_text's, LeNet's second conv per chunk of 4 samples, the mlp's): ours
from fp32 operands (the rounding is part of our packing), MKL's from operands already in bf16,
and MKL's plus the fp32 -> bf16 rounding a layer holding fp32 would need first. The last
column is the largest difference between the two results (both round the same inputs to
bf16 and sum in fp32, in different orders).
"""
import argparse
import datetime
import glob
import os
import subprocess
import sys
import sysconfig
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mkl", default=sysconfig.get_paths()["data"], help="prefix holding include/mkl.h and lib/ "
                                                                        "(default: this Python's environment)")
    p.add_argument("--append", help="append the table to this markdown file")
    args = p.parse_args()
    engine = os.path.join(ROOT, "py_paddle")
    if not os.path.exists(os.path.join(engine, "libpaddle_engine.so")):
        sys.exit("build the engine in place first (python setup.py build_ext --inplace)")
    if not os.path.exists(os.path.join(args.mkl, "include", "mkl.h")):
        sys.exit("no MKL under %s: pip install mkl==2026.2.0 mkl-include==2026.2.0, or --mkl PREFIX" % args.mkl)
    import scipy_openblas32  # the engine links OpenBLAS too
    openblas = scipy_openblas32.get_lib_dir()
    mkl_lib = os.path.join(args.mkl, "lib")
    libs = [os.path.basename(glob.glob(os.path.join(mkl_lib, name + ".so*"))[0])
            for name in ("libmkl_intel_lp64", "libmkl_sequential", "libmkl_core")]
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "bf16_gemm_mkl")
        subprocess.run(["g++", "-O2", "-std=c++17", "-march=x86-64-v4", "-I" + ROOT, "-I" + os.path.join(args.mkl, "include"),
                        os.path.join(ROOT, "benchmarks", "bf16_gemm_mkl.cpp"), "-o", exe, "-L" + engine, "-lpaddle_engine",
                        "-L" + openblas, "-lscipy_openblas", "-L" + mkl_lib] + ["-l:" + lib for lib in libs] +
                       ["-lpthread", "-lm", "-ldl"], check=True)
        env = dict(os.environ, PADDLE_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
                   LD_LIBRARY_PATH=os.pathsep.join([engine, openblas, mkl_lib, sysconfig.get_config_var("LIBDIR") or ""]))
        out = subprocess.run([exe], env=env, check=True, capture_output=True, text=True).stdout
    print(out, end="")
    if args.append:
        with open(args.append, "a") as f:
            f.write("\n### bf16 GEMM: ours against MKL (%s)\n\n`python benchmarks/bf16_gemm_mkl.py`, one thread.\n\n%s"
                    % (datetime.date.today().isoformat(), out))


if __name__ == "__main__":
    main()
