// What flows between layers: a batch without padding. Rows are samples, or the
// tokens of all sequences stacked; sequence i covers rows
// [seqStarts[i], seqStarts[i+1]). Nested sequences add subSeqStarts (also rows).
// Sparse input (sparse_binary_vector / sparse_vector slots) arrives as a CSR
// matrix in `sparse` instead of a dense value.
#pragma once
#include "engine/SparseMatrix.h"
#include "engine/math/Buffer.h"

namespace paddle {

struct Argument {
  Matrix value;          // [rows, dim] activations (or input features)
  Matrix grad;           // same shape as value, gradient w.r.t. value
  IVector ids;           // [rows] integer inputs / labels (1 x rows)
  SparseMatrix sparse;   // [rows, width] CSR input (host memory), empty unless a sparse slot
  IVector seqStarts;     // host memory, empty when rows are independent
  IVector subSeqStarts;  // host memory, empty unless nested
  size_t frameHeight = 0, frameWidth = 0;  // image geometry of a row, if known
  // v1's auxiliary fields, carried through the SWIG API for v1 scripts; no
  // layer here reads them (v1's readers were its multi-dimensional RNN layers).
  Matrix in;
  IVector seqDims;

  // Rows in the batch: from value, else sparse, else ids.
  size_t batchSize() const {
    return value.height() ? value.height() : !sparse.empty() ? sparse.height() : ids.size();
  }
  bool hasSeq() const { return seqStarts.size() > 0; }
  size_t numSequences() const { return hasSeq() ? seqStarts.size() - 1 : batchSize(); }
  bool hasSubSeq() const { return subSeqStarts.size() > 0; }
  size_t numSubSequences() const { return hasSubSeq() ? subSeqStarts.size() - 1 : 0; }
  // Token-wise layers pass their input's sequence structure through.
  void shareSequenceOf(const Argument& in) {
    seqStarts = in.seqStarts;
    subSeqStarts = in.subSeqStarts;
  }
};

}  // namespace paddle
