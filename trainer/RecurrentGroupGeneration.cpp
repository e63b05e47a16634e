// beam_search generation of a recurrent_group (v1 RecurrentGradientMachine::
// generateSequence) and the eos_id layer that ends its paths.
#include <algorithm>
#include <cmath>
#include <functional>

#include "engine/Errors.h"
#include "engine/math/Kernel.h"
#include "trainer/RecurrentGroup.h"

namespace paddle {

using namespace group_rows;

void RecurrentLayerGroup::initGenerator() {
  PADDLE_ENFORCE(outLinks_.size() == 1, ConfigError, "generating group '", name_, "' needs exactly one out-link");
  const Frame& f = *frames_[0];
  Layer* predict = f.get(outLinks_[0].layer);
  PADDLE_ENFORCE(!predict->inputLayers().empty(), ConfigError, "generating group '", name_, "': out-link '",
                 predict->name(), "' must read the probabilities of the next id");
  probLayer_ = predict->inputLayers()[0]->name();
  Layer* eos = f.get(eosLayer_);
  PADDLE_ENFORCE(eos->config().has("eos_id"), ConfigError, "eos layer '", eosLayer_, "' has no eos_id");
  eosId_ = static_cast<int>(eos->config().getInt("eos_id"));
  for (const Memory& m : memories_) {
    if (m.isIds) {
      PADDLE_ENFORCE(m.layer == outLinks_[0].layer, ConfigError, "generating group '", name_,
                     "': the const-id memory must remember the generated ids ('", outLinks_[0].layer, "')");
      bosId_ = m.constId;
    }
  }
  while (frames_.size() < 2) frames_.push_back(buildFrame());  // two frames, used in turn
}

void RecurrentLayerGroup::generate() {
  PADDLE_ENFORCE(pass_ == PASS_TEST, UnsupportedError, "recurrent group '", name_,
                 "' generates sequences: run it in test mode (paddle train --job=test)");
  // samples: one per boot row / boot sequence of the first booted memory
  size_t samples = 0;
  bool found = false;
  for (const Memory& m : memories_) {
    if (!m.boot) continue;
    samples = m.boot->output().numSequences();
    found = true;
    break;
  }
  PADDLE_ENFORCE(found, ConfigError, "generating group '", name_,
                 "' needs a StaticInput (a memory with a boot layer) to know the samples");
  std::vector<Path> live(samples);
  for (size_t s = 0; s < samples; ++s) live[s].sample = static_cast<int>(s);
  std::vector<std::vector<Path>> finished(samples);
  for (size_t t = 0; t < maxFrames_ && !live.empty(); ++t) {
    Frame& f = *frames_[t % 2];
    for (Memory& m : memories_) connectGenerated(m, t, live, f);
    for (Layer* l : f.compute) l->runForward(PASS_TEST);
    live = expand(live, f.get(probLayer_)->output().value, t + 1 == maxFrames_, finished);
  }
  for (Path& p : live) finished[p.sample].push_back(p);  // ran out of frames
  writeResults(finished);
}

// Memory rows for the live paths: boot values at t = 0, else the previous
// frame's rows of each path's parent.
void RecurrentLayerGroup::connectGenerated(Memory& m, size_t t, const std::vector<Path>& live, Frame& f) {
  AgentLayer* agent = f.agent(m.agent);
  const size_t n = live.size();
  if (m.isIds) {
    std::vector<int> ids(n);
    for (size_t i = 0; i < n; ++i) ids[i] = live[i].ids.empty() ? bosId_ : live[i].ids.back();
    IVector v(0, 0, useGpu_);
    v.copyFromHost(ids.data(), 1, n);
    agent->set(Matrix(), v, IVector(), PASS_TEST);
    return;
  }
  const size_t width = agent->size();
  if (t == 0 && !m.boot) {  // zeros or the activated boot bias
    if (m.bootBias) {
      fillActivatedBias(m.gathered, *m.bootBias, m.bootAct, n);
    } else {
      m.gathered.resize(n, width);
      m.gathered.zero();
    }
    agent->set(m.gathered, IVector(), IVector(), PASS_TEST);
    return;
  }
  const Argument& src = t == 0 ? m.boot->output() : frames_[(t - 1) % 2]->get(m.layer)->output();
  std::vector<int> rows(n);
  for (size_t i = 0; i < n; ++i) rows[i] = t == 0 ? live[i].sample : live[i].row;
  if (!m.isSequence) {
    gatherRows(m.gathered, src.value, rows, indexScratch_);
    agent->set(m.gathered, IVector(), IVector(), PASS_TEST);
    return;
  }
  // sequence memory: the whole sequence of each path's sample
  PADDLE_ENFORCE(src.hasSeq(), DataError, "sequence memory '", m.layer, "' lost its sequence structure");
  const int* s = src.seqStarts.data();
  std::vector<int> starts(1, 0), tokens;
  for (int r : rows) {
    for (int k = s[r]; k < s[r + 1]; ++k) tokens.push_back(k);
    starts.push_back(static_cast<int>(tokens.size()));
  }
  gatherRows(m.gathered, src.value, tokens, indexScratch_);
  m.gatheredStarts.copyFromHost(starts.data(), 1, starts.size());
  agent->set(m.gathered, IVector(), m.gatheredStarts, PASS_TEST);
}

// Expands every live path by its best next ids and keeps, per sample, the
// beam_size best; finished ones move to `finished`.
std::vector<RecurrentLayerGroup::Path> RecurrentLayerGroup::expand(const std::vector<Path>& live, const Matrix& prob,
                                                                   bool lastFrame,
                                                                   std::vector<std::vector<Path>>& finished) {
  const size_t vocab = prob.width();
  PADDLE_ENFORCE(prob.height() == live.size(), DataError, "generating group '", name_, "': probability layer '",
                 probLayer_, "' gave ", prob.height(), " rows for ", live.size(), " paths");
  std::vector<Path> next;
  std::vector<size_t> order(vocab);
  hostProb_.resize(prob.size());
  prob.copyToHost(hostProb_.data());
  for (size_t begin = 0; begin < live.size();) {
    size_t end = begin;
    while (end < live.size() && live[end].sample == live[begin].sample) ++end;
    std::vector<Path> cand;
    for (size_t i = begin; i < end; ++i) {
      const float* p = hostProb_.data() + i * vocab;
      for (size_t j = 0; j < vocab; ++j) order[j] = j;
      size_t k = std::min(beamSize_, vocab);
      std::partial_sort(order.begin(), order.begin() + k, order.end(),
                        [&](size_t a, size_t b) { return p[a] > p[b]; });
      for (size_t c = 0; c < k; ++c) {
        Path q = live[i];
        q.ids.push_back(static_cast<int>(order[c]));
        q.score += logProb_ ? std::log(std::max(p[order[c]], 1e-30f)) : p[order[c]];
        q.row = static_cast<int>(i);
        cand.push_back(std::move(q));
      }
    }
    std::stable_sort(cand.begin(), cand.end(), [](const Path& a, const Path& b) { return a.score > b.score; });
    std::vector<Path>& done = finished[live[begin].sample];
    size_t kept = 0;
    for (Path& q : cand) {
      if (kept == beamSize_) break;
      ++kept;
      if (q.ids.back() == eosId_ || lastFrame) done.push_back(std::move(q));
      else next.push_back(std::move(q));
    }
    // Stop a sample once beam_size finished paths all beat its best live one:
    // scores only fall as paths grow.
    if (done.size() >= beamSize_) {
      std::vector<double> scores;
      for (const Path& d : done) scores.push_back(d.score);
      std::nth_element(scores.begin(), scores.begin() + (beamSize_ - 1), scores.end(), std::greater<double>());
      double worstKept = scores[beamSize_ - 1];
      while (!next.empty() && next.back().sample == live[begin].sample && logProb_ &&
             next.back().score <= worstKept) {
        next.pop_back();  // the sample's live paths are at the back, best first
      }
    }
    begin = end;
  }
  return next;
}

void RecurrentLayerGroup::writeResults(std::vector<std::vector<Path>>& finished) {
  std::vector<int> ids, seqStarts(1, 0), subStarts(1, 0);
  std::vector<float> scores;
  for (auto& paths : finished) {
    std::stable_sort(paths.begin(), paths.end(), [](const Path& a, const Path& b) { return a.score > b.score; });
    for (size_t r = 0; r < std::min(numResults_, paths.size()); ++r) {
      ids.insert(ids.end(), paths[r].ids.begin(), paths[r].ids.end());
      subStarts.push_back(static_cast<int>(ids.size()));
      scores.push_back(static_cast<float>(paths[r].score));
    }
    seqStarts.push_back(static_cast<int>(ids.size()));
  }
  Argument out;
  out.ids.copyFromHost(ids.data(), 1, ids.size());
  if (numResults_ > 1) {  // one sequence per sample, one sub-sequence per result
    out.seqStarts.copyFromHost(seqStarts.data(), 1, seqStarts.size());
    out.subSeqStarts.copyFromHost(subStarts.data(), 1, subStarts.size());
  } else {
    out.seqStarts.copyFromHost(subStarts.data(), 1, subStarts.size());
  }
  scores_.value.copyFromHost(scores.data(), scores.size(), 1);
  auto it = parentLayers_->find(outLinks_[0].agent);
  PADDLE_ENFORCE(it != parentLayers_->end(), ConfigError, "generating group '", name_, "': output layer '",
                 outLinks_[0].agent, "' is missing");
  Layer* target = it->second;
  target->output() = out;
}

// "eos_id": 1 where the input id equals eos_id, else 0 (ends generated paths).
class EosIdLayer : public Layer {
 public:
  using Layer::Layer;
  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    checkInputCount(1, 1);
    PADDLE_ENFORCE(config_.has("eos_id"), ConfigError, "needs eos_id >= 0");
    eos_ = static_cast<int>(config_.getInt("eos_id"));
    PADDLE_ENFORCE(eos_ >= 0, ConfigError, "needs eos_id >= 0");
  }
  void forward(PassType pass) override {
    pass_ = pass;
    const IVector& in = input(0).ids;
    PADDLE_ENFORCE(in.size() == input(0).batchSize(), DataError, "input '", inputLayers()[0]->name(),
                   "' must give ids");
    output_.ids.setDevice(useGpu_);
    output_.ids.resize(1, in.size());
    const int* x = kernelView(in, scratch_, useGpu_);
    int* y = output_.ids.data();
    const int eos = eos_;
    forEach(useGpu_, in.size(), [=] PD_HD(size_t i) { y[i] = x[i] == eos ? 1 : 0; });
    output_.seqStarts = input(0).seqStarts;
  }
  void backward() override {}

 private:
  int eos_ = -1;
  IVector scratch_;
};

REGISTER_LAYER("eos_id", EosIdLayer);

}  // namespace paddle
