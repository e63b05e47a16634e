#include "layers/Layer.h"

#include <set>

#include "engine/Errors.h"
#include "engine/math/MathOps.h"

namespace paddle {

Layer::Layer(const Json& config)
    : config_(config),
      name_(config.getString("name")),
      type_(config.getString("type")),
      size_(static_cast<size_t>(config.getInt("size"))) {}

namespace {
thread_local math::Precision tNetworkPrecision = math::Precision::kFp32;
thread_local float tLossScale = 1;
thread_local bool tRecomputing = false;
// Layer types whose matrix products (weights times activations) may run in bf16.
const std::set<std::string> kBf16Types = {"fc",        "selective_fc", "mixed",     "exconv",
                                          "cudnn_conv", "exconvt",      "cudnn_convt", "lstmemory",
                                          "lstm_step", "gated_recurrent", "gru_step", "recurrent"};
}  // namespace

NetworkPrecisionScope::NetworkPrecisionScope(math::Precision p, float lossScale)
    : saved_(tNetworkPrecision), savedScale_(tLossScale) {
  tNetworkPrecision = p;
  tLossScale = lossScale;
}
NetworkPrecisionScope::~NetworkPrecisionScope() {
  tNetworkPrecision = saved_;
  tLossScale = savedScale_;
}
math::Precision NetworkPrecisionScope::current() { return tNetworkPrecision; }
float NetworkPrecisionScope::lossScale() { return tLossScale; }

RecomputeScope::RecomputeScope() : saved_(tRecomputing) { tRecomputing = true; }
RecomputeScope::~RecomputeScope() { tRecomputing = saved_; }
bool Layer::recomputing() { return tRecomputing; }

void Layer::releaseForwardState() {
  // a fresh (empty) buffer lets go of the memory; a view of it held elsewhere keeps it alive
  Matrix empty;
  empty.setDevice(useGpu_);  // allocates nothing
  output_.value = empty;
  output_.grad = empty;
  for (auto& kv : namedOutputs_) {
    kv.second.value = empty;
    kv.second.grad = empty;
  }
  dropMask_ = empty;
}

void Layer::emptyBuffers(std::initializer_list<Matrix*> buffers) {
  for (Matrix* m : buffers) {
    *m = Matrix();
    m->setDevice(useGpu_);
  }
}

math::Precision parsePrecision(const std::string& name) {
  if (name == "fp32") return math::Precision::kFp32;
  if (name == "bf16") return math::Precision::kBf16;
  if (name == "fp16") return math::Precision::kFp16;
  throw ConfigError(str("precision must be 'fp32', 'bf16' or 'fp16', got '", name, "'"));
}

void Layer::runForward(PassType pass) {
  math::GemmPrecisionScope scope(bf16Capable_ ? tNetworkPrecision : math::Precision::kFp32);
  forward(pass);
}

void Layer::runBackward() {
  math::GemmPrecisionScope scope(bf16Capable_ ? tNetworkPrecision : math::Precision::kFp32);
  backward();
}

Parameter* Layer::getParameter(LayerContext& ctx, const std::string& name) {
  auto it = ctx.params.find(name);
  PADDLE_ENFORCE(it != ctx.params.end(), ConfigError, "parameter '", name,
                 "' is not defined in the model config");
  Parameter* p = it->second.get();
  ownParams_.push_back(p);
  return p;
}

void Layer::init(LayerContext& ctx) {
  useGpu_ = ctx.useGpu;
  rng_ = ctx.rng;
  const std::string precision = config_.getString("precision");
  PADDLE_ENFORCE(precision.empty() || precision == "fp32", ConfigError,
                 "precision may only be 'fp32' on a layer (keeping it out of bf16), got '", precision, "'");
  bf16Capable_ = kBf16Types.count(type_) && precision.empty();
  activation_.reset(new Activation(config_.getString("active_type")));
  dropRate_ = static_cast<float>(config_.getDouble("drop_rate"));
  PADDLE_ENFORCE(dropRate_ >= 0 && dropRate_ < 1, ConfigError, "drop_rate must be in [0, 1), got ", dropRate_);
  for (const Json& in : config_["inputs"].items()) {
    std::string inName = in.getString("input_layer_name");
    auto it = ctx.layers.find(inName);
    PADDLE_ENFORCE(it != ctx.layers.end(), ConfigError, "input layer '", inName,
                   "' is not defined before this layer");
    inputs_.push_back(it->second);
    std::string pname = in.getString("input_parameter_name");
    weights_.push_back(pname.empty() ? nullptr : getParameter(ctx, pname));
  }
  std::string biasName = config_.getString("bias_parameter_name");
  if (!biasName.empty()) bias_ = getParameter(ctx, biasName);
}

void Layer::checkInputCount(size_t lo, size_t hi) {
  PADDLE_ENFORCE(inputs_.size() >= lo && inputs_.size() <= hi, ConfigError, "expects ",
                 lo == hi ? str(lo) : str(lo, " to ", hi), " inputs, got ", inputs_.size());
}

const Json& Layer::inputConf(size_t i, const std::string& field) const {
  const Json& c = config_["inputs"][i][field];
  PADDLE_ENFORCE(!c.isNull(), ConfigError, "inputs[", i, "] has no ", field);
  return c;
}

void Layer::checkInputSize(size_t i, size_t expected) {
  PADDLE_ENFORCE(inputs_[i]->size() == expected, ConfigError, "input ", i, " ('", inputs_[i]->name(),
                 "') has size ", inputs_[i]->size(), ", expected ", expected);
}

Argument* Layer::findOutput(const std::string& name) {
  if (name.empty() || name == "default") return &output_;
  auto it = namedOutputs_.find(name);
  return it == namedOutputs_.end() ? nullptr : &it->second;
}

std::vector<std::string> Layer::outputNames() const {
  std::vector<std::string> names{"default"};
  for (auto& kv : namedOutputs_) names.push_back(kv.first);
  return names;
}

Argument& Layer::publishOutput(const std::string& name) {
  PADDLE_ENFORCE(!name.empty() && name != "default", ConfigError, "layer '", name_,
                 "': a secondary output needs a name other than 'default'");
  return namedOutputs_[name];
}

void Layer::resetOutput(size_t rows, size_t cols) {
  output_.value.setDevice(useGpu_);
  output_.value.resize(rows, cols);
  if (pass_ == PASS_TRAIN || pass_ == PASS_GC) {
    output_.grad.setDevice(useGpu_);
    output_.grad.resize(rows, cols);
    if (!gradientPact_.readerSetsGrad) math::zero(output_.grad);
  }
}

void Layer::forwardActivation() {
  activation_->forward(output_);
  // v1 dropout is not inverted: keep with prob (1-p) in training, scale by (1-p)
  // in testing. Gradient checks (PASS_GC) run without dropout.
  if (dropRate_ <= 0 || pass_ == PASS_GC) return;
  Matrix& v = output_.value;
  if (pass_ == PASS_TRAIN) {
    std::bernoulli_distribution keep(1.0 - dropRate_);
    hostMask_.resize(v.size());  // kept across batches
    for (auto& m : hostMask_) m = keep(*rng_) ? 1.0f : 0.0f;
    dropMask_.setDevice(useGpu_);
    dropMask_.copyFromHost(hostMask_.data(), v.height(), v.width());
    math::dotMul(v, dropMask_);
  } else {
    math::axpby(0.0f, v, 1.0f - dropRate_, v);
  }
}

void Layer::backwardActivation() {
  // Masked units have zero gradient, so the activation's derivative at the
  // masked (zeroed) value never matters.
  if (dropRate_ > 0 && pass_ == PASS_TRAIN && !output_.grad.empty()) math::dotMul(output_.grad, dropMask_);
  if (!gradientPact_.readerAppliesRelu) activation_->backward(output_);
}

LayerRegistry& LayerRegistry::instance() {
  static LayerRegistry r;
  return r;
}

std::vector<std::string> LayerRegistry::types() const {
  std::vector<std::string> t;
  for (auto& kv : factories_) t.push_back(kv.first);
  return t;
}

std::unique_ptr<Layer> LayerRegistry::create(const Json& config) const {
  std::string type = config.getString("type");
  auto it = factories_.find(type);
  if (it == factories_.end()) {
    std::string known;
    for (auto& kv : factories_) known += (known.empty() ? "" : ", ") + kv.first;
    throw ConfigError(str("layer '", config.getString("name"), "': unknown layer type '", type,
                          "' (this engine knows: ", known, ")"));
  }
  return it->second(config);
}

}  // namespace paddle
