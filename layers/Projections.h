// Projections and operators: the inputs of a "mixed" (summed) or "concat2"
// (side by side) layer. A projection maps one input layer (with an optional
// weight) to output_size columns; an operator combines several input layers
// without weights. Both accumulate: forward adds into `out` (a projection's
// forwardOverwrite sets it instead), backward adds into the inputs' and weights'
// gradients. They run on the device of `out`.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "engine/Argument.h"
#include "engine/Json.h"
#include "engine/Parameter.h"

namespace paddle {

class Projection {
 public:
  // conf: the input's proj_conf; w: its weight parameter (null if none).
  Projection(const Json& conf, Parameter* w, size_t inputSize, const std::string& layerName);
  virtual ~Projection() = default;
  size_t outputSize() const { return outSize_; }
  // out[rows, outputSize] += P(in)
  virtual void forward(const Argument& in, Matrix& out) = 0;
  // out = P(in), out's old contents never read: a layer's first projection writes its
  // output whole, so the layer skips a clearing pass. The default clears, then adds.
  virtual void forwardOverwrite(const Argument& in, Matrix& out) {
    out.zero();
    forward(in, out);
  }
  // in.grad += dP/din^T g (when in.grad is kept), w.grad += ... (unless static)
  virtual void backward(Argument& in, const Matrix& g) = 0;
  // As backward, but in.grad = dP/din^T g, its old contents never read (the layer is the
  // input's only reader: the input skips clearing its gradient). The default clears, then
  // adds; the fc and context projections set it in their one pass.
  virtual void backwardOverwrite(Argument& in, const Matrix& g);

  // Builds the projection named by conf["type"]; throws ConfigError for an
  // unknown type or inconsistent sizes.
  static std::unique_ptr<Projection> create(const Json& conf, Parameter* w, size_t inputSize,
                                            const std::string& layerName);

 protected:
  Parameter* needWeight(size_t rows, size_t cols);
  Json conf_;
  std::string type_, layer_;
  Parameter* w_;
  size_t inSize_, outSize_;
};

class Operator {
 public:
  Operator(const Json& conf, const std::string& layerName);
  virtual ~Operator() = default;
  size_t outputSize() const { return outSize_; }
  const std::vector<int64_t>& inputIndices() const { return indices_; }
  virtual void forward(const std::vector<Argument*>& ins, Matrix& out) = 0;
  virtual void backward(const std::vector<Argument*>& ins, const Matrix& g) = 0;
  static std::unique_ptr<Operator> create(const Json& conf, const std::string& layerName);

 protected:
  Json conf_;
  std::string type_, layer_;
  std::vector<int64_t> indices_;
  size_t outSize_;
};

}  // namespace paddle
