// Reorders the rows of variable-length sequences into time-major batches
// (v1 SequenceToBatch): sequences sorted by length, longest first; step t holds
// the t-th token of every sequence longer than t, so every step's rows are a
// prefix of the previous step's and one GEMM per step covers them. Total work
// is proportional to the number of tokens, never batch x max_len.
// The schedule is computed on the host; the reordering copies run on the
// device of the matrices they are given (the row map is copied there once per build).
#pragma once
#include <vector>

#include "engine/Argument.h"

namespace paddle {

class SequenceToBatch {
 public:
  // seqStarts: host offsets (empty = every row is its own sequence of length 1).
  // reversed: step t takes token len-1-t (for right-to-left recurrences).
  void build(const IVector& seqStarts, size_t rows, bool reversed);

  size_t numSteps() const { return stepStarts_.empty() ? 0 : stepStarts_.size() - 1; }
  // Batch rows of step t: [stepBegin(t), stepEnd(t)); their count never grows with t.
  size_t stepBegin(size_t t) const { return stepStarts_[t]; }
  size_t stepEnd(size_t t) const { return stepStarts_[t + 1]; }
  size_t stepRows(size_t t) const { return stepStarts_[t + 1] - stepStarts_[t]; }

  // The sequence-order row of batch row b.
  int sequenceRow(size_t b) const { return seqRow_.data()[b]; }
  // Those of every batch row, on the host (for CPU kernels that read or write sequence-order rows).
  const int* sequenceRows() const { return seqRow_.data(); }
  // Sequence indices, longest first (the order of the rows of every step).
  const std::vector<int>& sequenceOrder() const { return order_; }
  size_t numSequences() const { return order_.size(); }

  // dst (batch order) = src (sequence order), plus the row vector `bias` (1 x width) on
  // every row when given; dst moves to src's device
  void toBatch(const Matrix& src, Matrix& dst, const Matrix* bias = nullptr);
  void toBatch(const IVector& src, IVector& dst);
  // toBatch(src, joined, bias) with `joined` cut by columns into left (its first leftWidth) and
  // right (the rest) as it is written: the bits of reordering and then copying the two blocks.
  void toBatchSplit(const Matrix& src, size_t leftWidth, Matrix& left, Matrix& right, const Matrix* bias = nullptr);
  // dst (sequence order) = src (batch order); with accumulate, dst += src (same device)
  void toSequence(const Matrix& src, Matrix& dst, bool accumulate);
  // toSequence(src, dst, true) and sums[0, :] += the rows of src summed in row order (the
  // bits of math::sumRows(src, sums)) in one pass over src (a bias gradient with its input's).
  // With overwrite, dst is set to 0 + src instead (the bits of clearing it and adding) and not read.
  void toSequenceSummingRows(const Matrix& src, Matrix& dst, Matrix& sums, bool overwrite = false);
  // CPU: with src = [left | right] (joined by columns, never formed): dst += src in sequence order
  // unless dst is null, and sums[0, :] += src's rows summed in row order unless sums is null (the
  // bits of toSequence(src, *dst, true) and math::sumRows(src, *sums)), in one pass.
  void addJoinedToSequence(const Matrix& left, const Matrix& right, Matrix* dst, Matrix* sums);

 private:
  // seqRow_ as kernels on that device read it
  const int* rowMap(bool gpu);

  std::vector<int> stepStarts_;
  IVector seqRow_;        // host: batch row -> sequence-order row
  IVector deviceRows_;    // its GPU copy, made on first use after build
  bool deviceFresh_ = false;
  std::vector<int> order_;
};

}  // namespace paddle
