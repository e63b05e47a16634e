// Layers that combine inputs:
//   "mixed":   act(sum of projections and operators + bias)  (embedding_layer is a
//              mixed layer with one table projection)
//   "concat2": act([proj_0(x_0) | proj_1(x_1) | ...] + bias)
//   "addto":   act(x_0 + x_1 + ... + bias)
//   "concat":  act([x_0 | x_1 | ...])
// With conv projections (shared_biases) the bias has one value per channel block.
#include "engine/Errors.h"
#include "engine/math/Kernel.h"
#include "engine/math/MathOps.h"
#include "layers/InferenceFusion.h"
#include "layers/Layer.h"
#include "layers/Projections.h"

namespace paddle {

namespace {
void passSequence(Argument& out, const Argument& in) {
  out.seqStarts = in.seqStarts;
  out.subSeqStarts = in.subSeqStarts;
}

void checkRows(const Argument& in, size_t rows, const std::string& layer, const std::string& input) {
  PADDLE_ENFORCE(in.batchSize() == rows, DataError, "layer '", layer, "': input '", input, "' has ",
                 in.batchSize(), " rows, expected ", rows);
}

// With shared biases (conv projections) bias value c covers `block` consecutive columns
// of the `width` columns from `col0` (concat2 has one such range per projection).
struct SharedBiasBlock {
  size_t col0, width, bias0, count;  // output columns, and the bias values over them
};
void addSharedBias(Matrix& y, const SharedBiasBlock& k, const float* bias) {
  const size_t block = k.width / k.count, w = y.width(), col0 = k.col0;
  const float* b = bias + k.bias0;
  float* v = y.data();
  forEach2(y.useGpu(), y.height(), k.width, [=] PD_HD(size_t r, size_t j) { v[r * w + col0 + j] += b[j / block]; });
}
void sharedBiasGrad(const Matrix& g, const SharedBiasBlock& k, float* biasGrad) {
  const size_t block = k.width / k.count, w = g.width(), rows = g.height(), col0 = k.col0;
  const float* gy = g.data();
  float* gb = biasGrad + k.bias0;
  forEach(g.useGpu(), k.count, [=] PD_HD(size_t c) {  // one index per bias value
    float s = 0;
    for (size_t r = 0; r < rows; ++r)
      for (size_t i = 0; i < block; ++i) s += gy[r * w + col0 + c * block + i];
    gb[c] += s;
  });
}
}  // namespace

// Shared by mixed and concat2: inputs with a proj_conf become projections.
class ProjectionLayerBase : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    PADDLE_ENFORCE(size_ > 0, ConfigError, type_, " layer needs a positive size");
    PADDLE_ENFORCE(!inputs_.empty(), ConfigError, type_, " layer needs at least one input");
    const auto& ins = config_["inputs"].items();
    projections_.resize(ins.size());
    for (size_t i = 0; i < ins.size(); ++i) {
      if (!ins[i].has("proj_conf")) continue;
      try {
        projections_[i] = Projection::create(ins[i]["proj_conf"], weight(i), inputs_[i]->size(), name_);
      } catch (const ConfigError& e) {
        throw ConfigError(str("inputs[", i, "] ('", inputs_[i]->name(), "'): ", e.what()));
      }
    }
    sharedBias_ = config_.getBool("shared_biases");
    if (bias_ && sharedBias_) {  // conv projections: one bias per channel block (v1 addSharedBias)
      biasBlocks_ = {{0, size_, 0, bias_->size()}};  // concat2 makes one block per projection
    } else if (bias_) {
      PADDLE_ENFORCE(bias_->size() == size_, ConfigError, "bias '", bias_->name(), "' has ", bias_->size(),
                     " values, expected ", size_);
    }
  }

 protected:
  void addBias() {
    if (!sharedBias_) return math::addRowVector(output_.value, bias_->value());
    for (const auto& k : biasBlocks_) addSharedBias(output_.value, k, bias_->value().data());
  }
  void biasBackward(const Matrix& g) {
    if (!bias_ || bias_->isStatic()) return;
    if (!sharedBias_) return math::sumRows(g, bias_->grad());
    for (const auto& k : biasBlocks_) sharedBiasGrad(g, k, bias_->grad().data());
  }
  size_t batchRows() {
    size_t rows = input(0).batchSize();
    for (size_t i = 1; i < inputs_.size(); ++i) checkRows(input(i), rows, name_, inputs_[i]->name());
    return rows;
  }
  void checkSharedBias() const {
    for (const auto& k : biasBlocks_) {
      PADDLE_ENFORCE(k.count > 0 && k.width % k.count == 0, ConfigError, "shared bias '", bias_->name(), "' has ",
                     k.count, " values, which do not divide the ", k.width, " columns they cover");
    }
  }
  std::vector<std::unique_ptr<Projection>> projections_;
  bool sharedBias_ = false;
  std::vector<SharedBiasBlock> biasBlocks_;
};

class MixedLayer : public ProjectionLayerBase, public InputGradientSetter {
 public:
  using ProjectionLayerBase::ProjectionLayerBase;

  void init(LayerContext& ctx) override {
    ProjectionLayerBase::init(ctx);
    checkSharedBias();
    std::vector<bool> usedByOperator(inputs_.size(), false);
    for (const Json& oc : config_["operator_confs"].items()) {
      operators_.push_back(Operator::create(oc, name_));
      Operator& op = *operators_.back();
      PADDLE_ENFORCE(op.outputSize() == size_, ConfigError, "operator_confs: ", oc.getString("type"),
                     " output_size ", op.outputSize(), " differs from the layer size ", size_);
      for (int64_t k : op.inputIndices()) {
        PADDLE_ENFORCE(k >= 0 && static_cast<size_t>(k) < inputs_.size() && !projections_[k], ConfigError,
                       "operator_confs.input_indices: ", k, " is not an operator input");
        usedByOperator[k] = true;
      }
    }
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (projections_[i]) {
        PADDLE_ENFORCE(projections_[i]->outputSize() == size_, ConfigError, "inputs[", i,
                       "].proj_conf.output_size ", projections_[i]->outputSize(), " differs from the layer size ",
                       size_);
      } else {
        PADDLE_ENFORCE(usedByOperator[i], ConfigError, "inputs[", i, "] ('", inputs_[i]->name(),
                       "') has no proj_conf and no operator uses it");
      }
    }
    opArgs_.resize(operators_.size());
  }

  void forward(PassType pass) override {
    pass_ = pass;
    size_t rows = batchRows();
    resetOutput(rows, size_);
    bool written = false;  // the first projection sets the output, the others add to it
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (!projections_[i]) continue;
      if (written) {
        projections_[i]->forward(input(i), output_.value);
      } else {
        projections_[i]->forwardOverwrite(input(i), output_.value);
        written = true;
      }
    }
    if (!written) output_.value.zero();  // operators only: they add
    for (size_t k = 0; k < operators_.size(); ++k) {
      opArgs_[k].clear();
      for (int64_t j : operators_[k]->inputIndices()) opArgs_[k].push_back(&input(j));
      operators_[k]->forward(opArgs_[k], output_.value);
    }
    if (bias_) addBias();
    passSequence(output_, input(0));
    forwardActivation();
  }

  void backward() override {
    backwardActivation();
    const Matrix& g = output_.grad;
    biasBackward(g);
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (!projections_[i]) continue;
      if (setsInputGrad(i)) {
        projections_[i]->backwardOverwrite(input(i), g);
      } else {
        projections_[i]->backward(input(i), g);
      }
    }
    for (size_t k = 0; k < operators_.size(); ++k) operators_[k]->backward(opArgs_[k], g);
  }
  // One projection of one input: it sets that input's gradient (Projection::backwardOverwrite).
  bool canSetInputGradient(bool relu) const override {
    return !relu && inputs_.size() == 1 && operators_.empty() && projections_[0];
  }

 private:
  std::vector<std::unique_ptr<Operator>> operators_;
  std::vector<std::vector<Argument*>> opArgs_;
};

class Concat2Layer : public ProjectionLayerBase {
 public:
  using ProjectionLayerBase::ProjectionLayerBase;

  void init(LayerContext& ctx) override {
    ProjectionLayerBase::init(ctx);
    size_t total = 0;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      PADDLE_ENFORCE(projections_[i], ConfigError, "inputs[", i, "] ('", inputs_[i]->name(),
                     "') needs a proj_conf: every input of concat2 is a projection");
      total += projections_[i]->outputSize();
    }
    PADDLE_ENFORCE(total == size_, ConfigError, "the projections' output sizes add up to ", total,
                   ", but the layer size is ", size_);
    if (bias_ && sharedBias_) {  // each conv projection's filters have their own bias values (v1)
      biasBlocks_.clear();
      size_t col = 0, values = 0;
      const auto& ins = config_["inputs"].items();
      for (size_t i = 0; i < inputs_.size(); ++i) {
        const size_t width = projections_[i]->outputSize();
        const size_t filters = static_cast<size_t>(ins[i]["proj_conf"].getInt("num_filters"));
        biasBlocks_.push_back({col, width, values, filters});
        col += width;
        values += filters;
      }
      PADDLE_ENFORCE(values == bias_->size(), ConfigError, "shared bias '", bias_->name(), "' has ", bias_->size(),
                     " values, but the projections have ", values, " filters");
      checkSharedBias();
    }
    tmp_.resize(inputs_.size());
    for (Matrix& t : tmp_) t.setDevice(useGpu_);
  }

  void forward(PassType pass) override {
    pass_ = pass;
    size_t rows = batchRows();
    resetOutput(rows, size_);
    size_t off = 0;  // the projections' column ranges tile the output: each is set once
    for (size_t i = 0; i < inputs_.size(); ++i) {
      Matrix& t = tmp_[i];
      t.resize(rows, projections_[i]->outputSize());
      projections_[i]->forwardOverwrite(input(i), t);
      math::addColumns(output_.value, off, t, 0, t.width(), 0.0f);
      off += t.width();
    }
    if (bias_) addBias();
    passSequence(output_, input(0));
    forwardActivation();
  }

  void backward() override {
    backwardActivation();
    const Matrix& g = output_.grad;
    biasBackward(g);
    size_t off = 0;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      Matrix& t = tmp_[i];  // reused as this projection's output gradient
      math::addColumns(t, 0, g, off, t.width(), 0.0f);
      projections_[i]->backward(input(i), t);
      off += t.width();
    }
  }

 private:
  std::vector<Matrix> tmp_;
};

// y = x0 + x1 (relu'd when asked) over n distinct values; out of line, so that the one copy of
// each loop is the vectorised one (inlined into its caller's serial branch GCC left it scalar).
__attribute__((noinline)) static void sumOfTwo(const float* __restrict x0, const float* __restrict x1,
                                               float* __restrict y, size_t n, bool relu) {
  if (relu) {
    for (size_t i = 0; i < n; ++i) y[i] = act::Relu{}.fwd(x0[i] + x1[i]);
  } else {
    for (size_t i = 0; i < n; ++i) y[i] = x0[i] + x1[i];
  }
}

class AddtoLayer : public Layer, public FusesResidualSum {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    PADDLE_ENFORCE(!inputs_.empty(), ConfigError, "addto layer needs at least one input");
    for (size_t i = 0; i < inputs_.size(); ++i) checkInputSize(i, size_);
    if (bias_) {
      PADDLE_ENFORCE(bias_->size() == size_, ConfigError, "bias '", bias_->name(), "' has ", bias_->size(),
                     " values, expected ", size_);
    }
  }

  // Testing: input k's layer adds the other input and applies relu as it stores its output
  // (layers/InferenceFusion.h), which is then this layer's output.
  bool fuseIntoInput(size_t k) override {
    const std::string& act = activation_->type();
    if (useGpu_ || bias_ || inputs_.size() != 2 || k > 1 || dropRate_ != 0 ||
        (act != "relu" && act != "linear" && !act.empty()))
      return false;
    auto* taker = dynamic_cast<TakesResidual*>(inputs_[k]);
    if (!taker || !taker->takeResidual(inputs_[1 - k], act == "relu")) return false;
    fusedInput_ = static_cast<int>(k);
    return true;
  }

  void forward(PassType pass) override {
    pass_ = pass;
    size_t rows = input(0).batchSize();
    for (size_t i = 0; i < inputs_.size(); ++i) checkRows(input(i), rows, name_, inputs_[i]->name());
    if (fusedInput_ >= 0 && pass == PASS_TEST) {  // the sum is in that input's buffer already
      output_.value = input(fusedInput_).value;
      passSequence(output_, input(0));
      return;
    }
    resetOutput(rows, size_);
    if (pass == PASS_TEST && !useGpu_ && !bias_ && inputs_.size() == 2 && forwardSumOfTwo(rows)) return;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      math::axpby(1.0f, input(i).value, i == 0 ? 0.0f : 1.0f, output_.value);
    }
    if (bias_) math::addRowVector(output_.value, bias_->value());
    passSequence(output_, input(0));
    forwardActivation();
  }

  // Testing a residual sum (ResNet's shortcut + branch): y = act(x0 + x1) in one pass, relu in the
  // same loop; the bits of the two axpbys (x0 + x1, the products by 1 being exact). False where an
  // input is not a dense [rows, size] matrix.
  bool forwardSumOfTwo(size_t rows) {
    const Matrix &a = input(0).value, &b = input(1).value;
    if (a.width() != size_ || b.width() != size_ || a.height() != rows || b.height() != rows) return false;
    const bool relu = activation_->type() == "relu" && dropRate_ == 0;
    const float* x0 = a.data();
    const float* x1 = b.data();
    float* y = output_.value.data();
    parallelFor(rows * size_, kParallelGrain,
                [=](size_t i0, size_t i1) { sumOfTwo(x0 + i0, x1 + i0, y + i0, i1 - i0, relu); });
    passSequence(output_, input(0));
    if (!relu) forwardActivation();
    return true;
  }

  void backward() override {
    backwardActivation();
    const Matrix& g = output_.grad;
    if (bias_ && !bias_->isStatic()) math::sumRows(g, bias_->grad());
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (!input(i).grad.empty()) math::axpby(1.0f, g, 1.0f, input(i).grad);
    }
  }

 private:
  int fusedInput_ = -1;  // fuseIntoInput's k
};

class ConcatLayer : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    PADDLE_ENFORCE(!inputs_.empty(), ConfigError, "concat layer needs at least one input");
    size_t total = 0;
    for (Layer* l : inputs_) total += l->size();
    PADDLE_ENFORCE(total == size_, ConfigError, "the inputs' sizes add up to ", total, ", but the layer size is ",
                   size_);
  }

  void forward(PassType pass) override {
    pass_ = pass;
    size_t rows = input(0).batchSize();
    resetOutput(rows, size_);
    size_t off = 0;  // the inputs' column ranges tile the output: each is set once
    for (size_t i = 0; i < inputs_.size(); ++i) {
      checkRows(input(i), rows, name_, inputs_[i]->name());
      PADDLE_ENFORCE(!input(i).value.empty(), DataError, "layer '", name_, "': input '", inputs_[i]->name(),
                     "' has no dense value");
      math::addColumns(output_.value, off, input(i).value, 0, inputs_[i]->size(), 0.0f);
      off += inputs_[i]->size();
    }
    passSequence(output_, input(0));
    forwardActivation();
  }

  void backward() override {
    backwardActivation();
    const Matrix& g = output_.grad;
    size_t off = 0;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      Matrix& gi = input(i).grad;
      if (!gi.empty()) math::addColumns(gi, 0, g, off, gi.width());
      off += inputs_[i]->size();
    }
  }
};

REGISTER_LAYER("mixed", MixedLayer);
REGISTER_LAYER("concat2", Concat2Layer);
REGISTER_LAYER("addto", AddtoLayer);
REGISTER_LAYER("concat", ConcatLayer);

}  // namespace paddle
