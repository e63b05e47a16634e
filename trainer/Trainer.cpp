#include "trainer/Trainer.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "engine/Errors.h"
#include "engine/InputFile.h"
#include "engine/math/MathOps.h"
#include "engine/math/ThreadPool.h"
#include "layers/ImageUtils.h"

namespace paddle {

void EvalStats::start() {
  cost = 0;
  samples = 0;
  for (auto& e : evaluators) e->start();
}

std::string EvalStats::evalString() const { return evaluatorsString(evaluators); }

Argument sliceArgument(const Argument& a, size_t seqBegin, size_t seqEnd) {
  Argument out;
  size_t rowBegin = seqBegin, rowEnd = seqEnd;
  if (a.hasSeq()) {
    const int* s = a.seqStarts.data();
    rowBegin = s[seqBegin];
    rowEnd = s[seqEnd];
    out.seqStarts = IVector(1, seqEnd - seqBegin + 1, false);
    for (size_t i = seqBegin; i <= seqEnd; ++i) out.seqStarts.data()[i - seqBegin] = s[i] - s[seqBegin];
    if (a.subSeqStarts.size()) {
      std::vector<int> sub;
      for (size_t i = 0; i < a.subSeqStarts.size(); ++i) {
        int r = a.subSeqStarts.data()[i];
        if (r >= static_cast<int>(rowBegin) && r <= static_cast<int>(rowEnd)) sub.push_back(r - rowBegin);
      }
      out.subSeqStarts.copyFromHost(sub.data(), 1, sub.size());
    }
  }
  if (!a.value.empty()) out.value = a.value.rows(rowBegin, rowEnd);
  if (!a.sparse.empty()) out.sparse = a.sparse.rows(rowBegin, rowEnd);
  if (!a.ids.empty()) out.ids = IVector::view(const_cast<int*>(a.ids.data()) + rowBegin, 1, rowEnd - rowBegin, a.ids.useGpu());
  out.frameHeight = a.frameHeight;
  out.frameWidth = a.frameWidth;
  return out;
}

namespace {
// Convolution MACs per sample: each small-side pixel (the output of a conv, the input of a
// transposed conv) takes one MAC per weight element.
double convMacsPerSample(const Json& model) {
  double macs = 0;
  for (const Json& layer : model["layers"].items()) {
    const std::string type = layer.getString("type");
    if (type != "exconv" && type != "cudnn_conv" && type != "exconvt" && type != "cudnn_convt") continue;
    const bool trans = type == "exconvt" || type == "cudnn_convt";
    const double filters = static_cast<double>(layer.getInt("num_filters"));
    for (const Json& in : layer["inputs"].items()) {
      if (!in.has("conv_conf")) continue;
      const image::ConvGeom g(in["conv_conf"]);
      const double weight = (trans ? filters : g.channels) / g.groups * g.fh * g.fw * (trans ? g.channels : filters);
      macs += weight * g.outH * g.outW;
    }
  }
  return macs;
}
}  // namespace

int autoReplicas(const Json& model, int64_t batchSize, bool useGpu, bool distributed) {
  const int threads = cpuThreads();
  // (MPI ranks keep one replica each, so N ranks still train what --trainer_count=N does)
  if (useGpu || distributed || threads < 2 || batchSize < 2 * threads) return 1;
  for (const Json& layer : model["layers"].items()) {
    // what a sub-batch would change beyond rounding: statistics over the batch, random draws
    // (each replica has its own stream), a layer across the batch
    const std::string type = layer.getString("type");
    if (type == "batch_norm" || type == "cudnn_batch_norm" || type == "nce" || type == "sampling_id" ||
        type == "trans" || layer.getDouble("drop_rate") > 0)
      return 1;
  }
  if (model.has("sub_models") && model["sub_models"].size() > 1) return 1;  // recurrent groups
  double denseParams = 0;
  for (const Json& p : model["parameters"].items()) {
    if (p.getBool("sparse_update") || p.getBool("sparse_remote_update")) return 1;
    if (!p.getBool("is_static")) denseParams += static_cast<double>(p.getInt("size"));
  }
  // Splitting each op pays for large GEMMs (fc layers, sequence models); a conv net runs many
  // small per-chunk GEMMs and loops that split poorly, while each extra replica costs one sum
  // over the dense gradients: replicas when the convolutions' work per batch is at least
  // kConvMacsPerParam MACs per dense parameter (LeNet: ~560).
  constexpr double kConvMacsPerParam = 64;
  const double convMacs = convMacsPerSample(model) * static_cast<double>(batchSize);
  return convMacs > 0 && convMacs >= kConvMacsPerParam * denseParams ? threads : 1;
}

Trainer::Trainer(const std::string& json, const TrainerOptions& options)
    : config_(Json::parse(json, "TrainerConfig")),
      options_(options),
      batchSize_(config_["opt_config"].getInt("batch_size")),
      updater_(config_["opt_config"]) {
  init(nullptr);
  randomizeParameters();
}

Trainer::Trainer(const std::string& json, const TrainerOptions& options, std::shared_ptr<GradientMachine> main)
    : config_(Json::parse(json, "TrainerConfig")),
      options_(options),
      batchSize_(config_["opt_config"].getInt("batch_size")),
      updater_(config_["opt_config"]) {
  PADDLE_ENFORCE(main, ConfigError, "the trainer needs a gradient machine");
  PADDLE_ENFORCE(main->useGpu() == options.useGpu, ConfigError, "the gradient machine is on the ",
                 main->useGpu() ? "GPU" : "CPU", " but the trainer is asked to run on the ",
                 options.useGpu ? "GPU" : "CPU");
  init(std::move(main));
}

void Trainer::init(std::shared_ptr<GradientMachine> main) {
  PADDLE_ENFORCE(config_.has("model_config"), ConfigError, "the trainer config has no model_config");
  PADDLE_ENFORCE(options_.trainerCount >= 0, ConfigError, "trainer_count must be >= 1 (0: chosen automatically)");
  if (options_.trainerCount == 0) {
    options_.trainerCount = main ? 1 : autoReplicas(config_["model_config"], batchSize_, options_.useGpu,
                                                    options_.distributed);
  }
  replicas_ = makeReplicas(options_.useGpu, options_.trainerCount);
  const Json& model = config_["model_config"];
  if (main) {
    PADDLE_ENFORCE(main->parameters().size() == model["parameters"].size() &&
                       main->layers().size() <= model["layers"].size(),
                   ConfigError, "the gradient machine was not built from this trainer config's model_config");
    machines_.push_back(std::move(main));
  }
  for (int i = static_cast<int>(machines_.size()); i < options_.trainerCount; ++i) {
    machines_.push_back(replicas_->create(model, options_.useGpu, options_.seed + i, i));
  }
  const math::Precision precision = parsePrecision(config_["opt_config"].getString("precision"));
  for (auto& m : machines_) m->setPrecision(precision);
  updater_.setLossScaling(machines_[0]->precision() == math::Precision::kFp16);
  replicas_->linkValues(machines_);
  SyncSetup setup;
  setup.distributed = options_.distributed;
  setup.shardTables = options_.distributed && options_.shardTables;
  setup.machines = &machines_;
  setup.updater = &updater_;
  setup.optConfig = &config_["opt_config"];
  sync_ = makeGradientSync(setup);
  sync_->setShardedData(options_.shardedData);
  const auto& mains = machines_[0]->parameters();
  for (size_t r = 1; r < machines_.size(); ++r) {  // the replicas read the shards the sync made
    for (size_t k = 0; k < mains.size(); ++k) {
      if (mains[k]->sharded()) machines_[r]->parameters()[k]->shareValueOf(*mains[k]);
    }
  }
  pass_ = makeStats(true);
  period_ = makeStats(false);
  test_ = makeStats(true);
  if (options_.distributed) {
    batch_ = makeStats(false);
    accumulateBatch_ = &Trainer::accumulateOverRanks;
  }
}

EvalStats Trainer::makeStats(bool withPrinters) const {
  EvalStats s;
  // the per-pass statistics (train and test, not the log period's) also write --predict_file
  s.evaluators = createEvaluators(config_["model_config"], *machines_[0], withPrinters,
                                  withPrinters ? options_.predictFile : "");
  return s;
}

void Trainer::randomizeParameters() {
  std::mt19937 rng(options_.seed);
  for (auto& p : machines_[0]->parameters()) p->randomize(rng);
}

void Trainer::loadParameters(const std::string& dir) { machines_[0]->loadParameters(dir); }

void Trainer::saveParameters(const std::string& dir) {
  sync_->beforeSave(SaveStep::kParameters);
  updater_.catchUp();
  updater_.apply();
  try {
    machines_[0]->saveParameters(dir);
  } catch (...) {
    updater_.restore();
    throw;
  }
  updater_.restore();
}

namespace {
const char* bufferName(ParameterType t) {
  switch (t) {
    case PARAMETER_VALUE: return "value";
    case PARAMETER_MOMENTUM: return "momentum";
    case PARAMETER_SECOND_MOMENTUM: return "second_momentum";
    case PARAMETER_GRADIENT_SQURESUM: return "gradient_squaresum";
    case PARAMETER_GRADIENT_SQURESUM1: return "gradient_squaresum1";
    case PARAMETER_WEIGHTED_INFINITY_NORM: return "infinity_norm";
    case PARAMETER_LEARNING_RATE: return "learning_rate";
    case PARAMETER_SUM1: return "sum1";
    case PARAMETER_SUM2: return "sum2";
    case PARAMETER_SUM3: return "sum3";
    default: return "buffer";
  }
}
}  // namespace

void Trainer::serveShards() { sync_->serveSaves(updater_, machines_[0]->parameters()); }

void Trainer::saveOptimizerState(const std::string& dir) const {
  sync_->beforeSave(SaveStep::kOptimizerState);
  ParameterUpdater::BufferNames saved;
  for (auto& p : machines_[0]->parameters()) {
    for (ParameterType t : updater_.stateBuffers()) {
      if (!p->hasBuffer(t)) continue;
      p->save(dir + "/" + p->name() + "." + bufferName(t), t);
      saved[p->name()].push_back(bufferName(t));
    }
  }
  std::ofstream out(dir + "/updater.json");
  out << updater_.stateJson(saved) << "\n";
  PADDLE_ENFORCE(out.good(), IOError, "cannot write ", dir, "/updater.json");
}

void Trainer::loadOptimizerState(const std::string& dir) {
  const std::string statePath = dir + "/updater.json";
  PADDLE_ENFORCE(isRegularFile(statePath), IOError, "no optimizer state in ", dir, " (updater.json missing)");
  std::ifstream in = openInputFile(statePath, "optimizer state");
  std::stringstream ss;
  ss << in.rdbuf();
  std::set<std::string> names;
  for (auto& p : machines_[0]->parameters()) names.insert(p->name());
  try {
    updater_.loadStateJson(ss.str(), names);
  } catch (const ConfigError& e) {
    throw IOError(str("optimizer state '", statePath, "': ", e.what()));
  }
  const ParameterUpdater::BufferNames* listed = updater_.loadedBuffers();
  for (auto& p : machines_[0]->parameters()) {
    for (ParameterType t : updater_.stateBuffers()) {
      const std::string path = dir + "/" + p->name() + "." + bufferName(t);
      if (listed) {  // the state lists its buffers: each listed one must be there
        auto it = listed->find(p->name());
        bool wanted = it != listed->end() &&
                      std::find(it->second.begin(), it->second.end(), bufferName(t)) != it->second.end();
        if (!wanted) continue;
        PADDLE_ENFORCE(isRegularFile(path), IOError, "optimizer state in ", dir, " is incomplete: '", path,
                       "' is missing");
      } else if (!isRegularFile(path)) {
        continue;  // older state without the list: absent for static parameters
      }
      p->load(path, t);
    }
    p->resetRowClocks(updater_.loadedUpdates(*p));  // saved caught up
  }
}

void Trainer::startPass(int pass) {
  passId_ = pass;
  batchesInPass_ = skippedInPass_ = 0;
  updater_.startPass(pass);
  // Dropout and sampling draw from a stream fixed by (seed, pass, replica), so
  // a run resumed at pass k repeats what an uninterrupted run does there; replicas are
  // numbered across ranks, so N ranks draw what N threads of one process draw.
  const size_t first = static_cast<size_t>(sync_->rank()) * machines_.size();
  for (size_t r = 0; r < machines_.size(); ++r) {
    machines_[r]->rng().seed(options_.seed * 1000003ULL + static_cast<uint64_t>(pass) * 7919ULL + first + r);
  }
  pass_.start();
  period_.start();
}

void Trainer::finishPass() {
  updater_.finishPass(batchesInPass_);
  sync_->passEnd(updater_, machines_[0]->parameters());
  for (auto& e : pass_.evaluators) e->onPassEnd();
}

void Trainer::finishTest() {
  updater_.restore();
  for (auto& e : test_.evaluators) e->onPassEnd();
}

void Trainer::startTest() {
  updater_.catchUp();
  updater_.apply();
  test_.start();
}

namespace {
// Sequences [begin, end) of n that part i of k trains on: threads and MPI ranks split alike.
std::pair<size_t, size_t> shareOf(size_t n, size_t i, size_t k) { return {n * i / k, n * (i + 1) / k}; }
}  // namespace

void Trainer::runReplicas(const std::vector<Argument>& inArgs, PassType pass) {
  const bool train = pass == PASS_TRAIN;
  const size_t k = machines_.size();
  active_.assign(k, 1);
  const size_t n = inArgs.empty() ? 0 : inArgs[0].numSequences();
  if (k == 1 && n > 0) {
    machines_[0]->forward(inArgs, pass);
    if (train) machines_[0]->backward();
    return;
  }
  replicas_->beforeStep(machines_);
  // Split by sequences (samples when there are none); gradients are combined after.
  std::vector<std::exception_ptr> errors(k);
  replicas_->run(k, [&](size_t t) {
    const std::pair<size_t, size_t> share = shareOf(n, t, k);
    if (share.first == share.second) {  // fewer sequences than replicas (a last, partial batch): this one idles
      active_[t] = 0;
      return;
    }
    try {
      std::vector<Argument> part;
      for (const Argument& a : inArgs) part.push_back(sliceArgument(a, share.first, share.second));
      machines_[t]->forward(part, pass);
      if (train) machines_[t]->backward();
    } catch (...) {
      errors[t] = std::current_exception();
    }
  });
  for (auto& e : errors) if (e) std::rethrow_exception(e);
  if (!train) return;
  ProfileScope timed(machines_[0]->replicaSumTimer(), machines_[0]->useGpu());
  replicas_->combineGradients(machines_, active_);
}

double Trainer::batchCost() {
  double cost = 0;
  for (size_t r = 0; r < machines_.size(); ++r) {
    if (active_[r]) cost += machines_[r]->totalCost();
  }
  return cost;
}

namespace {
std::string nonFiniteText(double x) { return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf"); }
}  // namespace

std::string Trainer::firstNonFiniteOutput() const {
  std::vector<float> host;
  for (size_t r = 0; r < machines_.size(); ++r) {
    if (!active_[r]) continue;
    for (const auto& layer : machines_[r]->layers()) {
      const Matrix& v = layer->output().value;
      host.resize(v.size());
      v.copyToHost(host.data());
      for (float x : host) {
        if (!std::isfinite(x)) return str("layer '", layer->name(), "' (", layer->type(), ") outputs ", nonFiniteText(x));
      }
    }
  }
  return "every layer output is finite: the cost layer itself overflowed";
}

void Trainer::accumulate(EvalStats& stats, int64_t numSamples, double cost) {
  stats.cost += cost;
  for (size_t r = 0; r < machines_.size(); ++r) {
    if (!active_[r]) continue;
    for (auto& e : stats.evaluators) e->eval(*machines_[r]);
  }
  stats.samples += numSamples;
}

void Trainer::accumulateOverRanks(int64_t numSamples, double cost) {
  // This rank's evaluators see its share of the batch; every rank's statistics of the batch,
  // merged in rank order, make what one process seeing the whole batch accumulates.
  batch_.start();
  accumulate(batch_, 0, 0);
  std::vector<double> mine;
  for (auto& e : batch_.evaluators) {
    std::vector<double> s = e->state();
    mine.push_back(static_cast<double>(s.size()));
    mine.insert(mine.end(), s.begin(), s.end());
  }
  const std::vector<double> all = sync_->gather(mine, "the all-gather of statistics");
  for (EvalStats* stats : {&pass_, &period_}) {
    stats->cost += cost;
    stats->samples += numSamples;
    std::vector<Evaluator*> merged;  // stats' evaluators in batch_'s order (printers aside)
    for (auto& e : stats->evaluators) {
      if (!e->isPrinter()) merged.push_back(e.get());
    }
    for (size_t pos = 0; pos < all.size();) {  // rank by rank
      for (Evaluator* e : merged) {
        const size_t n = static_cast<size_t>(all[pos++]);
        e->merge(all.data() + pos, n);
        pos += n;
      }
    }
    for (auto& e : stats->evaluators) {  // printers print what this rank sees
      if (!e->isPrinter()) continue;
      for (size_t r = 0; r < machines_.size(); ++r) {
        if (active_[r]) e->eval(*machines_[r]);
      }
    }
  }
}

void Trainer::trainOneBatch(const std::vector<Argument>& inArgs, int64_t numSamples) {
  flushDenormals();  // this thread runs the updates
  updater_.restore();  // in case a test period was left open
  lastSkip_.clear();
  // A batch that may be skipped must leave the parameters as they were, and a forward in
  // training writes static ones (batch_norm's moving averages): keep their values.
  if (skipLimit_ > 0) {
    size_t i = 0;
    for (auto& p : machines_[0]->parameters()) {
      if (!p->isStatic()) continue;
      if (i == staticBackup_.size()) staticBackup_.emplace_back();
      staticBackup_[i].resize(p->value().size());  // (allocated once: the sizes do not change)
      p->value().copyToHost(staticBackup_[i++].data());
    }
  }
  const std::vector<ParameterPtr>& params = machines_[0]->parameters();
  const std::vector<Argument> share = sync_->share(inArgs);
  sync_->beforeForward(share);  // (sharded tables: the rows this share reads)
  for (auto& m : machines_) m->setLossScale(updater_.lossScale());  // (fp16; 1 otherwise)
  runReplicas(share, PASS_TRAIN);
  sync_->gradientsReady(params);
  // Every rank checks the same global cost, so all stop (or skip) together or none does.
  double global[2] = {batchCost(), static_cast<double>(numSamples)};
  sync_->reduceCostAndSamples(global);
  const double cost = global[0];
  numSamples = static_cast<int64_t>(global[1]);
  // Checked before any update, so the parameters (and what is saved) stay as they were.
  if (!std::isfinite(cost)) {
    const std::string what = str("pass ", passId_, ", batch ", batchesInPass_ + skippedInPass_ + 1, ": the cost is ",
                                 nonFiniteText(cost), "; first non-finite output: ", firstNonFiniteOutput());
    PADDLE_ENFORCE(skipped_ < skipLimit_, DataError, what,
                   skipLimit_ > 0 ? str(" (", skipped_, " batches skipped already, --skip_nonfinite_batches=",
                                        skipLimit_, ")") : std::string(),
                   " (lower the learning rate, clip gradients, or check the data)");
    size_t i = 0;
    for (auto& p : machines_[0]->parameters()) {
      if (p->isStatic()) p->value().copyFromHost(staticBackup_[i++].data(), p->value().height(), p->value().width());
    }
    ++skipped_;
    ++skippedInPass_;
    lastSkip_ = what;
    return;
  }
  ++batchesInPass_;
  sync_->exchangeGradients(params);  // (LocalSGD: scales its own)
  if (updater_.lossScaling()) {  // fp16: an overflow anywhere skips the step on every rank
    double overflow = updater_.gradientsFinite(params) ? 0 : 1;
    sync_->sum(&overflow, 1);
    if (!updater_.takeScaledGradients(params, overflow == 0)) {
      (this->*accumulateBatch_)(numSamples, cost);
      return;
    }
  }
  {
    ProfileScope timed(machines_[0]->updateTimer(), machines_[0]->useGpu());
    updater_.startBatch(numSamples);
    updater_.setMomentumOff(sync_->correctsMomentum());
    updater_.clipByGlobalNorm(machines_[0]->parameters());
    for (auto& p : machines_[0]->parameters()) updater_.update(*p);
    updater_.finishBatch();
  }
  machines_[0]->gradientsAreZero();  // update() cleared each gradient it used
  sync_->stepEnd(updater_, params);
  (this->*accumulateBatch_)(numSamples, cost);
}

void Trainer::accumulateHere(int64_t numSamples, double cost) {
  accumulate(pass_, numSamples, cost);
  accumulate(period_, numSamples, cost);
}

void Trainer::testOneBatch(const std::vector<Argument>& inArgs, int64_t numSamples) {
  sync_->beforeForward(inArgs);  // (with sharded tables every rank tests)
  runReplicas(inArgs, PASS_TEST);
  accumulate(test_, numSamples, batchCost());
}

}  // namespace paddle
