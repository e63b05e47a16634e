// recurrent_group (trainer/RecurrentGroup.cpp): a sub-network unrolled over the
// steps of its in-link sequences; beam-search generation lives in
// RecurrentGroupGeneration.cpp. A group's step may hold another group (nested
// groups): each frame builds the inner group like any other layer.
#pragma once

#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/Errors.h"
#include "layers/Layer.h"
#include "layers/SequenceToBatch.h"

namespace paddle {

// Row copies through kernels (host index lists; the kernels read a copy in `scratch`).
namespace group_rows {
// dst[i] = src[rows[i]] for every i.
void gatherRows(Matrix& dst, const Matrix& src, const std::vector<int>& rows, IVector& scratch);
// dst[i] = src[order[i]] for ids (1 x n vectors).
void gatherElements(IVector& dst, const IVector& src, const std::vector<int>& order, IVector& scratch);
// dst[rows[i]] += src[i] for every i (distinct rows).
void scatterAddRows(Matrix& dst, const Matrix& src, const std::vector<int>& rows, IVector& scratch);
// The boot bias after its activation, `rows` times over (small: computed on the host).
void fillActivatedBias(Matrix& dst, Parameter& bias, act::Kind kind, size_t rows);
}  // namespace group_rows

class AgentLayer : public Layer {
 public:
  using Layer::Layer;
  void forward(PassType pass) override { pass_ = pass; }
  void backward() override {}

  // Makes the output `value` (a view; not copied) with a fresh zeroed gradient, or with
  // `sharedGrad` (a view the caller zeroed, which other frames add into as well).
  void set(const Matrix& value, const IVector& ids, const IVector& seqStarts, PassType pass,
           const Matrix* sharedGrad = nullptr) {
    pass_ = pass;
    output_.value = value;
    output_.ids = ids;
    output_.seqStarts = seqStarts;
    size_t rows = value.height() ? value.height() : ids.size();
    if (sharedGrad && (pass == PASS_TRAIN || pass == PASS_GC)) {
      output_.grad = *sharedGrad;
    } else if (pass == PASS_TRAIN || pass == PASS_GC) {
      output_.grad.setDevice(useGpu_);
      output_.grad.resize(rows, size_);
      output_.grad.zero();
    }
  }
  // For gather agents: an owned output of the given shape.
  // (into its own buffer, kept across batches: no allocation in steady state)
  void reset(size_t rows, PassType pass) {
    pass_ = pass;
    owned_.setDevice(useGpu_);
    owned_.resize(rows, size_);
    output_.value = owned_;
    output_.ids = IVector();
    if (pass == PASS_TRAIN || pass == PASS_GC) {
      output_.grad.setDevice(useGpu_);
      output_.grad.resize(rows, size_);
      output_.grad.zero();
    }
  }
  // For gathered ids (sequences generated inside an enclosing group's steps): n owned ids.
  void resetIds(size_t n, PassType pass) {
    pass_ = pass;
    ownedIds_.setDevice(useGpu_);
    ownedIds_.resize(1, n);
    output_.value = Matrix();
    output_.grad = Matrix();
    output_.ids = ownedIds_;
  }

 private:
  Matrix owned_;
  IVector ownedIds_;
};

class RecurrentLayerGroup : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override;
  void forward(PassType pass) override;
  void backward() override;
  // Recompute: a training forward frees each step's layers but what the next step (its
  // memories) and the out-links read; backward re-runs them before the step's backward.
  // Nested groups in the step recompute their own frames as well.
  void recomputeInside(bool on) override;
  // A beam_search group whose results (with their "scores") are the out-link `name`.
  bool generatesInto(const std::string& name) const {
    if (!generating_) return false;
    for (const OutLink& o : outLinks_) {
      if (o.agent == name) return true;
    }
    return false;
  }

 private:
  struct Frame {
    std::vector<std::unique_ptr<Layer>> layers;
    std::vector<Layer*> compute;  // non-agent layers, in order
    LayerMap map;
    std::vector<std::pair<size_t, size_t>> gradShapes;  // per layer, as forward made them
    // Recompute: per compute layer, whether the step frees it after its forward; and the
    // generator before each run of freed layers that draws from it.
    std::vector<bool> released;
    std::vector<std::pair<size_t, std::mt19937>> rngAt;
    Layer* get(const std::string& n) const {
      auto it = map.find(n);
      PADDLE_ENFORCE(it != map.end(), ConfigError, "no layer '", n, "' in the recurrent group");
      return it->second;
    }
    AgentLayer* agent(const std::string& n) const {
      auto* a = dynamic_cast<AgentLayer*>(get(n));
      PADDLE_ENFORCE(a, ConfigError, "layer '", n, "' is not an agent layer");
      return a;
    }
  };
  struct InLink {
    Layer* parent = nullptr;
    std::string agent;
    Matrix value, grad;  // batch order
    IVector ids;
  };
  struct Memory {
    std::string layer, agent;
    bool isSequence = false;
    // A StaticInput's memory (not in generation): its layer only copies its agent, so every
    // frame's agent reads the boot value and adds into bootGrad, and the copy is skipped.
    bool isStatic = false;
    Layer* boot = nullptr;
    Parameter* bootBias = nullptr;
    act::Kind bootAct = act::kLinear;
    Matrix bootValue, bootGrad;  // rows in sequence order of the schedule (longest first)
    IVector bootStarts;          // sequence memories: starts of the reordered boot sequences
    std::vector<int> bootRows;   // sequence memories: source row of each reordered row
    bool isIds = false;          // the generated-id memory (boot_with_const_id)
    int constId = 0;
    Matrix gathered;             // generation: rows gathered for the surviving paths
    IVector gatheredStarts;
  };
  struct OutLink {
    std::string layer, agent;
    bool sequenceOut = false;  // the step outputs a sequence per unit (nested output)
    std::shared_ptr<Matrix> batchValue = std::make_shared<Matrix>();
    std::shared_ptr<Matrix> batchGrad = std::make_shared<Matrix>();
    // nested output: each unit's (step, index in step) and first gathered row
    std::shared_ptr<std::vector<std::pair<int, int>>> where = std::make_shared<std::vector<std::pair<int, int>>>();
    std::shared_ptr<std::vector<int>> subStarts = std::make_shared<std::vector<int>>();
  };

  Layer* parentLayer(const std::string& n) const;
  AgentLayer* gatherAgent(const std::string& n) const;

  std::unique_ptr<Frame> buildFrame();
  bool copiesOnlyItsAgent(const Memory& m) const;
  // Whether layer n is a static memory's copy, which the frames skip.
  bool isStaticCopy(const std::string& n) const {
    for (const Memory& m : memories_) {
      if (m.isStatic && m.layer == n) return true;
    }
    return false;
  }

  // The memory's value at t = 0, one row (or sequence) per sequence, longest first.
  void prepareBoot(Memory& m);

  // Points the memory's agent in frame t at its previous value.
  void connectMemory(Memory& m, size_t t, size_t r);
  // Training keeps two sets of frame gradients, not one per frame: a frame's gradients
  // live from its backward (or the next frame's, which adds memory gradients into it)
  // until the previous frame's backward ends, so frame `to` takes frame `from`'s buffers
  // (two steps away) and, in backward, zeroes them in the shapes its forward recorded.
  void handGradients(Frame& from, Frame& to, bool restoreShapes);

  void finishBoot(Memory& m);

  // Recompute of the frames: which compute layers a frame frees; its forward (saving the
  // generator where freed layers start); re-running the freed layers; freeing them.
  void markReleased(Frame& f);
  void forwardRecording(Frame& f, PassType pass);
  void recomputeFrame(Frame& f);
  void releaseFrame(Frame& f);

  // ---------------------------------------------------------------- generation
  // beam_search (v1 RecurrentGradientMachine::generateSequence): frames run on
  // the live paths of every sample; each path expands to its beam_size best next
  // ids (by accumulated log probability); per sample the best beam_size
  // expansions survive; a path ending in eos or reaching max_num_frames is
  // finished. The num_results_per_sample best finished paths are the output.
  struct Path {
    std::vector<int> ids;
    double score = 0;
    int sample = 0;
    int row = -1;  // its row in the frame that produced its last id
  };

  void initGenerator();
  void generate();

  // Memory rows for the live paths: boot values at t = 0, else the previous
  // frame's rows of each path's parent.
  void connectGenerated(Memory& m, size_t t, const std::vector<Path>& live, Frame& f);

  // Expands every live path by its best next ids and keeps, per sample, the
  // beam_size best; finished ones move to `finished`.
  std::vector<Path> expand(const std::vector<Path>& live, const Matrix& prob, bool lastFrame,
                           std::vector<std::vector<Path>>& finished);

  void writeResults(std::vector<std::vector<Path>>& finished);

  bool generating_ = false;
  size_t beamSize_ = 1, maxFrames_ = 0, numResults_ = 1;
  bool logProb_ = true;
  std::string eosLayer_, probLayer_;
  int eosId_ = -1, bosId_ = 0;
  std::vector<float> hostProb_;  // the step's probabilities, read on the host
  Argument& scores_ = publishOutput("scores");  // log probability of each generated result

  // Builds the schedule over units; returns their number. With SubsequenceInput
  // a unit is a sub-sequence and every sample is a sequence of them.
  size_t schedule(const Argument& first);

  // dst row i = src row tokenOrder_[i] (nested in-links)
  void gatherTokens(const Matrix& src, Matrix& dst);
  void gatherIds(const IVector& src, IVector& dst);

  // Step outputs that are sequences (one per unit): the gathered output is
  // nested, each sample a sequence of its units' sequences, in input order.
  void gatherSequenceOutput(OutLink& o, AgentLayer* g, PassType pass);

  // The nested output's gradient back into step t's output sequences.
  void scatterSequenceGrad(const OutLink& o, size_t t, Matrix& grad);

  bool nested_ = false;
  IVector unitOuterStarts_;           // nested: each sample's first unit (sub-sequence index)
  std::vector<int> tokenOrder_;       // nested: source token row of each gathered token
  std::vector<size_t> tokStepBegin_;  // nested: first gathered token of each step
  std::vector<IVector> stepStarts_;   // nested: sequence starts of each step's in-link agents
  IVector indexScratch_;              // row indices where the gather / scatter kernels read them

  const Json* model_ = nullptr;  // the whole ModelConfig (sub-models of nested groups)
  const LayerMap* parentLayers_ = nullptr;
  ParameterMap* params_ = nullptr;

  std::vector<Json> innerConfigs_;
  std::vector<bool> sharedGrad_;  // per layer of a frame: a static memory's agent (bootGrad views)
  bool reversed_ = false;
  bool recomputeFrames_ = false, framesReleased_ = false;
  std::vector<InLink> inLinks_;
  std::vector<Memory> memories_;
  std::vector<OutLink> outLinks_;
  std::vector<std::unique_ptr<Frame>> frames_;
  SequenceToBatch batch_;
};

}  // namespace paddle
