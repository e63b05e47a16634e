// Layers that move or show data without computing on it (CPU and GPU alike: no kernels):
//   "get_output": exposes a secondary output of its input layer (inputs[0].input_layer_argument,
//                 e.g. "state"; see Layer::publishOutput) as a layer; its value aliases the
//                 published one and its gradient is added back in backward.
//   "print":      writes each input (value, ids, sequence starts) to stderr at every forward
//                 (v1 PrintLayer); outputs nothing.
#include <iostream>
#include <sstream>
#include <vector>

#include "engine/Errors.h"
#include "engine/math/MathOps.h"
#include "layers/Layer.h"

namespace paddle {

namespace {

std::string joinNames(const std::vector<std::string>& names) {
  std::string s;
  for (auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

class GetOutputLayer : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    checkInputCount(1, 1);
    argName_ = config_["inputs"].items()[0].getString("input_layer_argument");
    PADDLE_ENFORCE(!argName_.empty(), ConfigError, "get_output layer '", name_,
                   "' needs inputs[0].input_layer_argument (the output name, e.g. 'state')");
    src_ = inputs_[0]->findOutput(argName_);
    PADDLE_ENFORCE(src_, ConfigError, "get_output layer '", name_, "': input layer '", inputs_[0]->name(),
                   "' (type ", inputs_[0]->type(), ") has no output '", argName_, "' (it has: ",
                   joinNames(inputs_[0]->outputNames()), ")");
    PADDLE_ENFORCE(activation_->isLinear() && dropRate_ == 0, ConfigError, "get_output layer '", name_,
                   "' takes no activation or dropout (active_type '", activation_->type(), "')");
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = *src_;
    PADDLE_ENFORCE(in.value.width() == size_ || in.value.empty(), DataError, "get_output layer '", name_,
                   "': output '", argName_, "' of '", inputs_[0]->name(), "' is ", shapeStr(in.value),
                   ", expected width ", size_);
    output_.value = in.value;  // alias: no copy
    output_.ids = in.ids;
    output_.seqStarts = in.seqStarts;
    output_.subSeqStarts = in.subSeqStarts;
    output_.frameHeight = in.frameHeight;
    output_.frameWidth = in.frameWidth;
    if (pass_ == PASS_TRAIN || pass_ == PASS_GC) {
      output_.grad.setDevice(useGpu_);
      output_.grad.resize(in.value.height(), in.value.width());
      output_.grad.zero();
    }
  }

  void backward() override {
    Argument& in = *src_;
    if (in.grad.empty() || output_.grad.empty()) return;
    math::axpby(1.0f, output_.grad, 1.0f, in.grad);
  }

 private:
  std::string argName_;
  Argument* src_ = nullptr;
};

class PrintLayer : public Layer {
 public:
  using Layer::Layer;

  void forward(PassType pass) override {
    pass_ = pass;
    for (size_t k = 0; k < inputs_.size(); ++k) {
      const Argument& a = input(k);
      std::ostringstream os;
      os << "layer=" << inputs_[k]->name();
      if (!a.value.empty()) {
        std::vector<float> v(a.value.size());
        a.value.copyToHost(v.data());
        os << " value (" << a.value.height() << "x" << a.value.width() << "):\n";
        for (size_t i = 0; i < a.value.height(); ++i)
          for (size_t j = 0; j < a.value.width(); ++j)
            os << v[i * a.value.width() + j] << (j + 1 < a.value.width() ? " " : "\n");
      }
      if (!a.ids.empty()) {
        std::vector<int> ids(a.ids.size());
        a.ids.copyToHost(ids.data());
        os << " ids:";
        for (int id : ids) os << " " << id;
        os << "\n";
      }
      if (a.hasSeq()) {
        os << " sequence starts:";
        for (size_t i = 0; i < a.seqStarts.size(); ++i) os << " " << a.seqStarts.data()[i];
        os << "\n";
      }
      if (a.value.empty() && a.ids.empty()) os << " (empty)\n";
      std::cerr << os.str();
    }
  }
  void backward() override {}
};

}  // namespace

REGISTER_LAYER("get_output", GetOutputLayer);
REGISTER_LAYER("print", PrintLayer);

}  // namespace paddle
