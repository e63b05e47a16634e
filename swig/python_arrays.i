// The Python side of Matrix, Vector and IVector, written into the classes SWIG generates
// (conventions: python_engine.i): numpy in and out, v1's lists, and zero-copy exchange
// with cupy, PyTorch and other CUDA libraries (__cuda_array_interface__ v3). Handing out
// or taking in a device pointer first waits for the device, so no stream synchronisation
// is left to the other side. paddle.i includes this file before PaddleAPI.h.

%pythoncode %{
class _View(object):
    """What a numpy view's .base holds: the engine memory it reads stays alive with it,
    even when the object it came from reallocates (a larger copyFrom*) or is freed."""

    def __init__(self, obj, shape, typestr):
        self._memory = obj.shareMemory()
        self._memory._owner = getattr(obj, "_owner", None)  # a copy=False object's array
        self.__array_interface__ = {"version": 3, "shape": shape, "typestr": typestr,
                                    "data": (self._memory.dataPointer(), False)}


def _flat_array(arr, dtype):
    """arr as a flat C-contiguous array of dtype; for int32 (IVector), ValueError for values
    int32 does not hold exactly (a fraction, nan, or beyond its range) instead of numpy's silent
    truncation and wrap-around."""
    if dtype is _np.int32:
        given = _np.asarray(arr).reshape(-1)
        if given.size and given.dtype.kind in "fiu":
            with _np.errstate(invalid="ignore"):
                bad = (given < -2 ** 31) | (given >= 2 ** 31)
                if given.dtype.kind == "f":
                    bad |= ~_np.isfinite(given) | (given != _np.trunc(given))
            if bad.any():
                k = int(_np.argmax(bad))
                raise ValueError("an IVector holds int32 values: element %d is %r" % (k, given[k].item()))
    return _np.ascontiguousarray(arr, dtype=dtype).reshape(-1)


def _host_view(obj, shape, typestr):
    return _np.asarray(_View(obj, shape, typestr))


def _cuda_interface(obj, shape, typestr):
    if not obj.isGpu():
        raise AttributeError("__cuda_array_interface__: this buffer is in host memory")
    return {"version": 3, "shape": shape, "typestr": typestr, "strides": None,
            "data": (obj.devicePointer(), False)}


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
%}

// v1 returns lists where SWIG would give tuples, and takes numpy integers in lists.
%pythonappend Matrix::getData %{val = list(val)%}
%pythonappend Vector::getData %{val = list(val)%}
%pythonappend IVector::getData %{val = list(val)%}
%pythonappend Matrix::getSparseRowCols %{val = list(val)%}
%pythonappend Matrix::getSparseRowColsVal %{val = [tuple(p) for p in val]%}
// These take any array-like (numpy integers in lists too) and default useGpu to isUsingGpu() in Python.
%rename(_sparseCopyFrom) Matrix::sparseCopyFrom;
%rename(_createDenseFromNumpyRaw) Matrix::createDenseFromNumpy;
%rename(_createVectorFromNumpyRaw) Vector::createVectorFromNumpy;
%rename(_createVectorFromNumpyRaw) IVector::createVectorFromNumpy;

%extend Matrix {
%pythoncode %{
@staticmethod
def createDenseFromNumpy(arr, copy=True, useGpu=None):
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
        m._owner = arr  # the matrix aliases the array's memory
    return m

@staticmethod
def createCpuDenseFromNumpy(arr, copy=True):
    """A dense CPU Matrix from a numpy array (v1's createCpuDenseFromNumpy).

    Args:
        arr (array-like): 2-D (a 1-D array is one row); converted to C-contiguous float32.
        copy (bool, default True): False aliases the array's memory (no copy when it is
            already C-contiguous float32): writes through either show in both, and the
            matrix keeps the array alive.

    Returns:
        Matrix: owned by the caller.
    """
    return Matrix.createDenseFromNumpy(arr, copy, False)

@staticmethod
def createGpuDenseFromNumpy(arr):
    """A dense GPU Matrix copied from a numpy array (UnsupportError without CUDA).

    Args:
        arr (array-like): 2-D (a 1-D array is one row).

    Returns:
        Matrix: owned by the caller.
    """
    return Matrix.createDenseFromNumpy(arr, True, True)

@staticmethod
def createFromCudaArray(obj, copy=True):
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

def sparseCopyFrom(self, rows, cols, values=()):
    """Fills a sparse matrix from CSR arrays (lists or numpy arrays).

    Args:
        rows (list of int): height + 1 offsets into ``cols``; row i holds the entries
            ``rows[i]`` to ``rows[i + 1] - 1``.
        cols (list of int): the column id of each entry.
        values (list of float, default empty): one value per entry; empty for a binary
            matrix.

    Raises:
        ValueError: offsets or ids out of range, or values of the wrong length.
    """
    self._sparseCopyFrom([int(r) for r in rows], [int(c) for c in cols], [float(v) for v in values])

def toNumpyMatInplace(self):
    """A zero-copy float32 numpy view (height x width) of a dense CPU matrix.

    Writing the view writes the matrix. The view keeps the memory it reads alive, even
    after the matrix is freed or moved by a larger copyFromNumpyMat (it then shows the
    old contents). UnsupportError for a GPU or sparse matrix. Also ``numpy.asarray(m)``.
    """
    return _host_view(self, (self.getHeight(), self.getWidth()), "<f4")

def copyToNumpyMat(self):
    """A new float32 numpy array (height x width) with the matrix's values (a copy; from the GPU too)."""
    out = _np.empty((self.getHeight(), self.getWidth()), dtype=_np.float32)
    self._copyToNumpyMat(out)
    return out

def __array__(self, dtype=None, copy=None):
    # the same view as toNumpyMatInplace (numpy's .base is then the view's memory
    # holder, not the matrix, so a later reallocation cannot pull it away)
    view = self.toNumpyMatInplace()
    return view if dtype is None and not copy else _np.array(view, dtype=dtype, copy=True)

@property
def __cuda_array_interface__(self):
    return _cuda_interface(self, (self.getHeight(), self.getWidth()), "<f4")
%}
}

// Vector (float32) and IVector (int32) alike.
%define PD_VECTOR_PYTHON(CLASS, DTYPE, TYPESTR)
%extend CLASS {
%pythoncode %{
@staticmethod
def createVectorFromNumpy(arr, copy=True, useGpu=None):
    """A vector from a numpy array (read flat).

    Args:
        arr (array-like): converted to a C-contiguous array of the vector's type
            (float32 for Vector, int32 for IVector: ValueError for a value int32
            cannot hold exactly, such as 2.5 or 2**31).
        copy (bool, default True): False aliases the array on the CPU (the vector
            keeps it alive); the GPU always copies.
        useGpu (bool, optional): in GPU memory; default: what isUsingGpu() says.
    """
    if useGpu is None:
        useGpu = isUsingGpu()
    arr = _flat_array(arr, DTYPE)
    v = CLASS._createVectorFromNumpyRaw(arr, copy, useGpu)
    if not copy and not useGpu:
        v._owner = arr
    return v

@staticmethod
def createCpuVectorFromNumpy(arr, copy=True):
    """A CPU vector from a numpy array (read flat).

    Args:
        arr (array-like): converted to a C-contiguous array of the vector's type.
        copy (bool, default True): False aliases the array (the vector keeps it alive).
    """
    return CLASS.createVectorFromNumpy(arr, copy, False)

@staticmethod
def createGpuVectorFromNumpy(arr):
    """A GPU vector copied from a numpy array (UnsupportError without CUDA).

    Args:
        arr (array-like): read flat as the vector's type.
    """
    return CLASS.createVectorFromNumpy(arr, True, True)

@staticmethod
def createFromCudaArray(obj, copy=True):
    """A GPU vector from a CUDA array (anything with __cuda_array_interface__), read flat.

    Args:
        obj (CUDA array): C-contiguous, of this vector's element type.
        copy (bool, default True): False aliases the array (the vector keeps it alive).
    """
    ptr, shape = _device_buffer(obj, TYPESTR)
    v = CLASS.createVectorFromDevicePointer(ptr, int(_np.prod(shape, dtype=_np.int64)), copy)
    if not copy:
        v._owner = obj
    return v

def toNumpyArrayInplace(self):
    """A zero-copy numpy view of a CPU vector; keeps the memory it reads alive
    (UnsupportError on the GPU)."""
    return _host_view(self, (len(self),), TYPESTR)

def copyToNumpyArray(self):
    """A new numpy array with the vector's values (a copy; from the GPU too)."""
    out = _np.empty((len(self),), dtype=DTYPE)
    self._copyToNumpyArray(out)
    return out

def getSize(self):
    """The number of elements (also ``len(vector)``)."""
    return len(self)

def __iter__(self):
    return iter(self.getData())

@property
def __cuda_array_interface__(self):
    return _cuda_interface(self, (len(self),), TYPESTR)
%}
}
%enddef
PD_VECTOR_PYTHON(Vector, _np.float32, "<f4")
PD_VECTOR_PYTHON(IVector, _np.int32, "<i4")
