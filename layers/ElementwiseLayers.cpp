// Element-wise and small per-sample layers (CPU):
//   slope_intercept  y = slope * x + intercept
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
#include <cmath>
#include <random>

#include "Errors.h"
#include "Layer.h"
#include "math/MathOps.h"

namespace paddle {

namespace {
// Common shape of these layers: checks every dense input has the batch's rows.
class SimpleLayer : public Layer {
 public:
  using Layer::Layer;
  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    requireCpu();
  }

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
  float* gradOf(size_t i, size_t row) {
    Matrix& g = input(i).grad;
    return g.empty() ? nullptr : g.row(row);
  }
};

class SlopeInterceptLayer : public SimpleLayer {
 public:
  using SimpleLayer::SimpleLayer;
  void init(LayerContext& ctx) override {
    SimpleLayer::init(ctx);
    checkInputCount(1, 1);
    checkInputSize(0, size_);
    slope_ = static_cast<float>(config_.getDouble("slope", 1.0));
    intercept_ = static_cast<float>(config_.getDouble("intercept", 0.0));
  }
  void forward(PassType pass) override {
    startForward(pass);
    const float* __restrict x = input(0).value.data();
    float* __restrict y = output_.value.data();
    for (size_t i = 0, n = output_.value.size(); i < n; ++i) y[i] = slope_ * x[i] + intercept_;
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
    size_t rows = startForward(pass);
    for (size_t r = 0; r < rows; ++r) {
      const float w = input(0).value.row(r)[0];
      const float* __restrict x = input(1).value.row(r);
      float* __restrict y = output_.value.row(r);
      for (size_t j = 0; j < size_; ++j) y[j] = w * x[j];
    }
    output_.shareSequenceOf(input(1));
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    for (size_t r = 0; r < output_.grad.height(); ++r) {
      const float* g = output_.grad.row(r);
      const float* x = input(1).value.row(r);
      const float w = input(0).value.row(r)[0];
      if (float* gw = gradOf(0, r)) {
        float s = 0;
        for (size_t j = 0; j < size_; ++j) s += g[j] * x[j];
        gw[0] += s;
      }
      if (float* gx = gradOf(1, r))
        for (size_t j = 0; j < size_; ++j) gx[j] += w * g[j];
    }
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
    size_t rows = startForward(pass);
    for (size_t r = 0; r < rows; ++r) {
      const float w = input(0).value.row(r)[0];
      const float* x = input(1).value.row(r);
      float* y = output_.value.row(r);
      for (size_t j = 0; j < size_; ++j) y[j] = std::pow(x[j], w);
    }
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    for (size_t r = 0; r < output_.grad.height(); ++r) {
      const float* g = output_.grad.row(r);
      const float* x = input(1).value.row(r);
      const float* y = output_.value.row(r);
      const float w = input(0).value.row(r)[0];
      if (float* gw = gradOf(0, r)) {
        float s = 0;
        for (size_t j = 0; j < size_; ++j) if (x[j] > 0) s += g[j] * y[j] * std::log(x[j]);
        gw[0] += s;
      }
      if (float* gx = gradOf(1, r))
        for (size_t j = 0; j < size_; ++j) gx[j] += g[j] * w * std::pow(x[j], w - 1);
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
    size_t rows = startForward(pass);
    for (size_t r = 0; r < rows; ++r) {
      const float w = input(0).value.row(r)[0];
      const float* __restrict a = input(1).value.row(r);
      const float* __restrict b = input(2).value.row(r);
      float* __restrict y = output_.value.row(r);
      for (size_t j = 0; j < size_; ++j) y[j] = w * a[j] + (1 - w) * b[j];
    }
    output_.shareSequenceOf(input(1));
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    for (size_t r = 0; r < output_.grad.height(); ++r) {
      const float* g = output_.grad.row(r);
      const float* a = input(1).value.row(r);
      const float* b = input(2).value.row(r);
      const float w = input(0).value.row(r)[0];
      if (float* gw = gradOf(0, r)) {
        float s = 0;
        for (size_t j = 0; j < size_; ++j) s += g[j] * (a[j] - b[j]);
        gw[0] += s;
      }
      if (float* ga = gradOf(1, r)) for (size_t j = 0; j < size_; ++j) ga[j] += w * g[j];
      if (float* gb = gradOf(2, r)) for (size_t j = 0; j < size_; ++j) gb[j] += (1 - w) * g[j];
    }
  }
};

// cos and cos_vm: out[k] = scale * <a, b_k> / (|a| |b_k|), b_k the k-th chunk of |a| values.
class CosSimLayer : public SimpleLayer {
 public:
  using SimpleLayer::SimpleLayer;
  void init(LayerContext& ctx) override {
    SimpleLayer::init(ctx);
    checkInputCount(2, 2);
    scale_ = static_cast<float>(config_.getDouble("cos_scale", 1.0));
    dim_ = inputs_[0]->size();
    if (type_ == "cos") {
      PADDLE_ENFORCE(size_ == 1, ConfigError, "cos layer has size ", size_, ", expected 1");
      checkInputSize(1, dim_);
    } else {
      checkInputSize(1, dim_ * size_);
    }
  }
  void forward(PassType pass) override {
    size_t rows = startForward(pass);
    for (size_t r = 0; r < rows; ++r) {
      const float* a = input(0).value.row(r);
      float* y = output_.value.row(r);
      for (size_t k = 0; k < size_; ++k) {
        const float* b = input(1).value.row(r) + k * dim_;
        double ab = 0, aa = 0, bb = 0;
        for (size_t j = 0; j < dim_; ++j) ab += a[j] * b[j], aa += a[j] * a[j], bb += b[j] * b[j];
        y[k] = static_cast<float>(scale_ * ab / std::sqrt(std::max(aa * bb, 1e-20)));
      }
    }
    forwardActivation();
  }
  // d cos / da = b / (|a||b|) - cos * a / |a|^2
  void backward() override {
    backwardActivation();
    for (size_t r = 0; r < output_.grad.height(); ++r) {
      const float* a = input(0).value.row(r);
      float* ga = gradOf(0, r);
      float* gbRow = gradOf(1, r);
      for (size_t k = 0; k < size_; ++k) {
        const float* b = input(1).value.row(r) + k * dim_;
        double aa = 0, bb = 0;
        for (size_t j = 0; j < dim_; ++j) aa += a[j] * a[j], bb += b[j] * b[j];
        aa = std::max(aa, 1e-10);
        bb = std::max(bb, 1e-10);
        const double y = output_.value.row(r)[k], g = output_.grad.row(r)[k];
        const double inv = scale_ / std::sqrt(aa * bb);
        if (ga) for (size_t j = 0; j < dim_; ++j) ga[j] += static_cast<float>(g * (b[j] * inv - y * a[j] / aa));
        if (gbRow) {
          float* gb = gbRow + k * dim_;
          for (size_t j = 0; j < dim_; ++j) gb[j] += static_cast<float>(g * (a[j] * inv - y * b[j] / bb));
        }
      }
    }
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
    size_t rows = startForward(pass);
    sums_.resize(rows, 1);
    for (size_t r = 0; r < rows; ++r) {
      const float* x = input(0).value.row(r);
      double s = 0;
      for (size_t j = 0; j < size_; ++j) s += x[j];
      PADDLE_ENFORCE(s != 0, DataError, "layer '", name_, "': sample ", r, " sums to 0");
      sums_.data()[r] = static_cast<float>(s);
      float* y = output_.value.row(r);
      for (size_t j = 0; j < size_; ++j) y[j] = static_cast<float>(x[j] / s);
    }
    output_.shareSequenceOf(input(0));
    forwardActivation();
  }
  // dx_j = (g_j - <g, y>) / s
  void backward() override {
    backwardActivation();
    for (size_t r = 0; r < output_.grad.height(); ++r) {
      float* gx = gradOf(0, r);
      if (!gx) return;
      const float* g = output_.grad.row(r);
      const float* y = output_.value.row(r);
      double dot = 0;
      for (size_t j = 0; j < size_; ++j) dot += g[j] * y[j];
      const float s = sums_.data()[r];
      for (size_t j = 0; j < size_; ++j) gx[j] += static_cast<float>((g[j] - dot) / s);
    }
  }

 private:
  Matrix sums_;
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
    resetOutput(x.width(), x.height());
    for (size_t i = 0; i < x.height(); ++i)
      for (size_t j = 0; j < x.width(); ++j) output_.value.row(j)[i] = x.row(i)[j];
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    Matrix& gx = input(0).grad;
    if (gx.empty()) return;
    for (size_t i = 0; i < gx.height(); ++i)
      for (size_t j = 0; j < gx.width(); ++j) gx.row(i)[j] += output_.grad.row(j)[i];
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
  void forward(PassType pass) override {
    size_t rows = startForward(pass);
    const size_t na = inputs_[0]->size(), nb = inputs_[1]->size();
    for (size_t r = 0; r < rows; ++r) {
      const float* a = input(0).value.row(r);
      const float* b = input(1).value.row(r);
      float* y = output_.value.row(r);
      for (size_t i = 0; i < na; ++i)
        for (size_t j = 0; j < nb; ++j) y[i * nb + j] = a[i] * b[j];
    }
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    const size_t na = inputs_[0]->size(), nb = inputs_[1]->size();
    for (size_t r = 0; r < output_.grad.height(); ++r) {
      const float* a = input(0).value.row(r);
      const float* b = input(1).value.row(r);
      const float* g = output_.grad.row(r);
      float* ga = gradOf(0, r);
      float* gb = gradOf(1, r);
      for (size_t i = 0; i < na; ++i)
        for (size_t j = 0; j < nb; ++j) {
          if (ga) ga[i] += g[i * nb + j] * b[j];
          if (gb) gb[j] += g[i * nb + j] * a[i];
        }
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
    size_t rows = startForward(pass);
    tmp_.resize(rows, nb_);
    const float* W = weight(0)->value().data();
    for (size_t k = 0; k < size_; ++k) {
      Matrix Wk = Matrix::view(const_cast<float*>(W) + k * na_ * nb_, na_, nb_, false);
      math::gemm(input(0).value, false, Wk, false, tmp_, 1.0f, 0.0f);  // a^T W_k for every row
      for (size_t r = 0; r < rows; ++r) {
        const float* t = tmp_.row(r);
        const float* b = input(1).value.row(r);
        float s = 0;
        for (size_t j = 0; j < nb_; ++j) s += t[j] * b[j];
        output_.value.row(r)[k] = s;
      }
    }
    if (bias_) math::addRowVector(output_.value, bias_->value());
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    const size_t rows = output_.grad.height();
    if (bias_ && !bias_->isStatic()) math::sumRows(output_.grad, bias_->grad());
    Parameter* w = weight(0);
    scaled_.resize(rows, nb_);
    for (size_t k = 0; k < size_; ++k) {
      // scaled = g_k * b (per row); dW_k += a^T scaled; da += scaled W_k^T; db += g_k * (a W_k)
      for (size_t r = 0; r < rows; ++r) {
        const float gk = output_.grad.row(r)[k];
        const float* b = input(1).value.row(r);
        float* s = scaled_.row(r);
        for (size_t j = 0; j < nb_; ++j) s[j] = gk * b[j];
      }
      Matrix Wk = Matrix::view(w->value().data() + k * na_ * nb_, na_, nb_, false);
      if (!w->isStatic()) {
        Matrix Gk = Matrix::view(w->grad().data() + k * na_ * nb_, na_, nb_, false);
        math::gemm(input(0).value, true, scaled_, false, Gk, 1.0f, 1.0f);
      }
      if (!input(0).grad.empty()) math::gemm(scaled_, false, Wk, true, input(0).grad, 1.0f, 1.0f);
      if (!input(1).grad.empty()) {
        tmp_.resize(rows, nb_);
        math::gemm(input(0).value, false, Wk, false, tmp_, 1.0f, 0.0f);
        for (size_t r = 0; r < rows; ++r) {
          const float gk = output_.grad.row(r)[k];
          const float* t = tmp_.row(r);
          float* gb = input(1).grad.row(r);
          for (size_t j = 0; j < nb_; ++j) gb[j] += gk * t[j];
        }
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
    size_t rows = startForward(pass);
    for (size_t r = 0; r < rows; ++r) {
      const float* w = input(0).value.row(r);
      const float* v = input(1).value.row(r);
      float* y = output_.value.row(r);
      for (size_t j = 0; j < size_; ++j) y[j] = 0;
      for (size_t i = 0; i < n_; ++i)
        for (size_t j = 0; j < size_; ++j) y[j] += w[i] * v[i * size_ + j];
    }
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    for (size_t r = 0; r < output_.grad.height(); ++r) {
      const float* w = input(0).value.row(r);
      const float* v = input(1).value.row(r);
      const float* g = output_.grad.row(r);
      float* gw = gradOf(0, r);
      float* gv = gradOf(1, r);
      for (size_t i = 0; i < n_; ++i) {
        float s = 0;
        for (size_t j = 0; j < size_; ++j) {
          s += g[j] * v[i * size_ + j];
          if (gv) gv[i * size_ + j] += w[i] * g[j];
        }
        if (gw) gw[i] += s;
      }
    }
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
    size_t rows = startForward(pass);
    const int half = static_cast<int>(k_ - 1) / 2, n = static_cast<int>(size_);
    for (size_t r = 0; r < rows; ++r) {
      const float* a = input(0).value.row(r);
      const float* b = input(1).value.row(r);
      float* y = output_.value.row(r);
      for (int j = 0; j < n; ++j) {
        float s = 0;
        for (int k = -half; k <= half; ++k) s += a[((j + k) % n + n) % n] * b[k + half];
        y[j] = s;
      }
    }
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    const int half = static_cast<int>(k_ - 1) / 2, n = static_cast<int>(size_);
    for (size_t r = 0; r < output_.grad.height(); ++r) {
      const float* a = input(0).value.row(r);
      const float* b = input(1).value.row(r);
      const float* g = output_.grad.row(r);
      float* ga = gradOf(0, r);
      float* gb = gradOf(1, r);
      for (int j = 0; j < n; ++j)
        for (int k = -half; k <= half; ++k) {
          int at = ((j + k) % n + n) % n;
          if (ga) ga[at] += g[j] * b[k + half];
          if (gb) gb[k + half] += g[j] * a[at];
        }
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
    copies_ = static_cast<size_t>(config_.getInt("num_filters", 0));
    PADDLE_ENFORCE(copies_ > 0 && size_ == copies_ * inputs_[0]->size(), ConfigError, "num_filters ", copies_,
                   " times the input size ", inputs_[0]->size(), " should equal the size ", size_);
  }
  void forward(PassType pass) override {
    size_t rows = startForward(pass);
    const size_t n = inputs_[0]->size();
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < copies_; ++c) std::copy(input(0).value.row(r), input(0).value.row(r) + n,
                                                    output_.value.row(r) + c * n);
    output_.shareSequenceOf(input(0));
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    const size_t n = inputs_[0]->size();
    for (size_t r = 0; r < output_.grad.height(); ++r) {
      float* gx = gradOf(0, r);
      if (!gx) return;
      for (size_t c = 0; c < copies_; ++c) {
        const float* g = output_.grad.row(r) + c * n;
        for (size_t j = 0; j < n; ++j) gx[j] += g[j];
      }
    }
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
};

class MaxIdLayer : public IdLayerBase {
 public:
  using IdLayerBase::IdLayerBase;
  void forward(PassType pass) override {
    size_t rows = startForward(pass, 1);
    output_.ids.resize(1, rows);
    const size_t w = inputs_[0]->size();
    for (size_t r = 0; r < rows; ++r) {
      const float* x = input(0).value.row(r);
      size_t best = 0;
      for (size_t j = 1; j < w; ++j) if (x[j] > x[best]) best = j;
      output_.ids.data()[r] = static_cast<int>(best);
      output_.value.row(r)[0] = x[best];
    }
    output_.shareSequenceOf(input(0));
  }
};

class SamplingIdLayer : public IdLayerBase {
 public:
  using IdLayerBase::IdLayerBase;
  void forward(PassType pass) override {
    size_t rows = startForward(pass, 1);
    output_.ids.resize(1, rows);
    const size_t w = inputs_[0]->size();
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (size_t r = 0; r < rows; ++r) {
      const float* p = input(0).value.row(r);
      double total = 0;
      for (size_t j = 0; j < w; ++j) {
        PADDLE_ENFORCE(p[j] >= 0, DataError, "layer '", name_, "': sample ", r, " has a negative probability");
        total += p[j];
      }
      PADDLE_ENFORCE(total > 0, DataError, "layer '", name_, "': sample ", r, " has no probability mass");
      double t = u(*rng_) * total, acc = 0;
      size_t pick = w - 1;
      for (size_t j = 0; j < w; ++j) {
        acc += p[j];
        if (t < acc) {
          pick = j;
          break;
        }
      }
      output_.ids.data()[r] = static_cast<int>(pick);
      output_.value.row(r)[0] = static_cast<float>(pick);
    }
    output_.shareSequenceOf(input(0));
  }
};
}  // namespace

REGISTER_LAYER("slope_intercept", SlopeInterceptLayer);
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
