// Reference docstrings: Arguments (see docstrings.i for the conventions).

%feature("docstring") Arguments %{A batch crossing the API: one slot per data layer (inputs) or output layer (outputs).

Each slot is v1's Argument: a value Matrix (dense features, or a sparse Matrix for
sparse input), ids (an IVector: class labels, word ids), sequence start positions
(the offset of each sequence's first row, then the total: ``[0, 3, 5]`` is two
sequences of 3 and 2 rows), sub-sequence start positions for nested sequences, and a
gradient. Input slots follow the order of the config's data layers
(``GradientMachine.getInputLayerNames()``), output slots that of its outputs.

Memory and ownership: the ``setSlot*`` setters share the object they are given (no
copy) and the Arguments keeps it alive until the slot is set again; what ``getSlot*``
returns aliases the slot and keeps the Arguments alive. The ``*FromBuffer`` setters
copy from numpy (the fast path of the data feed). Outputs filled by
``GradientMachine.forward`` alias the machine's layers: its next forward overwrites
them.

Thread safety: reading from several threads is safe; setting slots while another
thread reads or writes the same Arguments is not.

v1: the same class; ``sumCosts`` is the name some v1 demos used for ``sum``.

Example:
    >>> args = swig_paddle.Arguments.createArguments(2)
    >>> args.setSlotValue(0, swig_paddle.Matrix.createDenseFromNumpy(np.ones((4, 3))))
    >>> args.setSlotIds(1, swig_paddle.IVector.create([0, 1, 1, 0]))
    >>> args.setSlotSequenceStartPositions(0, swig_paddle.IVector.create([0, 3, 4]))
    >>> args.getSlotNum(), args.getBatchSize(), args.getSlotIds(1).getData()
    (2, 4, [0, 1, 1, 0])
%}

%feature("docstring") Arguments::createArguments %{A new, empty Arguments with ``slotNum`` slots.

Pass 0 for the output argument of ``GradientMachine.forward``: the machine resizes it
to its output layers.

Args:
    slotNum (int): the number of slots.

Returns:
    Arguments: owned by the caller.
%}

%feature("docstring") Arguments::getSlotNum %{The number of slots.%}

%feature("docstring") Arguments::resize %{Changes the number of slots (new ones are empty; removed ones are released).

Args:
    slotNum (int): the new number of slots.
%}

%feature("docstring") Arguments::getSlotValue %{
The slot's value Matrix (dense, or sparse for a sparse slot), or None when unset.

The Matrix aliases the slot (no copy) and keeps the Arguments alive.

Args:
    idx (int): the slot (RangeError out of range).
%}

%feature("docstring") Arguments::getSlotGrad %{The slot's gradient Matrix, or None.

For an input slot it is filled by backward when the machine was told
``setNeedInputGradient(True)`` (read it through ``getLayerOutput`` of the data layer).

Args:
    idx (int): the slot (RangeError out of range).
%}

%feature("docstring") Arguments::getSlotIn %{The slot's ``in`` Matrix, or None.

A max-id layer keeps there the probability of each id it chose. For inputs it is
carried with the batch; no layer reads it (v1's multi-dimensional RNNs did).

Args:
    idx (int): the slot (RangeError out of range).
%}

%feature("docstring") Arguments::getSlotIds %{
The slot's ids (IVector), or None: class labels, word ids, a max-id layer's choice.

Args:
    idx (int): the slot (RangeError out of range).
%}

%feature("docstring") Arguments::getSlotSequenceStartPositions %{
The slot's sequence start positions (IVector), or None for non-sequence data.

Offsets of each sequence's first row, then the number of rows.

Args:
    idx (int): the slot (RangeError out of range).
%}

%feature("docstring") Arguments::getSlotSubSequenceStartPositions %{
The slot's sub-sequence start positions (nested sequences), or None.

Args:
    idx (int): the slot (RangeError out of range).
%}

%feature("docstring") Arguments::getSlotSequenceDim %{
The slot's sequence dimensions (IVector), or None. Carried, read by no layer.

Args:
    idx (int): the slot (RangeError out of range).
%}

%feature("docstring") Arguments::setSlotValue %{Sets the slot's value to a Matrix (shared, not copied); None clears it.

A sparse Matrix (``Matrix.createSparse``) makes the slot sparse.

Args:
    idx (int): the slot (RangeError out of range).
    mat (Matrix or None): the value; the Arguments keeps it alive.
%}

%feature("docstring") Arguments::setSlotGrad %{Sets the slot's gradient Matrix (shared, not copied); None clears it.

Args:
    idx (int): the slot.
    mat (Matrix or None): the gradient.
%}

%feature("docstring") Arguments::setSlotIn %{
Sets the slot's ``in`` Matrix (shared); None clears it. Carried, read by no layer.

Args:
    idx (int): the slot.
    mat (Matrix or None): the matrix.
%}

%feature("docstring") Arguments::setSlotIds %{Sets the slot's ids (shared, not copied); None clears them.

Args:
    idx (int): the slot.
    vec (IVector or None): one id per row (``integer_value`` data, labels).
%}

%feature("docstring") Arguments::setSlotSequenceStartPositions %{
Sets the slot's sequence layout (shared); None makes it non-sequence data.

Args:
    idx (int): the slot.
    vec (IVector or None): offsets of each sequence's first row, then the total
        number of rows: ``[0, 3, 5]`` is two sequences of 3 and 2 rows.
%}

%feature("docstring") Arguments::setSlotSubSequenceStartPositions %{
Sets the slot's sub-sequence layout for nested sequences (shared); None clears it.

Args:
    idx (int): the slot.
    vec (IVector or None): offsets of each sub-sequence's first row, then the total;
        every sequence start must also start a sub-sequence.
%}

%feature("docstring") Arguments::setSlotSequenceDim %{
Sets the slot's sequence dimensions (shared); None clears them. Read by no layer.

Args:
    idx (int): the slot.
    vec (IVector or None): the dimensions.
%}

%feature("docstring") Arguments::setSlotFrameHeight %{
Sets the image height of the slot's rows (image layers read it with the width).

Args:
    idx (int): the slot.
    h (int): the height in pixels.
%}

%feature("docstring") Arguments::setSlotFrameWidth %{Sets the image width of the slot's rows.

Args:
    idx (int): the slot.
    w (int): the width in pixels.
%}

%feature("docstring") Arguments::getSlotFrameHeight %{The image height set on the slot (0 when unset).

Args:
    idx (int, default 0): the slot.
%}

%feature("docstring") Arguments::getSlotFrameWidth %{The image width set on the slot (0 when unset).

Args:
    idx (int, default 0): the slot.
%}

%feature("docstring") Arguments::setSlotValueFromBuffer %{
Copies a 2-D float32 numpy array into the slot's value (one memcpy).

Args:
    idx (int): the slot.
    data (numpy.ndarray): float32, 2-D, C-contiguous: one row per sample or time step.
%}

%feature("docstring") Arguments::setSlotIdsFromBuffer %{Copies an int32 numpy array into the slot's ids.

Args:
    idx (int): the slot.
    data (numpy.ndarray): int32, C-contiguous, one id per row.
%}

%feature("docstring") Arguments::setSlotSequenceStartPositionsFromBuffer %{
Copies an int32 numpy array into the slot's sequence start positions.

Args:
    idx (int): the slot.
    data (numpy.ndarray): int32: offsets of each sequence's first row, then the total.
%}

%feature("docstring") Arguments::setSlotSubSequenceStartPositionsFromBuffer %{
Copies an int32 numpy array into the slot's sub-sequence start positions.

Args:
    idx (int): the slot.
    data (numpy.ndarray): int32: offsets of each sub-sequence's first row, then the total.
%}

%feature("docstring") Arguments::setSlotSparseFromBuffers %{
Makes the slot a sparse CSR value copied from numpy arrays (host memory).

Args:
    idx (int): the slot.
    rows (numpy.ndarray): int32, rows + 1 offsets into ``cols`` (absolute).
    cols (numpy.ndarray): int32, the column id of each entry.
    values (numpy.ndarray): float32, one value per entry, or empty for a
        ``sparse_binary_vector`` slot (every value 1).
    width (int): the slot's dimension (ids must be below it).
%}

%feature("docstring") Arguments::isSlotSparse %{True when the slot's value is a sparse matrix.

Args:
    idx (int): the slot.
%}

%feature("docstring") Arguments::getBatchSize %{
The number of rows of a slot: its value's height, else its number of ids (0 when empty).

For sequence data that is the number of time steps, not of sequences.

Args:
    idx (int, default 0): the slot.
%}

%feature("docstring") Arguments::sum %{The sum of every slot's value matrix (a float).

On the outputs of a network whose outputs are costs, the batch's total cost: divide
by the batch size for the mean cost ``ParameterUpdater.finishBatch`` wants.
%}
