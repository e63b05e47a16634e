#include "Evaluator.h"

#include <algorithm>
#include <sstream>

#include "../layers/Errors.h"

namespace paddle {

Evaluator::Evaluator(const Json& config)
    : config_(config),
      name_(config.getString("name", "")),
      type_(config.getString("type", "")),
      inputs_(config.getStrings("input_layers")) {}

Argument& Evaluator::inputArg(const GradientMachine& gm, size_t i) const {
  return gm.layer(inputs_.at(i))->output();
}

std::string Evaluator::toString() const {
  std::ostringstream os;
  os << name_ << "=" << value();
  return os.str();
}

namespace {

// "classification_error": a sample is wrong when its label is not among the
// top_k scores (binary width-1 outputs compare with classification_threshold).
class ClassificationError : public Evaluator {
 public:
  explicit ClassificationError(const Json& c)
      : Evaluator(c),
        topK_(static_cast<size_t>(c.getInt("top_k", 1))),
        threshold_(static_cast<float>(c.getDouble("classification_threshold", 0.5))) {
    PADDLE_ENFORCE(inputs_.size() == 2 || inputs_.size() == 3, ConfigError, "evaluator '", name_,
                   "' needs [output, label] or [output, label, weight] inputs");
  }

  void eval(const GradientMachine& gm) override {
    const Argument& out = inputArg(gm, 0);
    const Argument& label = inputArg(gm, 1);
    const float* weight = inputs_.size() == 3 ? inputArg(gm, 2).value.data() : nullptr;
    const size_t rows = out.value.height(), w = out.value.width();
    PADDLE_ENFORCE(!out.value.useGpu(), UnsupportedError, "evaluator '", name_, "' is CPU-only for now");
    PADDLE_ENFORCE(label.ids.size() == rows, DataError, "evaluator '", name_, "': ", label.ids.size(),
                   " labels for ", rows, " predictions");
    const int* ids = label.ids.data();
    for (size_t i = 0; i < rows; ++i) {
      const float* x = out.value.row(i);
      bool wrong;
      if (w == 1) {
        wrong = (x[0] > threshold_ ? 1 : 0) != ids[i];
      } else {
        // rank of the label's score: count the classes scoring strictly higher
        size_t higher = 0;
        for (size_t j = 0; j < w; ++j) higher += x[j] > x[ids[i]];
        wrong = higher >= topK_;
      }
      double wt = weight ? weight[i] : 1.0;
      numerator_ += wrong ? wt : 0.0;
      denominator_ += wt;
    }
  }

 private:
  size_t topK_;
  float threshold_;
};

}  // namespace

std::unique_ptr<Evaluator> Evaluator::create(const Json& config, const GradientMachine& gm) {
  std::string type = config.getString("type", "");
  std::string name = config.getString("name", "");
  for (const std::string& in : config.getStrings("input_layers")) {
    try {
      gm.layer(in);
    } catch (const ConfigError&) {
      throw ConfigError(str("evaluator '", name, "': input layer '", in, "' does not exist"));
    }
  }
  if (type == "classification_error") return std::unique_ptr<Evaluator>(new ClassificationError(config));
  throw ConfigError(str("evaluator '", name, "': unknown type '", type, "' (known: classification_error)"));
}

}  // namespace paddle
