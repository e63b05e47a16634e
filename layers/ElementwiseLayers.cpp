// Element-wise and small per-sample layers (CPU and GPU: forEach loops, Kernel.h):
//   slope_intercept  y = slope * x + intercept
//   clip             y = min(max(x, min), max)
//   scaling          inputs [w (size 1), x]: y = w * x
//   power            inputs [w (size 1), x]: y = x ^ w
//   interpolation    inputs [w (size 1), a, b]: y = w * a + (1 - w) * b
//   cos              cos_scale * cos(a, b)   (size 1)
//   cos_vm           cos_scale * cos(a, b_k) for each size-|a| chunk b_k of b
//   sum_to_one_norm  y = x / sum(x)
//   trans            the batch matrix transposed
//   out_prod         y = vec(a b^T)
//   tensor           y_k = a^T W_k b (+ bias), W of dims [|a|, |b|, size]
//   convex_comb      inputs [w (N), v (N*M)]: y = sum_i w_i v_i  (linear_comb_layer)
//   conv_shift       circular convolution of a with the odd-sized kernel b
//   featmap_expand   y = x tiled num_filters times (repeat_layer)
//   maxid            ids = argmax of each row, value = the max
//   sampling_id      ids sampled from each row's distribution
#include <algorithm>
#include <climits>
#include <cmath>
#include <random>
#include <vector>

#include "engine/Errors.h"
#include "engine/math/Kernel.h"
#include "engine/math/MathOps.h"
#include "layers/Layer.h"

namespace paddle {

namespace {
// Common shape of these layers: checks every dense input has the batch's rows.
class SimpleLayer : public Layer {
 public:
  using Layer::Layer;

 protected:
  size_t startForward(PassType pass, size_t cols = 0) {
    pass_ = pass;
    size_t rows = input(0).batchSize();
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const Argument& a = input(i);
      PADDLE_ENFORCE(a.value.height() == rows && a.value.width() == inputs_[i]->size(), DataError, "layer '",
                     name_, "': input '", inputs_[i]->name(), "' is ", shapeStr(a.value), ", expected ", rows, "x",
                     inputs_[i]->size());
    }
    resetOutput(rows, cols ? cols : size_);
    return rows;
  }
  // Input i's gradient, or null when it needs none.
  float* gradOf(size_t i) {
    Matrix& g = input(i).grad;
    return g.empty() ? nullptr : g.data();
  }
};

class SlopeInterceptLayer : public SimpleLayer {
 public:
  using SimpleLayer::SimpleLayer;
  void init(LayerContext& ctx) override {
    SimpleLayer::init(ctx);
    checkInputCount(1, 1);
    checkInputSize(0, size_);
    slope_ = static_cast<float>(config_.getDouble("slope"));
    intercept_ = static_cast<float>(config_.getDouble("intercept"));
  }
  void forward(PassType pass) override {
    startForward(pass);
    const float* x = input(0).value.data();
    float* y = output_.value.data();
    const float slope = slope_, intercept = intercept_;
    forEach(useGpu_, output_.value.size(), [=] PD_HD(size_t i) { y[i] = slope * x[i] + intercept; });
    output_.shareSequenceOf(input(0));
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    if (!input(0).grad.empty()) math::axpby(slope_, output_.grad, 1.0f, input(0).grad);
  }

 private:
  float slope_ = 1, intercept_ = 0;
};

// y = min(max(x, min), max) with the bounds of inputs[0].clip_conf; the gradient passes
// where the input lies strictly inside them.
class ClipLayer : public SimpleLayer {
 public:
  using SimpleLayer::SimpleLayer;
  void init(LayerContext& ctx) override {
    SimpleLayer::init(ctx);
    checkInputCount(1, 1);
    checkInputSize(0, size_);
    const Json& c = inputConf(0, "clip_conf");
    lo_ = static_cast<float>(c.getDouble("min"));
    hi_ = static_cast<float>(c.getDouble("max"));
    PADDLE_ENFORCE(lo_ < hi_, ConfigError, "clip_conf.min ", lo_, " must be below clip_conf.max ", hi_);
  }
  void forward(PassType pass) override {
    startForward(pass);
    const float* x = input(0).value.data();
    float* y = output_.value.data();
    const float lo = lo_, hi = hi_;
    forEach(useGpu_, output_.value.size(), [=] PD_HD(size_t i) { y[i] = fminf(fmaxf(x[i], lo), hi); });
    output_.shareSequenceOf(input(0));
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    float* gx = gradOf(0);
    if (!gx) return;
    const float* x = input(0).value.data();
    const float* gy = output_.grad.data();
    const float lo = lo_, hi = hi_;
    forEach(useGpu_, output_.grad.size(), [=] PD_HD(size_t i) {
      if (x[i] > lo && x[i] < hi) gx[i] += gy[i];
    });
  }

 private:
  float lo_ = 0, hi_ = 0;
};

// Inputs [w (size 1), x, ...]: shared checks for scaling / power / interpolation.
class WeightedLayer : public SimpleLayer {
 public:
  using SimpleLayer::SimpleLayer;
  void init(LayerContext& ctx) override {
    SimpleLayer::init(ctx);
    checkInputSize(0, 1);
    for (size_t i = 1; i < inputs_.size(); ++i) checkInputSize(i, size_);
  }
};

class ScalingLayer : public WeightedLayer {
 public:
  using WeightedLayer::WeightedLayer;
  void init(LayerContext& ctx) override {
    checkCount_ = true;
    WeightedLayer::init(ctx);
    checkInputCount(2, 2);
  }
  void forward(PassType pass) override {
    const size_t rows = startForward(pass), n = size_;
    const float* w = input(0).value.data();
    const float* x = input(1).value.data();
    float* y = output_.value.data();
    forEach2Parallel(useGpu_, rows, n, [=] PD_HD(size_t r, size_t j) { y[r * n + j] = w[r] * x[r * n + j]; });
    output_.shareSequenceOf(input(1));
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    const size_t rows = output_.grad.height(), n = size_;
    const float* g = output_.grad.data();
    const float* w = input(0).value.data();
    if (float* gw = gradOf(0)) math::addRowDots(output_.grad, input(1).value, gw);
    if (float* gx = gradOf(1))
      forEach2Parallel(useGpu_, rows, n, [=] PD_HD(size_t r, size_t j) { gx[r * n + j] += w[r] * g[r * n + j]; });
  }

 private:
  bool checkCount_ = false;
};

class PowerLayer : public WeightedLayer {
 public:
  using WeightedLayer::WeightedLayer;
  void init(LayerContext& ctx) override {
    WeightedLayer::init(ctx);
    checkInputCount(2, 2);
  }
  void forward(PassType pass) override {
    const size_t rows = startForward(pass), n = size_;
    const float* w = input(0).value.data();
    const float* x = input(1).value.data();
    float* y = output_.value.data();
    forEach2(useGpu_, rows, n, [=] PD_HD(size_t r, size_t j) { y[r * n + j] = std::pow(x[r * n + j], w[r]); });
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    const size_t rows = output_.grad.height(), n = size_;
    const float* g = output_.grad.data();
    const float* w = input(0).value.data();
    const float* x = input(1).value.data();
    const float* y = output_.value.data();
    if (float* gw = gradOf(0)) {
      forEach(useGpu_, rows, [=] PD_HD(size_t r) {
        float s = 0;
        for (size_t j = r * n; j < (r + 1) * n; ++j)
          if (x[j] > 0) s += g[j] * y[j] * std::log(x[j]);
        gw[r] += s;
      });
    }
    if (float* gx = gradOf(1)) {
      forEach2(useGpu_, rows, n, [=] PD_HD(size_t r, size_t j) {
        const size_t at = r * n + j;
        gx[at] += g[at] * w[r] * std::pow(x[at], w[r] - 1);
      });
    }
  }
};

class InterpolationLayer : public WeightedLayer {
 public:
  using WeightedLayer::WeightedLayer;
  void init(LayerContext& ctx) override {
    WeightedLayer::init(ctx);
    checkInputCount(3, 3);
  }
  void forward(PassType pass) override {
    const size_t rows = startForward(pass), n = size_;
    const float* w = input(0).value.data();
    const float* a = input(1).value.data();
    const float* b = input(2).value.data();
    float* y = output_.value.data();
    forEach2(useGpu_, rows, n, [=] PD_HD(size_t r, size_t j) {
      y[r * n + j] = w[r] * a[r * n + j] + (1 - w[r]) * b[r * n + j];
    });
    output_.shareSequenceOf(input(1));
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    const size_t rows = output_.grad.height(), n = size_;
    const float* g = output_.grad.data();
    const float* w = input(0).value.data();
    const float* a = input(1).value.data();
    const float* b = input(2).value.data();
    if (float* gw = gradOf(0)) {
      forEach(useGpu_, rows, [=] PD_HD(size_t r) {
        float s = 0;
        for (size_t j = r * n; j < (r + 1) * n; ++j) s += g[j] * (a[j] - b[j]);
        gw[r] += s;
      });
    }
    if (float* ga = gradOf(1))
      forEach2(useGpu_, rows, n, [=] PD_HD(size_t r, size_t j) { ga[r * n + j] += w[r] * g[r * n + j]; });
    if (float* gb = gradOf(2))
      forEach2(useGpu_, rows, n, [=] PD_HD(size_t r, size_t j) { gb[r * n + j] += (1 - w[r]) * g[r * n + j]; });
  }
};

// cos and cos_vm: out[k] = scale * <a, b_k> / (|a| |b_k|), b_k the k-th chunk of |a| values.
class CosSimLayer : public SimpleLayer {
 public:
  using SimpleLayer::SimpleLayer;
  void init(LayerContext& ctx) override {
    SimpleLayer::init(ctx);
    checkInputCount(2, 2);
    scale_ = static_cast<float>(config_.getDouble("cos_scale"));
    dim_ = inputs_[0]->size();
    if (type_ == "cos") {
      PADDLE_ENFORCE(size_ == 1, ConfigError, "cos layer has size ", size_, ", expected 1");
      checkInputSize(1, dim_);
    } else {
      checkInputSize(1, dim_ * size_);
    }
  }
  void forward(PassType pass) override {
    const size_t rows = startForward(pass), size = size_, dim = dim_;
    const float scale = scale_;
    const float* a = input(0).value.data();
    const float* bAll = input(1).value.data();
    float* y = output_.value.data();
    forEach2(useGpu_, rows, size, [=] PD_HD(size_t r, size_t k) {
      const float* ar = a + r * dim;
      const float* b = bAll + (r * size + k) * dim;
      double ab = 0, aa = 0, bb = 0;
      for (size_t j = 0; j < dim; ++j) ab += ar[j] * b[j], aa += ar[j] * ar[j], bb += b[j] * b[j];
      y[r * size + k] = static_cast<float>(scale * ab / std::sqrt(std::max(aa * bb, 1e-20)));
    });
    forwardActivation();
  }
  // d cos / da = b / (|a||b|) - cos * a / |a|^2. One index per (row, chunk): the chunks of a
  // row all add into the row's da (atomically on the GPU).
  void backward() override {
    backwardActivation();
    const size_t rows = output_.grad.height(), size = size_, dim = dim_;
    const float scale = scale_;
    const float* a = input(0).value.data();
    const float* bAll = input(1).value.data();
    const float* y = output_.value.data();
    const float* g = output_.grad.data();
    float* ga = gradOf(0);
    float* gbAll = gradOf(1);
    forEach2(useGpu_, rows, size, [=] PD_HD(size_t r, size_t k) {
      const float* ar = a + r * dim;
      const float* b = bAll + (r * size + k) * dim;
      double aa = 0, bb = 0;
      for (size_t j = 0; j < dim; ++j) aa += ar[j] * ar[j], bb += b[j] * b[j];
      aa = std::max(aa, 1e-10);
      bb = std::max(bb, 1e-10);
      const double yk = y[r * size + k], gk = g[r * size + k];
      const double inv = scale / std::sqrt(aa * bb);
      if (ga)
        for (size_t j = 0; j < dim; ++j) atomicAddF(ga + r * dim + j, static_cast<float>(gk * (b[j] * inv - yk * ar[j] / aa)));
      if (gbAll) {
        float* gb = gbAll + (r * size + k) * dim;
        for (size_t j = 0; j < dim; ++j) gb[j] += static_cast<float>(gk * (ar[j] * inv - yk * b[j] / bb));
      }
    });
  }

 private:
  float scale_ = 1;
  size_t dim_ = 0;
};

class SumToOneNormLayer : public SimpleLayer {
 public:
  using SimpleLayer::SimpleLayer;
  void init(LayerContext& ctx) override {
    SimpleLayer::init(ctx);
    checkInputCount(1, 1);
    checkInputSize(0, size_);
  }
  void forward(PassType pass) override {
    const size_t rows = startForward(pass), n = size_;
    sums_.setDevice(useGpu_);
    sums_.resize(rows, 1);
    const float* x = input(0).value.data();
    float* y = output_.value.data();
    float* sums = sums_.data();
    int* bad = zeroSum_.reset(useGpu_);
    forEach(useGpu_, rows, [=] PD_HD(size_t r) {
      double s = 0;
      for (size_t j = r * n; j < (r + 1) * n; ++j) s += x[j];
      if (s == 0) flagRow(bad, static_cast<int>(r));
      sums[r] = static_cast<float>(s);
      for (size_t j = r * n; j < (r + 1) * n; ++j) y[j] = static_cast<float>(x[j] / s);
    });
    const int badRow = zeroSum_.first();
    PADDLE_ENFORCE(badRow < 0, DataError, "layer '", name_, "': sample ", badRow, " sums to 0");
    output_.shareSequenceOf(input(0));
    forwardActivation();
  }
  // dx_j = (g_j - <g, y>) / s
  void backward() override {
    backwardActivation();
    float* gx = gradOf(0);
    if (!gx) return;
    const size_t n = size_;
    const float* g = output_.grad.data();
    const float* y = output_.value.data();
    const float* sums = sums_.data();
    forEach(useGpu_, output_.grad.height(), [=] PD_HD(size_t r) {
      double dot = 0;
      for (size_t j = r * n; j < (r + 1) * n; ++j) dot += g[j] * y[j];
      const float s = sums[r];
      for (size_t j = r * n; j < (r + 1) * n; ++j) gx[j] += static_cast<float>((g[j] - dot) / s);
    });
  }

 private:
  Matrix sums_;
  RowFlag zeroSum_;
};

class TransLayer : public SimpleLayer {
 public:
  using SimpleLayer::SimpleLayer;
  void init(LayerContext& ctx) override {
    SimpleLayer::init(ctx);
    checkInputCount(1, 1);
  }
  void forward(PassType pass) override {
    pass_ = pass;
    const Matrix& x = input(0).value;
    const size_t h = x.height(), w = x.width();
    resetOutput(w, h);
    const float* xs = x.data();
    float* y = output_.value.data();
    forEach2(useGpu_, w, h, [=] PD_HD(size_t j, size_t i) { y[j * h + i] = xs[i * w + j]; });
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    float* gx = gradOf(0);
    if (!gx) return;
    const size_t h = input(0).grad.height(), w = input(0).grad.width();
    const float* g = output_.grad.data();
    forEach2(useGpu_, h, w, [=] PD_HD(size_t i, size_t j) { gx[i * w + j] += g[j * h + i]; });
  }
};

class OuterProdLayer : public SimpleLayer {
 public:
  using SimpleLayer::SimpleLayer;
  void init(LayerContext& ctx) override {
    SimpleLayer::init(ctx);
    checkInputCount(2, 2);
    PADDLE_ENFORCE(size_ == inputs_[0]->size() * inputs_[1]->size(), ConfigError, "size ", size_,
                   " should be ", inputs_[0]->size(), " * ", inputs_[1]->size());
  }
  // Row ri = r * na + i of a [rows * na, nb] view of y is a[r, i] * b[r, :].
  void forward(PassType pass) override {
    const size_t rows = startForward(pass);
    const size_t na = inputs_[0]->size(), nb = inputs_[1]->size();
    const float* a = input(0).value.data();
    const float* b = input(1).value.data();
    float* y = output_.value.data();
    forEach2(useGpu_, rows * na, nb, [=] PD_HD(size_t ri, size_t j) { y[ri * nb + j] = a[ri] * b[(ri / na) * nb + j]; });
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    const size_t rows = output_.grad.height();
    const size_t na = inputs_[0]->size(), nb = inputs_[1]->size();
    const float* a = input(0).value.data();
    const float* b = input(1).value.data();
    const float* g = output_.grad.data();
    if (float* ga = gradOf(0)) {
      forEach(useGpu_, rows * na, [=] PD_HD(size_t ri) {
        const float* br = b + (ri / na) * nb;
        float s = 0;
        for (size_t j = 0; j < nb; ++j) s += g[ri * nb + j] * br[j];
        ga[ri] += s;
      });
    }
    if (float* gb = gradOf(1)) {
      forEach2(useGpu_, rows, nb, [=] PD_HD(size_t r, size_t j) {
        float s = 0;
        for (size_t i = r * na; i < (r + 1) * na; ++i) s += g[i * nb + j] * a[i];
        gb[r * nb + j] += s;
      });
    }
  }
};

class TensorLayer : public SimpleLayer {
 public:
  using SimpleLayer::SimpleLayer;
  void init(LayerContext& ctx) override {
    SimpleLayer::init(ctx);
    checkInputCount(2, 2);
    na_ = inputs_[0]->size();
    nb_ = inputs_[1]->size();
    PADDLE_ENFORCE(weight(0) && weight(0)->size() == na_ * nb_ * size_, ConfigError,
                   "inputs[0].input_parameter_name: the weight needs dims [", na_, ", ", nb_, ", ", size_, "]");
    if (bias_) PADDLE_ENFORCE(bias_->size() == size_, ConfigError, "bias needs ", size_, " values");
  }
  void forward(PassType pass) override {
    const size_t rows = startForward(pass), na = na_, nb = nb_, size = size_;
    tmp_.setDevice(useGpu_);
    tmp_.resize(rows, nb);
    float* W = weight(0)->value().data();
    const float* t = tmp_.data();
    const float* b = input(1).value.data();
    float* y = output_.value.data();
    for (size_t k = 0; k < size; ++k) {
      Matrix Wk = Matrix::view(W + k * na * nb, na, nb, useGpu_);
      math::gemm(input(0).value, false, Wk, false, tmp_, 1.0f, 0.0f);  // a^T W_k for every row
      forEach(useGpu_, rows, [=] PD_HD(size_t r) {
        float s = 0;
        for (size_t j = 0; j < nb; ++j) s += t[r * nb + j] * b[r * nb + j];
        y[r * size + k] = s;
      });
    }
    if (bias_) math::addRowVector(output_.value, bias_->value());
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    const size_t rows = output_.grad.height(), na = na_, nb = nb_, size = size_;
    if (bias_ && !bias_->isStatic()) math::sumRows(output_.grad, bias_->grad());
    Parameter* w = weight(0);
    scaled_.setDevice(useGpu_);
    scaled_.resize(rows, nb);
    const float* g = output_.grad.data();
    const float* b = input(1).value.data();
    float* sc = scaled_.data();
    for (size_t k = 0; k < size; ++k) {
      // scaled = g_k * b (per row); dW_k += a^T scaled; da += scaled W_k^T; db += g_k * (a W_k)
      forEach2(useGpu_, rows, nb, [=] PD_HD(size_t r, size_t j) { sc[r * nb + j] = g[r * size + k] * b[r * nb + j]; });
      Matrix Wk = Matrix::view(w->value().data() + k * na * nb, na, nb, useGpu_);
      if (!w->isStatic()) {
        Matrix Gk = Matrix::view(w->grad().data() + k * na * nb, na, nb, useGpu_);
        math::gemm(input(0).value, true, scaled_, false, Gk, 1.0f, 1.0f);
      }
      if (!input(0).grad.empty()) math::gemm(scaled_, false, Wk, true, input(0).grad, 1.0f, 1.0f);
      if (float* gb = gradOf(1)) {
        tmp_.resize(rows, nb);
        math::gemm(input(0).value, false, Wk, false, tmp_, 1.0f, 0.0f);
        const float* t = tmp_.data();
        forEach2(useGpu_, rows, nb, [=] PD_HD(size_t r, size_t j) { gb[r * nb + j] += g[r * size + k] * t[r * nb + j]; });
      }
    }
  }

 private:
  size_t na_ = 0, nb_ = 0;
  Matrix tmp_, scaled_;
};

class ConvexCombLayer : public SimpleLayer {
 public:
  using SimpleLayer::SimpleLayer;
  void init(LayerContext& ctx) override {
    SimpleLayer::init(ctx);
    checkInputCount(2, 2);
    n_ = inputs_[0]->size();
    checkInputSize(1, n_ * size_);
  }
  void forward(PassType pass) override {
    const size_t rows = startForward(pass), n = n_, m = size_;
    const float* w = input(0).value.data();
    const float* v = input(1).value.data();
    float* y = output_.value.data();
    forEach2(useGpu_, rows, m, [=] PD_HD(size_t r, size_t j) {
      float s = 0;
      for (size_t i = 0; i < n; ++i) s += w[r * n + i] * v[(r * n + i) * m + j];
      y[r * m + j] = s;
    });
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    const size_t rows = output_.grad.height(), n = n_, m = size_;
    const float* w = input(0).value.data();
    const float* v = input(1).value.data();
    const float* g = output_.grad.data();
    if (float* gw = gradOf(0)) {
      forEach(useGpu_, rows * n, [=] PD_HD(size_t ri) {
        const float* gr = g + (ri / n) * m;
        float s = 0;
        for (size_t j = 0; j < m; ++j) s += gr[j] * v[ri * m + j];
        gw[ri] += s;
      });
    }
    if (float* gv = gradOf(1))
      forEach2(useGpu_, rows * n, m, [=] PD_HD(size_t ri, size_t j) { gv[ri * m + j] += w[ri] * g[(ri / n) * m + j]; });
  }

 private:
  size_t n_ = 0;
};

class ConvShiftLayer : public SimpleLayer {
 public:
  using SimpleLayer::SimpleLayer;
  void init(LayerContext& ctx) override {
    SimpleLayer::init(ctx);
    checkInputCount(2, 2);
    checkInputSize(0, size_);
    k_ = inputs_[1]->size();
    PADDLE_ENFORCE(k_ % 2 == 1 && k_ <= size_, ConfigError, "the kernel input '", inputs_[1]->name(),
                   "' must have an odd size no larger than ", size_, ", got ", k_);
  }
  void forward(PassType pass) override {
    const size_t rows = startForward(pass), kw = k_;
    const int half = static_cast<int>(k_ - 1) / 2, n = static_cast<int>(size_);
    const float* a = input(0).value.data();
    const float* b = input(1).value.data();
    float* y = output_.value.data();
    forEach2(useGpu_, rows, size_, [=] PD_HD(size_t r, size_t jj) {
      const float* ar = a + r * n;
      const float* br = b + r * kw;
      const int j = static_cast<int>(jj);
      float s = 0;
      for (int k = -half; k <= half; ++k) s += ar[((j + k) % n + n) % n] * br[k + half];
      y[r * n + j] = s;
    });
    forwardActivation();
  }
  // Gather form of y[j] = sum_k a[j + k] b[k]: da[m] = sum_k g[m - k] b[k], db[k] = sum_j g[j] a[j + k]
  // (indices mod n).
  void backward() override {
    backwardActivation();
    const size_t rows = output_.grad.height(), kw = k_;
    const int half = static_cast<int>(k_ - 1) / 2, n = static_cast<int>(size_);
    const float* a = input(0).value.data();
    const float* b = input(1).value.data();
    const float* g = output_.grad.data();
    if (float* ga = gradOf(0)) {
      forEach2(useGpu_, rows, size_, [=] PD_HD(size_t r, size_t mm) {
        const float* gr = g + r * n;
        const float* br = b + r * kw;
        const int m = static_cast<int>(mm);
        float s = 0;
        for (int k = -half; k <= half; ++k) s += gr[((m - k) % n + n) % n] * br[k + half];
        ga[r * n + m] += s;
      });
    }
    if (float* gb = gradOf(1)) {
      forEach2(useGpu_, rows, kw, [=] PD_HD(size_t r, size_t kk) {
        const float* gr = g + r * n;
        const float* ar = a + r * n;
        const int k = static_cast<int>(kk) - half;
        float s = 0;
        for (int j = 0; j < n; ++j) s += gr[j] * ar[((j + k) % n + n) % n];
        gb[r * kw + kk] += s;
      });
    }
  }

 private:
  size_t k_ = 1;
};

class FeatureMapExpandLayer : public SimpleLayer {
 public:
  using SimpleLayer::SimpleLayer;
  void init(LayerContext& ctx) override {
    SimpleLayer::init(ctx);
    checkInputCount(1, 1);
    copies_ = static_cast<size_t>(config_.getInt("num_filters"));
    PADDLE_ENFORCE(copies_ > 0 && size_ == copies_ * inputs_[0]->size(), ConfigError, "num_filters ", copies_,
                   " times the input size ", inputs_[0]->size(), " should equal the size ", size_);
  }
  void forward(PassType pass) override {
    const size_t rows = startForward(pass), n = inputs_[0]->size(), size = size_;
    const float* x = input(0).value.data();
    float* y = output_.value.data();
    forEach2(useGpu_, rows, size, [=] PD_HD(size_t r, size_t c) { y[r * size + c] = x[r * n + c % n]; });
    output_.shareSequenceOf(input(0));
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    float* gx = gradOf(0);
    if (!gx) return;
    const size_t n = inputs_[0]->size(), size = size_, copies = copies_;
    const float* g = output_.grad.data();
    forEach2(useGpu_, output_.grad.height(), n, [=] PD_HD(size_t r, size_t j) {
      float s = gx[r * n + j];
      for (size_t c = 0; c < copies; ++c) s += g[r * size + c * n + j];
      gx[r * n + j] = s;
    });
  }

 private:
  size_t copies_ = 1;
};

// maxid / sampling_id: no gradient flows back.
class IdLayerBase : public SimpleLayer {
 public:
  using SimpleLayer::SimpleLayer;
  void init(LayerContext& ctx) override {
    SimpleLayer::init(ctx);
    checkInputCount(1, 1);
  }
  void backward() override {}

 protected:
  // Output [rows, 1] and ids [rows], on the layer's device.
  size_t startIdForward(PassType pass) {
    const size_t rows = startForward(pass, 1);
    output_.ids.setDevice(useGpu_);
    output_.ids.resize(1, rows);
    return rows;
  }
};

class MaxIdLayer : public IdLayerBase {
 public:
  using IdLayerBase::IdLayerBase;
  void forward(PassType pass) override {
    const size_t rows = startIdForward(pass), w = inputs_[0]->size();
    const float* x = input(0).value.data();
    int* ids = output_.ids.data();
    float* y = output_.value.data();
    forEach(useGpu_, rows, [=] PD_HD(size_t r) {
      const float* xr = x + r * w;
      size_t best = 0;
      for (size_t j = 1; j < w; ++j)
        if (xr[j] > xr[best]) best = j;
      ids[r] = static_cast<int>(best);
      y[r] = xr[best];
    });
    output_.in = output_.value;  // v1 kept the chosen probabilities in `in` (getLayerOutputs' 'prob')
    output_.shareSequenceOf(input(0));
  }
};

// The uniform draws come from the host generator (one per row, in row order) and are
// copied to the device; each row's pick runs in the kernel.
class SamplingIdLayer : public IdLayerBase {
 public:
  using IdLayerBase::IdLayerBase;
  void forward(PassType pass) override {
    const size_t rows = startIdForward(pass), w = inputs_[0]->size();
    std::uniform_real_distribution<double> u(0.0, 1.0);
    hostDraws_.resize(rows);
    for (double& d : hostDraws_) d = u(*rng_);
    draws_.setDevice(useGpu_);
    draws_.copyFromHost(hostDraws_.data(), 1, rows);
    const double* draw = draws_.data();
    const float* x = input(0).value.data();
    int* ids = output_.ids.data();
    float* y = output_.value.data();
    int* bad = badRow_.reset(useGpu_);
    forEach(useGpu_, rows, [=] PD_HD(size_t r) {
      const float* p = x + r * w;
      double total = 0;
      bool negative = false;
      for (size_t j = 0; j < w; ++j) {
        negative = negative || !(p[j] >= 0);
        total += p[j];
      }
      size_t pick = w - 1;
      if (negative || !(total > 0)) {
        flagRow(bad, static_cast<int>(r));
      } else {
        const double t = draw[r] * total;
        double acc = 0;
        for (size_t j = 0; j < w; ++j) {
          acc += p[j];
          if (t < acc) {
            pick = j;
            break;
          }
        }
      }
      ids[r] = static_cast<int>(pick);
      y[r] = static_cast<float>(pick);
    });
    const int r = badRow_.first();
    if (r >= 0) {
      const std::vector<float> p = hostRow(input(0).value, r);
      const bool negative = std::any_of(p.begin(), p.end(), [](float v) { return !(v >= 0); });
      throw DataError(str("layer '", name_, "': sample ", r,
                          negative ? " has a negative probability" : " has no probability mass"));
    }
    output_.shareSequenceOf(input(0));
  }

 private:
  std::vector<double> hostDraws_;
  DenseBuffer<double> draws_;
  RowFlag badRow_;
};
}  // namespace

REGISTER_LAYER("slope_intercept", SlopeInterceptLayer);
REGISTER_LAYER("clip", ClipLayer);
REGISTER_LAYER("scaling", ScalingLayer);
REGISTER_LAYER("power", PowerLayer);
REGISTER_LAYER("interpolation", InterpolationLayer);
REGISTER_LAYER("cos", CosSimLayer);
REGISTER_LAYER("cos_vm", CosSimLayer);
REGISTER_LAYER("sum_to_one_norm", SumToOneNormLayer);
REGISTER_LAYER("trans", TransLayer);
REGISTER_LAYER("out_prod", OuterProdLayer);
REGISTER_LAYER("tensor", TensorLayer);
REGISTER_LAYER("convex_comb", ConvexCombLayer);
REGISTER_LAYER("linear_comb", ConvexCombLayer);
REGISTER_LAYER("conv_shift", ConvShiftLayer);
REGISTER_LAYER("featmap_expand", FeatureMapExpandLayer);
REGISTER_LAYER("maxid", MaxIdLayer);
REGISTER_LAYER("sampling_id", SamplingIdLayer);

}  // namespace paddle
