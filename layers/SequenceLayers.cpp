// Layers that consume or reshape the sequence structure of a batch (v1
// semantics; no padding: rows are tokens, seqStarts / subSeqStarts cut them):
//   "max", "average" (average_strategy average|sum|squarerootn), "seqlastins"
//        (last_seq / first_seq with select_first): one row per sequence
//        (trans_type "non-seq"), per sub-sequence (trans_type "seq": the output
//        is a sequence of them), or per window of seq_pool_stride rows;
//   "expand": repeats a row per sequence (or sub-sequence) over the rows of
//        its second input, whose structure the output takes;
//   "seqconcat": per sample, sequence a followed by sequence b;
//   "seqreshape": re-cuts each sequence into rows of the layer's size.
// All take an optional bias, then the activation. The start positions are
// worked out on the host; the kernels (one index per output row and column,
// looping over the rows of its segment) run on the layer's device.
#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/Errors.h"
#include "engine/math/Kernel.h"
#include "engine/math/MathOps.h"
#include "layers/Layer.h"

namespace paddle {

namespace {
void setStarts(IVector& dst, const std::vector<int>& src) {
  dst.resize(1, src.size());
  std::copy(src.begin(), src.end(), dst.data());
}

// Pooling kernels over the n segments [segs[k], segs[k + 1]) of the rows of x
// (d columns): one index per output element (k, j). Segments do not overlap,
// so the backward kernels own the input rows they add into.

// The kernels below take one index per (segment, block of kPoolCols columns): each walks its
// segment's rows once, and the CPU vectorises across the block.
constexpr size_t kPoolCols = 16;

// f(k, j0, j1) for block [j0, j1) of the d columns: what forEach2 runs per (k, block).
template <typename F>
struct ColumnBlock {
  F f;
  size_t d;
  PD_HD void operator()(size_t k, size_t b) const {
    const size_t j0 = b * kPoolCols;
    f(k, j0, j0 + kPoolCols < d ? j0 + kPoolCols : d);
  }
};
template <typename F>
ColumnBlock<F> columnBlocks(F f, size_t d) {
  return ColumnBlock<F>{f, d};
}
size_t numColumnBlocks(size_t d) { return (d + kPoolCols - 1) / kPoolCols; }

// Segments per chunk of the CPU's split (they own disjoint rows): about kParallelGrain values.
size_t segmentGrain(const int* hostSegs, size_t n, size_t d) {
  const size_t values = static_cast<size_t>(hostSegs[n] - hostSegs[0]) * d + 1;
  return std::max<size_t>(1, kParallelGrain * n / values);
}

// y[k] = the maximum of segment k, arg[k] = the rows the maxima came from; the CPU splits
// the segments across the thread pool
void maxPool(bool gpu, const int* hostSegs, const int* segs, size_t n, size_t d, const float* x, float* y, int* arg) {
  const size_t blocks = numColumnBlocks(d);
  forEach2Parallel(gpu, n, blocks, columnBlocks([=] PD_HD(size_t k, size_t j0, size_t j1) {
    float* m = y + k * d;
    int* best = arg + k * d;
    const float* first = x + segs[k] * d;
    for (size_t j = j0; j < j1; ++j) {
      m[j] = first[j];
      best[j] = segs[k];
    }
    for (int r = segs[k] + 1; r < segs[k + 1]; ++r) {
      const float* xr = x + r * d;
      for (size_t j = j0; j < j1; ++j) {
        best[j] = xr[j] > m[j] ? r : best[j];
        m[j] = xr[j] > m[j] ? xr[j] : m[j];
      }
    }
  }, d), segmentGrain(hostSegs, n, d) * blocks);
}

void maxUnpool(bool gpu, size_t n, size_t d, const int* arg, const float* g, float* gx) {
  forEach2(gpu, n, d, [=] PD_HD(size_t k, size_t j) { gx[arg[k * d + j] * d + j] += g[k * d + j]; });
}
// gx = maxUnpool's gradient, 0 in every other place of the segments (which tile the rows).
// With y (the maxima), each gradient is first multiplied by the relu derivative of the input
// there, y > 0 ? 1 : 0, as the input's own backward would.
// The CPU takes a segment's whole rows, clearing them in one sweep (2.5x faster than by column
// blocks); the GPU takes one index per (segment, column block), as maxPool.
void maxUnpoolSet(bool gpu, const int* hostSegs, const int* segs, size_t n, size_t d, const int* arg, const float* g,
                  const float* y, float* gx) {
  auto set = [=] PD_HD(size_t k, size_t j0, size_t j1) {
    for (int r = segs[k]; r < segs[k + 1]; ++r)
      for (size_t j = j0; j < j1; ++j) gx[r * d + j] = 0.0f;
    for (size_t j = j0; j < j1; ++j) {
      const size_t kj = k * d + j;
      gx[arg[kj] * d + j] = y ? g[kj] * (y[kj] > 0.0f ? 1.0f : 0.0f) : g[kj];
    }
  };
  if (!gpu) {
    forEachParallel(false, n, [=] PD_HD(size_t k) { set(k, 0, d); }, segmentGrain(hostSegs, n, d));
    return;
  }
  forEach2(true, n, numColumnBlocks(d),
           columnBlocks([=] PD_HD(size_t k, size_t j0, size_t j1) { set(k, j0, j1); }, d));
}

// The factor of a segment sum: average 1/len, sum 1, squarerootn 1/sqrt(len).
enum AverageStrategy { kAverage, kSum, kSqrtN };
PD_HD inline float averageScale(AverageStrategy s, int len) {
  return s == kAverage ? 1.0f / len : s == kSum ? 1.0f : 1.0f / sqrtf(static_cast<float>(len));
}

// Average pooling and its backward; the CPU splits the segments across the thread pool.
void averagePool(bool gpu, const int* hostSegs, const int* segs, size_t n, size_t d, AverageStrategy strategy,
                 const float* x, float* y) {
  const size_t blocks = numColumnBlocks(d);
  forEach2Parallel(gpu, n, blocks, columnBlocks([=] PD_HD(size_t k, size_t j0, size_t j1) {
    float* out = y + k * d;
    for (size_t j = j0; j < j1; ++j) out[j] = 0.0f;
    for (int r = segs[k]; r < segs[k + 1]; ++r) {
      const float* xr = x + r * d;
      for (size_t j = j0; j < j1; ++j) out[j] += xr[j];
    }
    const float scale = averageScale(strategy, segs[k + 1] - segs[k]);
    for (size_t j = j0; j < j1; ++j) out[j] *= scale;
  }, d), segmentGrain(hostSegs, n, d) * blocks);
}

void averageUnpool(bool gpu, const int* hostSegs, const int* segs, size_t n, size_t d, AverageStrategy strategy,
                   const float* g, float* gx) {
  const size_t blocks = numColumnBlocks(d);
  forEach2Parallel(gpu, n, blocks, columnBlocks([=] PD_HD(size_t k, size_t j0, size_t j1) {
    const float scale = averageScale(strategy, segs[k + 1] - segs[k]);
    const float* gk = g + k * d;
    for (int r = segs[k]; r < segs[k + 1]; ++r) {
      float* gr = gx + r * d;
      for (size_t j = j0; j < j1; ++j) gr[j] += scale * gk[j];
    }
  }, d), segmentGrain(hostSegs, n, d) * blocks);
}

// The row segment k takes: its first or its last.
PD_HD inline int pickRow(const int* segs, size_t k, bool first) { return first ? segs[k] : segs[k + 1] - 1; }

void pickPool(bool gpu, const int* segs, size_t n, size_t d, bool first, const float* x, float* y) {
  forEach2(gpu, n, d, [=] PD_HD(size_t k, size_t j) { y[k * d + j] = x[pickRow(segs, k, first) * d + j]; });
}

void pickUnpool(bool gpu, const int* segs, size_t n, size_t d, bool first, const float* g, float* gx) {
  forEach2(gpu, n, d, [=] PD_HD(size_t k, size_t j) { gx[pickRow(segs, k, first) * d + j] += g[k * d + j]; });
}
}  // namespace

// Shared by the layers of this file: single dense input checks, bias, activation.
class SequenceLayerBase : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    PADDLE_ENFORCE(size_ > 0, ConfigError, type_, " layer needs a positive size");
    if (bias_) {
      PADDLE_ENFORCE(bias_->size() == size_, ConfigError, "bias '", bias_->name(), "' has ", bias_->size(),
                     " values, expected ", size_);
    }
  }

 protected:
  const Matrix& denseInput(size_t i) {
    const Argument& in = input(i);
    PADDLE_ENFORCE(!in.value.empty() || in.batchSize() == 0, DataError, "layer '", name_, "': input '",
                   inputs_[i]->name(), "' has no dense value");
    return in.value;
  }
  void finishForward() {
    if (bias_) math::addRowVector(output_.value, bias_->value());
    forwardActivation();
  }
  // Runs the activation's backward and the bias gradient; returns the output gradient.
  const Matrix& startBackward() {
    backwardActivation();
    if (bias_ && !bias_->isStatic()) math::sumRows(output_.grad, bias_->grad());
    return output_.grad;
  }
  void checkSegment(int begin, int end, size_t k, const char* what) {
    PADDLE_ENFORCE(end > begin, DataError, "layer '", name_, "': ", what, " ", k, " has length ", end - begin,
                   " (", type_, " needs at least one row)");
  }
};

// Base of max / average / seqlastins: cuts the input rows into segments.
class SequencePoolLayer : public SequenceLayerBase {
 public:
  using SequenceLayerBase::SequenceLayerBase;

  void init(LayerContext& ctx) override {
    SequenceLayerBase::init(ctx);
    checkInputCount(1, 1);
    checkInputSize(0, size_);
    std::string t = config_.getString("trans_type");
    PADDLE_ENFORCE(t == "non-seq" || t == "seq", ConfigError, "trans_type must be 'non-seq' or 'seq', got '", t,
                   "'");
    perSubSeq_ = t == "seq";
    stride_ = config_.getInt("seq_pool_stride");
    PADDLE_ENFORCE(stride_ == -1 || stride_ > 0, ConfigError, "seq_pool_stride must be positive (or -1), got ",
                   stride_);
    PADDLE_ENFORCE(!(stride_ > 0 && perSubSeq_), ConfigError,
                   "seq_pool_stride works only with trans_type 'non-seq' (agg_level EACH_TIMESTEP)");
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    makeSegments(in);
    const size_t n = segs_.size() - 1;
    for (size_t k = 0; k < n; ++k) checkSegment(segs_[k], segs_[k + 1], k, perSubSeq_ ? "sub-sequence" : "sequence");
    resetOutput(n, size_);
    output_.seqStarts = IVector();
    output_.subSeqStarts = IVector();
    if (hasOutSeq_) {
      setStarts(outStarts_, outSeq_);
      output_.seqStarts = outStarts_;
    }
    setStarts(segStarts_, segs_);
    kernelSegs_ = kernelView(segStarts_, segScratch_, useGpu_);
    if (n) pool(denseInput(0));
    finishForward();
  }

  void backward() override {
    const Matrix& g = startBackward();
    Argument& in = input(0);
    if (!in.grad.empty() && g.height()) unpool(g, in.grad);
  }

 protected:
  // Fills segs_ (row offsets of the pooled segments) and, when the output is a
  // sequence, outSeq_ (offsets in output rows).
  void makeSegments(const Argument& in) {
    hasOutSeq_ = false;
    if (perSubSeq_) {
      PADDLE_ENFORCE(in.hasSubSeq() && in.hasSeq(), DataError, "layer '", name_,
                     "': trans_type 'seq' (agg_level EACH_SEQUENCE) needs a nested sequence input; '",
                     inputs_[0]->name(), "' has no sub-sequences");
      const int* sub = in.subSeqStarts.data();
      const int* top = in.seqStarts.data();
      segs_.assign(sub, sub + in.subSeqStarts.size());
      // Output sequence i = the sub-sequences inside top-level sequence i.
      outSeq_.clear();
      size_t s = 0;
      for (size_t i = 0; i < in.seqStarts.size(); ++i) {
        while (s < segs_.size() && segs_[s] < top[i]) ++s;
        PADDLE_ENFORCE(s < segs_.size() && segs_[s] == top[i], DataError, "layer '", name_,
                       "': sequence start ", top[i], " of sequence ", i, " is not a sub-sequence start");
        outSeq_.push_back(static_cast<int>(s));
      }
      hasOutSeq_ = true;
      return;
    }
    PADDLE_ENFORCE(in.hasSeq(), DataError, "layer '", name_, "': input '", inputs_[0]->name(),
                   "' is not a sequence (", type_, " pools over sequences)");
    const int* top = in.seqStarts.data();
    if (stride_ <= 0) {
      segs_.assign(top, top + in.seqStarts.size());
      return;
    }
    PADDLE_ENFORCE(!in.hasSubSeq(), DataError, "layer '", name_,
                   "': seq_pool_stride does not work on nested sequences");
    // Windows of stride_ rows; with reverseStride() they are cut from the end.
    segs_.assign(1, top[0]);
    outSeq_.assign(1, 0);
    for (size_t i = 0; i + 1 < in.seqStarts.size(); ++i) {
      const int b = top[i], e = top[i + 1], len = e - b, st = static_cast<int>(stride_);
      checkSegment(b, e, i, "sequence");
      const int pieces = (len + st - 1) / st;
      for (int p = 1; p <= pieces; ++p) {
        segs_.push_back(reverseStride() ? e - (pieces - p) * st : std::min(b + p * st, e));
      }
      outSeq_.push_back(outSeq_.back() + pieces);
    }
    hasOutSeq_ = true;
  }
  virtual bool reverseStride() const { return false; }
  // Fill output_.value from x / add the input gradient, over the segments kernelSegs_.
  virtual void pool(const Matrix& x) = 0;
  virtual void unpool(const Matrix& g, Matrix& gx) = 0;
  size_t numSegments() const { return segs_.size() - 1; }

  bool perSubSeq_ = false;
  int64_t stride_ = -1;
  bool hasOutSeq_ = false;
  std::vector<int> segs_, outSeq_;
  IVector outStarts_;
  IVector segStarts_, segScratch_;  // segs_ on the host, and its device copy in GPU runs
  const int* kernelSegs_ = nullptr;  // segs_ as the kernels read it
};

class MaxSeqPoolLayer : public SequencePoolLayer, public InputGradientSetter {
 public:
  using SequencePoolLayer::SequencePoolLayer;

  void init(LayerContext& ctx) override {
    SequencePoolLayer::init(ctx);
    argmax_.setDevice(useGpu_);
  }

 protected:
  void pool(const Matrix& x) override {
    argmax_.resize(numSegments(), size_);
    maxPool(useGpu_, segs_.data(), kernelSegs_, numSegments(), size_, x.data(), output_.value.data(), argmax_.data());
  }
  void unpool(const Matrix& g, Matrix& gx) override {
    if (setsInputGrad(0)) {
      maxUnpoolSet(useGpu_, segs_.data(), kernelSegs_, numSegments(), size_, argmax_.data(), g.data(),
                   appliesInputRelu(0) ? output_.value.data() : nullptr, gx.data());
    } else {
      maxUnpool(useGpu_, g.height(), size_, argmax_.data(), g.data(), gx.data());
    }
  }

 public:
  // The segments tile the input's rows, so the pool can set its whole gradient; its output
  // (the maxima, with no bias, activation or dropout on top) gives a relu input's derivative.
  bool canSetInputGradient(bool relu) const override {
    return !relu || (activation_->isLinear() && !bias_ && dropRate_ == 0);
  }

 private:
  DenseBuffer<int> argmax_;  // [segments, size]: the row each maximum came from
};

class AverageSeqPoolLayer : public SequencePoolLayer {
 public:
  using SequencePoolLayer::SequencePoolLayer;

  void init(LayerContext& ctx) override {
    SequencePoolLayer::init(ctx);
    std::string s = config_.getString("average_strategy");
    PADDLE_ENFORCE(s == "average" || s == "sum" || s == "squarerootn", ConfigError,
                   "average_strategy must be average, sum or squarerootn, got '", s, "'");
    strategy_ = s == "average" ? kAverage : s == "sum" ? kSum : kSqrtN;
  }

 protected:
  void pool(const Matrix& x) override {
    averagePool(useGpu_, segs_.data(), kernelSegs_, numSegments(), size_, strategy_, x.data(), output_.value.data());
  }
  void unpool(const Matrix& g, Matrix& gx) override {
    averageUnpool(useGpu_, segs_.data(), kernelSegs_, numSegments(), size_, strategy_, g.data(), gx.data());
  }

 private:
  AverageStrategy strategy_ = kAverage;
};

// last_seq, or first_seq with select_first (stride windows are then cut from the end).
class SeqLastInstanceLayer : public SequencePoolLayer {
 public:
  using SequencePoolLayer::SequencePoolLayer;

  void init(LayerContext& ctx) override {
    SequencePoolLayer::init(ctx);
    first_ = config_.getBool("select_first");
  }

 protected:
  bool reverseStride() const override { return first_; }
  void pool(const Matrix& x) override {
    pickPool(useGpu_, kernelSegs_, numSegments(), size_, first_, x.data(), output_.value.data());
  }
  void unpool(const Matrix& g, Matrix& gx) override {
    pickUnpool(useGpu_, kernelSegs_, numSegments(), size_, first_, g.data(), gx.data());
  }

 private:
  bool first_ = false;
};

namespace {
// Row k of x over the rows [starts[k], starts[k + 1]) of y, and back: one index per (k, column).
// One index per (sequence, column block), as the pooling kernels.
void expandRows(bool gpu, const int* hostStarts, const int* starts, size_t n, size_t d, const float* x, float* y) {
  const size_t blocks = numColumnBlocks(d);
  forEach2Parallel(gpu, n, blocks, columnBlocks([=] PD_HD(size_t k, size_t j0, size_t j1) {
    const float* xk = x + k * d;
    for (int r = starts[k]; r < starts[k + 1]; ++r) {
      float* yr = y + r * d;
      for (size_t j = j0; j < j1; ++j) yr[j] = xk[j];
    }
  }, d), segmentGrain(hostStarts, n, d) * blocks);
}
void expandRowsBackward(bool gpu, const int* hostStarts, const int* starts, size_t n, size_t d, const float* g,
                        float* gx) {
  const size_t blocks = numColumnBlocks(d);
  forEach2Parallel(gpu, n, blocks, columnBlocks([=] PD_HD(size_t k, size_t j0, size_t j1) {
    float* gk = gx + k * d;
    for (int r = starts[k]; r < starts[k + 1]; ++r) {
      const float* gr = g + r * d;
      for (size_t j = j0; j < j1; ++j) gk[j] += gr[j];
    }
  }, d), segmentGrain(hostStarts, n, d) * blocks);
}
}  // namespace

// expand(x, expand_as): output row r = x[the sequence (trans_type non-seq) or
// sub-sequence (seq) of expand_as holding row r]; structure of expand_as.
class ExpandLayer : public SequenceLayerBase {
 public:
  using SequenceLayerBase::SequenceLayerBase;

  void init(LayerContext& ctx) override {
    SequenceLayerBase::init(ctx);
    checkInputCount(2, 2);
    checkInputSize(0, size_);
    std::string t = config_.getString("trans_type");
    PADDLE_ENFORCE(t == "non-seq" || t == "seq", ConfigError, "trans_type must be 'non-seq' or 'seq', got '", t,
                   "'");
    fromSubSeq_ = t == "seq";
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& as = input(1);
    const IVector& starts = fromSubSeq_ ? as.subSeqStarts : as.seqStarts;
    PADDLE_ENFORCE(starts.size() > 0, DataError, "layer '", name_, "': expand_as input '", inputs_[1]->name(),
                   "' has no ", fromSubSeq_ ? "sub-sequences (expand_level FROM_SEQUENCE)" : "sequences");
    const size_t n = starts.size() - 1;
    const Matrix& x = denseInput(0);
    PADDLE_ENFORCE(x.height() == n, DataError, "layer '", name_, "': input '", inputs_[0]->name(), "' has ",
                   x.height(), " rows but '", inputs_[1]->name(), "' has ", n,
                   fromSubSeq_ ? " sub-sequences" : " sequences");
    const int* s = starts.data();
    const size_t rows = as.batchSize();
    PADDLE_ENFORCE(s[0] == 0 && static_cast<size_t>(s[n]) == rows, DataError, "layer '", name_,
                   "': start positions of '", inputs_[1]->name(), "' do not cover its ", rows, " rows");
    resetOutput(rows, size_);
    kernelStarts_ = kernelView(starts, startsScratch_, useGpu_);
    hostStarts_ = s;
    expandRows(useGpu_, s, kernelStarts_, n, size_, x.data(), output_.value.data());
    output_.shareSequenceOf(as);
    finishForward();
  }

  void backward() override {
    const Matrix& g = startBackward();
    Matrix& gx = input(0).grad;
    if (gx.empty()) return;
    expandRowsBackward(useGpu_, hostStarts_, kernelStarts_, gx.height(), size_, g.data(), gx.data());
  }

 private:
  bool fromSubSeq_ = false;
  IVector startsScratch_;              // the expand_as starts on the device in GPU runs
  const int* kernelStarts_ = nullptr;  // the starts as the kernels read them
  const int* hostStarts_ = nullptr;    // and on the host (the CPU's split reads them)
};

namespace {
// Output sequence i (from row sa[i] + sb[i]) = a's rows [sa[i], sa[i + 1]), then
// b's [sb[i], sb[i + 1]); one index per (sequence, column).
void concatRows(bool gpu, const int* sa, const int* sb, size_t n, size_t d, const float* xa, const float* xb,
                float* y) {
  forEach2(gpu, n, d, [=] PD_HD(size_t i, size_t j) {
    float* out = y + static_cast<size_t>(sa[i] + sb[i]) * d + j;
    for (int r = sa[i]; r < sa[i + 1]; ++r, out += d) *out = xa[r * d + j];
    for (int r = sb[i]; r < sb[i + 1]; ++r, out += d) *out = xb[r * d + j];
  });
}
// ga / gb += their parts of g (either may be null).
void concatRowsBackward(bool gpu, const int* sa, const int* sb, size_t n, size_t d, const float* g, float* ga,
                        float* gb) {
  forEach2(gpu, n, d, [=] PD_HD(size_t i, size_t j) {
    const float* in = g + static_cast<size_t>(sa[i] + sb[i]) * d + j;
    for (int r = sa[i]; r < sa[i + 1]; ++r, in += d) {
      if (ga) ga[r * d + j] += *in;
    }
    for (int r = sb[i]; r < sb[i + 1]; ++r, in += d) {
      if (gb) gb[r * d + j] += *in;
    }
  });
}
}  // namespace

// seqconcat(a, b): output sequence i = rows of a's sequence i, then b's.
class SequenceConcatLayer : public SequenceLayerBase {
 public:
  using SequenceLayerBase::SequenceLayerBase;

  void init(LayerContext& ctx) override {
    SequenceLayerBase::init(ctx);
    checkInputCount(2, 2);
    checkInputSize(0, size_);
    checkInputSize(1, size_);
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& a = input(0);
    const Argument& b = input(1);
    for (size_t i = 0; i < 2; ++i) {
      const Argument& in = input(i);
      PADDLE_ENFORCE(in.hasSeq(), DataError, "layer '", name_, "': input '", inputs_[i]->name(),
                     "' is not a sequence");
      PADDLE_ENFORCE(!in.hasSubSeq(), DataError, "layer '", name_, "': input '", inputs_[i]->name(),
                     "' is a nested sequence (seqconcat takes plain sequences)");
    }
    PADDLE_ENFORCE(a.numSequences() == b.numSequences(), DataError, "layer '", name_, "': inputs have ",
                   a.numSequences(), " and ", b.numSequences(), " sequences");
    const Matrix& xa = denseInput(0);
    const Matrix& xb = denseInput(1);
    const int* sa = a.seqStarts.data();
    const int* sb = b.seqStarts.data();
    const size_t n = a.numSequences();
    resetOutput(xa.height() + xb.height(), size_);
    starts_.resize(n + 1);
    for (size_t i = 0; i <= n; ++i) starts_[i] = sa[i] + sb[i];
    kernelA_ = kernelView(a.seqStarts, scratchA_, useGpu_);
    kernelB_ = kernelView(b.seqStarts, scratchB_, useGpu_);
    concatRows(useGpu_, kernelA_, kernelB_, n, size_, xa.data(), xb.data(), output_.value.data());
    setStarts(outStarts_, starts_);
    output_.seqStarts = outStarts_;
    output_.subSeqStarts = IVector();
    finishForward();
  }

  void backward() override {
    const Matrix& g = startBackward();
    Matrix& ga = input(0).grad;
    Matrix& gb = input(1).grad;
    concatRowsBackward(useGpu_, kernelA_, kernelB_, starts_.size() - 1, size_, g.data(),
                       ga.empty() ? nullptr : ga.data(), gb.empty() ? nullptr : gb.data());
  }

 private:
  std::vector<int> starts_;
  IVector outStarts_;
  IVector scratchA_, scratchB_;  // the inputs' starts on the device in GPU runs
  const int *kernelA_ = nullptr, *kernelB_ = nullptr;  // the starts as the kernels read them
};

// seqreshape: each sequence's values, read row-major, re-cut into rows of size.
class SequenceReshapeLayer : public SequenceLayerBase {
 public:
  using SequenceLayerBase::SequenceLayerBase;

  void init(LayerContext& ctx) override {
    SequenceLayerBase::init(ctx);
    checkInputCount(1, 1);
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    const size_t inDim = inputs_[0]->size();
    PADDLE_ENFORCE(in.hasSeq(), DataError, "layer '", name_, "': input '", inputs_[0]->name(),
                   "' is not a sequence");
    PADDLE_ENFORCE(!in.hasSubSeq(), DataError, "layer '", name_, "': input '", inputs_[0]->name(),
                   "' is a nested sequence (seqreshape takes plain sequences)");
    const Matrix& x = denseInput(0);
    const int* s = in.seqStarts.data();
    const size_t n = in.numSequences();
    starts_.resize(n + 1);
    starts_[0] = 0;
    for (size_t i = 0; i < n; ++i) {
      const size_t values = static_cast<size_t>(s[i + 1] - s[i]) * inDim;
      PADDLE_ENFORCE(values % size_ == 0, DataError, "layer '", name_, "': sequence ", i, " has ", values,
                     " values (", s[i + 1] - s[i], " x ", inDim, "), not a multiple of the layer size ", size_);
      starts_[i + 1] = starts_[i] + static_cast<int>(values / size_);
    }
    resetOutput(starts_[n], size_);
    math::axpby(1.0f, x, 0.0f, output_.value);  // the same values, re-cut
    setStarts(outStarts_, starts_);
    output_.seqStarts = outStarts_;
    output_.subSeqStarts = IVector();
    finishForward();
  }

  void backward() override {
    const Matrix& g = startBackward();
    Matrix& gx = input(0).grad;
    if (!gx.empty()) math::axpby(1.0f, g, 1.0f, gx);
  }

 private:
  std::vector<int> starts_;
  IVector outStarts_;
};

REGISTER_LAYER("max", MaxSeqPoolLayer);
REGISTER_LAYER("average", AverageSeqPoolLayer);
REGISTER_LAYER("seqlastins", SeqLastInstanceLayer);
REGISTER_LAYER("expand", ExpandLayer);
REGISTER_LAYER("seqconcat", SequenceConcatLayer);
REGISTER_LAYER("seqreshape", SequenceReshapeLayer);

}  // namespace paddle
