// The gradient hand-over, an optimisation a few layers opt into. Where a layer is the only
// reader of its one input, its backward may set that input's whole gradient instead of adding
// to it, and may apply the input's relu derivative while it does; the input then skips
// clearing its gradient (and its relu pass): one or two passes less over it per step.
#pragma once
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace paddle {

class Layer;

// What a layer's only reader promised it; made once, when the network is built.
struct GradientPact {
  bool readerSetsGrad = false;     // the reader's backward sets (not adds to) the whole output gradient
  bool readerAppliesRelu = false;  // ... and multiplies it by this layer's relu derivative
};

// The reader's side: a layer that can set its one input's gradient derives from this besides
// Layer, and asks setsInputGrad / appliesInputRelu in its backward.
class InputGradientSetter {
 public:
  virtual ~InputGradientSetter() = default;
  // Whether backward can set the whole gradient of the one input, applying that input's relu
  // derivative too when `relu`.
  virtual bool canSetInputGradient(bool relu) const = 0;

  // Makes the pact wherever a layer of `layers` opts in, has one input that is not a data
  // layer, and is that input's only reader (`readers`: how many layers read each layer); the
  // relu derivative moves over when the input's activation is relu without dropout and the
  // reader can take it.
  static void handOverInputGradients(const std::vector<std::unique_ptr<Layer>>& layers,
                                     const std::map<std::string, int>& readers);

 protected:
  // In backward: whether input i's gradient is set here (rather than added to), and whether
  // its relu derivative is applied here too.
  bool setsInputGrad(size_t i) const { return i == 0 && pact_ && pact_->readerSetsGrad; }
  bool appliesInputRelu(size_t i) const { return i == 0 && pact_ && pact_->readerAppliesRelu; }

 private:
  const GradientPact* pact_ = nullptr;  // the pact with the one input, once made
};

}  // namespace paddle
