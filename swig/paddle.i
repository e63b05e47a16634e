// SWIG interface of the engine API (PaddleAPI.h) -> Python module py_paddle.swig_paddle.
// NumPy arrays cross in both directions through the buffer protocol (no numpy
// headers needed): inputs via the typemaps below, outputs as views through
// __array_interface__ on CPU buffers.
%module(package="py_paddle") swig_paddle

// Numbers convert as v1 users pass them: any object with __float__ where a float goes
// (numpy.float32, which NumPy 2 gives for arr.sum() / n), and an integral float where an
// int goes. (Exact types still win overload resolution: a cast ranks below them.)
%begin %{
#define SWIG_PYTHON_CAST_MODE
%}

%{
#include <cstring>
#include "swig/PaddleAPI.h"
#include "engine/Errors.h"
%}

%include <exception.i>
%include <std_string.i>
%include <std_vector.i>
%include <std_pair.i>

// v1's exception classes (IOError, RangeError, UnsupportError) are defined in
// the Python module as subclasses of OSError, IndexError and RuntimeError, so
// both v1's names and the built-in ones catch them.
%{
// An engine message may quote bytes of a damaged file that are not UTF-8: they are kept as
// \x escapes (PyErr_SetString would raise a UnicodeDecodeError instead of the message).
static void pdSetError(PyObject* cls, const char* what) {
  PyObject* msg = PyUnicode_DecodeUTF8(what, static_cast<Py_ssize_t>(strlen(what)), "backslashreplace");
  if (!msg) {
    PyErr_Clear();
    msg = PyUnicode_FromString("(an engine error whose message could not be decoded)");
  }
  PyErr_SetObject(cls, msg);
  Py_XDECREF(msg);
}

static void pdRaise(const char* v1Class, PyObject* fallback, const char* what) {
  PyObject* cls = nullptr;
  PyObject* mod = PyImport_ImportModule("py_paddle.swig_paddle");
  if (mod) {
    cls = PyObject_GetAttrString(mod, v1Class);
    Py_DECREF(mod);
  }
  PyErr_Clear();
  pdSetError(cls ? cls : fallback, what);
  Py_XDECREF(cls);
}
%}

%exception {
  try {
    $action
  } catch (const std::out_of_range& e) {
    pdRaise("RangeError", PyExc_IndexError, e.what());
    SWIG_fail;
  } catch (const paddle::IOError& e) {
    pdRaise("IOError", PyExc_IOError, e.what());
    SWIG_fail;
  } catch (const paddle::UnsupportedError& e) {
    pdRaise("UnsupportError", PyExc_RuntimeError, e.what());
    SWIG_fail;
  } catch (const std::invalid_argument& e) {   // ConfigError, DataError
    pdSetError(PyExc_ValueError, e.what());
    SWIG_fail;
  } catch (const std::exception& e) {
    pdSetError(PyExc_RuntimeError, e.what());
    SWIG_fail;
  } catch (...) {
    SWIG_exception(SWIG_UnknownError, "unknown C++ exception");
  }
}

%include "swig/paddle_common.i"

// ---- buffer-protocol typemaps (float32 / int32, C-contiguous) ----
%{
struct PdBufferHolder {
  Py_buffer view;
  bool held = false;
  ~PdBufferHolder() { if (held) PyBuffer_Release(&view); }
  // kind: 'f' float32 or 'i' int32; ndim 0 = any
  bool get(PyObject* o, char kind, int ndim, bool writable) {
    int flags = PyBUF_FORMAT | PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(o, &view, flags) != 0) return false;
    held = true;
    const char* f = view.format ? view.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') ++f;
    bool ok = view.itemsize == 4 && (kind == 'f' ? strcmp(f, "f") == 0
                                                 : (strcmp(f, "i") == 0 || strcmp(f, "l") == 0));
    if (!ok) {
      PyErr_Format(PyExc_TypeError, "expected a C-contiguous %s buffer, got format '%s' (itemsize %d)",
                   kind == 'f' ? "float32" : "int32", view.format ? view.format : "B", (int)view.itemsize);
      return false;
    }
    if (ndim > 0 && view.ndim != ndim) {
      PyErr_Format(PyExc_ValueError, "expected a %d-D array, got %d-D", ndim, view.ndim);
      return false;
    }
    return true;
  }
};
%}

%define PD_BUFFER_2D(TYPE, KIND, WRITABLE, NAME)
%typemap(in) (TYPE* NAME, size_t height, size_t width) (PdBufferHolder pdHold2) {
  if (!pdHold2.get($input, KIND, 2, WRITABLE)) SWIG_fail;
  $1 = ($1_ltype)pdHold2.view.buf; $2 = pdHold2.view.shape[0]; $3 = pdHold2.view.shape[1];
}
%typecheck(SWIG_TYPECHECK_POINTER) (TYPE* NAME, size_t height, size_t width) { $1 = PyObject_CheckBuffer($input) ? 1 : 0; }
%enddef

%define PD_BUFFER_1D(TYPE, KIND, WRITABLE, NAME)
%typemap(in) (TYPE* NAME, size_t size) (PdBufferHolder pdHold1) {
  if (!pdHold1.get($input, KIND, 0, WRITABLE)) SWIG_fail;
  $1 = ($1_ltype)pdHold1.view.buf; $2 = pdHold1.view.len / 4;
}
%typecheck(SWIG_TYPECHECK_POINTER) (TYPE* NAME, size_t size) { $1 = PyObject_CheckBuffer($input) ? 1 : 0; }
%enddef

// (TYPE* NAME, size_t NAME##Size): several buffers in one call
%define PD_BUFFER_1D_NAMED(TYPE, KIND, NAME, SIZE)
%typemap(in) (TYPE* NAME, size_t SIZE) (PdBufferHolder pdHoldN) {
  if (!pdHoldN.get($input, KIND, 0, false)) SWIG_fail;
  $1 = ($1_ltype)pdHoldN.view.buf; $2 = pdHoldN.view.len / 4;
}
%typecheck(SWIG_TYPECHECK_POINTER) (TYPE* NAME, size_t SIZE) { $1 = PyObject_CheckBuffer($input) ? 1 : 0; }
%enddef

PD_BUFFER_2D(float, 'f', false, data)
PD_BUFFER_2D(float, 'f', true, out)
PD_BUFFER_1D(float, 'f', false, data)
PD_BUFFER_1D(float, 'f', true, out)
PD_BUFFER_1D(int, 'i', false, data)
PD_BUFFER_1D(int, 'i', true, out)
PD_BUFFER_1D_NAMED(int, 'i', rows, rowsSize)
PD_BUFFER_1D_NAMED(int, 'i', cols, colsSize)
PD_BUFFER_1D_NAMED(float, 'f', values, valuesSize)

%rename(_initPaddle) initPaddle;
%rename(_copyToNumpyMat) Matrix::copyToNumpyMat;
%rename(_copyToNumpyArray) IVector::copyToNumpyArray;
%rename(_copyToNumpyArray) Vector::copyToNumpyArray;
%rename(__repr__) Evaluator::toString;
%rename(__len__) IVector::getSize;
%rename(__len__) Vector::getSize;
%rename(__getitem__) IVector::get;
%rename(__setitem__) IVector::set;
%rename(__getitem__) Vector::get;
%rename(__setitem__) Vector::set;

// Evaluator fields reach Python as plain records: [(name, value, higher_is_better)], where
// higher_is_better is None for counts and settings (no class to learn, and tuples unpack).
%ignore EvaluatorField;
%typemap(out) std::vector<EvaluatorField> {
  const std::vector<EvaluatorField>& pdFields = $1;
  $result = PyList_New(pdFields.size());
  for (size_t i = 0; i < pdFields.size(); ++i) {
    const EvaluatorField& f = pdFields[i];
    PyObject* better = f.better > 0 ? Py_True : (f.better < 0 ? Py_False : Py_None);
    Py_INCREF(better);
    PyList_SET_ITEM($result, i, Py_BuildValue("(sdN)", f.name.c_str(), f.value, better));
  }
}

%include "swig/docstrings.i"  // before the declarations it documents
%include "swig/PaddleAPI.h"

%pythoncode %{
import numpy as _np


class IOError(OSError):
    """v1's IOError: a file could not be read or written (a subclass of OSError).

    The engine raises it for a missing, short or malformed parameter file, merged model
    or directory, and names the file in the message. ``except OSError`` catches it too.

    Example:
        >>> try:
        ...     swig_paddle.Vector.createFromParameterFile("missing.w0")
        ... except swig_paddle.IOError as e:
        ...     print(isinstance(e, OSError), "missing.w0" in str(e))
        True True
    """


class RangeError(IndexError):
    """v1's RangeError: an index (slot, row, element, parameter) out of range (a subclass of IndexError).

    Example:
        >>> try:
        ...     swig_paddle.IVector.create([1, 2])[5]
        ... except swig_paddle.RangeError as e:
        ...     print(isinstance(e, IndexError))
        True
    """


class UnsupportError(RuntimeError):
    """v1's UnsupportError: not available here (a subclass of RuntimeError).

    Raised for what this engine does not do: a GPU buffer's host view, a CSC sparse
    matrix, the parameter-server updaters, the GPU on a CPU build.

    Example:
        >>> try:
        ...     swig_paddle.Matrix.createSparse(2, 2, 1, True, True)  # trans: v1's CSC
        ... except swig_paddle.UnsupportError as e:
        ...     print(isinstance(e, RuntimeError))
        True
    """


class UpdateCallback(object):
    """v1's backward callback: GradientMachine.backward / forwardBackward call
    apply(parameter) once for each non-static parameter, after its gradient is final.

    Subclass it and override ``apply``; any callable taking a Parameter works too. The
    calls come after the whole backward pass, last layer's parameters first (v1 called
    while backward was still running).

    Thread safety: the calls come from the thread that runs backward.

    Example:
        >>> class Names(swig_paddle.UpdateCallback):
        ...     def __init__(self):
        ...         self.names = []
        ...     def apply(self, parameter):
        ...         self.names.append(parameter.getName())
        >>> machine = fixtures.tiny_mlp(predict=False)
        >>> out = swig_paddle.Arguments.createArguments(0)
        >>> callback = Names()
        >>> machine.forwardBackward(fixtures.batch(rows=2, labels=True), out, swig_paddle.PASS_TRAIN, callback)
        >>> callback.names
        ['_prob.wbias', '_prob.w0', '_hidden.wbias', '_hidden.w0']
    """

    def apply(self, parameter):
        """Called once per non-static parameter after backward; does nothing unless overridden.

        Args:
            parameter (Parameter): the parameter, its gradient final
                (``parameter.getBuf(PARAMETER_GRADIENT)``).
        """


def initPaddle(*args):
    """Initialises the engine from v1-style flags: initPaddle("--use_gpu=0", "--trainer_count=2").

    (py_paddle replaces this with a version that also remembers --config; see its
    docstring.)
    """
    _initPaddle(StringVector([str(a) for a in args]))


class _View(object):
    """What a numpy view's .base holds: the engine memory it reads stays alive with it,
    even when the object it came from reallocates (a larger copyFrom*) or is freed."""

    def __init__(self, obj, shape, typestr):
        self._memory = obj.shareMemory()
        self._memory._owner = getattr(obj, "_owner", None)  # a copy=False object's array
        self.__array_interface__ = {"version": 3, "shape": shape, "typestr": typestr,
                                    "data": (self._memory.dataPointer(), False)}


def _host_view(obj, shape, typestr):
    return _np.asarray(_View(obj, shape, typestr))


def _matrix_to_numpy_inplace(self):
    """A zero-copy float32 numpy view (height x width) of a dense CPU matrix.

    Writing the view writes the matrix. The view keeps the memory it reads alive, even
    after the matrix is freed or moved by a larger copyFromNumpyMat (it then shows the
    old contents). UnsupportError for a GPU or sparse matrix. Also ``numpy.asarray(m)``.
    """
    return _host_view(self, (self.getHeight(), self.getWidth()), "<f4")


def _matrix_copy_to_numpy(self):
    """A new float32 numpy array (height x width) with the matrix's values (a copy; from the GPU too)."""
    out = _np.empty((self.getHeight(), self.getWidth()), dtype=_np.float32)
    self._copyToNumpyMat(out)
    return out


def _matrix_create_cpu(arr, copy=True):
    """A dense CPU Matrix from a numpy array (v1's createCpuDenseFromNumpy).

    Args:
        arr (array-like): 2-D (a 1-D array is one row); converted to C-contiguous float32.
        copy (bool, default True): False aliases the array's memory (no copy when it is
            already C-contiguous float32): writes through either show in both, and the
            matrix keeps the array alive.

    Returns:
        Matrix: owned by the caller.
    """
    arr = _np.ascontiguousarray(arr, dtype=_np.float32)
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
    m = Matrix.createDenseFromNumpy(arr, copy, False)
    if not copy:
        m._owner = arr  # the matrix aliases the array's memory
    return m


def _matrix_create_from_numpy(arr, copy=True, useGpu=None):
    """A dense Matrix from a numpy array.

    Args:
        arr (array-like): 2-D (a 1-D array is one row); converted to C-contiguous float32.
        copy (bool, default True): False aliases the array's memory on the CPU (the
            matrix keeps the array alive); the GPU always copies.
        useGpu (bool, optional): in GPU memory; default: what isUsingGpu() says.

    Returns:
        Matrix: owned by the caller.
    """
    if useGpu is None:
        useGpu = isUsingGpu()
    arr = _np.ascontiguousarray(arr, dtype=_np.float32)
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
    m = Matrix._createDenseFromNumpyRaw(arr, copy, useGpu)
    if not copy and not useGpu:
        m._owner = arr
    return m


Matrix._createDenseFromNumpyRaw = staticmethod(Matrix.createDenseFromNumpy)
Matrix.createDenseFromNumpy = staticmethod(_matrix_create_from_numpy)
Matrix.createCpuDenseFromNumpy = staticmethod(_matrix_create_cpu)
def _matrix_create_gpu(arr):
    """A dense GPU Matrix copied from a numpy array (UnsupportError without CUDA).

    Args:
        arr (array-like): 2-D (a 1-D array is one row).

    Returns:
        Matrix: owned by the caller.
    """
    return _matrix_create_from_numpy(arr, True, True)


Matrix.createGpuDenseFromNumpy = staticmethod(_matrix_create_gpu)
Matrix.toNumpyMatInplace = _matrix_to_numpy_inplace
Matrix.copyToNumpyMat = _matrix_copy_to_numpy
# numpy.asarray(matrix): the same view as toNumpyMatInplace (numpy's .base is then the
# view's memory holder, not the matrix, so a later reallocation cannot pull it away).
Matrix.__array__ = lambda self, dtype=None, copy=None: (
    _matrix_to_numpy_inplace(self) if dtype is None and not copy
    else _np.array(_matrix_to_numpy_inplace(self), dtype=dtype, copy=True))


def _vec_helpers(cls, dtype, typestr):
    kind = "float32" if dtype == _np.float32 else "int32"

    def to_inplace(self):
        """A zero-copy numpy view of a CPU vector; keeps the memory it reads alive
        (UnsupportError on the GPU)."""
        return _host_view(self, (len(self),), typestr)

    def copy_out(self):
        """A new numpy array with the vector's values (a copy; from the GPU too)."""
        out = _np.empty((len(self),), dtype=dtype)
        self._copyToNumpyArray(out)
        return out

    raw = cls.createVectorFromNumpy

    def from_numpy(arr, copy=True, useGpu=None):
        """A vector from a numpy array (read flat).

        Args:
            arr (array-like): converted to C-contiguous %s.
            copy (bool, default True): False aliases the array on the CPU (the vector
                keeps it alive); the GPU always copies.
            useGpu (bool, optional): in GPU memory; default: what isUsingGpu() says.
        """
        if useGpu is None:
            useGpu = isUsingGpu()
        arr = _np.ascontiguousarray(arr, dtype=dtype).reshape(-1)
        v = raw(arr, copy, useGpu)
        if not copy and not useGpu:
            v._owner = arr
        return v

    def from_numpy_cpu(arr, copy=True):
        """A CPU vector from a numpy array (read flat).

        Args:
            arr (array-like): converted to C-contiguous %s.
            copy (bool, default True): False aliases the array (the vector keeps it alive).
        """
        return from_numpy(arr, copy, False)

    def from_numpy_gpu(arr):
        """A GPU vector copied from a numpy array (UnsupportError without CUDA).

        Args:
            arr (array-like): read flat as %s.
        """
        return from_numpy(arr, True, True)

    for fn in (from_numpy, from_numpy_cpu, from_numpy_gpu):
        fn.__doc__ = fn.__doc__ % kind
    cls.toNumpyArrayInplace = to_inplace
    cls.copyToNumpyArray = copy_out
    cls.createVectorFromNumpy = staticmethod(from_numpy)
    cls.createCpuVectorFromNumpy = staticmethod(from_numpy_cpu)
    cls.createGpuVectorFromNumpy = staticmethod(from_numpy_gpu)
    cls.getSize = cls.__len__
    cls.__iter__ = lambda self: iter(self.getData())


def _documented_as(raw, wrapper):
    """`wrapper` with the docstring of the SWIG method it wraps (swig/docstrings*.i)."""
    wrapper.__doc__ = raw.__doc__
    return wrapper


# v1 returns lists (SWIG would give tuples).
for _cls in (Matrix, Vector, IVector):
    _cls.getData = (lambda raw: _documented_as(raw, lambda self: list(raw(self))))(_cls.getData)
Matrix.getSparseRowCols = (lambda raw: _documented_as(raw, lambda self, i: list(raw(self, i))))(
    Matrix.getSparseRowCols)
Matrix.getSparseRowColsVal = (lambda raw: _documented_as(raw, lambda self, i: [tuple(p) for p in raw(self, i)]))(
    Matrix.getSparseRowColsVal)
Matrix.sparseCopyFrom = (lambda raw: _documented_as(raw, lambda self, rows, cols, values=():
                         raw(self, [int(r) for r in rows], [int(c) for c in cols], [float(v) for v in values])))(
    Matrix.sparseCopyFrom)

_vec_helpers(Vector, _np.float32, "<f4")
_vec_helpers(IVector, _np.int32, "<i4")


# Zero-copy exchange with cupy, PyTorch and other CUDA libraries
# (__cuda_array_interface__ v3). Handing out or taking in a pointer first waits
# for the device, so no stream synchronisation is left to the other side.
def _cuda_array_interface(shape_of, typestr):
    def get(self):
        if not self.isGpu():
            raise AttributeError("__cuda_array_interface__: this buffer is in host memory")
        return {"version": 3, "shape": shape_of(self), "typestr": typestr, "strides": None,
                "data": (self.devicePointer(), False)}
    return property(get)


def _device_buffer(obj, typestr):
    """(pointer, shape) of a C-contiguous CUDA array of the given element type."""
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is None:
        raise TypeError("%s is not a CUDA array (no __cuda_array_interface__)" % type(obj).__name__)
    if cai["typestr"] != typestr:
        raise TypeError("expected a CUDA array of %s, got %s" % (typestr, cai["typestr"]))
    shape = tuple(cai["shape"])
    itemsize = int(typestr[2:])
    contiguous = tuple(itemsize * int(_np.prod(shape[i + 1:], dtype=_np.int64)) for i in range(len(shape)))
    if cai.get("strides") is not None and tuple(cai["strides"]) != contiguous:
        raise ValueError("the CUDA array is not C-contiguous (strides %s)" % (cai["strides"],))
    return cai["data"][0], shape


def _matrix_from_cuda_array(obj, copy=True):
    """A GPU Matrix from a CUDA array (cupy, PyTorch, ...: anything with __cuda_array_interface__).

    Waits for the device first, so no stream synchronisation is left to the caller.

    Args:
        obj (CUDA array): C-contiguous float32, 1-D (one row) or 2-D.
        copy (bool, default True): False aliases the array's memory (the matrix keeps
            it alive).

    Returns:
        Matrix: owned by the caller.
    """
    ptr, shape = _device_buffer(obj, "<f4")
    if len(shape) not in (1, 2):
        raise ValueError("a Matrix needs a 1-D or 2-D array, got shape %s" % (shape,))
    h, w = (1, shape[0]) if len(shape) == 1 else shape
    m = Matrix.createDenseFromDevicePointer(ptr, h, w, copy)
    if not copy:
        m._owner = obj  # the matrix aliases the array's memory
    return m


def _vector_from_cuda_array(cls, typestr):
    def create(obj, copy=True):
        """A GPU vector from a CUDA array (anything with __cuda_array_interface__), read flat.

        Args:
            obj (CUDA array): C-contiguous, of this vector's element type.
            copy (bool, default True): False aliases the array (the vector keeps it alive).
        """
        ptr, shape = _device_buffer(obj, typestr)
        v = cls.createVectorFromDevicePointer(ptr, int(_np.prod(shape, dtype=_np.int64)), copy)
        if not copy:
            v._owner = obj
        return v
    return staticmethod(create)


Matrix.__cuda_array_interface__ = _cuda_array_interface(lambda m: (m.getHeight(), m.getWidth()), "<f4")
Matrix.createFromCudaArray = staticmethod(_matrix_from_cuda_array)
Vector.__cuda_array_interface__ = _cuda_array_interface(lambda v: (len(v),), "<f4")
Vector.createFromCudaArray = _vector_from_cuda_array(Vector, "<f4")
IVector.__cuda_array_interface__ = _cuda_array_interface(lambda v: (len(v),), "<i4")
IVector.createFromCudaArray = _vector_from_cuda_array(IVector, "<i4")
%}
