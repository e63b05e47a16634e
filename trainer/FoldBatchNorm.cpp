#include "trainer/FoldBatchNorm.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/math/Device.h"
#include "layers/NormLayers.h"

namespace paddle {

namespace {
// A variance whose 1 / sqrt(var + eps) is exactly 1 in batch_norm, so that the folded batch norm
// multiplies by 1 and only adds.
float unitVariance() {
  float v = 1.0f - kBatchNormEpsilon;
  // step to the float whose 1/sqrt(v + eps) rounds to 1 (the first try does on IEEE floats)
  for (int i = 0; i < 8 && 1.0f / std::sqrt(v + kBatchNormEpsilon) != 1.0f; ++i) {
    v = std::nextafter(v, 1.0f / std::sqrt(v + kBatchNormEpsilon) > 1.0f ? 2.0f : 0.0f);
  }
  return v;
}

// How often each string occurs as a value anywhere in `j` (layer and parameter names are
// referred to by value: inputs, outputs, evaluators, sub-models).
void countStrings(const Json& j, std::map<std::string, int>* counts) {
  switch (j.type()) {
    case Json::Type::String: ++(*counts)[j.asString()]; break;
    case Json::Type::Array:
      for (const Json& e : j.items()) countStrings(e, counts);
      break;
    case Json::Type::Object:
      for (const auto& kv : j.members()) countStrings(kv.second, counts);
      break;
    default: break;
  }
}

bool isLinear(const Json& layer) {
  const std::string act = layer.getString("active_type");
  return act.empty() || act == "linear";
}

// A producer (conv or fc) and the batch norm that alone reads it, checked foldable.
struct FoldSite {
  const Json* producer;
  const Json* bn;
};
}  // namespace

bool batchNormFoldingEnabled() {
  return !switchedOffInEnvironment("PADDLE_FOLD_BN");
}

bool batchNormFusionEnabled() {
  return !switchedOffInEnvironment("PADDLE_FUSE_BN");
}

std::vector<Matrix> foldBatchNormForInference(const GradientMachine& gm, std::vector<std::string>* folded) {
  std::vector<Matrix> values;
  for (const ParameterPtr& p : gm.parameters()) values.push_back(p->value());
  if (gm.useGpu()) return values;
  const Json& config = gm.config();
  // Recurrent groups run layers by other rules: fold only plain feed-forward models.
  for (const Json& sub : config["sub_models"].items()) {
    if (sub.getString("name") != "root") return values;
  }
  std::map<std::string, int> refs;  // layer names: 1 (its own name) + the times it is read
  countStrings(config, &refs);
  std::map<std::string, const Json*> byName;
  for (const Json& l : config["layers"].items()) byName[l.getString("name")] = &l;
  std::map<std::string, size_t> paramIndex;
  for (size_t k = 0; k < gm.parameters().size(); ++k) paramIndex[gm.parameters()[k]->name()] = k;
  // a parameter used by one layer only: its name occurs in that layer and the parameter list
  auto unshared = [&](const std::string& name) { return !name.empty() && refs[name] == 2 && paramIndex.count(name); };
  // the layer-side parameter of each sub-model lists every layer name once more
  const int listed = config["sub_models"].size() > 0 ? 1 : 0;

  std::vector<FoldSite> sites;
  for (const Json& bn : config["layers"].items()) {
    const std::string type = bn.getString("type");
    if (type != "batch_norm" && type != "cudnn_batch_norm") continue;
    // testing normalises with the moving averages unless use_global_stats is set false
    if (bn.has("use_global_stats") && !bn.getBool("use_global_stats")) continue;
    const auto& ins = bn["inputs"].items();
    if (ins.size() != 3) continue;
    const std::string src = ins[0].getString("input_layer_name");
    bool ok = byName.count(src) > 0;
    for (const Json& in : ins) ok = ok && in.getString("input_layer_name") == src &&
                                    unshared(in.getString("input_parameter_name"));
    if (bn.has("bias_parameter_name")) ok = ok && unshared(bn.getString("bias_parameter_name"));
    if (!ok || refs[src] != 1 + listed + 3) continue;  // someone else reads the producer
    const Json& prod = *byName[src];
    const std::string ptype = prod.getString("type");
    if ((ptype != "exconv" && ptype != "cudnn_conv" && ptype != "fc") || !isLinear(prod)) continue;
    for (const Json& in : prod["inputs"].items()) ok = ok && unshared(in.getString("input_parameter_name"));
    if (prod.has("bias_parameter_name")) ok = ok && unshared(prod.getString("bias_parameter_name"));
    if (ok) sites.push_back({&prod, &bn});
  }

  const float unitVar = unitVariance();
  for (const FoldSite& site : sites) {
    const Json& bn = *site.bn;
    const Json& prod = *site.producer;
    auto param = [&](const std::string& name) -> Parameter* { return gm.parameters()[paramIndex[name]].get(); };
    const auto& bins = bn["inputs"].items();
    Parameter* scale = param(bins[0].getString("input_parameter_name"));
    Parameter* mean = param(bins[1].getString("input_parameter_name"));
    Parameter* var = param(bins[2].getString("input_parameter_name"));
    Parameter* shift = bn.has("bias_parameter_name") ? param(bn.getString("bias_parameter_name")) : nullptr;
    const size_t C = scale->size();
    const size_t width = static_cast<size_t>(prod.getInt("size"));
    const bool conv = prod.getString("type") != "fc";
    const size_t F = conv ? static_cast<size_t>(prod.getInt("num_filters")) : width;
    // conv: channel c is filter c; fc: channel c is the outputs [c * P, (c + 1) * P)
    if (C == 0 || (conv ? F != C : width % C != 0) || mean->size() != C || var->size() != C ||
        (shift && shift->size() != C))
      continue;
    std::vector<double> s(C), b(C);  // y = s * x + b per channel
    for (size_t c = 0; c < C; ++c) {
      const float inv = 1.0f / std::sqrt(std::fmax(var->value().data()[c], 0.0f) + kBatchNormEpsilon);
      s[c] = static_cast<double>(scale->value().data()[c]) * inv;
      b[c] = (shift ? shift->value().data()[c] : 0.0) - s[c] * mean->value().data()[c];
    }
    // scales the values of parameter `p` (index i's channel: channelOf(i)) into a new copy
    auto scaled = [&](Parameter* p, auto channelOf) {
      Matrix& v = values[paramIndex[p->name()]];
      Matrix copy(0, 0, false);
      copy.copyFrom(v);
      float* d = copy.data();
      for (size_t i = 0; i < copy.size(); ++i) d[i] = static_cast<float>(d[i] * s[channelOf(i)]);
      v = copy;
    };
    bool shapesOk = true;
    for (const Json& in : prod["inputs"].items()) {
      const size_t n = param(in.getString("input_parameter_name"))->value().size();
      shapesOk = shapesOk && n > 0 && n % (conv ? F : width) == 0;
    }
    const size_t P = conv ? 1 : width / C;
    Parameter* pb = prod.has("bias_parameter_name") ? param(prod.getString("bias_parameter_name")) : nullptr;
    // conv: one bias per filter or per output value; fc: one per output
    const size_t perBias = !pb ? 0 : conv ? pb->value().size() / F : P;
    if (pb) shapesOk = shapesOk && perBias > 0 && pb->value().size() == (conv ? perBias * F : width);
    if (!shapesOk) continue;
    for (const Json& in : prod["inputs"].items()) {
      Parameter* w = param(in.getString("input_parameter_name"));
      const size_t per = w->value().size() / F;  // conv: each filter's weights lie together
      if (conv) {
        scaled(w, [&](size_t i) { return i / per; });
      } else {
        scaled(w, [&](size_t i) { return i % width / P; });  // fc: W [in, size]
      }
    }
    if (pb) scaled(pb, [&](size_t i) { return i / perBias; });
    // the batch norm now computes 1 * ((x - m) * 1) + bias: x + b[c]
    auto fresh = [&](Parameter* p, auto valueOf) {
      Matrix m(0, 0, false);
      m.copyFrom(values[paramIndex[p->name()]]);
      for (size_t c = 0; c < C; ++c) m.data()[c] = valueOf(c);
      values[paramIndex[p->name()]] = m;
    };
    fresh(scale, [](size_t) { return 1.0f; });
    fresh(var, [&](size_t) { return unitVar; });
    if (shift) {
      fresh(shift, [&](size_t c) { return static_cast<float>(b[c]); });
      fresh(mean, [](size_t) { return 0.0f; });
    } else {
      fresh(mean, [&](size_t c) { return static_cast<float>(-b[c]); });
    }
    if (folded) folded->push_back(bn.getString("name"));
  }
  return values;
}

std::vector<std::pair<std::string, size_t>> residualSumsOnFolded(const Json& config,
                                                                 const std::vector<std::string>& folded) {
  std::map<std::string, int> refs;
  countStrings(config, &refs);
  const int listed = config["sub_models"].size() > 0 ? 1 : 0;
  std::map<std::string, size_t> order;  // a layer's place in the forward
  std::map<std::string, std::string> inputOf;  // of each folded batch norm: its producer
  for (const Json& l : config["layers"].items()) {
    const std::string name = l.getString("name");
    order[name] = order.size();
    if (std::find(folded.begin(), folded.end(), name) != folded.end())
      inputOf[name] = l["inputs"][size_t(0)].getString("input_layer_name");
  }
  std::vector<std::pair<std::string, size_t>> sums;
  for (const Json& l : config["layers"].items()) {
    if (l.getString("type") != "addto" || l["inputs"].size() != 2) continue;
    const std::string in[2] = {l["inputs"][size_t(0)].getString("input_layer_name"),
                               l["inputs"][size_t(1)].getString("input_layer_name")};
    // the later of two candidates: its conv must run after the other input
    for (size_t k = 2; k-- > 0;) {
      const auto bn = inputOf.find(in[k]);
      if (in[0] == in[1] || bn == inputOf.end() || refs[in[k]] != 1 + listed + 1 || !order.count(in[1 - k]) ||
          order[bn->second] <= order[in[1 - k]])
        continue;
      sums.emplace_back(l.getString("name"), k);
      break;
    }
  }
  return sums;
}

}  // namespace paddle
