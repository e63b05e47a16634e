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
%include "swig/python_engine.i"  // the Python side of the classes, also before them
%include "swig/python_training.i"
%include "swig/python_arrays.i"
%include "swig/PaddleAPI.h"
%include "swig/python_generation.i"

%pythoncode %{


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
    """Initialises the engine from v1's command-line flags; call it once before anything else.

    The engine reads ``--use_gpu`` (0/1; 1 on a CPU build raises UnsupportError),
    ``--trainer_count`` (machine replicas per batch, >= 1) and ``--predict_file``;
    ``--config`` and ``--config_args`` are kept for ``Trainer.createByCommandLine``.
    Other v1 flags (``--log_period``, ...) are accepted and ignored (they concerned
    v1's trainer loop). Settings are process-wide.

    Args:
        *args (str): the flags, "--name=value".

    Example:
        >>> swig_paddle.initPaddle("--use_gpu=0", "--trainer_count=1")
        >>> swig_paddle.isUsingGpu(), swig_paddle.getTrainerCount()
        (False, 1)
    """
    for a in args:
        key, _, value = str(a).lstrip("-").partition("=")
        _FLAGS[key] = value
    _initPaddle(StringVector([str(a) for a in args]))


class ParameterTraverseCallback(object):
    """v1's callback for optimizers that visit parameters outside update() (v1's
    needSpecialTraversal); apply(vecs, config, sparseId) calls `fn` with the same.

    ``ParameterOptimizer.needSpecialTraversal`` returns None here (no update rule needs
    a traversal), so v1 scripts that test its answer skip the traversal; the class is
    there for scripts that name it. Thread safety: it holds no state of its own; as safe
    as ``fn``.

    Args:
        fn (callable, default None): called as fn(vecs, config, sparseId); None does nothing.

    Example:
        >>> seen = []
        >>> callback = swig_paddle.ParameterTraverseCallback(lambda vecs, config, row: seen.append(row))
        >>> callback.apply([], None, 3)
        >>> seen
        [3]
    """

    def __init__(self, fn=None):
        self.fn = fn

    def apply(self, vecs, config, sparseId=None):
        """Calls ``fn(vecs, config, sparseId)`` (nothing without fn).

        Args:
            vecs (list of Vector): a parameter's buffers.
            config (ParameterConfig): its config.
            sparseId (int, default None): a row, or None for the whole parameter.
        """
        if self.fn is not None:
            self.fn(vecs, config, sparseId)
%}
