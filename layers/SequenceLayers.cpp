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
// All take an optional bias, then the activation. CPU kernels only.
#include <cmath>
#include <vector>

#include "Errors.h"
#include "Layer.h"
#include "math/MathOps.h"

namespace paddle {

namespace {
void setStarts(IVector& dst, const std::vector<int>& src) {
  dst.resize(1, src.size());
  std::copy(src.begin(), src.end(), dst.data());
}

// dst[0:n] += src[0:n]
inline void addTo(float* __restrict dst, const float* __restrict src, size_t n) {
  for (size_t j = 0; j < n; ++j) dst[j] += src[j];
}
}  // namespace

// Shared by the layers of this file: single dense input checks, bias, activation.
class SequenceLayerBase : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    requireCpu();
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
    std::string t = config_.getString("trans_type", "non-seq");
    PADDLE_ENFORCE(t == "non-seq" || t == "seq", ConfigError, "trans_type must be 'non-seq' or 'seq', got '", t,
                   "'");
    perSubSeq_ = t == "seq";
    stride_ = config_.getInt("seq_pool_stride", -1);
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
  virtual void pool(const Matrix& x) = 0;
  virtual void unpool(const Matrix& g, Matrix& gx) = 0;

  bool perSubSeq_ = false;
  int64_t stride_ = -1;
  bool hasOutSeq_ = false;
  std::vector<int> segs_, outSeq_;
  IVector outStarts_;
};

class MaxSeqPoolLayer : public SequencePoolLayer {
 public:
  using SequencePoolLayer::SequencePoolLayer;

 protected:
  void pool(const Matrix& x) override {
    const size_t n = segs_.size() - 1, d = size_;
    argmax_.resize(n, d);
    for (size_t k = 0; k < n; ++k) {
      float* __restrict y = output_.value.row(k);
      int* __restrict idx = argmax_.row(k);
      const float* x0 = x.row(segs_[k]);
      for (size_t j = 0; j < d; ++j) {
        y[j] = x0[j];
        idx[j] = segs_[k];
      }
      for (int r = segs_[k] + 1; r < segs_[k + 1]; ++r) {
        const float* __restrict xr = x.row(r);
        for (size_t j = 0; j < d; ++j) {
          const bool gt = xr[j] > y[j];
          y[j] = gt ? xr[j] : y[j];
          idx[j] = gt ? r : idx[j];
        }
      }
    }
  }
  void unpool(const Matrix& g, Matrix& gx) override {
    const size_t d = size_;
    for (size_t k = 0; k < g.height(); ++k) {
      const float* gk = g.row(k);
      const int* idx = argmax_.row(k);
      for (size_t j = 0; j < d; ++j) gx.row(idx[j])[j] += gk[j];
    }
  }

 private:
  DenseBuffer<int> argmax_;  // [segments, size]: the row each maximum came from
};

class AverageSeqPoolLayer : public SequencePoolLayer {
 public:
  using SequencePoolLayer::SequencePoolLayer;

  void init(LayerContext& ctx) override {
    SequencePoolLayer::init(ctx);
    std::string s = config_.getString("average_strategy", "average");
    PADDLE_ENFORCE(s == "average" || s == "sum" || s == "squarerootn", ConfigError,
                   "average_strategy must be average, sum or squarerootn, got '", s, "'");
    strategy_ = s == "average" ? 0 : s == "sum" ? 1 : 2;
  }

 protected:
  float scale(int len) const {
    return strategy_ == 0 ? 1.0f / len : strategy_ == 1 ? 1.0f : 1.0f / std::sqrt(static_cast<float>(len));
  }
  void pool(const Matrix& x) override {
    const size_t d = size_;
    for (size_t k = 0; k + 1 < segs_.size(); ++k) {
      float* __restrict y = output_.value.row(k);
      for (size_t j = 0; j < d; ++j) y[j] = 0.0f;
      for (int r = segs_[k]; r < segs_[k + 1]; ++r) addTo(y, x.row(r), d);
      const float s = scale(segs_[k + 1] - segs_[k]);
      for (size_t j = 0; j < d; ++j) y[j] *= s;
    }
  }
  void unpool(const Matrix& g, Matrix& gx) override {
    const size_t d = size_;
    for (size_t k = 0; k + 1 < segs_.size(); ++k) {
      const float s = scale(segs_[k + 1] - segs_[k]);
      const float* __restrict gk = g.row(k);
      for (int r = segs_[k]; r < segs_[k + 1]; ++r) {
        float* __restrict gr = gx.row(r);
        for (size_t j = 0; j < d; ++j) gr[j] += s * gk[j];
      }
    }
  }

 private:
  int strategy_ = 0;
};

// last_seq, or first_seq with select_first (stride windows are then cut from the end).
class SeqLastInstanceLayer : public SequencePoolLayer {
 public:
  using SequencePoolLayer::SequencePoolLayer;

  void init(LayerContext& ctx) override {
    SequencePoolLayer::init(ctx);
    first_ = config_.getBool("select_first", false);
  }

 protected:
  bool reverseStride() const override { return first_; }
  int pick(size_t k) const { return first_ ? segs_[k] : segs_[k + 1] - 1; }
  void pool(const Matrix& x) override {
    const size_t d = size_;
    for (size_t k = 0; k + 1 < segs_.size(); ++k) std::copy(x.row(pick(k)), x.row(pick(k)) + d, output_.value.row(k));
  }
  void unpool(const Matrix& g, Matrix& gx) override {
    for (size_t k = 0; k + 1 < segs_.size(); ++k) addTo(gx.row(pick(k)), g.row(k), size_);
  }

 private:
  bool first_ = false;
};

// expand(x, expand_as): output row r = x[the sequence (trans_type non-seq) or
// sub-sequence (seq) of expand_as holding row r]; structure of expand_as.
class ExpandLayer : public SequenceLayerBase {
 public:
  using SequenceLayerBase::SequenceLayerBase;

  void init(LayerContext& ctx) override {
    SequenceLayerBase::init(ctx);
    checkInputCount(2, 2);
    checkInputSize(0, size_);
    std::string t = config_.getString("trans_type", "non-seq");
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
    for (size_t k = 0; k < n; ++k) {
      for (int r = s[k]; r < s[k + 1]; ++r) std::copy(x.row(k), x.row(k) + size_, output_.value.row(r));
    }
    output_.shareSequenceOf(as);
    finishForward();
  }

  void backward() override {
    const Matrix& g = startBackward();
    Matrix& gx = input(0).grad;
    if (gx.empty()) return;
    const IVector& starts = fromSubSeq_ ? input(1).subSeqStarts : input(1).seqStarts;
    const int* s = starts.data();
    for (size_t k = 0; k + 1 < starts.size(); ++k) {
      for (int r = s[k]; r < s[k + 1]; ++r) addTo(gx.row(k), g.row(r), size_);
    }
  }

 private:
  bool fromSubSeq_ = false;
};

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
    for (size_t i = 0; i < n; ++i) {
      float* out = output_.value.row(starts_[i]);
      std::copy(xa.row(sa[i]), xa.row(sa[i + 1]), out);
      std::copy(xb.row(sb[i]), xb.row(sb[i + 1]), out + (sa[i + 1] - sa[i]) * size_);
    }
    setStarts(outStarts_, starts_);
    output_.seqStarts = outStarts_;
    output_.subSeqStarts = IVector();
    finishForward();
  }

  void backward() override {
    const Matrix& g = startBackward();
    const int* sa = input(0).seqStarts.data();
    const int* sb = input(1).seqStarts.data();
    Matrix& ga = input(0).grad;
    Matrix& gb = input(1).grad;
    for (size_t i = 0; i + 1 < starts_.size(); ++i) {
      const float* gi = g.row(starts_[i]);
      const size_t la = (sa[i + 1] - sa[i]) * size_, lb = (sb[i + 1] - sb[i]) * size_;
      if (!ga.empty()) addTo(ga.row(sa[i]), gi, la);
      if (!gb.empty()) addTo(gb.row(sb[i]), gi + la, lb);
    }
  }

 private:
  std::vector<int> starts_;
  IVector outStarts_;
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
    std::copy(x.data(), x.data() + x.size(), output_.value.data());
    setStarts(outStarts_, starts_);
    output_.seqStarts = outStarts_;
    output_.subSeqStarts = IVector();
    finishForward();
  }

  void backward() override {
    const Matrix& g = startBackward();
    Matrix& gx = input(0).grad;
    if (!gx.empty()) addTo(gx.data(), g.data(), g.size());
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
