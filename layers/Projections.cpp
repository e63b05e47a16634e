#include "layers/Projections.h"

#include <algorithm>

#include "engine/Errors.h"
#include "engine/math/Kernel.h"
#include "engine/math/MathOps.h"
#include "layers/ImageUtils.h"

namespace paddle {

namespace {
void needDense(const Argument& in, const std::string& layer, const std::string& type) {
  PADDLE_ENFORCE(!in.value.empty(), DataError, "layer '", layer, "': ", type,
                 " projection needs a dense input (got ids only)");
}

// The table rows are scattered over memory that the update streamed out of the caches: a row's
// lines are requested a few ids ahead of its use, so the misses overlap.
constexpr size_t kRowsAhead = 4;
template <int kForWrite>
void prefetchRow(const float* row, size_t n) {
  const char* p = reinterpret_cast<const char*>(row);
  for (size_t byte = 0; byte < n * sizeof(float); byte += 64) __builtin_prefetch(p + byte, kForWrite);
}

// x . W, W of dims [in, out]; x dense or sparse (CSR: gather-add rows of W)
class FullMatrixProjection : public Projection {
 public:
  FullMatrixProjection(const Json& c, Parameter* w, size_t in, const std::string& l) : Projection(c, w, in, l) {
    needWeight(inSize_, outSize_);
  }
  void forward(const Argument& in, Matrix& out) override { project(in, out, 1.0f); }
  void forwardOverwrite(const Argument& in, Matrix& out) override { project(in, out, 0.0f); }
  void backward(Argument& in, const Matrix& g) override { backprop(in, g, 1.0f); }
  void backwardOverwrite(Argument& in, const Matrix& g) override { backprop(in, g, 0.0f); }

 private:
  // in.grad = g . W^T + beta * in.grad; w.grad += x^T . g
  void backprop(Argument& in, const Matrix& g, float beta) {
    if (in.value.empty() && !in.sparse.empty()) {
      if (!w_->isStatic()) math::sparseTransMulAdd(in.sparse, g, w_->gradRows(in.sparse.activeCols(), in.sparse.nnz()));
      if (beta == 0.0f && !in.grad.empty()) in.grad.zero();  // (a sparse input gets no gradient)
      return;
    }
    if (!w_->isStatic()) math::gemm(in.value, true, g, false, w_->grad(), 1.0f, 1.0f);
    if (!in.grad.empty()) math::gemm(g, false, w_->value(), true, in.grad, 1.0f, beta);
  }
  // out = x . W + beta * out
  void project(const Argument& in, Matrix& out, float beta) {
    if (in.value.empty() && !in.sparse.empty()) {
      w_->catchUpRows(in.sparse.activeCols(), in.sparse.nnz());
      math::sparseMul(in.sparse, w_->valueRows(), out, beta);
      return;
    }
    needDense(in, layer_, type_);
    math::gemm(in.value, false, w_->value(), false, out, 1.0f, beta);
  }
};

// x . W^T, W of dims [out, in]
class TransFullMatrixProjection : public Projection {
 public:
  TransFullMatrixProjection(const Json& c, Parameter* w, size_t in, const std::string& l)
      : Projection(c, w, in, l) {
    needWeight(outSize_, inSize_);
  }
  void forward(const Argument& in, Matrix& out) override { project(in, out, 1.0f); }
  void forwardOverwrite(const Argument& in, Matrix& out) override { project(in, out, 0.0f); }
  void backward(Argument& in, const Matrix& g) override {
    if (!w_->isStatic()) math::gemm(g, true, in.value, false, w_->grad(), 1.0f, 1.0f);
    if (!in.grad.empty()) math::gemm(g, false, w_->value(), false, in.grad, 1.0f, 1.0f);
  }

 private:
  void project(const Argument& in, Matrix& out, float beta) {
    needDense(in, layer_, type_);
    math::gemm(in.value, false, w_->value(), true, out, 1.0f, beta);
  }
};

// Copies columns [offset, offset + out) of the input ("identity": offset 0, out == in).
class IdentityProjection : public Projection {
 public:
  IdentityProjection(const Json& c, Parameter* w, size_t in, const std::string& l, bool withOffset)
      : Projection(c, w, in, l) {
    offset_ = withOffset ? static_cast<size_t>(conf_.getInt("offset")) : 0;
    if (!withOffset) {
      PADDLE_ENFORCE(outSize_ == inSize_, ConfigError, "identity projection: output_size ", outSize_,
                     " differs from input_size ", inSize_);
    }
    PADDLE_ENFORCE(offset_ + outSize_ <= inSize_, ConfigError, "identity_offset projection: offset ",
                   offset_, " + output_size ", outSize_, " exceeds input_size ", inSize_);
  }
  void forward(const Argument& in, Matrix& out) override { project(in, out, 1.0f); }
  void forwardOverwrite(const Argument& in, Matrix& out) override { project(in, out, 0.0f); }
  void backward(Argument& in, const Matrix& g) override {
    if (!in.grad.empty()) math::addColumns(in.grad, offset_, g, 0, outSize_);
  }

 private:
  void project(const Argument& in, Matrix& out, float beta) {
    needDense(in, layer_, type_);
    math::addColumns(out, 0, in.value, offset_, outSize_, beta);
  }
  size_t offset_;
};

// x (.) w, w of dims [1, out]
class DotMulProjection : public Projection {
 public:
  DotMulProjection(const Json& c, Parameter* w, size_t in, const std::string& l) : Projection(c, w, in, l) {
    PADDLE_ENFORCE(outSize_ == inSize_, ConfigError, "dot_mul projection: output_size ", outSize_,
                   " differs from input_size ", inSize_);
    needWeight(1, outSize_);
  }
  void forward(const Argument& in, Matrix& out) override {
    needDense(in, layer_, type_);
    const size_t n = outSize_;
    const float* w = w_->value().data();
    const float* x = in.value.data();
    float* y = out.data();
    forEach2Parallel(out.useGpu(), out.height(), n,
                     [=] PD_HD(size_t r, size_t j) { y[r * n + j] += x[r * n + j] * w[j]; });
  }
  void backward(Argument& in, const Matrix& g) override {
    const size_t n = outSize_, rows = g.height();
    const bool gpu = g.useGpu();
    const float* w = w_->value().data();
    const float* x = in.value.data();
    const float* gy = g.data();
    if (!w_->isStatic()) {
      float* gw = w_->grad().data();
      forEach(gpu, n, [=] PD_HD(size_t j) {  // one index per weight: sums its column
        float s = 0;
        for (size_t r = 0; r < rows; ++r) s += gy[r * n + j] * x[r * n + j];
        gw[j] += s;
      });
    }
    if (!in.grad.empty()) {
      float* gx = in.grad.data();
      forEach2Parallel(gpu, rows, n, [=] PD_HD(size_t r, size_t j) { gx[r * n + j] += gy[r * n + j] * w[j]; });
    }
  }
};

// w * x, one scalar weight
class ScalingProjection : public Projection {
 public:
  ScalingProjection(const Json& c, Parameter* w, size_t in, const std::string& l) : Projection(c, w, in, l) {
    PADDLE_ENFORCE(outSize_ == inSize_, ConfigError, "scaling projection: output_size ", outSize_,
                   " differs from input_size ", inSize_);
    needWeight(1, 1);
  }
  void forward(const Argument& in, Matrix& out) override {
    needDense(in, layer_, type_);
    addScaled(in.value, out);
  }
  void backward(Argument& in, const Matrix& g) override {
    if (!w_->isStatic()) math::addDot(g, in.value, w_->grad().data());
    if (!in.grad.empty()) addScaled(g, in.grad);
  }
  // y += w * x, with the scalar w read where it lives
  void addScaled(const Matrix& x, Matrix& y) const {
    const float* w = w_->value().data();
    const float* a = x.data();
    float* b = y.data();
    forEachParallel(y.useGpu(), y.size(), [=] PD_HD(size_t i) { b[i] += w[0] * a[i]; });
  }
};

// Row lookup: out[i] += W[ids[i]], W of dims [in (vocabulary), out]. The id -1 (v1's
// "ignored" 0xffffffff, which CoNLL-style providers emit for rare words) looks up a
// zero row and gets no gradient; any other id outside the table is a DataError here,
// in the layer that knows the table's size.
class TableProjection : public Projection {
 public:
  TableProjection(const Json& c, Parameter* w, size_t in, const std::string& l) : Projection(c, w, in, l) {
    needWeight(inSize_, outSize_);
  }
  void forward(const Argument& in, Matrix& out) override { lookup(in, out, true); }
  void forwardOverwrite(const Argument& in, Matrix& out) override { lookup(in, out, false); }
  // out[i] = W[ids[i]] (+ out[i] when add)
  void lookup(const Argument& in, Matrix& out, bool add) {
    PADDLE_ENFORCE(!in.ids.empty(), DataError, "layer '", layer_,
                   "': table projection needs integer ids (integer_value input)");
    PADDLE_ENFORCE(in.ids.size() == out.height(), DataError, "layer '", layer_, "': ", in.ids.size(),
                   " ids for ", out.height(), " rows");
    const bool gpu = out.useGpu();
    const int* ids = checkedIds(in.ids, out.height(), gpu);
    if (!in.ids.useGpu()) w_->catchUpRows(in.ids.data(), out.height());  // sparse_update: pending decay first
    const ValueRows w = w_->valueRows();
    float* y = out.data();
    const size_t n = outSize_, rows = out.height();
    if (!gpu && !reverseKernelOrder()) {
      parallelFor(rows, kParallelGrain / (n + 1) + 1, [=](size_t b, size_t e) {
        for (size_t r = b; r < e; ++r) {
          if (r + kRowsAhead < e && ids[r + kRowsAhead] >= 0) prefetchRow<0>(w.row(ids[r + kRowsAhead]), n);
          float* __restrict dst = y + r * n;
          if (ids[r] < 0) {  // the ignored id: a zero row
            if (!add) std::fill(dst, dst + n, 0.0f);
            continue;
          }
          const float* __restrict src = w.row(ids[r]);
          if (add) {
            for (size_t j = 0; j < n; ++j) dst[j] += src[j];
          } else {
            std::copy(src, src + n, dst);
          }
        }
      });
      return;
    }
    forEach2Parallel(gpu, rows, n, [=] PD_HD(size_t r, size_t j) {  // a row owns its output
      const float v = ids[r] >= 0 ? w.row(ids[r])[j] : 0.0f;
      y[r * n + j] = add ? y[r * n + j] + v : v;
    });
  }
  void backward(Argument& in, const Matrix& g) override {
    if (w_->isStatic()) return;
    const bool gpu = g.useGpu();
    const int* ids = kernelView(in.ids, idScratch_, gpu);
    // sparse_update gathers the looked-up rows (host ids; sparse parameters are CPU-only)
    const GradRows gw = w_->gradRows(in.ids.useGpu() ? nullptr : in.ids.data(), g.height());
    const float* gy = g.data();
    const size_t n = outSize_;
    // repeated ids add into the same row: the CPU splits the columns instead (each chunk
    // walks every row in order, so the sums are those of the serial loop)
    const size_t rows = g.height();
    if (!gpu && !reverseKernelOrder()) {
      parallelFor(n, kParallelGrain / (rows + 1) + 1, [=](size_t j0, size_t j1) {
        for (size_t r = 0; r < rows; ++r) {
          if (r + kRowsAhead < rows && ids[r + kRowsAhead] >= 0) prefetchRow<1>(gw.row(ids[r + kRowsAhead]) + j0, j1 - j0);
          if (ids[r] < 0) continue;
          float* dst = gw.row(ids[r]);
          for (size_t j = j0; j < j1; ++j) dst[j] += gy[r * n + j];
        }
      });
      return;
    }
    forEach2(gpu, rows, n, [=] PD_HD(size_t r, size_t j) {
      if (ids[r] >= 0) atomicAddF(gw.row(ids[r]) + j, gy[r * n + j]);
    });
  }
  // The ids on the compute device, after checking them against the table.
  const int* checkedIds(const IVector& ids, size_t rows, bool gpu) {
    const int* v = kernelView(ids, idScratch_, gpu);
    int* bad = badId_.reset(gpu);
    const int limit = static_cast<int>(inSize_);
    forEach(gpu, rows, [=] PD_HD(size_t i) {
      if (v[i] < -1 || v[i] >= limit) flagRow(bad, static_cast<int>(i));
    });
    const int r = badId_.first();
    if (r >= 0) {
      std::vector<int> host(ids.size());
      ids.copyToHost(host.data());
      throw DataError(str("layer '", layer_, "': sample ", r, " has id ", host[r], ", outside the table [0, ",
                          inSize_, ") (-1 is the ignored id)"));
    }
    return v;
  }

 private:
  IVector idScratch_;
  RowFlag badId_;
};

// "context": row t of a sequence [s, e) becomes [x[t+c] | x[t+c+1] | ... ] for
// c = context_start .. context_start + context_length - 1. Positions outside
// the sequence read zeros, or (trainable_padding) rows of the weight
// [begin_pad + end_pad, in]: row begin_pad + rel before the start (rel < 0),
// row begin_pad + (rel - len) after the end.
class ContextProjection : public Projection {
 public:
  ContextProjection(const Json& c, Parameter* w, size_t in, const std::string& l) : Projection(c, w, in, l) {
    start_ = conf_.getInt("context_start");
    length_ = conf_.getInt("context_length");
    PADDLE_ENFORCE(length_ > 0, ConfigError, "context projection needs a positive context_length");
    PADDLE_ENFORCE(outSize_ == inSize_ * static_cast<size_t>(length_), ConfigError,
                   "context projection: output_size ", outSize_, " must be input_size ", inSize_,
                   " x context_length ", length_);
    beginPad_ = std::max<int64_t>(0, -start_);
    const int64_t endPad = std::max<int64_t>(0, start_ + length_ - 1);
    trainable_ = conf_.getBool("trainable_padding");
    if (trainable_) needWeight(static_cast<size_t>(beginPad_ + endPad), inSize_);
  }
  void forward(const Argument& in, Matrix& out) override { gather(in, out, true); }
  void forwardOverwrite(const Argument& in, Matrix& out) override { gather(in, out, false); }
  // out = the context rows (+ out when add)
  void gather(const Argument& in, Matrix& out, bool add) {
    needDense(in, layer_, type_);
    PADDLE_ENFORCE(in.hasSeq(), DataError, "layer '", layer_, "': context projection needs a sequence input");
    const bool gpu = out.useGpu();
    const int* starts = kernelView(in.seqStarts, startsDev_, gpu);
    const int* seqOf = rowSequences(in, gpu);
    const float* x = in.value.data();
    const float* pad = trainable_ ? w_->value().data() : nullptr;
    float* y = out.data();
    const int64_t start = start_, beginPad = beginPad_;
    const size_t d = inSize_, outW = out.width();
    // (row r, block j) owns d values of the output
    forEach2Parallel(gpu, out.height(), static_cast<size_t>(length_), [=] PD_HD(size_t r, size_t j) {
      const int64_t b = starts[seqOf[r]], len = starts[seqOf[r] + 1] - b;
      const int64_t rel = static_cast<int64_t>(r) - b + start + static_cast<int64_t>(j);
      const float* src = rel >= 0 && rel < len ? x + (b + rel) * d
                         : pad                ? pad + (beginPad + (rel < 0 ? rel : rel - len)) * d
                                              : nullptr;
      float* dst = y + r * outW + j * d;
      if (!src) {  // zero padding
        if (!add)
          for (size_t k = 0; k < d; ++k) dst[k] = 0.0f;
      } else if (add) {
        for (size_t k = 0; k < d; ++k) dst[k] += src[k];
      } else {
        for (size_t k = 0; k < d; ++k) dst[k] = src[k];
      }
    }, kParallelGrain / d + 1);
  }
  void backward(Argument& in, const Matrix& g) override { backprop(in, g, true); }
  void backwardOverwrite(Argument& in, const Matrix& g) override { backprop(in, g, false); }
  // in.grad (+)= the sum of the output blocks each input row fed
  void backprop(Argument& in, const Matrix& g, bool add) {
    const bool padGrad = trainable_ && !w_->isStatic();
    if (in.grad.empty() && !padGrad) return;
    const bool gpu = g.useGpu();
    const int* starts = kernelView(in.seqStarts, startsDev_, gpu);
    const int* seqOf = rowSequences(in, gpu);
    const float* gy = g.data();
    const int64_t start = start_, length = length_, beginPad = beginPad_;
    const size_t d = inSize_, outW = g.width();
    if (!in.grad.empty()) {  // gather: input row u feeds output row t = u - start - j at block j
      float* gx = in.grad.data();
      forEachParallel(gpu, g.height(), [=] PD_HD(size_t u) {  // u owns its input gradient row
        const int64_t b = starts[seqOf[u]], len = starts[seqOf[u] + 1] - b;
        if (!add)
          for (size_t k = 0; k < d; ++k) gx[u * d + k] = 0.0f;
        for (int64_t j = 0; j < length; ++j) {
          const int64_t t = static_cast<int64_t>(u) - b - start - j;
          if (t < 0 || t >= len) continue;
          const float* src = gy + (b + t) * outW + j * d;
          for (size_t k = 0; k < d; ++k) gx[u * d + k] += src[k];
        }
      }, kParallelGrain / outW + 1);
    }
    if (padGrad) {  // padding rows are shared by many positions
      float* gw = w_->grad().data();
      forEach2(gpu, g.height(), static_cast<size_t>(length), [=] PD_HD(size_t r, size_t j) {
        const int64_t b = starts[seqOf[r]], len = starts[seqOf[r] + 1] - b;
        const int64_t rel = static_cast<int64_t>(r) - b + start + static_cast<int64_t>(j);
        if (rel >= 0 && rel < len) return;
        float* dst = gw + (beginPad + (rel < 0 ? rel : rel - len)) * d;
        const float* src = gy + r * outW + j * d;
        for (size_t k = 0; k < d; ++k) atomicAddF(dst + k, src[k]);
      });
    }
  }

 private:
  // The sequence of every row (built on the host from the starts; a device copy on the GPU).
  const int* rowSequences(const Argument& in, bool gpu) {
    const int* s = in.seqStarts.data();
    rowSeq_.resize(1, in.batchSize());
    int* m = rowSeq_.data();
    for (size_t i = 0; i + 1 < in.seqStarts.size(); ++i)
      for (int r = s[i]; r < s[i + 1]; ++r) m[r] = static_cast<int>(i);
    return kernelView(rowSeq_, rowSeqDev_, gpu);
  }
  IVector startsDev_, rowSeq_, rowSeqDev_;
  int64_t start_, length_, beginPad_;
  bool trainable_;
};

// scale * a (.) b
class DotMulOperator : public Operator {
 public:
  DotMulOperator(const Json& c, const std::string& l) : Operator(c, l) {
    PADDLE_ENFORCE(indices_.size() == 2, ConfigError, "dot_mul operator needs 2 inputs (input_indices)");
    scale_ = static_cast<float>(conf_.getDouble("dotmul_scale"));
  }
  void forward(const std::vector<Argument*>& ins, Matrix& out) override {
    const Matrix& a = ins[0]->value;
    const Matrix& b = ins[1]->value;
    PADDLE_ENFORCE(a.width() == outSize_ && b.width() == outSize_, DataError, "layer '", layer_,
                   "': dot_mul operator inputs have widths ", a.width(), " and ", b.width(),
                   ", expected ", outSize_);
    const float* x = a.data();
    const float* y = b.data();
    float* o = out.data();
    const float scale = scale_;
    forEach(out.useGpu(), out.size(), [=] PD_HD(size_t i) { o[i] += scale * x[i] * y[i]; });
  }
  void backward(const std::vector<Argument*>& ins, const Matrix& g) override {
    const float* gy = g.data();
    const float scale = scale_;
    for (int k = 0; k < 2; ++k) {
      Matrix& gx = ins[k]->grad;
      if (gx.empty()) continue;
      const float* other = ins[1 - k]->value.data();
      float* d = gx.data();
      forEach(g.useGpu(), g.size(), [=] PD_HD(size_t i) { d[i] += scale * gy[i] * other[i]; });
    }
  }

 private:
  float scale_;
};
// Views of the per-group GEMM operands inside one sample's buffers.
inline Matrix view(const float* p, size_t h, size_t w, bool gpu) {
  return Matrix::view(const_cast<float*>(p), h, w, gpu);
}

// Convolution of one sample, or with `trans` the transposed convolution ("convt"), with
// filters in v0.10's (and cuDNN's) layout, as in exconv/exconvt: per group an [M, K] block,
// M = the group's channels on the small (output_x) side, K = (image-side channels/groups)*fh*fw
// in im2col row order; so a conv's W is [F][C/groups][fh][fw], a convt's [C][F/groups][fh][fw].
// im2col + GEMM per sample.
struct SampleConv {
  image::ConvGeom g;
  bool trans;
  int bigC, smallC;  // channels on the image (img_size) side and on the output_x side
  size_t K, M, N;
  Matrix col;  // [K*groups, N], reused

  SampleConv(const Json& convConf, int filters, bool transposed, const std::string& what)
      : g(convConf),
        trans(transposed),
        bigC(transposed ? filters : g.channels),
        smallC(transposed ? g.channels : filters) {
    PADDLE_ENFORCE(filters > 0 && bigC % g.groups == 0 && smallC % g.groups == 0, ConfigError, what,
                   ": num_filters ", filters, " and channels ", g.channels, " must be positive multiples of groups ",
                   g.groups);
    PADDLE_ENFORCE(g.filterChannels == 0 || g.filterChannels == bigC / g.groups, ConfigError, what,
                   ": conv_conf.filter_channels ", g.filterChannels, " should be ", bigC / g.groups);
    g.filterChannels = bigC / g.groups;
    K = static_cast<size_t>(g.filterChannels) * g.fh * g.fw;
    M = static_cast<size_t>(smallC / g.groups);
    N = static_cast<size_t>(g.outH) * g.outW;
  }
  size_t imageSize() const { return static_cast<size_t>(bigC) * g.imgH * g.imgW; }
  size_t inSize() const { return trans ? smallC * N : imageSize(); }
  size_t outSize() const { return trans ? imageSize() : smallC * N; }
  size_t weightSize() const { return K * M * g.groups; }

  // y += conv(x, w) (or convt), all on the device `gpu` names
  void forward(const float* x, const float* w, float* y, bool gpu) {
    if (trans) {  // col_g = W_g^T x_g, folded into the image
      reserve(gpu);
      for (int gr = 0; gr < g.groups; ++gr) {
        Matrix W = view(w + gr * M * K, M, K, gpu), X = view(x + gr * M * N, M, N, gpu);
        Matrix C = view(col.data() + gr * K * N, K, N, gpu);
        math::gemm(W, true, X, false, C, 1.0f, 0.0f);
      }
      fold(y, gpu);
      return;
    }
    unfold(x, gpu);
    for (int gr = 0; gr < g.groups; ++gr) {
      Matrix W = view(w + gr * M * K, M, K, gpu), C = view(col.data() + gr * K * N, K, N, gpu);
      Matrix Y = view(y + gr * M * N, M, N, gpu);
      math::gemm(W, false, C, false, Y, 1.0f, 1.0f);
    }
  }
  // gw += the filter gradient (gw may be null), gx += the input gradient (gx may be null)
  void backward(const float* x, const float* w, const float* gy, float* gw, float* gx, bool gpu) {
    if (trans) {  // with col = im2col(gy): gw_g += x_g col_g^T, gx_g += W_g col_g
      if (!gw && !gx) return;
      unfold(gy, gpu);
      for (int gr = 0; gr < g.groups; ++gr) {
        Matrix C = view(col.data() + gr * K * N, K, N, gpu), W = view(w + gr * M * K, M, K, gpu);
        if (gw) {
          Matrix X = view(x + gr * M * N, M, N, gpu), GW = view(gw + gr * M * K, M, K, gpu);
          math::gemm(X, false, C, true, GW, 1.0f, 1.0f);
        }
        if (gx) {
          Matrix GX = view(gx + gr * M * N, M, N, gpu);
          math::gemm(W, false, C, false, GX, 1.0f, 1.0f);
        }
      }
      return;
    }
    if (gw) {  // gw_g += dy_g col_g^T
      unfold(x, gpu);
      for (int gr = 0; gr < g.groups; ++gr) {
        Matrix G = view(gy + gr * M * N, M, N, gpu), C = view(col.data() + gr * K * N, K, N, gpu);
        Matrix GW = view(gw + gr * M * K, M, K, gpu);
        math::gemm(G, false, C, true, GW, 1.0f, 1.0f);
      }
    }
    if (gx) {  // gx += col2im(W^T dy)
      reserve(gpu);
      for (int gr = 0; gr < g.groups; ++gr) {
        Matrix W = view(w + gr * M * K, M, K, gpu), G = view(gy + gr * M * N, M, N, gpu);
        Matrix C = view(col.data() + gr * K * N, K, N, gpu);
        math::gemm(W, true, G, false, C, 1.0f, 0.0f);
      }
      fold(gx, gpu);
    }
  }

 private:
  image::Patches patches() const { return {bigC, g.imgH, g.imgW, g.fh, g.fw, g.sy, g.sx, g.py, g.px, g.outH, g.outW}; }
  void reserve(bool gpu) {
    col.setDevice(gpu);
    col.resize(K * g.groups, N);
  }
  // col = im2col(img) (the CPU one adds AVX-512 fast paths)
  void unfold(const float* img, bool gpu) {
    reserve(gpu);
    if (gpu) {
      image::im2colBatch(true, img, 0, 1, patches(), col.data());
    } else {
      image::im2col(img, bigC, g.imgH, g.imgW, g.fh, g.fw, g.sy, g.sx, g.py, g.px, g.outH, g.outW, col.data());
    }
  }
  // img += col2im(col)
  void fold(float* img, bool gpu) {
    if (gpu) {
      image::col2imBatch(true, col.data(), 0, 1, patches(), img, 0, true);
    } else {
      image::col2im(col.data(), bigC, g.imgH, g.imgW, g.fh, g.fw, g.sy, g.sx, g.py, g.px, g.outH, g.outW, img, 0, true);
    }
  }
};

SampleConv makeSampleConv(const Json& c, const std::string& what) {
  PADDLE_ENFORCE(c.has("conv_conf"), ConfigError, what, " needs a conv_conf");
  return SampleConv(c["conv_conf"], static_cast<int>(c.getInt("num_filters")), c.getString("type") == "convt", what);
}

// "conv" projection (conv_projection): the input image convolved with the projection's
// filters (proj_conf.num_filters, proj_conf.conv_conf); output [num_filters, output_y, output_x].
// "convt" (conv_projection(trans=True)): the transposed convolution; output [num_filters,
// img_size_y, img_size].
class ConvProjection : public Projection {
 public:
  ConvProjection(const Json& c, Parameter* w, size_t in, const std::string& l)
      : Projection(c, w, in, l), conv_(makeSampleConv(c, type_ + " projection")) {
    PADDLE_ENFORCE(conv_.inSize() == inSize_, ConfigError, type_, " projection: conv_conf describes an input of ",
                   conv_.inSize(), " values, the input layer has ", inSize_);
    PADDLE_ENFORCE(conv_.outSize() == outSize_, ConfigError, type_, " projection: conv_conf and num_filters give ",
                   conv_.outSize(), " outputs, output_size is ", outSize_);
    PADDLE_ENFORCE(w_ && w_->size() == conv_.weightSize(), ConfigError, type_, " projection needs a weight of ",
                   conv_.weightSize(), " values (num_filters x channels / groups x filter_size_y x filter_size)",
                   (w_ ? ", '" + w_->name() + "' has " + std::to_string(w_->size()) : std::string()));
  }
  void forward(const Argument& in, Matrix& out) override {
    needDense(in, layer_, type_);
    for (size_t r = 0; r < out.height(); ++r)
      conv_.forward(in.value.row(r), w_->value().data(), out.row(r), out.useGpu());
  }
  void backward(Argument& in, const Matrix& g) override {
    float* gw = w_->isStatic() ? nullptr : w_->grad().data();
    for (size_t r = 0; r < g.height(); ++r)
      conv_.backward(in.value.row(r), w_->value().data(), g.row(r), gw, in.grad.empty() ? nullptr : in.grad.row(r),
                     g.useGpu());
  }

 private:
  SampleConv conv_;
};

// "conv" / "convt" operator (conv_operator, trans=False/True): inputs [image, filters]; each
// sample's image is convolved with that sample's own filters (a row of weightSize() values).
class ConvOperator : public Operator {
 public:
  ConvOperator(const Json& c, const std::string& l) : Operator(c, l), conv_(makeSampleConv(c, type_ + " operator")) {
    PADDLE_ENFORCE(indices_.size() == 2, ConfigError, type_, " operator needs 2 inputs (image, filters)");
    PADDLE_ENFORCE(conv_.outSize() == outSize_, ConfigError, type_, " operator: conv_conf and num_filters give ",
                   conv_.outSize(), " outputs, output_size is ", outSize_);
  }
  void forward(const std::vector<Argument*>& ins, Matrix& out) override {
    const Matrix& x = ins[0]->value;
    const Matrix& f = ins[1]->value;
    PADDLE_ENFORCE(x.width() == conv_.inSize() && f.width() == conv_.weightSize() && f.height() == x.height(),
                   DataError, "layer '", layer_, "': ", type_, " operator inputs are ", shapeStr(x), " and ",
                   shapeStr(f), ", expected widths ", conv_.inSize(), " (image) and ", conv_.weightSize(),
                   " (filters)");
    for (size_t r = 0; r < out.height(); ++r) conv_.forward(x.row(r), f.row(r), out.row(r), out.useGpu());
  }
  void backward(const std::vector<Argument*>& ins, const Matrix& g) override {
    Argument& x = *ins[0];
    Argument& f = *ins[1];
    for (size_t r = 0; r < g.height(); ++r)
      conv_.backward(x.value.row(r), f.value.row(r), g.row(r), f.grad.empty() ? nullptr : f.grad.row(r),
                     x.grad.empty() ? nullptr : x.grad.row(r), g.useGpu());
  }

 private:
  SampleConv conv_;
};
}  // namespace

Projection::Projection(const Json& conf, Parameter* w, size_t inputSize, const std::string& layerName)
    : conf_(conf),
      type_(conf.getString("type")),
      layer_(layerName),
      w_(w),
      inSize_(conf.has("input_size") ? static_cast<size_t>(conf.getInt("input_size")) : inputSize),
      outSize_(static_cast<size_t>(conf.getInt("output_size"))) {
  PADDLE_ENFORCE(inSize_ == inputSize, ConfigError, type_, " projection: proj_conf.input_size ", inSize_,
                 " differs from the input layer's size ", inputSize);
  PADDLE_ENFORCE(outSize_ > 0, ConfigError, type_, " projection needs a positive proj_conf.output_size");
}

Parameter* Projection::needWeight(size_t rows, size_t cols) {
  PADDLE_ENFORCE(w_, ConfigError, type_, " projection needs a weight (input_parameter_name)");
  PADDLE_ENFORCE(w_->size() == rows * cols && w_->value().height() == rows, ConfigError, type_,
                 " projection: weight '", w_->name(), "' must have dims [", rows, ", ", cols, "], has ",
                 w_->size(), " values in ", shapeStr(w_->value()));
  return w_;
}

void Projection::backwardOverwrite(Argument& in, const Matrix& g) {
  math::zero(in.grad);
  backward(in, g);
}

std::unique_ptr<Projection> Projection::create(const Json& conf, Parameter* w, size_t inputSize,
                                               const std::string& layer) {
  std::string t = conf.getString("type");
  if (t == "fc") return std::unique_ptr<Projection>(new FullMatrixProjection(conf, w, inputSize, layer));
  if (t == "trans_fc") return std::unique_ptr<Projection>(new TransFullMatrixProjection(conf, w, inputSize, layer));
  if (t == "identity") return std::unique_ptr<Projection>(new IdentityProjection(conf, w, inputSize, layer, false));
  if (t == "identity_offset")
    return std::unique_ptr<Projection>(new IdentityProjection(conf, w, inputSize, layer, true));
  if (t == "dot_mul") return std::unique_ptr<Projection>(new DotMulProjection(conf, w, inputSize, layer));
  if (t == "scaling") return std::unique_ptr<Projection>(new ScalingProjection(conf, w, inputSize, layer));
  if (t == "table") return std::unique_ptr<Projection>(new TableProjection(conf, w, inputSize, layer));
  if (t == "context") return std::unique_ptr<Projection>(new ContextProjection(conf, w, inputSize, layer));
  if (t == "conv" || t == "convt") return std::unique_ptr<Projection>(new ConvProjection(conf, w, inputSize, layer));
  throw ConfigError(str("proj_conf.type '", t, "' is not supported (known: fc, trans_fc, identity, "
                        "identity_offset, dot_mul, scaling, table, context, conv, convt)"));
}

Operator::Operator(const Json& conf, const std::string& layerName)
    : conf_(conf),
      type_(conf.getString("type")),
      layer_(layerName),
      indices_(conf.getInts("input_indices")),
      outSize_(static_cast<size_t>(conf.getInt("output_size"))) {
  PADDLE_ENFORCE(outSize_ > 0, ConfigError, type_, " operator needs a positive output_size");
}

std::unique_ptr<Operator> Operator::create(const Json& conf, const std::string& layer) {
  std::string t = conf.getString("type");
  if (t == "dot_mul") return std::unique_ptr<Operator>(new DotMulOperator(conf, layer));
  if (t == "conv" || t == "convt") return std::unique_ptr<Operator>(new ConvOperator(conf, layer));
  throw ConfigError(str("operator_confs.type '", t, "' is not supported (known: dot_mul, conv, convt)"));
}

}  // namespace paddle
