// Activations by v1 name ("" and "linear", "sigmoid", "tanh", "relu", "brelu",
// "softrelu", "stanh", "abs", "square", "exponential", "log", "softmax",
// "sequence_softmax"), applied in place to a layer's output.
#pragma once
#include <string>
#include <vector>

#include "ActivationFunctors.h"
#include "Argument.h"

namespace paddle {

// Element-wise activation by kind on raw host arrays, for layers that apply
// activations inside their own kernels (LSTM/GRU gates). Only kinds whose
// derivative is a function of the output are allowed there (v1's "hppl" set).
act::Kind elementwiseKind(const std::string& type, const std::string& what);
void activate(act::Kind k, float* y, size_t n);                     // y = f(y)
void multiplyDerivative(act::Kind k, const float* y, float* g, size_t n);  // g *= f'(y)

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
