#include "trainer/Recompute.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "engine/Errors.h"

namespace paddle {

namespace {
// Adds every string value in j to `out` (layer names among them) but the values of "name"
// keys: what a layer's config (or a sub-model) refers to.
void collectStrings(const Json& j, std::set<std::string>& out, const std::string& key = "") {
  switch (j.type()) {
    case Json::Type::String:
      if (key != "name") out.insert(j.asString());
      return;
    case Json::Type::Array:
      for (const Json& e : j.items()) collectStrings(e, out, key);
      return;
    case Json::Type::Object:
      for (const auto& kv : j.members()) collectStrings(kv.second, out, kv.first);
      return;
    default:
      return;
  }
}

const Json* findNamed(const Json& list, const std::string& name) {
  for (const Json& e : list.items()) {
    if (e.getString("name") == name) return &e;
  }
  return nullptr;
}

// What a recurrent group reads besides its own config: its sub-model (in-links, memories'
// boot layers) and its step's layers (with the groups nested in them).
void collectGroupReads(const Json& model, const std::string& group, std::set<std::string>& out) {
  const Json* sub = findNamed(model["sub_models"], group);
  if (!sub) return;
  collectStrings(*sub, out);
  for (const std::string& n : sub->getStrings("layer_names")) {
    const Json* lc = findNamed(model["layers"], n);
    if (!lc) continue;
    collectStrings(*lc, out);
    if (n != group && lc->getString("type") == "recurrent_layer_group") collectGroupReads(model, n, out);
  }
}

bool isGroupPlumbing(const std::string& type) {
  // a group writes its out-link agents itself: re-running it would reset their gradients,
  // and re-running an agent alone would not remake its output
  return type == "recurrent_layer_group" || type.find("agent") != std::string::npos;
}
}  // namespace

RecomputePlan::RecomputePlan(const std::string& mode, const std::vector<std::string>& extra, const Json& model,
                             const std::vector<std::unique_ptr<Layer>>& layers) {
  PADDLE_ENFORCE(mode == "auto" || mode == "marked", ConfigError,
                 "recompute must be 'auto', 'marked' or '' (off), got '", mode, "'");
  const size_t n = layers.size();
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < n; ++i) index[layers[i]->name()] = i;

  // lastReader[i]: the last layer that reads layer i (i itself when none does)
  std::vector<size_t> lastReader(n);
  for (size_t j = 0; j < n; ++j) {
    lastReader[j] = std::max(lastReader[j], j);
    std::set<std::string> reads;
    collectStrings(layers[j]->config(), reads);
    if (layers[j]->type() == "recurrent_layer_group") collectGroupReads(model, layers[j]->name(), reads);
    for (const std::string& r : reads) {
      auto it = index.find(r);
      if (it != index.end() && it->second < j) lastReader[it->second] = std::max(lastReader[it->second], j);
    }
  }
  // Layers that stay whatever the plan: data, what is read from outside the layers (outputs,
  // evaluators), layers without inputs (fed by someone else), print layers (they would print
  // twice) and the recurrent groups' plumbing.
  std::set<std::string> outside;
  for (const std::string& o : model.getStrings("output_layer_names")) outside.insert(o);
  collectStrings(model["evaluators"], outside);
  for (const auto& l : layers) {  // a validation layer's evaluator reads its inputs
    if (l->type().find("-validation") == std::string::npos) continue;
    for (const Layer* in : l->inputLayers()) outside.insert(in->name());
  }
  std::vector<bool> pinned(n);
  for (size_t i = 0; i < n; ++i) {
    const Layer& l = *layers[i];
    pinned[i] = l.inputLayers().empty() || outside.count(l.name()) || l.type() == "data" || l.type() == "print" ||
                isGroupPlumbing(l.type());
  }

  std::set<size_t> checkpoints;
  auto addCheckpoint = [&](const std::string& name) {
    auto it = index.find(name);
    if (it != index.end()) {
      checkpoints.insert(it->second);
      return;
    }
    PADDLE_ENFORCE(!findNamed(model["layers"], name), ConfigError, "recompute checkpoint '", name,
                   "' is a layer inside a recurrent group: checkpoints are layers of the top level (the "
                   "group's frames recompute on their own)");
    throw ConfigError(str("recompute checkpoint '", name, "' is not a layer of this network"));
  };
  for (const Json& lc : model["layers"].items()) {
    if (lc.getBool("recompute_checkpoint")) addCheckpoint(lc.getString("name"));
  }
  for (const std::string& name : extra) addCheckpoint(name);

  if (mode == "auto" && n > 2) {
    // A cut after layer i is clean when no layer after i reads a layer before i (data aside):
    // then i's output is all that crosses it.
    std::vector<bool> clean(n, false);
    size_t reach = 0, compute = 0;
    for (size_t i = 0; i < n; ++i) {
      const bool data = layers[i]->type() == "data";
      clean[i] = !data && reach <= i && i + 1 < n;
      if (!data) {
        reach = std::max(reach, lastReader[i]);
        ++compute;
      }
    }
    // about sqrt(n) segments of about sqrt(n) layers; in each window the narrowest clean cut
    const size_t len = std::max<size_t>(2, static_cast<size_t>(std::lround(std::sqrt(double(compute)))));
    size_t start = 0;
    while (start < n) {
      const size_t lo = start + (len + 1) / 2, hi = start + len + len / 2;
      size_t best = n;
      // (no cut in the last half segment: backward starts there and keeps it whole anyway)
      const size_t tail = n > (len + 1) / 2 ? n - (len + 1) / 2 : 0;
      for (size_t i = lo; i < tail && i <= hi; ++i) {
        if (clean[i] && (best == n || layers[i]->size() < layers[best]->size())) best = i;
      }
      for (size_t i = hi + 1; best == n && i < tail; ++i) {
        if (clean[i]) best = i;
      }
      if (best == n) break;
      checkpoints.insert(best);
      start = best + 1;
    }
  }
  PADDLE_ENFORCE(!checkpoints.empty() || mode == "auto", ConfigError,
                 "recompute='marked' but no layer is a checkpoint: mark some with "
                 "ExtraAttr(recompute_checkpoint=True) or name them in settings(recompute=[...])");

  std::vector<size_t> segmentOf(n);
  size_t begin = 0;
  for (size_t i = 0; i < n; ++i) {
    segmentOf[i] = segments_.size();
    if (checkpoints.count(i) || i + 1 == n) {
      RecomputeSegment s;
      s.begin = begin;
      s.end = i + 1;
      segments_.push_back(s);
      begin = i + 1;
    }
  }
  recomputed_.assign(n, false);
  segmentStart_.assign(n, false);
  for (RecomputeSegment& s : segments_) {
    segmentStart_[s.begin] = true;
    const bool last = &s == &segments_.back();  // backward starts there: nothing to release
    for (size_t i = s.begin; i < s.end; ++i) {
      recomputed_[i] = !last && !pinned[i] && !checkpoints.count(i) && segmentOf[lastReader[i]] == segmentOf[i];
      if (recomputed_[i]) s.recomputed.push_back(i);
    }
  }
  for (size_t i : checkpoints) checkpointNames_.push_back(layers[i]->name());
}

}  // namespace paddle
