// Base class of every layer, and the registry that maps v1 type strings
// ("fc", "data", "multi-class-cross-entropy", ...) to layer classes.
// Adding a layer = its class in its family's file + one REGISTER_LAYER line.
#pragma once
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/Activation.h"
#include "engine/Argument.h"
#include "engine/Json.h"
#include "engine/Parameter.h"
#include "engine/math/MathOps.h"
#include "layers/GradientHandOver.h"

namespace paddle {

// v1 PassType values.
enum PassType { PASS_TRAIN = 0, PASS_TEST = 1, PASS_GC = 2 };

class Layer;
using LayerMap = std::map<std::string, Layer*>;
using ParameterMap = std::map<std::string, ParameterPtr>;

struct LayerContext {
  const LayerMap& layers;   // layers built so far (a layer's inputs come first)
  ParameterMap& params;     // shared by name across layers
  bool useGpu;
  std::mt19937* rng;        // for dropout and sampling layers
  const Json* model = nullptr;  // the whole ModelConfig (recurrent groups read their sub-model)
};

class Layer {
 public:
  explicit Layer(const Json& config);
  virtual ~Layer() = default;

  // Resolves inputs, creates parameters, checks sizes. Subclasses extend it
  // (call Layer::init first) and throw ConfigError for a config they refuse.
  virtual void init(LayerContext& ctx);
  virtual void forward(PassType pass) = 0;
  // Accumulates into the inputs' grads and the parameters' grads.
  virtual void backward() = 0;
  // forward() / backward() with this layer's matrix products in the network's precision
  // (NetworkPrecisionScope) where the layer takes part in bf16 (bf16Capable), else fp32.
  void runForward(PassType pass);
  void runBackward();
  // Whether bf16 may run this layer's products: a layer of weights times activations
  // (fc, mixed, conv, recurrent) whose config does not keep it in fp32. Layers that need
  // range (costs, softmax, normalisation, CRF/CTC) have no such products or stay fp32.
  bool bf16Capable() const { return bf16Capable_; }
  // Recompute (GradientMachine::setRecompute) frees a layer between its forward and the
  // re-run of that forward in backward: the output's value and gradient, the secondary
  // outputs, the dropout mask; layers that keep more for their backward (LSTM gates, the
  // sequence-to-batch rows...) free that too. The next forward() makes it all again.
  virtual void releaseForwardState();
  // Layers that run a sub-network of their own (recurrent groups) recompute inside it too:
  // each step keeps what the next step and the group's outputs read, and backward re-runs
  // the rest of the step.
  virtual void recomputeInside(bool on) { (void)on; }
  // True while the forward that runs re-makes a released segment: side effects that a
  // forward has beyond its outputs (batch norm's moving averages) must not happen twice.
  static bool recomputing();

  const std::string& name() const { return name_; }
  const std::string& type() const { return type_; }
  size_t size() const { return size_; }
  const Json& config() const { return config_; }
  // Cost layers output one cost per sample; the batch cost is their sum.
  virtual bool isCost() const { return false; }
  Argument& output() { return output_; }
  // Secondary outputs (v1 Layer::getOutput(name)): results a layer publishes under a name
  // besides its main output, e.g. an LSTM step's "state"; the get_output layer exposes one
  // as a layer of its own. "" and "default" name output(). Null when there is none.
  Argument* findOutput(const std::string& name);
  std::vector<std::string> outputNames() const;
  const std::vector<Layer*>& inputLayers() const { return inputs_; }
  const std::vector<Parameter*>& parameters() const { return ownParams_; }
  // Data layers are fed from outside; other layers whose grads nobody needs skip them.
  void setNeedGradient(bool need) { needGrad_ = need; }
  bool needGradient() const { return needGrad_; }
  const Activation& activation() const { return *activation_; }
  float dropRate() const { return dropRate_; }
  // What this layer's only reader took over of its gradient (GradientHandOver.h).
  GradientPact& gradientPact() { return gradientPact_; }

 protected:
  Argument& input(size_t i) { return inputs_[i]->output(); }
  // Resizes the output to rows x size_ (grad zeroed in training, unless its reader sets it).
  void resetOutput(size_t rows, size_t cols);
  // releaseForwardState's helper: each buffer let go of, left empty on the layer's device.
  void emptyBuffers(std::initializer_list<Matrix*> buffers);
  // Activation + dropout on output_.value (forward) and on output_.grad (backward).
  void forwardActivation();
  void backwardActivation();
  // The parameter named in inputs[i].input_parameter_name (or null).
  Parameter* weight(size_t i) { return weights_[i]; }
  // Creates or fetches (shared by name) a parameter; checks size and dims agree.
  Parameter* getParameter(LayerContext& ctx, const std::string& name);
  void checkInputCount(size_t lo, size_t hi);
  // inputs[i].<field> (conv_conf, pool_conf ...); ConfigError when it is missing.
  const Json& inputConf(size_t i, const std::string& field) const;
  void checkInputSize(size_t i, size_t expected);
  // Declares a secondary output (in init); the layer fills it in forward (value, and grad
  // sized and zeroed in training, which consumers add to) and reads its grad in backward.
  Argument& publishOutput(const std::string& name);

  Json config_;
  std::string name_, type_;
  size_t size_;
  std::vector<Layer*> inputs_;
  std::vector<Parameter*> weights_;  // per input, null where the input has none
  Parameter* bias_ = nullptr;
  std::vector<Parameter*> ownParams_;
  std::unique_ptr<Activation> activation_;
  Argument output_;
  std::map<std::string, Argument> namedOutputs_;  // secondary outputs (stable addresses)
  PassType pass_ = PASS_TEST;
  bool useGpu_ = false;
  bool needGrad_ = true;
  float dropRate_ = 0;
  Matrix dropMask_;
  std::vector<float> hostMask_;
  std::mt19937* rng_ = nullptr;
  GradientPact gradientPact_;
  bool bf16Capable_ = false;
};

// The precision the network running on this thread asked for, and in backward fp16's loss
// scale, which cost layers multiply their gradients by (GradientMachine::forward and backward
// set them; recurrent groups' frames run inside and inherit them).
class NetworkPrecisionScope {
 public:
  explicit NetworkPrecisionScope(math::Precision p, float lossScale = 1);
  ~NetworkPrecisionScope();
  NetworkPrecisionScope(const NetworkPrecisionScope&) = delete;
  NetworkPrecisionScope& operator=(const NetworkPrecisionScope&) = delete;
  static math::Precision current();
  static float lossScale();

 private:
  math::Precision saved_;
  float savedScale_;
};

// Marks the forwards run in its lifetime (on this thread) as recomputations.
class RecomputeScope {
 public:
  RecomputeScope();
  ~RecomputeScope();
  RecomputeScope(const RecomputeScope&) = delete;
  RecomputeScope& operator=(const RecomputeScope&) = delete;

 private:
  bool saved_;
};

// "fp32", "bf16" or "fp16" (ConfigError for anything else).
math::Precision parsePrecision(const std::string& name);

using LayerFactory = std::function<std::unique_ptr<Layer>(const Json&)>;

class LayerRegistry {
 public:
  static LayerRegistry& instance();
  void add(const std::string& type, LayerFactory f) { factories_[type] = std::move(f); }
  // Throws ConfigError naming the layer and listing the known types.
  std::unique_ptr<Layer> create(const Json& config) const;
  std::vector<std::string> types() const;

 private:
  std::map<std::string, LayerFactory> factories_;
};

struct LayerRegistrar {
  LayerRegistrar(const std::string& type, LayerFactory f) { LayerRegistry::instance().add(type, std::move(f)); }
};

#define PD_CONCAT_INNER(a, b) a##b
#define PD_CONCAT(a, b) PD_CONCAT_INNER(a, b)
#define REGISTER_LAYER(type_name, Class)                                    \
  static ::paddle::LayerRegistrar PD_CONCAT(layer_registrar_, __LINE__)(    \
      type_name, [](const ::paddle::Json& c) { return std::unique_ptr<::paddle::Layer>(new Class(c)); })

}  // namespace paddle
