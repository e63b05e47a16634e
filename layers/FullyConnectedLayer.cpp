// "fc": y = act(sum_i x_i * W_i + b), W_i of shape [in_i, size]. A sparse (CSR)
// input x_i gathers and sums rows of W_i; its backward touches only those rows.
#include "Errors.h"
#include "Layer.h"
#include "math/MathOps.h"

namespace paddle {

class FullyConnectedLayer : public Layer {
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
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const Argument& in = input(i);
      PADDLE_ENFORCE(in.batchSize() == rows, DataError, "input '", inputs_[i]->name(), "' has ",
                     in.batchSize(), " rows, expected ", rows);
      if (in.value.empty() && !in.sparse.empty()) {
        weight(i)->catchUpRows(in.sparse.activeCols(), in.sparse.nnz());  // sparse_update: pending decay
        math::sparseMul(in.sparse, weight(i)->value(), output_.value, i == 0 ? 0.0f : 1.0f);
      } else {
        PADDLE_ENFORCE(!in.value.empty(), DataError, "layer '", name_, "': input '", inputs_[i]->name(),
                       "' has no dense or sparse value (ids need an embedding/table projection)");
        math::gemm(in.value, false, weight(i)->value(), false, output_.value, 1.0f, i == 0 ? 0.0f : 1.0f);
      }
    }
    if (bias_) math::addRowVector(output_.value, bias_->value());
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
        continue;  // sparse inputs are data: no input gradient
      }
      if (!w->isStatic()) math::gemm(in.value, true, g, false, w->grad(), 1.0f, 1.0f);
      if (!in.grad.empty()) math::gemm(g, false, w->value(), true, in.grad, 1.0f, 1.0f);
    }
  }
};

REGISTER_LAYER("fc", FullyConnectedLayer);

}  // namespace paddle
