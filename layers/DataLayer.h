// "data": where a batch enters the network. The gradient machine hands each
// data layer its slot of the batch; the layer aliases it (no copy on the same device).
#pragma once
#include "layers/Layer.h"

namespace paddle {

class DataLayer : public Layer {
 public:
  using Layer::Layer;
  void init(LayerContext& ctx) override;
  // Checks the slot against the layer (dense width == size, ids < size).
  void setData(const Argument& data);
  void forward(PassType pass) override;
  void backward() override {}

 private:
  // Offsets run 0 .. rows and never decrease (empty sequences are left to the layers that refuse them).
  void checkStarts(const IVector& starts, size_t rows, const char* what) const;
};

}  // namespace paddle
