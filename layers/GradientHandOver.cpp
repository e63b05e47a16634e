#include "layers/GradientHandOver.h"

#include "layers/Layer.h"

namespace paddle {

void InputGradientSetter::handOverInputGradients(const std::vector<std::unique_ptr<Layer>>& layers,
                                                 const std::map<std::string, int>& readers) {
  for (auto& reader : layers) {
    auto* setter = dynamic_cast<InputGradientSetter*>(reader.get());
    if (!setter || reader->inputLayers().size() != 1) continue;
    Layer* in = reader->inputLayers()[0];
    auto count = readers.find(in->name());
    if (in->type() == "data" || count == readers.end() || count->second != 1) continue;
    const bool reluMovable = in->activation().type() == "relu" && in->dropRate() == 0;
    const bool relu = reluMovable && setter->canSetInputGradient(true);
    if (!relu && !setter->canSetInputGradient(false)) continue;
    GradientPact& pact = in->gradientPact();
    pact.readerSetsGrad = true;
    pact.readerAppliesRelu = relu;
    setter->pact_ = &pact;
  }
}

}  // namespace paddle
