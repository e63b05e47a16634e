"""py_paddle's Python side of the SWIG classes is part of the generated classes
(swig/python_*.i): every method is defined in its class's body, and importing the rest
of py_paddle changes no class of swig_paddle."""
import inspect
import subprocess
import sys

import numpy as np
import pytest

from py_paddle import swig_paddle as api

SNAPSHOT = r"""
import inspect, json, sys
from py_paddle import swig_paddle as api
def snapshot():
    return {n: sorted((k, id(v)) for k, v in vars(c).items() if k != '__weakref__')
            for n, c in sorted(vars(api).items()) if inspect.isclass(c) and c.__module__ == api.__name__}
before = snapshot()
module_names = sorted(vars(api))
import py_paddle, py_paddle.util, py_paddle.v1_compat, py_paddle.v1_merged_model, py_paddle.feed
import py_paddle.sequence_generator, py_paddle.deploy
print(json.dumps({"classes_same": snapshot() == before, "module_same": sorted(vars(api)) == module_names}))
"""


def _swig_classes():
    return [c for _, c in sorted(vars(api).items()) if inspect.isclass(c) and c.__module__ == api.__name__]


def test_importing_py_paddle_mutates_no_swig_class():
    out = subprocess.run([sys.executable, "-c", SNAPSHOT], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == '{"classes_same": true, "module_same": true}'


def test_every_method_is_defined_in_its_class_body():
    """A function written elsewhere and assigned to the class would carry another
    __qualname__ (e.g. _patch_gradient_machine.<locals>.forward_test)."""
    checked = 0
    for cls in _swig_classes():
        for name, member in vars(cls).items():
            func = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
            if isinstance(func, property):
                func = func.fget
            if not inspect.isfunction(func) or func.__qualname__.startswith("_swig") or func.__name__ == "<lambda>":
                continue  # SWIG's own __repr__, thisown and attribute guards
            assert func.__module__ == api.__name__, (cls.__name__, name)
            assert func.__qualname__ == "%s.%s" % (cls.__name__, func.__name__), (cls.__name__, name,
                                                                                  func.__qualname__)
            checked += 1
    assert checked > 300


def test_v1_python_methods_are_real_methods_with_their_reference_text():
    gm = api.GradientMachine
    assert "callback" in inspect.signature(gm.forwardBackward).parameters
    assert gm.forward.__qualname__ == "GradientMachine.forward"
    assert "Runs the network forward" in gm.forward.__doc__  # swig/docstrings_engine.i's text
    assert "_claim(self, \"forward\")" in inspect.getsource(gm.forward)  # the check sits in the method
    assert isinstance(inspect.getattr_static(api.Trainer, "create"), staticmethod)
    assert api.Trainer.getNetworkOutput.__doc__.strip().startswith("The outputs of the last batch, as Arguments")
    for cls in (api.ParameterConfig, api.OptimizationConfig, api.ModelConfig, api.TrainerConfig):
        assert {"createFromProto", "createFromProtoString", "toProto", "toProtoString"} <= set(vars(cls))


class _FakeCudaArray(object):
    def __init__(self, shape, typestr="<f4", strides=None):
        self.__cuda_array_interface__ = {"version": 3, "shape": shape, "typestr": typestr, "strides": strides,
                                         "data": (0, False)}


def test_cuda_array_checks_run_before_the_engine_is_asked():
    host = api.Matrix.createDenseFromNumpy(np.zeros((2, 3), dtype=np.float32), useGpu=False)
    assert not hasattr(host, "__cuda_array_interface__")  # a host buffer has none
    assert not hasattr(api.Vector.createVectorFromNumpy(np.zeros(3), useGpu=False), "__cuda_array_interface__")
    with pytest.raises(TypeError, match="expected a CUDA array of <f4, got <f8"):
        api.Matrix.createFromCudaArray(_FakeCudaArray((2, 3), "<f8"))
    with pytest.raises(TypeError, match="expected a CUDA array of <i4"):
        api.IVector.createFromCudaArray(_FakeCudaArray((3,), "<f4"))
    with pytest.raises(ValueError, match="not C-contiguous"):
        api.Matrix.createFromCudaArray(_FakeCudaArray((2, 3), strides=(4, 8)))
    with pytest.raises(ValueError, match="1-D or 2-D"):
        api.Matrix.createFromCudaArray(_FakeCudaArray((2, 3, 4)))
    with pytest.raises(TypeError, match="not a CUDA array"):
        api.Vector.createFromCudaArray(np.zeros(3, dtype=np.float32))
