// "fc": y = act(sum_i x_i * W_i + b), W_i of shape [in_i, size]. A sparse (CSR)
// input x_i gathers and sums rows of W_i; its backward touches only those rows.
// "selective_fc": y = act(sum_i x_i * W_i^T + b), W_i of shape [size, in_i] (v1 layout); with
//   has_selected_colums, the last input (dense [rows, size], nonzero = selected) picks the
//   columns each row computes: the others are 0 and get no gradient, and a softmax
//   activation normalises over the selected columns only (v1's sparse output). The CPU
//   computes just the selected entries; the GPU runs dense GEMMs and masks (the same values:
//   unselected gradients are zero).
#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/Activation.h"
#include "engine/Errors.h"
#include "engine/math/Kernel.h"
#include "engine/math/MathOps.h"
#include "layers/Layer.h"

namespace paddle {

namespace {
// m = 0 where sel is 0
void zeroUnselected(Matrix& m, const Matrix& sel) {
  if (m.empty()) return;
  const float* s = sel.data();
  float* y = m.data();
  forEach(m.useGpu(), m.size(), [=] PD_HD(size_t i) { y[i] = s[i] != 0 ? y[i] : 0.0f; });
}

// Softmax of each row over its selected columns (unselected entries are left alone).
void maskedSoftmax(Matrix& m, const Matrix& sel) {
  const size_t w = m.width();
  const float* sm = sel.data();
  float* ym = m.data();
  forEach(m.useGpu(), m.height(), [=] PD_HD(size_t r) {
    float* y = ym + r * w;
    const float* s = sm + r * w;
    float mx = -INFINITY;
    for (size_t j = 0; j < w; ++j)
      if (s[j] != 0) mx = y[j] > mx ? y[j] : mx;
    double sum = 0;
    for (size_t j = 0; j < w; ++j)
      if (s[j] != 0) sum += (y[j] = std::exp(y[j] - mx));
    for (size_t j = 0; j < w; ++j)
      if (s[j] != 0) y[j] = static_cast<float>(y[j] / sum);
  });
}

// g = y * (g - sum(y * g)) per row (unselected entries: y = g = 0)
void maskedSoftmaxBackward(const Matrix& value, Matrix& grad) {
  const size_t w = grad.width();
  const float* ym = value.data();
  float* gm = grad.data();
  forEach(grad.useGpu(), grad.height(), [=] PD_HD(size_t r) {
    const float* y = ym + r * w;
    float* g = gm + r * w;
    double dotYG = 0;
    for (size_t j = 0; j < w; ++j) dotYG += y[j] * g[j];
    for (size_t j = 0; j < w; ++j) g[j] = y[j] * (g[j] - static_cast<float>(dotYG));
  });
}
}  // namespace

class FullyConnectedLayer : public Layer, public InputGradientSetter {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    PADDLE_ENFORCE(size_ > 0, ConfigError, "fc layer needs a positive size");
    PADDLE_ENFORCE(!inputs_.empty(), ConfigError, "fc layer needs at least one input");
    for (size_t i = 0; i < inputs_.size(); ++i) {
      Parameter* w = weight(i);
      PADDLE_ENFORCE(w, ConfigError, "input ", i, " ('", inputs_[i]->name(), "') has no weight parameter");
      PADDLE_ENFORCE(w->size() == inputs_[i]->size() * size_, ConfigError, "weight '", w->name(),
                     "' has ", w->size(), " values; input '", inputs_[i]->name(), "' of size ",
                     inputs_[i]->size(), " needs ", inputs_[i]->size(), "x", size_);
      PADDLE_ENFORCE(w->value().height() == inputs_[i]->size(), ConfigError, "weight '", w->name(),
                     "' must have dims [", inputs_[i]->size(), ", ", size_, "]");
    }
    if (bias_) {
      PADDLE_ENFORCE(bias_->size() == size_, ConfigError, "bias '", bias_->name(), "' has ",
                     bias_->size(), " values, expected ", size_);
    }
  }

  void forward(PassType pass) override {
    pass_ = pass;
    size_t rows = input(0).batchSize();
    resetOutput(rows, size_);
    if (forwardFused()) return;
    // With a bias the output starts as the bias rows and every product adds to it: no pass
    // of its own for the bias, and no clearing of the output inside the first GEMM.
    if (bias_) math::addRowVector(output_.value, bias_->value(), 1.0f, 0.0f);
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const Argument& in = input(i);
      PADDLE_ENFORCE(in.batchSize() == rows, DataError, "input '", inputs_[i]->name(), "' has ",
                     in.batchSize(), " rows, expected ", rows);
      const float beta = i == 0 && !bias_ ? 0.0f : 1.0f;
      if (in.value.empty() && !in.sparse.empty()) {
        weight(i)->catchUpRows(in.sparse.activeCols(), in.sparse.nnz());  // sparse_update: pending decay
        math::sparseMul(in.sparse, weight(i)->valueRows(), output_.value, beta);
      } else {
        PADDLE_ENFORCE(!in.value.empty(), DataError, "layer '", name_, "': input '", inputs_[i]->name(),
                       "' has no dense or sparse value (ids need an embedding/table projection)");
        math::gemm(in.value, false, weight(i)->value(), false, output_.value, 1.0f, beta);
      }
    }
    // Sequence structure passes through a token-wise layer.
    output_.shareSequenceOf(input(0));
    forwardActivation();
  }

  void backward() override {
    backwardActivation();
    const Matrix& g = output_.grad;
    if (bias_ && !bias_->isStatic()) math::sumRows(g, bias_->grad());
    for (size_t i = 0; i < inputs_.size(); ++i) {
      Argument& in = input(i);
      Parameter* w = weight(i);
      if (in.value.empty() && !in.sparse.empty()) {
        if (!w->isStatic()) math::sparseTransMulAdd(in.sparse, g, w->gradRows(in.sparse.activeCols(), in.sparse.nnz()));
        if (setsInputGrad(i) && !in.grad.empty()) in.grad.zero();  // (a sparse input gets no gradient)
        continue;
      }
      if (!w->isStatic()) math::gemm(in.value, true, g, false, w->grad(), 1.0f, 1.0f);
      if (!in.grad.empty()) math::gemm(g, false, w->value(), true, in.grad, 1.0f, setsInputGrad(i) ? 0.0f : 1.0f);
    }
  }
  // A Predictor's forward of one dense input (its weight packed, math::gemmPackedBiasRelu): the
  // bias, and a relu without dropout, added while the product's tile is in registers, one pass
  // over the output instead of three. False where the product takes the usual path.
  bool forwardFused() {
    const Argument& in = input(0);
    if (inputs_.size() != 1 || useGpu_ || pass_ != PASS_TEST || in.value.empty()) return false;
    const bool relu = activation_->type() == "relu" && dropRate_ <= 0;
    if (!math::gemmPackedBiasRelu(in.value, weight(0)->value(), bias_ ? &bias_->value() : nullptr, relu,
                                  output_.value)) {
      return false;
    }
    output_.shareSequenceOf(in);
    if (!relu) forwardActivation();
    return true;
  }

  // One dense input: its gradient is one product, which can set it rather than add to it.
  bool canSetInputGradient(bool relu) const override { return !relu && inputs_.size() == 1; }
};

class SelectiveFullyConnectedLayer : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    PADDLE_ENFORCE(size_ > 0, ConfigError, "selective_fc layer '", name_, "' needs a positive size");
    selected_ = config_.getBool("has_selected_colums");
    numIn_ = inputs_.size() - (selected_ ? 1 : 0);
    PADDLE_ENFORCE(inputs_.size() >= (selected_ ? 2u : 1u), ConfigError, "selective_fc layer '", name_, "' needs ",
                   selected_ ? "at least one input and the select input (has_selected_colums)" : "an input");
    for (size_t i = 0; i < numIn_; ++i) {
      Parameter* w = weight(i);
      PADDLE_ENFORCE(w && w->size() == size_ * inputs_[i]->size() && w->value().height() == size_, ConfigError,
                     "selective_fc layer '", name_, "': input ", i, " ('", inputs_[i]->name(),
                     "') needs a weight with dims [", size_, ", ", inputs_[i]->size(), "]");
    }
    if (selected_) {
      PADDLE_ENFORCE(!weight(numIn_), ConfigError, "selective_fc layer '", name_,
                     "': the select input takes no parameter");
      checkInputSize(numIn_, size_);
      const std::string act = activation_->type();
      PADDLE_ENFORCE(act != "sequence_softmax", ConfigError, "selective_fc layer '", name_,
                     "': active_type sequence_softmax is not supported with selected columns");
      if (act == "softmax") {  // normalised over the selected columns here, not by Activation
        softmax_ = true;
        activation_.reset(new Activation(""));
      }
    }
    if (bias_) {
      PADDLE_ENFORCE(bias_->size() == size_, ConfigError, "selective_fc layer '", name_, "': bias '",
                     bias_->name(), "' has ", bias_->size(), " values, expected ", size_);
    }
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const size_t rows = input(0).batchSize();
    for (size_t i = 0; i < inputs_.size(); ++i) {
      PADDLE_ENFORCE(input(i).value.height() == rows && input(i).value.width() == inputs_[i]->size(), DataError,
                     "selective_fc layer '", name_, "': input '", inputs_[i]->name(), "' is ",
                     shapeStr(input(i).value), ", expected ", rows, "x", inputs_[i]->size());
    }
    resetOutput(rows, size_);
    if (!selected_ || useGpu_) {
      for (size_t i = 0; i < numIn_; ++i)
        math::gemm(input(i).value, false, weight(i)->value(), true, output_.value, 1.0f, i == 0 ? 0.0f : 1.0f);
      if (bias_) math::addRowVector(output_.value, bias_->value());
    } else {
      const Matrix& sel = input(numIn_).value;
      const float* b = bias_ ? bias_->value().data() : nullptr;
      for (size_t r = 0; r < rows; ++r) {
        float* y = output_.value.row(r);
        const float* m = sel.row(r);
        for (size_t j = 0; j < size_; ++j) {
          if (m[j] == 0) {
            y[j] = 0;
            continue;
          }
          float v = b ? b[j] : 0.0f;
          for (size_t i = 0; i < numIn_; ++i)
            v += dot(weight(i)->value().row(j), input(i).value.row(r), inputs_[i]->size());
          y[j] = v;
        }
      }
    }
    output_.seqStarts = input(0).seqStarts;
    output_.subSeqStarts = input(0).subSeqStarts;
    forwardActivation();
    if (selected_) {
      const Matrix& sel = input(numIn_).value;
      if (softmax_) maskedSoftmax(output_.value, sel);
      zeroUnselected(output_.value, sel);
    }
  }

  void backward() override {
    Matrix& g = output_.grad;
    if (selected_) {
      zeroUnselected(g, input(numIn_).value);
      if (softmax_) maskedSoftmaxBackward(output_.value, g);
    }
    backwardActivation();
    if (!selected_ || useGpu_) {
      if (bias_ && !bias_->isStatic()) math::sumRows(g, bias_->grad());
      for (size_t i = 0; i < numIn_; ++i) {
        Argument& in = input(i);
        Parameter* w = weight(i);
        if (!w->isStatic()) math::gemm(g, true, in.value, false, w->grad(), 1.0f, 1.0f);
        if (!in.grad.empty()) math::gemm(g, false, w->value(), false, in.grad, 1.0f, 1.0f);
      }
      return;
    }
    const Matrix& sel = input(numIn_).value;
    float* gb = bias_ && !bias_->isStatic() ? bias_->grad().data() : nullptr;
    for (size_t r = 0; r < g.height(); ++r) {
      const float* gr = g.row(r);
      const float* m = sel.row(r);
      for (size_t j = 0; j < size_; ++j) {
        if (m[j] == 0 || gr[j] == 0) continue;
        if (gb) gb[j] += gr[j];
        for (size_t i = 0; i < numIn_; ++i) {
          Argument& in = input(i);
          Parameter* w = weight(i);
          const size_t d = inputs_[i]->size();
          if (!w->isStatic()) axpy(gr[j], in.value.row(r), w->grad().row(j), d);
          if (!in.grad.empty()) axpy(gr[j], w->value().row(j), in.grad.row(r), d);
        }
      }
    }
  }

 private:
  static float dot(const float* __restrict a, const float* __restrict b, size_t n) {
    float s = 0;
    for (size_t k = 0; k < n; ++k) s += a[k] * b[k];
    return s;
  }
  static void axpy(float g, const float* __restrict x, float* __restrict y, size_t n) {
    for (size_t k = 0; k < n; ++k) y[k] += g * x[k];
  }

  bool selected_ = true, softmax_ = false;
  size_t numIn_ = 0;
};

REGISTER_LAYER("fc", FullyConnectedLayer);
REGISTER_LAYER("selective_fc", SelectiveFullyConnectedLayer);

}  // namespace paddle
