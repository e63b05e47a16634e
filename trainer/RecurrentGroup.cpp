// recurrent_group: a sub-network (v1 SubModelConfig) unrolled over the time
// steps of its in-link sequences, without padding. Sequences are ordered longest
// first (SequenceToBatch), so step t runs one frame over the rows of the
// sequences still active, always a prefix of step t-1's rows. Each frame is a
// copy of the sub-network's layers sharing the parameters; memories connect a
// frame's agent to the previous frame's layer (or to the boot value at t = 0).
//
// Agent layers ("agent", "scatter_agent", "gather_agent", and their sequence_
// forms) hold data the group writes into them: in-link rows, memories, and the
// gathered outputs the parent network reads.
#include "trainer/RecurrentGroup.h"

#include <algorithm>

#include "engine/Errors.h"
#include "engine/math/Kernel.h"
#include "engine/math/MathOps.h"

namespace paddle {

namespace group_rows {
static IVector hostView(const std::vector<int>& v) {
  return IVector::view(const_cast<int*>(v.data()), 1, v.size(), false);
}

void gatherRows(Matrix& dst, const Matrix& src, const std::vector<int>& rows, IVector& scratch) {
  const size_t w = src.width();
  dst.setDevice(src.useGpu());
  dst.resize(rows.size(), w);
  const int* idx = kernelView(hostView(rows), scratch, src.useGpu());
  const float* s = src.data();
  float* d = dst.data();
  forEach2Parallel(src.useGpu(), rows.size(), w, [=] PD_HD(size_t i, size_t j) { d[i * w + j] = s[idx[i] * w + j]; });
}

void gatherElements(IVector& dst, const IVector& src, const std::vector<int>& order, IVector& scratch) {
  dst.setDevice(src.useGpu());
  dst.resize(1, order.size());
  const int* idx = kernelView(hostView(order), scratch, src.useGpu());
  const int* s = src.data();
  int* d = dst.data();
  forEach(src.useGpu(), order.size(), [=] PD_HD(size_t i) { d[i] = s[idx[i]]; });
}

void scatterAddRows(Matrix& dst, const Matrix& src, const std::vector<int>& rows, IVector& scratch) {
  const size_t w = src.width();
  const int* idx = kernelView(hostView(rows), scratch, src.useGpu());
  const float* s = src.data();
  float* d = dst.data();
  // (the rows are distinct: each index owns its destination)
  forEach2Parallel(src.useGpu(), rows.size(), w, [=] PD_HD(size_t i, size_t j) { d[idx[i] * w + j] += s[i * w + j]; });
}

void fillActivatedBias(Matrix& dst, Parameter& bias, act::Kind kind, size_t rows) {
  const size_t w = bias.size();
  std::vector<float> b(w), all(rows * w);
  bias.value().copyToHost(b.data());
  activate(kind, b.data(), w);
  for (size_t i = 0; i < rows; ++i) std::copy(b.begin(), b.end(), all.begin() + i * w);
  dst.copyFromHost(all.data(), rows, w);
}
}  // namespace group_rows

using namespace group_rows;

REGISTER_LAYER("agent", AgentLayer);
REGISTER_LAYER("scatter_agent", AgentLayer);
REGISTER_LAYER("gather_agent", AgentLayer);
REGISTER_LAYER("sequence_agent", AgentLayer);
REGISTER_LAYER("sequence_scatter_agent", AgentLayer);
REGISTER_LAYER("sequence_gather_agent", AgentLayer);

void RecurrentLayerGroup::init(LayerContext& ctx) {
  Layer::init(ctx);
  PADDLE_ENFORCE(ctx.model, ConfigError, "recurrent group needs the model config");
  model_ = ctx.model;  // frames pass it on: a step may hold a group of its own
  parentLayers_ = &ctx.layers;
  params_ = &ctx.params;
  useGpu_ = ctx.useGpu;
  rng_ = ctx.rng;
  const Json* sub = nullptr;
  for (const Json& sm : (*ctx.model)["sub_models"].items()) {
    if (sm.getString("name") == name_) sub = &sm;
  }
  PADDLE_ENFORCE(sub, ConfigError, "no sub-model named '", name_, "' for this recurrent group");
  reversed_ = sub->getBool("reversed");
  if (sub->has("generator")) {
    const Json& g = (*sub)["generator"];
    generating_ = true;
    beamSize_ = static_cast<size_t>(g.getInt("beam_size"));
    maxFrames_ = static_cast<size_t>(g.getInt("max_num_frames"));
    numResults_ = static_cast<size_t>(g.getInt("num_results_per_sample"));
    logProb_ = g.getBool("log_prob");
    eosLayer_ = g.getString("eos_layer_name");
    PADDLE_ENFORCE(beamSize_ >= 1 && maxFrames_ >= 1 && numResults_ >= 1, ConfigError, "recurrent group '", name_,
                   "': generator needs beam_size, max_num_frames and num_results_per_sample >= 1");
    numResults_ = std::min(numResults_, beamSize_);
  }
  for (const std::string& n : sub->getStrings("layer_names")) {
    bool found = false;
    for (const Json& lc : (*ctx.model)["layers"].items()) {
      if (lc.getString("name") == n) {
        innerConfigs_.push_back(lc);
        found = true;
        break;
      }
    }
    PADDLE_ENFORCE(found, ConfigError, "sub-model layer '", n, "' has no layer config");
  }
  for (const Json& l : (*sub)["in_links"].items()) {
    bool subseq = l.getBool("has_subseq");
    PADDLE_ENFORCE(inLinks_.empty() || subseq == nested_, ConfigError, "recurrent group '", name_,
                   "': in-links must be all SubsequenceInput or all plain sequences");
    nested_ = subseq;
    InLink in;
    in.parent = parentLayer(l.getString("layer_name"));
    in.agent = l.getString("link_name");
    inLinks_.push_back(in);
  }
  PADDLE_ENFORCE(generating_ || !inLinks_.empty(), ConfigError, "recurrent group '", name_,
                 "' has no sequence input");
  for (const Json& m : (*sub)["memories"].items()) {
    Memory mem;
    mem.layer = m.getString("layer_name");
    mem.agent = m.getString("link_name");
    mem.isSequence = m.getBool("is_sequence");
    std::string boot = m.getString("boot_layer_name");
    if (!boot.empty()) mem.boot = parentLayer(boot);
    std::string biasName = m.getString("boot_bias_parameter_name");
    if (!biasName.empty()) {
      auto it = params_->find(biasName);
      PADDLE_ENFORCE(it != params_->end(), ConfigError, "memory boot bias '", biasName, "' is not defined");
      mem.bootBias = it->second.get();
      mem.bootAct = elementwiseKind(m.getString("boot_bias_active_type"), "boot_bias_active_type");
    }
    if (m.has("boot_with_const_id")) {
      mem.constId = static_cast<int>(m.getInt("boot_with_const_id"));
      mem.isIds = true;
    }
    memories_.push_back(mem);
  }
  for (const Json& l : (*sub)["out_links"].items()) {
    outLinks_.push_back({l.getString("layer_name"), l.getString("link_name")});
  }
  sharedGrad_.assign(innerConfigs_.size(), false);
  for (Memory& m : memories_) {
    m.isStatic = !generating_ && m.boot && copiesOnlyItsAgent(m);
    for (size_t i = 0; i < innerConfigs_.size(); ++i) {
      if (m.isStatic && innerConfigs_[i].getString("name") == m.agent) sharedGrad_[i] = true;
    }
  }
  for (InLink& in : inLinks_) {  // the group's own buffers live where its layers compute
    for (Matrix* m : {&in.value, &in.grad}) m->setDevice(useGpu_);
    in.ids.setDevice(useGpu_);
  }
  for (Memory& m : memories_) {
    for (Matrix* b : {&m.bootValue, &m.bootGrad, &m.gathered}) b->setDevice(useGpu_);
  }
  for (OutLink& o : outLinks_) {
    o.batchValue->setDevice(useGpu_);
    o.batchGrad->setDevice(useGpu_);
  }
  frames_.push_back(buildFrame());  // validates the sub-network now
  if (generating_) initGenerator();
  for (const Memory& m : memories_) {
    Layer* agent = frames_[0]->get(m.agent);
    Layer* target = frames_[0]->get(m.layer);
    PADDLE_ENFORCE(agent->size() == target->size(), ConfigError, "memory '", m.layer, "' has size ",
                   target->size(), " but its link '", m.agent, "' has size ", agent->size());
    if (m.boot) {
      PADDLE_ENFORCE(m.boot->size() == agent->size(), ConfigError, "memory '", m.layer, "': boot layer '",
                     m.boot->name(), "' has size ", m.boot->size(), ", expected ", agent->size());
    }
  }
}

// Whether memory m's layer is a plain copy of its own agent (StaticInput makes one: a mixed
// layer with one identity projection of the agent, no bias, activation or dropout) that no
// other layer of the group and no out-link reads.
bool RecurrentLayerGroup::copiesOnlyItsAgent(const Memory& m) const {
  for (const OutLink& o : outLinks_) {
    if (o.layer == m.layer) return false;
  }
  bool isCopy = false;
  for (const Json& lc : innerConfigs_) {
    const auto& ins = lc["inputs"].items();
    if (lc.getString("name") != m.layer) {
      for (const Json& in : ins) {
        if (in.getString("input_layer_name") == m.layer) return false;
      }
      continue;
    }
    const std::string act = lc.getString("active_type");
    isCopy = lc.getString("type") == "mixed" && ins.size() == 1 && ins[0].getString("input_layer_name") == m.agent &&
             ins[0].has("proj_conf") && ins[0]["proj_conf"].getString("type") == "identity" &&
             lc.getString("bias_parameter_name").empty() && (act.empty() || act == "linear") &&
             lc.getDouble("drop_rate") == 0.0;
  }
  return isCopy;
}

void RecurrentLayerGroup::forward(PassType pass) {
  pass_ = pass;
  if (generating_) {
    generate();
    return;
  }
  const Argument& first = inLinks_[0].parent->output();
  // A schedule row ("unit") is a token, or with SubsequenceInput a sub-sequence.
  const size_t units = schedule(first);
  const size_t T = batch_.numSteps();
  for (InLink& in : inLinks_) {
    const Argument& a = in.parent->output();
    PADDLE_ENFORCE(a.batchSize() == first.batchSize() && a.seqStarts.size() == first.seqStarts.size() &&
                       a.subSeqStarts.size() == first.subSeqStarts.size(),
                   DataError, "recurrent group '", name_, "': in-link '", in.parent->name(),
                   "' does not have the same sequences as '", inLinks_[0].parent->name(), "'");
    if (nested_) {
      gatherTokens(a.value, in.value);
      gatherIds(a.ids, in.ids);
    } else {
      if (!a.value.empty()) batch_.toBatch(a.value, in.value);
      if (!a.ids.empty()) batch_.toBatch(a.ids, in.ids);
    }
  }
  const bool training = pass == PASS_TRAIN || pass == PASS_GC;
  for (Memory& m : memories_) {
    prepareBoot(m);
    if (m.isStatic && training) {  // every frame adds into it from backward on
      m.bootGrad.resize(m.bootValue.height(), m.bootValue.width());
      m.bootGrad.zero();
    }
  }
  while (frames_.size() < T) frames_.push_back(buildFrame());
  framesReleased_ = recomputeFrames_ && training;
  for (size_t t = 0; t < T; ++t) {
    Frame& f = *frames_[t];
    if (training && t >= 2) handGradients(*frames_[t - 2], f, false);
    const size_t r = batch_.stepRows(t);
    // in-link rows of this step: a view (the tokens of a nested step are contiguous too)
    const size_t b0 = nested_ ? tokStepBegin_[t] : batch_.stepBegin(t);
    const size_t b1 = nested_ ? tokStepBegin_[t + 1] : batch_.stepEnd(t);
    for (InLink& in : inLinks_) {
      IVector ids = in.ids.size() ? IVector::view(in.ids.data() + b0, 1, b1 - b0, in.ids.useGpu()) : IVector();
      f.agent(in.agent)->set(in.value.empty() ? Matrix() : in.value.rows(b0, b1), ids,
                             nested_ ? stepStarts_[t] : IVector(), pass);
    }
    for (Memory& m : memories_) connectMemory(m, t, r);
    if (framesReleased_) {
      forwardRecording(f, pass);
    } else {
      for (Layer* l : f.compute) l->runForward(pass);
    }
    f.gradShapes.clear();
    for (auto& l : f.layers) f.gradShapes.emplace_back(l->output().grad.height(), l->output().grad.width());
    if (framesReleased_) releaseFrame(f);
  }
  for (OutLink& o : outLinks_) {
    AgentLayer* g = gatherAgent(o.agent);
    o.sequenceOut = frames_[0]->get(o.layer)->output().hasSeq();
    if (o.sequenceOut) {
      gatherSequenceOutput(o, g, pass);
      continue;
    }
    size_t width = g->size();
    o.batchValue->resize(units, width);
    for (size_t t = 0; t < T; ++t) {
      const Matrix& v = frames_[t]->get(o.layer)->output().value;
      PADDLE_ENFORCE(v.width() == width && v.height() == batch_.stepRows(t), DataError, "recurrent group '",
                     name_, "': out-link '", o.layer, "' must give one row of ", width, " per sequence");
      Matrix dst = o.batchValue->rows(batch_.stepBegin(t), batch_.stepEnd(t));
      dst.copyFrom(v);
    }
    g->reset(units, pass);
    batch_.toSequence(*o.batchValue, g->output().value, false);
    // one row per unit: a sequence of tokens, or (nested) a sequence of sub-sequences
    g->output().seqStarts = nested_ ? unitOuterStarts_ : first.seqStarts;
    g->output().subSeqStarts = IVector();
  }
}

void RecurrentLayerGroup::backward() {
  PADDLE_ENFORCE(!generating_, UnsupportedError, "recurrent group '", name_,
                 "' generates sequences (beam_search) and cannot be trained; train the same network "
                 "with the target sequence as an in-link instead");
  const Argument& first = inLinks_[0].parent->output();
  const size_t rows = nested_ ? tokenOrder_.size() : first.batchSize();
  const size_t T = batch_.numSteps();
  for (const OutLink& o : outLinks_) {
    if (!o.sequenceOut) batch_.toBatch(gatherAgent(o.agent)->output().grad, *o.batchGrad);
  }
  for (InLink& in : inLinks_) {
    in.grad.resize(rows, in.parent->size());
    math::zero(in.grad);
  }
  for (Memory& m : memories_) {
    if (m.isStatic) continue;  // (forward zeroed it, and the frames' agents share it)
    m.bootGrad.resize(m.bootValue.height(), m.bootValue.width());
    m.bootGrad.zero();
  }
  for (size_t t = T; t-- > 0;) {
    Frame& f = *frames_[t];
    const size_t b0 = batch_.stepBegin(t), r = batch_.stepRows(t);
    if (framesReleased_) recomputeFrame(f);
    for (const OutLink& o : outLinks_) {
      Matrix& g = f.get(o.layer)->output().grad;
      if (g.empty()) continue;
      if (o.sequenceOut) {
        scatterSequenceGrad(o, t, g);
      } else {
        math::axpby(1.0f, o.batchGrad->rows(b0, b0 + r), 1.0f, g);
      }
    }
    for (auto it = f.compute.rbegin(); it != f.compute.rend(); ++it) (*it)->runBackward();
    // frame t+1 is done; frame t-1 (which forward left without gradients unless it is
    // the second last) takes its buffers before memory gradients flow into it
    if (t >= 1 && t + 1 < T) handGradients(*frames_[t + 1], *frames_[t - 1], true);
    for (Memory& m : memories_) {
      if (m.isStatic) continue;
      const Matrix& g = f.agent(m.agent)->output().grad;
      if (g.empty()) continue;
      Matrix& dst = t > 0 ? frames_[t - 1]->get(m.layer)->output().grad : m.bootGrad;
      if (dst.empty()) continue;
      Matrix part = dst.rows(0, g.height());
      math::axpby(1.0f, g, 1.0f, part);
    }
    for (InLink& in : inLinks_) {
      const Matrix& g = f.agent(in.agent)->output().grad;
      if (g.empty()) continue;
      const size_t i0 = nested_ ? tokStepBegin_[t] : b0;
      Matrix part = in.grad.rows(i0, i0 + g.height());
      math::axpby(1.0f, g, 1.0f, part);
    }
    if (framesReleased_) releaseFrame(f);
  }
  for (InLink& in : inLinks_) {
    Argument& a = in.parent->output();
    if (a.grad.empty()) continue;
    if (nested_) {
      scatterAddRows(a.grad, in.grad, tokenOrder_, indexScratch_);
    } else {
      batch_.toSequence(in.grad, a.grad, true);
    }
  }
  for (Memory& m : memories_) finishBoot(m);
}

void RecurrentLayerGroup::recomputeInside(bool on) {
  recomputeFrames_ = on;
  for (auto& f : frames_) {
    for (auto& l : f->layers) l->recomputeInside(on);
  }
}

void RecurrentLayerGroup::markReleased(Frame& f) {
  // kept: what the next frame reads (memories), what the out-links gather, nested groups (they
  // write their own out-link agents) and print layers
  f.released.assign(f.compute.size(), false);
  for (size_t i = 0; i < f.compute.size(); ++i) {
    const Layer* l = f.compute[i];
    bool kept = l->type() == "recurrent_layer_group" || l->type() == "print";
    for (const Memory& m : memories_) kept = kept || m.layer == l->name();
    for (const OutLink& o : outLinks_) kept = kept || o.layer == l->name();
    f.released[i] = !kept;
  }
}

void RecurrentLayerGroup::forwardRecording(Frame& f, PassType pass) {
  if (f.released.size() != f.compute.size()) markReleased(f);
  f.rngAt.clear();
  for (size_t i = 0; i < f.compute.size(); ++i) {
    const bool starts = f.released[i] && (i == 0 || !f.released[i - 1]);
    if (starts) f.rngAt.emplace_back(i, *rng_);
    f.compute[i]->runForward(pass);
    const bool ends = f.released[i] && (i + 1 == f.compute.size() || !f.released[i + 1]);
    if (ends && f.rngAt.back().second == *rng_) f.rngAt.pop_back();  // nothing drew: nothing to replay
  }
}

void RecurrentLayerGroup::recomputeFrame(Frame& f) {
  const std::mt19937 saved = *rng_;
  RecomputeScope recomputing;
  size_t next = 0;
  for (size_t i = 0; i < f.compute.size(); ++i) {
    if (!f.released[i]) continue;
    if (next < f.rngAt.size() && f.rngAt[next].first == i) *rng_ = f.rngAt[next++].second;
    f.compute[i]->runForward(pass_);
  }
  *rng_ = saved;
}

void RecurrentLayerGroup::releaseFrame(Frame& f) {
  for (size_t i = 0; i < f.compute.size(); ++i) {
    if (f.released[i]) f.compute[i]->releaseForwardState();
  }
}

void RecurrentLayerGroup::handGradients(Frame& from, Frame& to, bool restoreShapes) {
  for (size_t i = 0; i < to.layers.size(); ++i) {
    if (sharedGrad_[i]) continue;  // a view of bootGrad in every frame
    Matrix& src = from.layers[i]->output().grad;
    Matrix& dst = to.layers[i]->output().grad;
    dst = src;
    src = Matrix();
    if (!restoreShapes) continue;  // (forward resizes and zeroes it)
    const auto shape = to.gradShapes[i];
    if (shape.first * shape.second == 0) {
      dst = Matrix();
      continue;
    }
    dst.resize(shape.first, shape.second);
    dst.zero();
  }
}

Layer* RecurrentLayerGroup::parentLayer(const std::string& n) const {
  auto it = parentLayers_->find(n);
  PADDLE_ENFORCE(it != parentLayers_->end(), ConfigError, "recurrent group '", name_, "': layer '", n,
                 "' is not defined before the group");
  return it->second;
}

AgentLayer* RecurrentLayerGroup::gatherAgent(const std::string& n) const {
  auto it = parentLayers_->find(n);
  PADDLE_ENFORCE(it != parentLayers_->end(), ConfigError, "recurrent group '", name_, "': out-link '", n,
                 "' is missing");
  auto* a = dynamic_cast<AgentLayer*>(it->second);
  PADDLE_ENFORCE(a, ConfigError, "out-link '", n, "' is not a gather agent");
  return a;
}

std::unique_ptr<RecurrentLayerGroup::Frame> RecurrentLayerGroup::buildFrame() {
  auto f = std::make_unique<Frame>();
  LayerContext ctx{f->map, *params_, useGpu_, rng_, model_};
  for (const Json& lc : innerConfigs_) {
    std::string n = lc.getString("name");
    try {
      std::unique_ptr<Layer> l = LayerRegistry::instance().create(lc);
      l->init(ctx);
      l->recomputeInside(recomputeFrames_);
      if (!dynamic_cast<AgentLayer*>(l.get()) && !isStaticCopy(n)) f->compute.push_back(l.get());
      f->map[n] = l.get();
      f->layers.push_back(std::move(l));
    } catch (const ConfigError& e) {
      std::string msg = e.what();
      if (msg.rfind("layer '", 0) == 0) throw;
      throw ConfigError(str("layer '", n, "' (type ", lc.getString("type"), "): ", msg));
    }
  }
  return f;
}

// The memory's value at t = 0, one row (or sequence) per sequence, longest first.
void RecurrentLayerGroup::prepareBoot(Memory& m) {
  const std::vector<int>& order = batch_.sequenceOrder();
  size_t width = frames_[0]->get(m.agent)->size();
  if (m.isSequence && !m.boot) {  // v1's read-only sequence memory: one zero row per sequence at t = 0
    std::vector<int> starts(order.size() + 1);
    for (size_t i = 0; i < starts.size(); ++i) starts[i] = static_cast<int>(i);
    m.bootValue.resize(order.size(), width);
    m.bootValue.zero();
    m.bootStarts.copyFromHost(starts.data(), 1, starts.size());
    return;
  }
  if (m.isSequence) {
    const Argument& b = m.boot->output();
    PADDLE_ENFORCE(b.hasSeq() && b.numSequences() == order.size(), DataError, "recurrent group '", name_,
                   "': sequence memory boot '", m.boot->name(), "' must have one sequence per input sequence");
    const int* s = b.seqStarts.data();
    std::vector<int> starts(1, 0);
    m.bootRows.clear();
    for (int q : order) {
      for (int row = s[q]; row < s[q + 1]; ++row) m.bootRows.push_back(row);
      starts.push_back(static_cast<int>(m.bootRows.size()));
    }
    gatherRows(m.bootValue, b.value, m.bootRows, indexScratch_);
    m.bootStarts.copyFromHost(starts.data(), 1, starts.size());
    return;
  }
  if (m.boot) {
    const Matrix& v = m.boot->output().value;
    PADDLE_ENFORCE(v.height() == order.size(), DataError, "recurrent group '", name_, "': boot layer '",
                   m.boot->name(), "' has ", v.height(), " rows for ", order.size(), " sequences");
    gatherRows(m.bootValue, v, order, indexScratch_);
  } else if (m.bootBias) {
    fillActivatedBias(m.bootValue, *m.bootBias, m.bootAct, order.size());
  } else {
    m.bootValue.resize(order.size(), width);
    m.bootValue.zero();
  }
}

// Points the memory's agent in frame t at its previous value.
void RecurrentLayerGroup::connectMemory(Memory& m, size_t t, size_t r) {
  AgentLayer* agent = frames_[t]->agent(m.agent);
  if (m.isStatic) {  // the boot value (and gradient) itself, in every frame
    const size_t rows = m.isSequence ? m.bootStarts.data()[r] : r;
    const IVector prefix = m.isSequence ? IVector::view(const_cast<int*>(m.bootStarts.data()), 1, r + 1, false)
                                        : IVector();
    const Matrix grad = m.bootGrad.empty() ? Matrix() : m.bootGrad.rows(0, rows);
    agent->set(m.bootValue.rows(0, rows), IVector(), prefix, pass_, m.bootGrad.empty() ? nullptr : &grad);
    return;
  }
  if (!m.isSequence) {
    const Matrix& src = t == 0 ? m.bootValue : frames_[t - 1]->get(m.layer)->output().value;
    agent->set(src.rows(0, r), IVector(), IVector(), pass_);
    return;
  }
  // A sequence memory keeps the first r sequences (the ones still active).
  const Matrix* src = &m.bootValue;
  const IVector* starts = &m.bootStarts;
  if (t > 0) {
    const Argument& prev = frames_[t - 1]->get(m.layer)->output();
    src = &prev.value;
    starts = &prev.seqStarts;
  }
  PADDLE_ENFORCE(starts->size() > r, DataError, "sequence memory '", m.layer, "' lost its sequence structure");
  IVector prefix = IVector::view(const_cast<int*>(starts->data()), 1, r + 1, false);
  agent->set(src->rows(0, starts->data()[r]), IVector(), prefix, pass_);
}

void RecurrentLayerGroup::finishBoot(Memory& m) {
  if (m.bootGrad.empty()) return;
  const size_t width = m.bootGrad.width();
  if (m.boot) {
    Matrix& g = m.boot->output().grad;
    if (!g.empty()) scatterAddRows(g, m.bootGrad, m.isSequence ? m.bootRows : batch_.sequenceOrder(), indexScratch_);
  } else if (m.bootBias && !m.bootBias->isStatic()) {  // (one row of values: on the host)
    std::vector<float> y(width), g(m.bootGrad.size()), sum(width, 0.0f);
    m.bootBias->value().copyToHost(y.data());
    activate(m.bootAct, y.data(), width);
    m.bootGrad.copyToHost(g.data());
    for (size_t i = 0; i < m.bootGrad.height(); ++i) {
      for (size_t j = 0; j < width; ++j) sum[j] += g[i * width + j];
    }
    multiplyDerivative(m.bootAct, y.data(), nullptr, sum.data(), width);
    Matrix add(1, width, m.bootGrad.useGpu());
    add.copyFromHost(sum.data(), 1, width);
    math::axpby(1.0f, add, 1.0f, m.bootBias->grad());
  }
}

// Builds the schedule over units; returns their number. With SubsequenceInput
// a unit is a sub-sequence and every sample is a sequence of them.
size_t RecurrentLayerGroup::schedule(const Argument& first) {
  if (!nested_) {
    batch_.build(first.seqStarts, first.batchSize(), reversed_);
    return first.batchSize();
  }
  PADDLE_ENFORCE(first.hasSeq() && first.subSeqStarts.size() > 0, DataError, "recurrent group '", name_,
                 "': SubsequenceInput '", inLinks_[0].parent->name(), "' is not a nested sequence");
  const int* seq = first.seqStarts.data();
  const int* sub = first.subSeqStarts.data();
  const size_t K = first.subSeqStarts.size() - 1;
  std::vector<int> outer(1, 0);
  size_t k = 0;
  for (size_t s = 1; s < first.seqStarts.size(); ++s) {
    while (k < K && sub[k] < seq[s]) ++k;
    PADDLE_ENFORCE(sub[k] == seq[s], DataError, "recurrent group '", name_, "': sequence ", s - 1,
                   " does not end on a sub-sequence boundary");
    outer.push_back(static_cast<int>(k));
  }
  unitOuterStarts_.copyFromHost(outer.data(), 1, outer.size());
  batch_.build(unitOuterStarts_, K, reversed_);
  // token order: the tokens of each step's units, unit after unit
  tokenOrder_.clear();
  tokStepBegin_.assign(1, 0);
  stepStarts_.resize(batch_.numSteps());
  for (size_t t = 0; t < batch_.numSteps(); ++t) {
    std::vector<int> starts(1, 0);
    for (size_t b = batch_.stepBegin(t); b < batch_.stepEnd(t); ++b) {
      int u = batch_.sequenceRow(b);
      for (int tok = sub[u]; tok < sub[u + 1]; ++tok) tokenOrder_.push_back(tok);
      starts.push_back(static_cast<int>(tokenOrder_.size() - tokStepBegin_[t]));
    }
    tokStepBegin_.push_back(tokenOrder_.size());
    stepStarts_[t].copyFromHost(starts.data(), 1, starts.size());
  }
  return K;
}

// dst row i = src row tokenOrder_[i] (nested in-links)
void RecurrentLayerGroup::gatherTokens(const Matrix& src, Matrix& dst) {
  if (src.empty()) {
    dst.resize(0, 0);
    return;
  }
  gatherRows(dst, src, tokenOrder_, indexScratch_);
}

void RecurrentLayerGroup::gatherIds(const IVector& src, IVector& dst) {
  if (src.empty()) {
    dst.resize(0, 0);
    return;
  }
  gatherElements(dst, src, tokenOrder_, indexScratch_);
}

// Step outputs that are sequences (one per unit): the gathered output is
// nested, each sample a sequence of its units' sequences, in input order.
void RecurrentLayerGroup::gatherSequenceOutput(OutLink& o, AgentLayer* g, PassType pass) {
  const size_t T = batch_.numSteps();
  size_t units = 0;
  for (size_t t = 0; t < T; ++t) units += batch_.stepRows(t);
  std::vector<std::pair<int, int>>& where = *o.where;
  where.assign(units, {0, 0});
  for (size_t t = 0; t < T; ++t) {
    for (size_t b = batch_.stepBegin(t); b < batch_.stepEnd(t); ++b) {
      where[batch_.sequenceRow(b)] = {static_cast<int>(t), static_cast<int>(b - batch_.stepBegin(t))};
    }
  }
  const size_t width = g->size();
  // ids: sequences generated by a beam_search group inside the step
  const bool ids = frames_[0]->get(o.layer)->output().value.empty();
  std::vector<int>& sub = *o.subStarts;
  sub.assign(1, 0);
  // A unit's rows [s[i], end): its sequence; of a beam_search's several results per sample
  // (nested ids at a step), the first, best one, as v1 gathered them.
  auto unitEnd = [](const Argument& out, int i) {
    const int* s = out.seqStarts.data();
    if (out.subSeqStarts.empty()) return s[i + 1];
    const int* c = out.subSeqStarts.data();
    for (size_t k = 0; k < out.subSeqStarts.size(); ++k) {
      if (c[k] > s[i]) return std::min(c[k], s[i + 1]);
    }
    return s[i + 1];
  };
  for (size_t u = 0; u < units; ++u) {
    const Argument& out = frames_[where[u].first]->get(o.layer)->output();
    PADDLE_ENFORCE((ids ? out.value.empty() : out.value.width() == width) && out.hasSeq(), DataError,
                   "recurrent group '", name_, "': out-link '", o.layer, "' must give a sequence of ",
                   ids ? "ids" : "width " + std::to_string(width), " at every step");
    PADDLE_ENFORCE(ids || out.subSeqStarts.empty(), UnsupportedError, "recurrent group '", name_, "': out-link '",
                   o.layer, "' gives nested sequences at a step; the gathered output would have three levels");
    const int i = where[u].second;
    sub.push_back(sub.back() + unitEnd(out, i) - out.seqStarts.data()[i]);
  }
  if (ids) {
    g->resetIds(sub.back(), pass);
  } else {
    g->reset(sub.back(), pass);
  }
  for (size_t u = 0; u < units; ++u) {  // one block copy per unit
    const Argument& out = frames_[where[u].first]->get(o.layer)->output();
    const int* s = out.seqStarts.data();
    const int i = where[u].second;
    if (ids) {
      IVector dst = IVector::view(g->output().ids.data() + sub[u], 1, sub[u + 1] - sub[u], useGpu_);
      dst.copyFrom(IVector::view(const_cast<int*>(out.ids.data()) + s[i], 1, unitEnd(out, i) - s[i],
                                 out.ids.useGpu()));
    } else {
      Matrix dst = g->output().value.rows(sub[u], sub[u + 1]);
      dst.copyFrom(out.value.rows(s[i], s[i + 1]));
    }
  }
  const IVector& unitsOfSample = nested_ ? unitOuterStarts_ : inLinks_[0].parent->output().seqStarts;
  std::vector<int> outer;
  for (size_t s = 0; s < unitsOfSample.size(); ++s) outer.push_back(sub[unitsOfSample.data()[s]]);
  g->output().seqStarts.copyFromHost(outer.data(), 1, outer.size());
  g->output().subSeqStarts.copyFromHost(sub.data(), 1, sub.size());
}

// The nested output's gradient back into step t's output sequences.
void RecurrentLayerGroup::scatterSequenceGrad(const OutLink& o, size_t t, Matrix& grad) {
  const Matrix& gathered = gatherAgent(o.agent)->output().grad;
  if (gathered.empty()) return;
  const int* s = frames_[t]->get(o.layer)->output().seqStarts.data();
  for (size_t u = 0; u < o.where->size(); ++u) {
    if (static_cast<size_t>((*o.where)[u].first) != t) continue;
    const int i = (*o.where)[u].second, first = (*o.subStarts)[u];
    Matrix dst = grad.rows(s[i], s[i + 1]);
    math::axpby(1.0f, gathered.rows(first, first + s[i + 1] - s[i]), 1.0f, dst);
  }
}

REGISTER_LAYER("recurrent_layer_group", RecurrentLayerGroup);

}  // namespace paddle
