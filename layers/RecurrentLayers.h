// Shared by the recurrent layers (LstmLayers.cpp, GruLayers.cpp, RecurrentLayers.cpp):
// the whole-sequence layers reorder their input into time-major batches
// (SequenceToBatch), run one GEMM per time step on the rows still active, and fuse
// the gate math of a step into kernels over rows x units (CPU loops or CUDA grids,
// engine/math/Kernel.h). Their input is already the projected x (4H / 3H / H wide);
// the recurrent weights are theirs.
#pragma once
#include <algorithm>
#include <initializer_list>
#include <vector>

#include "engine/Errors.h"
#include "engine/math/Kernel.h"
#include "engine/math/MathOps.h"
#include "layers/Layer.h"
#include "layers/SequenceToBatch.h"

namespace paddle {
namespace rnn {

// A [rows, cols] view of raw parameter memory (recurrent weights have 3-D dims).
inline Matrix view(Matrix& m, size_t offset, size_t rows, size_t cols) {
  return Matrix::view(m.data() + offset, rows, cols, m.useGpu());
}

// An element-wise activation chosen at run time, with the interface of the act::
// functors (elementwiseKind admits only kinds whose derivative is a function of y).
struct AnyAct {
  act::Kind kind;
  PD_HD float fwd(float x) const {
    float y = x;
    act::visit(kind, [&](auto f) { y = f.fwd(x); });
    return y;
  }
  PD_HD float bwd(float y, float) const {
    float d = 1.0f;
    act::visit(kind, [&](auto f) { d = f.bwd(y, 0.0f); });
    return d;
  }
};

// Calls f with the cell activations as functors: their own types for v1's usual
// tanh / sigmoid (/ tanh state) combination, so that the CPU loops inline them,
// AnyAct (a switch per value) for any other.
template <typename F>
inline void withActs(act::Kind a, act::Kind g, F&& f) {
  if (a == act::kTanh && g == act::kSigmoid) {
    f(act::Tanh{}, act::Sigmoid{});
  } else {
    f(AnyAct{a}, AnyAct{g});
  }
}
template <typename F>
inline void withActs(act::Kind a, act::Kind g, act::Kind s, F&& f) {
  if (a == act::kTanh && g == act::kSigmoid && s == act::kTanh) {
    f(act::Tanh{}, act::Sigmoid{}, act::Tanh{});
  } else {
    f(AnyAct{a}, AnyAct{g}, AnyAct{s});
  }
}

// Units per CPU chunk of the cell kernels (several activations per unit: a smaller
// grain than a plain element-wise loop's).
constexpr size_t kCellGrain = 2048;

// The CPU loop of forEachUnit over rows [b, e): flatten inlines the body (GCC leaves a
// body with several activations out of line, and a call per unit keeps the loop from
// vectorising); ivdep: the units of a row touch disjoint memory (forEach2Parallel's
// contract), so no run-time alias checks between the kernels' many pointers.
template <typename F>
[[gnu::flatten]] void unitRows(const F& f, size_t b, size_t e, size_t cols) {
  for (size_t r = b; r < e; ++r) {
#pragma GCC ivdep
    for (size_t c = 0; c < cols; ++c) f(r, c);
  }
}

// forEach2Parallel for the cell kernels, one index per (row, unit): the CPU splits the
// rows (the batch's sequences) across the thread pool and vectorises along the units.
template <typename F>
void forEachUnit(bool gpu, size_t rows, size_t cols, F f, size_t grain = kCellGrain) {
  if (gpu || reverseKernelOrder()) {
    forEach2(gpu, rows, cols, f);
    return;
  }
  parallelFor(rows, grain / std::max<size_t>(cols, 1) + 1, [&f, cols](size_t b, size_t e) { unitRows(f, b, e, cols); });
}

// Zeros to read, and a place to write and forget, standing in for an absent
// previous state or peephole (kept across batches, on the layer's device).
class Placeholders {
 public:
  void setDevice(bool gpu) {
    zeros_.setDevice(gpu);
    sink_.setDevice(gpu);
  }
  // n zeros; valid until a call for more
  const float* zeros(size_t n) {
    if (zeros_.size() < n) {
      zeros_.resize(1, n);
      zeros_.zero();
    }
    return zeros_.data();
  }
  // n zeros that the caller may add into
  float* sink(size_t n) {
    sink_.resize(1, n);
    sink_.zero();
    return sink_.data();
  }

 private:
  Matrix zeros_, sink_;
};
}  // namespace rnn

// Shared plumbing: sequence <-> batch order, the weight, the bias, dropout.
class BatchRecurrentLayer : public Layer {
 public:
  using Layer::Layer;

 protected:
  void initRecurrent(LayerContext& ctx, size_t inputWidth, size_t weightSize, size_t biasSize) {
    Layer::init(ctx);
    checkInputCount(1, 1);
    PADDLE_ENFORCE(size_ > 0, ConfigError, "needs a positive size");
    checkInputSize(0, inputWidth);
    PADDLE_ENFORCE(weight(0), ConfigError, "needs a recurrent weight parameter");
    PADDLE_ENFORCE(weight(0)->size() == weightSize, ConfigError, "recurrent weight '", weight(0)->name(),
                   "' has ", weight(0)->size(), " values, expected ", weightSize);
    if (bias_) {
      PADDLE_ENFORCE(bias_->size() == biasSize, ConfigError, "bias '", bias_->name(), "' has ", bias_->size(),
                     " values, expected ", biasSize);
    }
    reversed_ = config_.getBool("reversed");
    actKind_ = elementwiseKind(config_.getString("active_type"), "active_type");
    // The activation runs inside the cell; the base class only applies dropout.
    activation_.reset(new Activation(""));
  }
  // Recompute: the base's release plus the batch-order buffers named (left empty on the
  // layer's device) and the weight gradient's scratch rows.
  void releaseBuffers(std::initializer_list<Matrix*> buffers) {
    Layer::releaseForwardState();
    emptyBuffers(buffers);
    emptyBuffers({&prevHidden_});
  }
  // Puts the layer's batch-order buffers on its device.
  void onDevice(std::initializer_list<Matrix*> buffers) {
    for (Matrix* m : buffers) m->setDevice(useGpu_);
  }

  // Builds the schedule (batch_) of input 0's sequences.
  void buildSchedule(PassType pass) {
    pass_ = pass;
    const Argument& in = input(0);
    batch_.build(in.seqStarts, in.value.height(), reversed_);
  }
  // Builds the schedule and reorders input 0 into batch order in `dst`, adding
  // the first dst.width() values of the bias (if any) to every row.
  void startForward(PassType pass, Matrix& dst) {
    buildSchedule(pass);
    reorderInput(dst);
  }
  // The reordering of startForward, the schedule built.
  void reorderInput(Matrix& dst) {
    const Argument& in = input(0);
    Matrix bias = bias_ ? rnn::view(bias_->value(), 0, 1, in.value.width()) : Matrix();
    batch_.toBatch(in.value, dst, bias_ ? &bias : nullptr);
  }
  // Writes batch-order hidden states to the output in sequence order.
  void finishForward(const Matrix& hidden) {
    resetOutput(hidden.height(), size_);
    batch_.toSequence(hidden, output_.value, false);
    finishOutput();
  }
  // The output's sequences and dropout, once its values are written in sequence order.
  void finishOutput() {
    output_.seqStarts = input(0).seqStarts;
    output_.subSeqStarts = input(0).subSeqStarts;
    forwardActivation();  // dropout
  }
  // Output gradient (after dropout) in batch order.
  void startBackward(Matrix& hiddenGrad) {
    backwardActivation();
    batch_.toBatch(output_.grad, hiddenGrad);
  }
  size_t prevBegin(size_t t) const { return batch_.stepBegin(t - 1); }
  // dW += sum over steps t > 0 of h_{t-1}^T d_t, as one GEMM over every step's rows (one
  // product with a long inner side instead of a small one per step): the previous hidden
  // rows are lined up with the rows of d's steps (from step 1 on) in prevHidden_ first.
  void recurrentWeightGradient(const Matrix& hidden, const Matrix& d, Matrix& dW) {
    const size_t first = batch_.stepBegin(1), T = d.height(), H = hidden.width();
    prevHidden_.setDevice(hidden.useGpu());
    prevHidden_.resize(T - first, H);
    if (!hidden.useGpu()) {  // one parallel loop of copies (a step's rows are one block), not one per step
      parallelFor(batch_.numSteps() - 1, kParallelGrain / (batch_.stepRows(0) * H + 1) + 1, [&](size_t t0, size_t t1) {
        for (size_t t = t0 + 1; t <= t1; ++t) {
          const size_t b0 = batch_.stepBegin(t), n = batch_.stepRows(t) * H;
          float* __restrict dst = prevHidden_.row(b0 - first);
          const float* __restrict src = hidden.row(prevBegin(t));
          for (size_t k = 0; k < n; ++k) dst[k] = 0.0f + src[k];  // as addColumns(beta 0): -0 becomes +0
        }
      });
    } else {
      for (size_t t = 1; t < batch_.numSteps(); ++t) {
        const size_t b0 = batch_.stepBegin(t), r = batch_.stepRows(t), p0 = prevBegin(t);
        Matrix dst = prevHidden_.rows(b0 - first, b0 - first + r);
        math::addColumns(dst, 0, hidden.rows(p0, p0 + r), 0, H, 0.0f);
      }
    }
    math::gemm(prevHidden_, true, d.rows(first, T), false, dW, 1.0f, 1.0f);
  }
  // Groups of sequences that can run all their steps at once: row i of step t continues row
  // i of step t - 1, so a group of rows [a, b) of the first step (the sequences, longest
  // first) needs no other row at any step. The number of groups: one per pool thread where
  // `grouped` and there are rows enough, else 1.
  size_t sequenceGroupCount(bool grouped) const {
    if (!grouped || batch_.numSteps() == 0) return 1;
    return parallelChunks(batch_.stepRows(0), kMinGroupRows);
  }
  // f(a, b) for `groups` groups [a, b) of about equal numbers of tokens, concurrently on the
  // pool's threads (one group, [0, rows), on the caller when groups is 1).
  template <typename F>
  void forEachSequenceGroup(size_t groups, F&& f) {
    const size_t rows = batch_.numSteps() ? batch_.stepRows(0) : 0;
    if (groups <= 1) {
      if (rows) f(size_t(0), rows);
      return;
    }
    // tokens of row i = the steps of more than i rows; a cut where the running sum passes g/groups
    std::vector<size_t> tokens(rows + 1, 0), bounds(1, 0);
    for (size_t t = 0; t < batch_.numSteps(); ++t) ++tokens[batch_.stepRows(t) - 1];  // steps of i + 1 rows
    for (size_t i = rows; i-- > 0;) tokens[i] += tokens[i + 1];
    const size_t total = batch_.stepEnd(batch_.numSteps() - 1);
    for (size_t i = 0, sum = 0; i < rows && bounds.size() < groups; ++i) {
      sum += tokens[i];
      if (sum * groups >= total * bounds.size()) bounds.push_back(i + 1);
    }
    while (bounds.size() <= groups) bounds.push_back(rows);
    bounds.back() = rows;
    parallelChunks(groups, 1, [&](size_t, size_t g0, size_t g1) {
      for (size_t g = g0; g < g1; ++g)
        if (bounds[g] < bounds[g + 1]) f(bounds[g], bounds[g + 1]);
    });
  }
  static constexpr size_t kMinGroupRows = 8;  // a register tile of the bf16 products

  bool weightTrainable() const { return !weight(0)->isStatic(); }
  bool biasTrainable() const { return bias_ && !bias_->isStatic(); }
  Parameter* weight(size_t i) const { return weights_[i]; }

  SequenceToBatch batch_;
  Matrix prevHidden_;  // recurrentWeightGradient's lined-up rows
  bool reversed_ = false;
  act::Kind actKind_ = act::kTanh;
};

}  // namespace paddle
