// Reference docstrings of py_paddle.swig_paddle (Google style, rendered by Sphinx's
// napoleon; tests/docs checks them and runs every >>> example with `swig_paddle`,
// `np` and `fixtures` = tests/docs/doc_fixtures.py). paddle.i includes this file
// before PaddleAPI.h, so each %feature attaches to the declaration it names.
// Parameters are named as Python callers see them (SWIG's names, v1's C++ ones); the
// checks python_*.i add before or after a C++ call keep this text and those names.
// This file: the module functions, Matrix, IVector and Vector; docstrings_arguments.i:
// Arguments; docstrings_engine.i: the config objects, Parameter, Evaluator,
// GradientMachine and Predictor; docstrings_training.i: ParameterOptimizer,
// ParameterUpdater and Trainer. Classes and methods defined in Python (paddle.i's and
// python_*.i's %pythoncode) carry plain docstrings there.

// ---------------------------------------------------------------- module functions

%feature("docstring") isGpuVersion %{Whether this engine was built with CUDA (WITH_CUDA).

A CPU build answers False; initPaddle("--use_gpu=1") then raises UnsupportError.

Example:
    >>> isinstance(swig_paddle.isGpuVersion(), bool)
    True
%}

%feature("docstring") isMpiVersion %{Whether this engine was built with MPI.

With MPI, ``Trainer.create(json, ..., distributed=True)`` trains data parallel over the
ranks of an ``mpiexec`` job.

Example:
    >>> isinstance(swig_paddle.isMpiVersion(), bool)
    True
%}

%feature("docstring") isUsingGpu %{Whether new machines and the numpy factories use the GPU.

Set by initPaddle's ``--use_gpu`` flag or setUseGpu; the default of every ``useGpu``
argument left out (``Matrix.createDenseFromNumpy``, ``GradientMachine.createFromConfigProto``).

Example:
    >>> swig_paddle.isUsingGpu()
    False
%}

%feature("docstring") setUseGpu %{Switches the process-wide GPU default (initPaddle's ``--use_gpu``).

Args:
    useGpu (bool): True to place new machines and buffers on the GPU. True on a
        build without CUDA (or without a visible GPU) raises UnsupportError.

Example:
    >>> swig_paddle.setUseGpu(False)
    >>> swig_paddle.isUsingGpu()
    False
%}

%feature("docstring") getTrainerCount %{The ``--trainer_count`` initPaddle was given (default 1).

Trainer.createFromConfigProto and ``Trainer.create(config)`` use it as the number of
gradient-machine replicas that share each batch.

Example:
    >>> swig_paddle.getTrainerCount()
    1
%}

%feature("docstring") getGpuCount %{The number of GPUs the engine can see (0 without CUDA or a driver).

Example:
    >>> swig_paddle.getGpuCount() >= 0
    True
%}

%feature("docstring") getGpuMemoryStats %{
The engine's pooled GPU memory: (cudaMalloc calls, bytes held, peak bytes held).

All zeros on a build without CUDA or before the GPU is first used. The pool keeps
freed blocks for reuse, so "bytes held" does not drop when a Matrix is freed.

Returns:
    tuple of int: three counters.

Example:
    >>> len(swig_paddle.getGpuMemoryStats())
    3
%}

%feature("docstring") getBufferMemoryStats %{
The engine's own accounting of its matrix storage (host and GPU buffers of every machine).

Counts each block from its allocation to its release: it drops when a Matrix is freed
(recomputation releases the layers between checkpoints: ``settings(recompute=...)``), except
for the blocks that a machine with recomputation keeps for reuse, which count as held.

Args:
    resetPeak (bool, optional): after reading, restart the peak from the bytes alive now.

Returns:
    tuple of int: (bytes held now, peak bytes held since the last reset).

Example:
    >>> alive, peak = swig_paddle.getBufferMemoryStats(True)
    >>> peak >= alive >= 0
    True
%}

%feature("docstring") getVersion %{The engine's version string (the package version it was built as).

Example:
    >>> swig_paddle.getVersion().count(".") >= 1
    True
%}

%feature("docstring") getBuildCpuFeatures %{The SIMD extensions the loaded engine was compiled for, space-separated.

py_paddle loads the build that matches the CPU (e.g. "sse4_2 avx avx2 fma"); this
says which one it picked.

Example:
    >>> isinstance(swig_paddle.getBuildCpuFeatures(), str)
    True
%}

%feature("docstring") getLayerTypes %{The layer types (v1's type strings) this engine can build, sorted.

Example:
    >>> types = swig_paddle.getLayerTypes()
    >>> "fc" in types and list(types) == sorted(types)
    True
%}

// ------------------------------------------------------------------------- Matrix

%feature("docstring") Matrix %{A 2-D float32 matrix: dense (in CPU or GPU memory) or sparse CSR (host memory).

The batch data and the layer outputs that cross the API: ``Arguments`` slots hold
Matrices, and ``GradientMachine.forward`` fills its output Arguments with them. Make one
with a factory (``createZero``, ``createDense``, ``createDenseFromNumpy``,
``createSparse``, ``createFromCudaArray``); there is no public constructor.

Memory: a Matrix returned by a factory belongs to Python and is freed with its last
reference. A Matrix taken from an Arguments or a layer output aliases that memory (and
keeps its Arguments alive); the machine's next forward overwrites an output in place,
so copy it (``copyToNumpyMat``) to keep it. ``toNumpyMatInplace`` / ``numpy.asarray``
give a zero-copy view that keeps the memory it reads alive.

Thread safety: reading one Matrix from several threads at once is safe; writing it
while another thread reads or writes it is not.

v1: the same class (paddle/api/PaddleAPI.h); ``getData`` returns a list, as v1's did.

Example:
    >>> m = swig_paddle.Matrix.createDenseFromNumpy(np.array([[1, 2, 3], [4, 5, 6]]))
    >>> m.getHeight(), m.getWidth(), m.get(1, 2)
    (2, 3, 6.0)
    >>> float(m.copyToNumpyMat().sum())
    21.0
%}

%feature("docstring") Matrix::createZero %{A new dense matrix of zeros.

Args:
    height (int): rows.
    width (int): columns.
    useGpu (bool, default False): in GPU memory (UnsupportError without CUDA).

Returns:
    Matrix: owned by the caller.
%}

%feature("docstring") Matrix::createDense %{A new dense matrix from a flat list of values, row by row.

Fewer than height x width values fill the first elements and leave the rest 0 (as v1
copied what it was given); more raise ValueError.

Args:
    data (list of float): the values in row-major order.
    height (int): rows.
    width (int): columns.
    useGpu (bool, default False): in GPU memory.

Returns:
    Matrix: owned by the caller.
%}

%feature("docstring") Matrix::createSparse %{
A new sparse CSR matrix with room for ``nnz`` entries, to fill with sparseCopyFrom.

The data of a sparse input slot (``sparse_binary_vector`` / ``sparse_vector``). Sparse
data always stays in host memory (layers on the GPU read it from there).

Args:
    height (int): rows (samples).
    width (int): columns (the slot's dimension).
    nnz (int): the number of entries it will hold.
    isNonVal (bool, default True): True for a binary matrix (every value 1, no values
        stored), False for one with a value per entry.
    trans (bool, default False): v1's CSC layout; True raises UnsupportError.
    useGpu (bool, default False): accepted for v1 scripts; has no effect.

Returns:
    Matrix: owned by the caller.
%}

%feature("docstring") Matrix::isSparse %{True for a sparse (CSR) matrix, False for a dense one.%}
%feature("docstring") Matrix::getSparseValueType %{
SPARSE_NON_VALUE (binary) or SPARSE_VALUE; UnsupportError for a dense matrix.%}
%feature("docstring") Matrix::getSparseFormat %{SPARSE_CSR (the only format here); UnsupportError for a dense matrix.%}

%feature("docstring") Matrix::getSparseRowCols %{The column ids of one row of a sparse matrix, as a list.

Args:
    i (int): the row (RangeError outside the matrix).
%}

%feature("docstring") Matrix::getSparseRowColsVal %{
The (column id, value) pairs of one row of a sparse matrix, as a list of tuples.

A binary matrix gives the value 1.0 for every entry.

Args:
    i (int): the row (RangeError outside the matrix).
%}

%feature("docstring") Matrix::getHeight %{The number of rows (for a batch: the number of samples or time steps).%}
%feature("docstring") Matrix::getWidth %{The number of columns (for a layer's output: its size).%}

%feature("docstring") Matrix::get %{One element of a dense matrix (copied from the GPU when it lives there).

Args:
    x (int): the row.
    y (int): the column.

Raises:
    RangeError: x or y out of range.
%}

%feature("docstring") Matrix::set %{Sets one element of a dense matrix.

Args:
    x (int): the row.
    y (int): the column.
    v (float): the new value.

Raises:
    RangeError: x or y out of range.
%}

%feature("docstring") Matrix::isGpu %{True when the matrix's memory is on the GPU.%}

%feature("docstring") Matrix::getData %{
All the values of a dense matrix, row by row, as a list of floats (a copy; v1's format).%}

%feature("docstring") Matrix::copyFromNumpyMat %{Copies a 2-D float32 C-contiguous array into the matrix.

Another shape resizes the matrix to the array's shape (new memory: a numpy view
taken before keeps the old contents).

Args:
    data (numpy.ndarray): float32, 2-D, C-contiguous.
%}

%feature("docstring") Matrix::dataPointer %{
The host address of a dense CPU matrix's first element (what numpy views are built on).

UnsupportError for a GPU or sparse matrix. The address is valid while the matrix (or
a view holding its memory) lives and is not resized.
%}

%feature("docstring") Matrix::shareMemory %{A new Matrix over this one's memory that keeps it alive.

What a numpy view holds: it stays valid when this matrix is freed or moves to new
memory (copyFromNumpyMat of a larger shape).

Returns:
    Matrix: owned by the caller, aliasing this one's current memory.
%}

%feature("docstring") Matrix::devicePointer %{
The device address of a GPU matrix, after the device has finished its pending work.

What ``__cuda_array_interface__`` hands to cupy or PyTorch. UnsupportError for a
matrix in host memory.
%}

%feature("docstring") Matrix::createDenseFromDevicePointer %{
A dense GPU matrix over (copy=False) or copied from (copy=True) a device buffer.

Prefer ``Matrix.createFromCudaArray``, which reads the address and shape from a CUDA
array and keeps that array alive.

Args:
    ptr (int): the device address of ``height * width`` float32 values, row-major.
    height (int): rows.
    width (int): columns.
    copy (bool, default True): False aliases the buffer, which must then outlive the
        matrix.

Returns:
    Matrix: owned by the caller.
%}

// ------------------------------------------------------------------- IVector

%feature("docstring") IVector %{A 1-D int32 vector in CPU or GPU memory: class ids and sequence start positions.

An ``Arguments`` slot's ids (``setSlotIds``; ``integer_value`` data, a max-id layer's
output) and its sequence layout (``setSlotSequenceStartPositions``: the offsets of
each sequence's first row, then the total) are IVectors. It behaves as a Python
sequence: ``len(v)``, ``v[i]``, ``v[i] = x``, iteration.

Memory and ownership: as Matrix (factories give the caller a new vector; one taken
from an Arguments aliases it; ``toNumpyArrayInplace`` is a zero-copy view).

Thread safety: reading from several threads is safe; writing while another thread
reads or writes is not.

Example:
    >>> ids = swig_paddle.IVector.create([0, 2, 5])
    >>> len(ids), ids[2], ids.getData()
    (3, 5, [0, 2, 5])
    >>> ids.copyToNumpyArray().dtype
    dtype('int32')
%}

%feature("docstring") IVector::createZero %{A new vector of ``size`` zeros.

Args:
    size (int): its length.
    useGpu (bool, default False): in GPU memory.

Returns:
    IVector: owned by the caller.
%}

%feature("docstring") IVector::create %{A new vector holding ``data``.

Args:
    data (list of int): the values.
    useGpu (bool, default False): in GPU memory.

Returns:
    IVector: owned by the caller.
%}

%feature("docstring") IVector::getSize %{The number of elements (also ``len(vector)``).%}

%feature("docstring") IVector::get %{``vector[i]``: one element (RangeError out of range).

Args:
    i (int): the index.
%}

%feature("docstring") IVector::set %{``vector[i] = v``: sets one element (RangeError out of range).

Args:
    i (int): the index.
    v (int): the new value.
%}

%feature("docstring") IVector::isGpu %{True when the vector's memory is on the GPU.%}
%feature("docstring") IVector::getData %{All elements as a list of ints (a copy; v1's format).%}

%feature("docstring") IVector::copyFromNumpyArray %{
Copies an int32 array into the vector, resizing it to the array's length.

Args:
    data (numpy.ndarray): int32, C-contiguous (any shape; read flat).
%}

%feature("docstring") IVector::dataPointer %{
The host address of a CPU vector's first element (UnsupportError on the GPU).%}

%feature("docstring") IVector::shareMemory %{
A new IVector over this one's memory that keeps it alive (what numpy views hold).

Returns:
    IVector: owned by the caller.
%}

%feature("docstring") IVector::devicePointer %{
The device address of a GPU vector, after pending device work (UnsupportError on the CPU).%}

%feature("docstring") IVector::createVectorFromDevicePointer %{
A GPU vector over (copy=False) or copied from a device buffer of int32.

Prefer ``IVector.createFromCudaArray``.

Args:
    ptr (int): the device address.
    size (int): the number of elements.
    copy (bool, default True): False aliases the buffer, which must outlive the vector.

Returns:
    IVector: owned by the caller.
%}

// -------------------------------------------------------------------- Vector

%feature("docstring") Vector %{A 1-D float32 vector in CPU or GPU memory; parameter buffers are Vectors.

``Parameter.getBuf`` returns a Vector that shares memory with the engine: writing it
changes the model. It behaves as a Python sequence (``len``, indexing, iteration).

Memory and ownership: as Matrix. Factories give the caller a new vector; a parameter
buffer aliases the parameter (and keeps its machine alive).

Thread safety: reading from several threads is safe; writing while another thread
reads or writes is not.

Example:
    >>> v = swig_paddle.Vector.create([0.5, 1.5, 2.0])
    >>> len(v), v[1]
    (3, 1.5)
    >>> v.toNumpyArrayInplace()[:] = 7
    >>> v.getData()
    [7.0, 7.0, 7.0]
%}

%feature("docstring") Vector::createZero %{A new vector of ``size`` zeros.

Args:
    size (int): its length.
    useGpu (bool, default False): in GPU memory.

Returns:
    Vector: owned by the caller.
%}

%feature("docstring") Vector::create %{A new vector holding ``data``.

Args:
    data (list of float): the values.
    useGpu (bool, default False): in GPU memory.

Returns:
    Vector: owned by the caller.
%}

%feature("docstring") Vector::getSize %{The number of elements (also ``len(vector)``).%}

%feature("docstring") Vector::get %{``vector[i]``: one element (RangeError out of range).

Args:
    i (int): the index.
%}

%feature("docstring") Vector::set %{``vector[i] = v``: sets one element (RangeError out of range).

Args:
    i (int): the index.
    v (float): the new value.
%}

%feature("docstring") Vector::isGpu %{True when the vector's memory is on the GPU.%}
%feature("docstring") Vector::getData %{All elements as a list of floats (a copy; v1's format).%}

%feature("docstring") Vector::copyFrom %{Copies another vector's values into this one (either may be on the GPU).

Args:
    src (Vector): a vector of the same size (RangeError otherwise).
%}

%feature("docstring") Vector::copyFromNumpyArray %{
Copies a float32 array into the vector, resizing it to the array's length.

A parameter buffer should get an array of the parameter's size.

Args:
    data (numpy.ndarray): float32, C-contiguous (any shape; read flat).
%}

%feature("docstring") Vector::dataPointer %{
The host address of a CPU vector's first element (UnsupportError on the GPU).%}

%feature("docstring") Vector::shareMemory %{
A new Vector over this one's memory that keeps it alive (what numpy views hold).

Returns:
    Vector: owned by the caller.
%}

%feature("docstring") Vector::createFromParameterFile %{
The values of one v1 parameter file, read by the engine's own reader.

The file must be a regular file with v1's 16-byte header (version 0, value size 4,
count) and exactly ``count`` float32 values; a NaN or infinite value is refused.

Args:
    path (str): the parameter file (e.g. ``pass-00009/_hidden.w0``).

Returns:
    Vector: owned by the caller, in host memory.

Raises:
    IOError: the file is missing, short, too long, not a parameter file or not finite;
        the message names it.
%}

%feature("docstring") Vector::devicePointer %{
The device address of a GPU vector, after pending device work (UnsupportError on the CPU).%}

%feature("docstring") Vector::createVectorFromDevicePointer %{
A GPU vector over (copy=False) or copied from a device buffer of float32.

Prefer ``Vector.createFromCudaArray``.

Args:
    ptr (int): the device address.
    size (int): the number of elements.
    copy (bool, default True): False aliases the buffer, which must outlive the vector.

Returns:
    Vector: owned by the caller.
%}

%include "swig/docstrings_arguments.i"
%include "swig/docstrings_engine.i"
%include "swig/docstrings_training.i"
