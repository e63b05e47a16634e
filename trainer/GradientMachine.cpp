#include "trainer/GradientMachine.h"

#include <cstdio>
#include <map>
#include <set>

#include "engine/Errors.h"
#include "engine/math/GemmBf16.h"
#ifdef WITH_CUDA
#include "engine/math/GpuRuntime.h"
#endif

namespace paddle {

namespace {
// Adds to `readers` every string value in `j` (layer names among them), apart from layers' own
// names and the root sub-model's list of layers: an input of a layer, a memory's link, an
// output, an evaluator's input... each one a reader of the layer it names.
void countReaders(const Json& j, std::map<std::string, int>& readers, const std::string& key = "") {
  switch (j.type()) {
    case Json::Type::String:
      if (key != "name" && key != "layer_names") ++readers[j.asString()];
      return;
    case Json::Type::Array:
      for (const Json& e : j.items()) countReaders(e, readers, key);
      return;
    case Json::Type::Object:
      for (const auto& kv : j.members()) countReaders(kv.second, readers, kv.first);
      return;
    default:
      return;
  }
}
}  // namespace

ProfileScope::ProfileScope(Timed* timed, bool sync) : timed_(timed), sync_(sync) {
  if (!timed_) return;
#ifdef WITH_CUDA
  if (sync_) gpu::synchronize();  // earlier work is not this scope's
#endif
  start_ = std::chrono::steady_clock::now();
}

ProfileScope::~ProfileScope() {
  if (!timed_) return;
#ifdef WITH_CUDA
  if (sync_) gpu::synchronize();
#endif
  timed_->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  ++timed_->count;
}

void GradientMachine::setProfiling(bool on) {
  profile_.reset();
  if (!on) return;
  profile_ = std::make_unique<StepProfile>();
  profile_->forward.resize(layers_.size());
  profile_->backward.resize(layers_.size());
}

GradientMachine::GradientMachine(const Json& config, bool useGpu, uint64_t seed, bool randomize)
    : config_(config), useGpu_(useGpu), rng_(seed) {
#ifndef WITH_CUDA
  if (useGpu) throwNoCuda("use_gpu=1");
#endif
  PADDLE_ENFORCE(!useGpu || gpuDeviceCount() > 0, UnsupportedError,
                 "use_gpu=1: no CUDA device is visible (check the driver and CUDA_VISIBLE_DEVICES)");
  std::string type = config.getString("type");
  PADDLE_ENFORCE(type == "nn" || type == "recurrent_nn", ConfigError, "model type '", type,
                 "' is not supported (expected 'nn' or 'recurrent_nn')");
  // Layers of recurrent groups belong to their group's sub-model; the top
  // level builds only the root sub-model's layers (all layers without sub-models).
  std::set<std::string> rootLayers;
  bool haveRoot = false;
  for (const Json& sm : config["sub_models"].items()) {
    if (sm.getString("name") != "root") continue;
    haveRoot = true;
    for (const std::string& n : sm.getStrings("layer_names")) rootLayers.insert(n);
  }
  for (const Json& pc : config["parameters"].items()) {
    std::shared_ptr<Parameter> p;
    try {
      p = std::make_shared<Parameter>(pc, useGpu);
    } catch (const std::bad_alloc&) {
      throw ConfigError(str("parameter '", pc.getString("name"), "' of size ", pc.getInt("size"),
                            " does not fit in memory"));
    } catch (const ConfigError& e) {
      throw ConfigError(str("parameter '", pc.getString("name"), "': ", e.what()));
    }
    PADDLE_ENFORCE(!paramMap_.count(p->name()), ConfigError, "parameter '", p->name(), "' is defined twice");
    paramMap_[p->name()] = p;
    params_.push_back(p);
  }
  LayerContext ctx{layerMap_, paramMap_, useGpu, &rng_, &config_};
  for (const Json& lc : config["layers"].items()) {
    std::string name = lc.getString("name");
    PADDLE_ENFORCE(!name.empty(), ConfigError, "a layer has no name");
    if (haveRoot && !rootLayers.count(name)) continue;
    PADDLE_ENFORCE(!layerMap_.count(name), ConfigError, "layer '", name, "' is defined twice");
    try {
      std::unique_ptr<Layer> layer = LayerRegistry::instance().create(lc);
      layer->init(ctx);
      layerMap_[name] = layer.get();
      layers_.push_back(std::move(layer));
    } catch (const ConfigError& e) {
      std::string msg = e.what();
      if (msg.rfind("layer '", 0) == 0) throw;  // already names the layer
      throw ConfigError(str("layer '", name, "' (type ", lc.getString("type"), "): ", msg));
    } catch (const std::bad_alloc&) {
      throw ConfigError(str("layer '", name, "' (type ", lc.getString("type"), "): out of memory building it"));
    }
  }
  for (const std::string& n : config.getStrings("input_layer_names")) {
    auto* d = dynamic_cast<DataLayer*>(layer(n));
    PADDLE_ENFORCE(d, ConfigError, "input layer '", n, "' is not a data layer");
    dataLayers_.push_back(d);
  }
  for (const std::string& n : config.getStrings("output_layer_names")) outputLayers_.push_back(layer(n));
  handOverInputGradients();
  setRecompute(config.getString("recompute"));
  if (randomize) randomizeParameters();
}

void GradientMachine::handOverInputGradients() {
  std::map<std::string, int> readers;
  countReaders(config_, readers);
  InputGradientSetter::handOverInputGradients(layers_, readers);
}

Layer* GradientMachine::layer(const std::string& name) const {
  auto it = layerMap_.find(name);
  PADDLE_ENFORCE(it != layerMap_.end(), ConfigError, "no layer named '", name, "'");
  return it->second;
}

Parameter* GradientMachine::parameter(const std::string& name) const {
  auto it = paramMap_.find(name);
  PADDLE_ENFORCE(it != paramMap_.end(), ConfigError, "no parameter named '", name, "'");
  return it->second.get();
}

void GradientMachine::randomizeParameters() {
  for (auto& p : params_) p->randomize(rng_);
}

void GradientMachine::loadParameters(const std::string& dir) {
  for (auto& p : params_) p->load(dir + "/" + p->name());
}

void GradientMachine::saveParameters(const std::string& dir) const {
  for (auto& p : params_) p->save(dir + "/" + p->name());
}

void GradientMachine::setNeedInputGradient(bool need) {
  for (DataLayer* d : dataLayers_) d->setNeedGradient(need);
}

void GradientMachine::setPrecision(math::Precision p) {
  // GPUs run both halves (cuBLAS GemmEx); the CPU runs bf16 on AVX512_BF16 and no fp16
  const bool runs = p == math::Precision::kFp32 || useGpu_ ||
                    (p == math::Precision::kBf16 && math::bf16GemmSupported());
  if (!runs && p != precision_) {
    std::fprintf(stderr, "paddle: %s\n", p == math::Precision::kFp16
                                             ? "precision fp16 needs a GPU (bf16 is the CPU's); running in fp32"
                                             : "precision bf16 needs a CPU with AVX512_BF16; running in fp32");
  }
  precision_ = runs ? p : math::Precision::kFp32;
}

void GradientMachine::setRecompute(const std::string& mode, const std::vector<std::string>& checkpoints) {
  released_ = false;
  rngBefore_.clear();
  recompute_.reset();
  for (auto& l : layers_) l->recomputeInside(false);
  if (mode.empty() || mode == "off") return;
  recompute_ = std::make_unique<RecomputePlan>(mode, checkpoints, config_, layers_);
  enableBufferCache();  // the released buffers come back every step, in the same sizes
  for (auto& l : layers_) l->recomputeInside(true);
}

std::vector<std::string> GradientMachine::recomputeCheckpoints() const {
  return recompute_ ? recompute_->checkpoints() : std::vector<std::string>();
}

void GradientMachine::releaseSegment(const RecomputeSegment& s) {
  for (size_t i : s.recomputed) layers_[i]->releaseForwardState();
}

void GradientMachine::recomputeSegment(const RecomputeSegment& s) {
  if (s.recomputed.empty()) return;
  const std::mt19937 saved = rng_;  // where the next forward goes on from
  RecomputeScope recomputing;
  for (size_t i : s.recomputed) {
    if (recompute_->startsRun(i)) rng_ = rngBefore_.at(i);
    ProfileScope timed(profile_ ? &profile_->forward[i] : nullptr, useGpu_);
    layers_[i]->runForward(pass_);
  }
  rng_ = saved;
}

void GradientMachine::forward(const std::vector<Argument>& inArgs, PassType pass) {
  PADDLE_ENFORCE(inArgs.size() == dataLayers_.size(), DataError, "the network has ",
                 dataLayers_.size(), " input layers but the batch has ", inArgs.size(), " slots");
  pass_ = pass;
  flushDenormals();
  NetworkPrecisionScope precision(precision_);
  for (size_t i = 0; i < inArgs.size(); ++i) dataLayers_[i]->setData(inArgs[i]);
  released_ = recompute_ && (pass == PASS_TRAIN || pass == PASS_GC);
  size_t segment = 0;
  for (size_t i = 0; i < layers_.size(); ++i) {
    Layer* l = layers_[i].get();
    if (released_ && recompute_->startsRun(i)) rngBefore_[i] = rng_;
    try {
      ProfileScope timed(profile_ ? &profile_->forward[i] : nullptr, useGpu_);
      l->runForward(pass);
    } catch (const std::bad_alloc&) {
      throw DataError(str("layer '", l->name(), "' (", l->type(), "): out of memory for its output (",
                          inArgs.empty() ? 0 : inArgs[0].batchSize(), " rows in this batch)"));
    }
    // a finished segment keeps only what is read after it
    if (released_ && i + 1 == recompute_->segments()[segment].end) releaseSegment(recompute_->segments()[segment++]);
  }
}

void GradientMachine::backward() {
  PADDLE_ENFORCE(pass_ == PASS_TRAIN || pass_ == PASS_GC, DataError,
                 "backward() needs a forward() in training mode first");
  flushDenormals();
  if (!gradientsZero_) {
    for (auto& p : params_) p->zeroGrad();
  }
  gradientsZero_ = false;
  NetworkPrecisionScope precision(precision_, lossScale_);
  const std::vector<RecomputeSegment> whole{RecomputeSegment{0, layers_.size(), {}}};
  const std::vector<RecomputeSegment>& segments = released_ ? recompute_->segments() : whole;
  for (size_t k = segments.size(); k-- > 0;) {
    const RecomputeSegment& s = segments[k];
    recomputeSegment(s);
    for (size_t i = s.end; i-- > s.begin;) {
      ProfileScope timed(profile_ ? &profile_->backward[i] : nullptr, useGpu_);
      layers_[i]->runBackward();
      if (backwardHook_) backwardHook_(i);
    }
    releaseSegment(s);
  }
}

std::vector<Argument*> GradientMachine::outputs() {
  std::vector<Argument*> out;
  for (Layer* l : outputLayers_) out.push_back(&l->output());
  return out;
}

double GradientMachine::totalCost() {
  double total = 0;
  std::vector<float> host;
  for (Layer* l : outputLayers_) {
    if (!l->isCost()) continue;
    const Matrix& v = l->output().value;
    host.resize(v.size());
    v.copyToHost(host.data());
    for (float x : host) total += x;
  }
  return total;
}

}  // namespace paddle
