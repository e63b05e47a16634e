// v1's validation layers: evaluators in the shape of layers.
//   "auc-validation":    inputs (output, label[, weight]); the area under the ROC curve of
//                        the output's last column against labels > 0.
//   "pnpair-validation": inputs (output, label, query id[, weight]); the ratio of correctly to
//                        wrongly ordered pairs of differently labelled samples of one query.
// Nothing flows through them: forward leaves the output empty and backward sends no gradient.
// The statistic itself is an evaluator's (trainer/Evaluator.cpp gives each such layer of the
// root network a last-column-auc / pnpair evaluator named after it), so it covers a whole
// pass and is reported where the evaluators' results are (the "Eval:" part of the log lines).
#include "layers/Layer.h"

namespace paddle {

namespace {

class ValidationLayer : public Layer {
 public:
  ValidationLayer(const Json& config, size_t idInputs) : Layer(config), idInputs_(idInputs) {}

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    // the output, then the id inputs (label, query id), then an optional weight
    checkInputCount(1 + idInputs_, 2 + idInputs_);
    if (inputs_.size() == 2 + idInputs_) checkInputSize(1 + idInputs_, 1);
  }

  void forward(PassType pass) override { pass_ = pass; }
  void backward() override {}

 private:
  size_t idInputs_;
};

class AucValidation : public ValidationLayer {
 public:
  explicit AucValidation(const Json& config) : ValidationLayer(config, 1) {}
};

class PnpairValidation : public ValidationLayer {
 public:
  explicit PnpairValidation(const Json& config) : ValidationLayer(config, 2) {}
};

}  // namespace

REGISTER_LAYER("auc-validation", AucValidation);
REGISTER_LAYER("pnpair-validation", PnpairValidation);

}  // namespace paddle
