"""`paddle build_java`: the engine's Java binding (paddle.jar + libpaddle_jni.so).

Needs a JDK (javac on PATH or JAVA_HOME), g++ and SWIG (the `swig` package, a build
and test requirement). SWIG reads swig/paddle_java.i; the JNI wrapper links the
engine library of this package (libpaddle_engine.so, found at run time through an
rpath), and javac compiles the generated classes of package org.paddle.

`paddle build_java --cxxflags` prints the g++ flags a C++ program needs to include
PaddleAPI.h and link the engine (demos/cpp).
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
ENGINE_LIBRARY = "libpaddle_engine.so"
JNI_LIBRARY = "libpaddle_jni.so"
JAVA_PACKAGE = "org.paddle"
# What the binding is made from, by the root-relative paths its #include lines use: installed
# as package data under py_paddle/include, or, in a source checkout, where they live in the tree.
INTERFACE_FILES = ("swig/paddle_java.i", "swig/paddle_common.i", "swig/PaddleAPI.h", "engine/Errors.h")


def package_dirs():
    """py_paddle's directories: this one, then (from a checkout's root without a build of
    its own) the installed package's, as py_paddle/__init__.py extends its path."""
    import py_paddle
    return [os.path.abspath(d) for d in py_paddle.__path__]


def include_dirs():
    """The directory holding INTERFACE_FILES (in a one-element list: the -I of g++ and SWIG)."""
    checkout = os.path.dirname(PACKAGE_DIR)
    for d in [os.path.join(d, "include") for d in package_dirs()] + [checkout]:
        if all(os.path.isfile(os.path.join(d, f)) for f in INTERFACE_FILES):
            return [d]
    raise OSError("the engine's API headers are missing: neither %s nor a source checkout around it holds %s"
                  % (os.path.join(PACKAGE_DIR, "include"), ", ".join(INTERFACE_FILES)))


def engine_dir():
    """The py_paddle directory that holds the built engine library."""
    for d in package_dirs():
        if os.path.isfile(os.path.join(d, ENGINE_LIBRARY)):
            return d
    raise OSError("%s is missing: build the engine first (pip install . or python setup.py build_ext --inplace)"
                  % os.path.join(PACKAGE_DIR, ENGINE_LIBRARY))


def engine_library():
    return os.path.join(engine_dir(), ENGINE_LIBRARY)


def cxx_flags():
    """g++ flags of a program that uses the engine API: headers, the library, its rpath.
    OpenBLAS is linked directly too: the engine finds it relative to site-packages,
    which an in-place build of a checkout is not in."""
    import scipy_openblas32 as openblas
    blas = openblas.get_lib_dir()
    return ["-std=c++17"] + ["-I" + d for d in include_dirs()] + [
        "-Wl,--no-as-needed", "-L" + engine_dir(), "-lpaddle_engine", "-Wl,-rpath," + engine_dir(),
        "-L" + blas, "-l" + openblas.get_library(), "-Wl,-rpath," + blas]


def java_home():
    """JAVA_HOME, or the JDK of the javac on PATH."""
    home = os.environ.get("JAVA_HOME")
    if not home:
        javac = shutil.which("javac")
        if not javac:
            raise OSError("no JDK: javac is not on PATH and JAVA_HOME is not set")
        home = os.path.dirname(os.path.dirname(os.path.realpath(javac)))
    if not os.path.isfile(os.path.join(home, "include", "jni.h")):
        raise OSError("%s is not a JDK (no include/jni.h); set JAVA_HOME to one" % home)
    return home


def swig_command():
    """The swig of the `swig` package (it sets SWIG_LIB itself), else the one on PATH."""
    try:
        import swig  # noqa: F401
        return [sys.executable, "-c", "import swig; swig.swig()"]
    except ImportError:
        found = shutil.which("swig")
        if not found:
            raise OSError("SWIG is missing: pip install swig")
        return [found]


def _run(cmd, verbose):
    if verbose:
        print(" ".join(cmd))
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        raise RuntimeError("%s failed (exit %d):\n%s" % (os.path.basename(cmd[0]), done.returncode, done.stdout))


def build_java(output, verbose=False):
    """Writes OUTPUT/paddle.jar and OUTPUT/libpaddle_jni.so; returns their paths."""
    dirs, engine, jdk = include_dirs(), engine_library(), java_home()
    os.makedirs(output, exist_ok=True)
    jar, jni = os.path.join(output, "paddle.jar"), os.path.join(output, JNI_LIBRARY)
    with tempfile.TemporaryDirectory(prefix="paddle_java_") as work:
        sources = os.path.join(work, *JAVA_PACKAGE.split("."))
        classes = os.path.join(work, "classes")
        os.makedirs(sources)
        wrapper = os.path.join(work, "paddle_java_wrap.cpp")
        interface = os.path.join(dirs[0], INTERFACE_FILES[0])
        _run(swig_command() + ["-java", "-c++", "-package", JAVA_PACKAGE, "-outdir", sources, "-o", wrapper]
             + ["-I" + d for d in dirs] + [interface], verbose)
        # The C++ wrapper (the slow part) and javac run side by side.
        cxx = [os.environ.get("CXX", "g++"), "-O2", "-fPIC", "-shared", wrapper, "-o", jni,
               "-I" + os.path.join(jdk, "include"), "-I" + os.path.join(jdk, "include", "linux")] + cxx_flags()
        javac = [os.path.join(jdk, "bin", "javac"), "-nowarn", "-d", classes] + sorted(glob.glob(os.path.join(sources, "*.java")))
        if verbose:
            print(" ".join(cxx))
        compiling = subprocess.Popen(cxx, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            _run(javac, verbose)
        finally:
            log = compiling.communicate()[0]
        if compiling.returncode != 0:
            raise RuntimeError("g++ failed (exit %d):\n%s" % (compiling.returncode, log))
        with zipfile.ZipFile(jar, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nCreated-By: paddle build_java\n\n")
            for path in sorted(glob.glob(os.path.join(classes, "**", "*.class"), recursive=True)):
                z.write(path, os.path.relpath(path, classes))
    if verbose:
        print("engine library: %s" % engine)
    return jar, jni


def main(argv):
    p = argparse.ArgumentParser(prog="paddle build_java", description=__doc__.splitlines()[0])
    p.add_argument("--output", default=".", help="where paddle.jar and libpaddle_jni.so go (default: .)")
    p.add_argument("--cxxflags", action="store_true",
                   help="only print the g++ flags of a C++ program using the engine API, and exit")
    p.add_argument("-v", "--verbose", action="store_true", help="print the commands")
    args = p.parse_args(argv)
    if args.cxxflags:
        print(" ".join(cxx_flags()))
        return 0
    jar, jni = build_java(args.output, args.verbose)
    print("paddle build_java: wrote %s and %s (package %s)" % (jar, jni, JAVA_PACKAGE))
    return 0
