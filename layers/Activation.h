// Activations by v1 name ("" and "linear", "sigmoid", "tanh", "relu", "brelu",
// "softrelu", "stanh", "abs", "square", "exponential", "log", "softmax",
// "sequence_softmax"), applied in place to a layer's output.
#pragma once
#include <string>
#include <vector>

#include "ActivationFunctors.h"
#include "Argument.h"

namespace paddle {

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
};

}  // namespace paddle
