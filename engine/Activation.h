// Activations by v1 name ("" and "linear", "sigmoid", "tanh", "relu", "brelu",
// "softrelu", "stanh", "abs", "square", "exponential", "log", "softmax",
// "sequence_softmax"), applied in place to a layer's output.
#pragma once
#include <string>
#include <vector>

#include "engine/ActivationFunctors.h"
#include "engine/Argument.h"

namespace paddle {

// Activations on raw host arrays: the CPU side of Activation, and for code that applies
// them itself (boot biases of recurrent groups, the stand-in GPU of FakeGpu.cpp).
// elementwiseKind accepts only kinds whose derivative is a function of the output
// (v1's "hppl" set), for layers that apply activations inside their kernels.
act::Kind elementwiseKind(const std::string& type, const std::string& what);
void activate(act::Kind k, float* y, size_t n);  // y = f(y) (element-wise kinds)
// g *= f'(y); x, the pre-activation values, is read only by kinds whose derivative needs it.
void multiplyDerivative(act::Kind k, const float* y, const float* x, float* g, size_t n);
void softmaxRows(float* v, size_t h, size_t w);
void softmaxRowsBackward(const float* y, float* g, size_t h, size_t w);  // g = y * (g - sum(y * g)) per row

class Activation {
 public:
  explicit Activation(const std::string& type);  // throws ConfigError for unknown names
  const std::string& type() const { return type_; }
  bool isLinear() const { return kind_ == act::kLinear; }

  void forward(Argument& a);   // a.value = f(a.value)
  void backward(Argument& a);  // a.grad *= f'(...)

  static std::vector<std::string> names();

 private:
  act::Kind kind_;
  std::string type_;
  Matrix input_;  // pre-activation copy, kept only for kinds whose derivative needs x
  IVector starts_;  // sequence_softmax: the sequence starts where kernels read them
};

}  // namespace paddle
