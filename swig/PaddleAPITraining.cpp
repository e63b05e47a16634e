// The training side of the engine API: v1's config objects, Parameter,
// Evaluator, GradientMachine, ParameterOptimizer, ParameterUpdater, Trainer.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "engine/Errors.h"
#include "engine/InputFile.h"
#include "swig/PaddleAPI.h"
#include "trainer/Predictor.h"
#include "trainer/Trainer.h"

using paddle::str;
using DenseF = paddle::DenseBuffer<float>;

// ---------------------------------------------------------------- config objects
// createFromJson checks the JSON against the message (ConfigError otherwise).
#define PD_CONFIG_OBJECT(Class)                                 \
  Class* Class::createFromJson(const std::string& json) {       \
    paddle::Json::parse(json, #Class);                          \
    auto* c = new Class;                                        \
    c->json_ = json;                                            \
    return c;                                                   \
  }                                                             \
  std::string Class::toJson() const { return json_; }

PD_CONFIG_OBJECT(ParameterConfig)
PD_CONFIG_OBJECT(OptimizationConfig)
PD_CONFIG_OBJECT(ModelConfig)
PD_CONFIG_OBJECT(TrainerConfig)
#undef PD_CONFIG_OBJECT

ModelConfig* TrainerConfig::getModelConfig() const {
  paddle::Json t = paddle::Json::parse(json_);
  PADDLE_ENFORCE(t.has("model_config"), paddle::ConfigError, "the trainer config has no model_config");
  return ModelConfig::createFromJson(t["model_config"].dump());
}
OptimizationConfig* TrainerConfig::getOptimizationConfig() const {
  paddle::Json t = paddle::Json::parse(json_);
  return OptimizationConfig::createFromJson(t.has("opt_config") ? t["opt_config"].dump() : "{}");
}

// ---------------------------------------------------------------- Parameter
Parameter::Parameter() = default;
Parameter::~Parameter() = default;
std::string Parameter::getName() const { return p_->name(); }
size_t Parameter::getID() const { return id_; }
size_t Parameter::getSize() const { return p_->size(); }
std::vector<size_t> Parameter::getDims() const {
  std::vector<size_t> d;
  for (auto x : p_->dims()) d.push_back(static_cast<size_t>(x));
  return d;
}
bool Parameter::isStatic() const { return p_->isStatic(); }
ParameterConfig* Parameter::getConfig() const { return ParameterConfig::createFromJson(p_->config().dump()); }
Vector* Parameter::getBuf(ParameterType type) {
  PADDLE_ENFORCE(type >= 0 && type < NUM_PARAMETER_TYPES, std::out_of_range, "bad parameter buffer type ", type);
  auto t = static_cast<paddle::ParameterType>(type);
  PADDLE_ENFORCE(!(t == paddle::PARAMETER_GRADIENT && p_->isStatic()), std::invalid_argument,
                 "static parameter '", p_->name(), "' has no gradient");
  // (a sparse_update gradient held as compact rows is laid out densely for the caller)
  const DenseF& b = t == paddle::PARAMETER_GRADIENT ? p_->grad() : p_->buffer(t);
  // Aliases the engine's memory and keeps it alive: its own allocation, or (a sparse table's
  // reserved rows, which the parameter owns) the parameter.
  struct Held {
    std::shared_ptr<paddle::Parameter> owner;
    DenseF buf;
  };
  auto held = std::make_shared<Held>(Held{p_, b});
  auto* v = new Vector;
  v->v_ = std::shared_ptr<DenseF>(held, &held->buf);
  return v;
}
bool Parameter::hasBuf(ParameterType type) const {
  auto t = static_cast<paddle::ParameterType>(type);
  if (t == paddle::PARAMETER_GRADIENT) return !p_->isStatic();
  return t == paddle::PARAMETER_VALUE || p_->hasBuffer(t);
}
void Parameter::setValueUpdated() {}
bool Parameter::save(const std::string& path) const {
  p_->save(path);
  return true;
}
bool Parameter::load(const std::string& path) {
  p_->load(path);
  return true;
}

Vector* Vector::createFromParameterFile(const std::string& path) {
  // The size comes from the header; the engine's reader then checks the file against it.
  uint64_t size = 0, bytes = 0;
  {
    std::ifstream in = paddle::openInputFile(path, "parameter file");  // a FIFO is an error, not a hang
    char header[16];
    in.read(header, sizeof(header));
    PADDLE_ENFORCE(in.gcount() == sizeof(header), paddle::IOError, "'", path,
                   "' is too short for a parameter header (", in.gcount(), " bytes)");
    std::memcpy(&size, header + 8, sizeof(size));
    in.seekg(0, std::ios::end);
    bytes = static_cast<uint64_t>(in.tellg());
  }
  // (checked before anything of that size is allocated: a damaged header could ask for terabytes)
  PADDLE_ENFORCE(size > 0 && size <= (bytes - 16) / sizeof(float), paddle::IOError, "'", path, "' says ", size,
                 " values but holds ", bytes - 16, " bytes of values");
  paddle::Parameter p(paddle::Json::parse(str("{\"name\":\"file\",\"size\":", size, "}"), "ParameterConfig"),
                      false);
  p.load(path);  // (refuses NaN and inf)
  std::vector<float> host(size);
  p.value().copyToHost(host.data());
  auto* v = new Vector;
  v->v_ = std::make_shared<DenseF>(0, 0, false);
  v->v_->copyFromHost(host.data(), 1, host.size());
  return v;
}

// ---------------------------------------------------------------- Evaluator
Evaluator::Evaluator() = default;
Evaluator::~Evaluator() = default;
void Evaluator::start() {
  for (auto& e : e_) e->start();
}
void Evaluator::finish() {}
std::string Evaluator::toString() const { return paddle::evaluatorsString(e_); }

// The engine's fields as the API's records.
static std::vector<EvaluatorField> apiFields(const std::vector<std::unique_ptr<paddle::Evaluator>>& evaluators) {
  std::vector<EvaluatorField> out;
  for (const paddle::EvaluatorField& f : paddle::evaluatorsFields(evaluators)) {
    EvaluatorField a;
    a.name = f.name;
    a.value = f.value;
    a.better = f.better == paddle::EvaluatorField::kHigher ? 1 : f.better == paddle::EvaluatorField::kLower ? -1 : 0;
    out.push_back(a);
  }
  return out;
}
std::vector<EvaluatorField> Evaluator::getFields() const { return apiFields(e_); }
std::vector<std::string> Evaluator::getNames() const {
  std::vector<std::string> n;
  for (auto& e : e_) n.push_back(e->name());
  return n;
}
double Evaluator::getValue(const std::string& name) const {
  for (auto& e : e_) {
    if (e->name() == name) return e->value();
  }
  throw std::invalid_argument(str("no evaluator named '", name, "'"));
}

// ---------------------------------------------------------------- GradientMachine
GradientMachine::GradientMachine() = default;
GradientMachine::~GradientMachine() = default;

GradientMachine* GradientMachine::createByConfigJson(const std::string& json, bool useGpu,
                                                     unsigned long long seed) {
  auto* g = new GradientMachine;
  try {
    g->m_ = std::make_shared<paddle::GradientMachine>(paddle::Json::parse(json, "ModelConfig"), useGpu, seed);
  } catch (...) {
    delete g;
    throw;
  }
  return g;
}

GradientMachine* GradientMachine::createByModelConfig(ModelConfig* conf, GradientMatchineCreateMode mode,
                                                      const std::vector<int>& parameterTypes) {
  PADDLE_ENFORCE(conf, std::invalid_argument, "createByModelConfig(None)");
  PADDLE_ENFORCE(mode == CREATE_MODE_NORMAL || mode == CREATE_MODE_SGD_SPARSE_CPU_TRAINING ||
                     mode == CREATE_MODE_TESTING,
                 std::invalid_argument, "unknown GradientMachine create mode ", static_cast<int>(mode));
  for (int t : parameterTypes) {
    PADDLE_ENFORCE(t >= 0 && t < NUM_PARAMETER_TYPES, std::out_of_range, "bad parameter buffer type ", t);
  }
  return createByConfigJson(conf->json_, isUsingGpu(), 1);
}

GradientMachine* GradientMachine::createFromMergedModel(const std::string& path, bool useGpu) {
  auto* g = new GradientMachine;
  try {
    g->m_ = paddle::loadMergedModel(path, useGpu);
  } catch (...) {
    delete g;
    throw;
  }
  return g;
}
void GradientMachine::saveMergedModel(const std::string& path) const { paddle::saveMergedModel(*m_, path); }

void GradientMachine::start() {}
void GradientMachine::finish() {}
void GradientMachine::prefetch(const Arguments&) {}
void GradientMachine::onPassEnd() {}

namespace {
paddle::PassType enginePass(PassType t) {
  switch (t) {
    case PASS_TRAIN: case PASS_METRIC_TRAIN: case PASS_METRIC_TRAIN_WITH_NOERROR: return paddle::PASS_TRAIN;
    case PASS_TEST: case PASS_METRIC: return paddle::PASS_TEST;
    case PASS_GC: return paddle::PASS_GC;
  }
  throw std::invalid_argument(str("unknown pass type ", static_cast<int>(t)));
}
}  // namespace

void GradientMachine::forward(const Arguments& in, Arguments* out, PassType passType) {
  m_->forward(*in.args_, enginePass(passType));
  if (out) {
    out->args_->clear();
    for (paddle::Argument* a : m_->outputs()) out->args_->push_back(*a);
  }
}
void GradientMachine::backward() { m_->backward(); }
void GradientMachine::forwardBackward(const Arguments& in, Arguments* out, PassType passType) {
  forward(in, out, passType);
  backward();
}
size_t GradientMachine::getParameterSize() const { return m_->parameters().size(); }
Parameter* GradientMachine::getParameter(size_t i) const {
  PADDLE_ENFORCE(i < m_->parameters().size(), std::out_of_range, "parameter ", i, " out of range (",
                 m_->parameters().size(), " parameters)");
  auto* p = new Parameter;
  p->p_ = m_->parameters()[i];
  p->owner_ = m_;
  p->id_ = i;
  return p;
}
size_t GradientMachine::getNonStaticParameterSize() const {
  const auto& ps = m_->parameters();
  return std::count_if(ps.begin(), ps.end(), [](const paddle::ParameterPtr& p) { return !p->isStatic(); });
}
Parameter* GradientMachine::getNonStaticParameter(size_t i) const {
  size_t seen = 0;
  for (size_t k = 0; k < m_->parameters().size(); ++k) {
    if (m_->parameters()[k]->isStatic()) continue;
    if (seen++ == i) return getParameter(k);
  }
  throw std::out_of_range(str("non-static parameter ", i, " out of range (", seen, " non-static parameters)"));
}
Parameter* GradientMachine::getParameterByName(const std::string& name) const {
  for (size_t i = 0; i < m_->parameters().size(); ++i) {
    if (m_->parameters()[i]->name() == name) return getParameter(i);
  }
  throw std::invalid_argument(str("no parameter named '", name, "'"));
}
void GradientMachine::randParameters() { m_->randomizeParameters(); }
void GradientMachine::loadParameters(const std::string& dir) { m_->loadParameters(dir); }
void GradientMachine::saveParameters(const std::string& dir) const { m_->saveParameters(dir); }
Arguments* GradientMachine::getLayerOutput(const std::string& name, const std::string& outputName) const {
  paddle::Layer* layer = m_->layer(name);
  paddle::Argument* out = outputName.empty() ? &layer->output() : layer->findOutput(outputName);
  PADDLE_ENFORCE(out, std::invalid_argument, "layer '", name, "' has no output named '", outputName, "'");
  auto* a = Arguments::createArguments(0);
  a->args_->push_back(*out);
  return a;
}
std::string GradientMachine::getModelConfigJson() const { return m_->config().dump(); }
bool GradientMachine::isGpu() const { return m_->useGpu(); }
std::vector<std::string> GradientMachine::getInputLayerNames() const {
  std::vector<std::string> n;
  for (auto* d : m_->dataLayers()) n.push_back(d->name());
  return n;
}
std::vector<std::string> GradientMachine::getOutputLayerNames() const {
  std::vector<std::string> n;
  for (auto* l : m_->outputLayers()) n.push_back(l->name());
  return n;
}
void GradientMachine::setNeedInputGradient(bool need) { m_->setNeedInputGradient(need); }

void GradientMachine::setPrecision(const std::string& precision) {
  m_->setPrecision(paddle::parsePrecision(precision));
}

std::vector<std::string> GradientMachine::getRecomputeCheckpoints() const {
  return m_->recomputeCheckpoints();
}

std::string GradientMachine::getPrecision() const {
  switch (m_->precision()) {
    case paddle::math::Precision::kBf16: return "bf16";
    case paddle::math::Precision::kFp16: return "fp16";
    default: return "fp32";
  }
}
Evaluator* GradientMachine::makeEvaluator() {
  auto* e = new Evaluator;
  e->e_ = paddle::createEvaluators(m_->config(), *m_, true);
  e->owner_ = m_;
  return e;
}
void GradientMachine::eval(Evaluator* evaluator) {
  PADDLE_ENFORCE(evaluator, std::invalid_argument, "GradientMachine.eval(None)");
  PADDLE_ENFORCE(evaluator->owner_ == m_, std::invalid_argument,
                 "this evaluator was made by another GradientMachine (use its makeEvaluator())");
  for (auto& e : evaluator->e_) e->eval(*m_);
}

// ---------------------------------------------------------------- Predictor
Predictor::Predictor() = default;
Predictor::~Predictor() = default;
Predictor* Predictor::createFromMergedModel(const std::string& path, bool useGpu) {
  auto* p = new Predictor;
  try {
    p->p_ = std::make_shared<paddle::Predictor>(path, useGpu);
  } catch (...) {
    delete p;
    throw;
  }
  return p;
}
Arguments* Predictor::forward(const Arguments& in) {
  auto* out = Arguments::createArguments(0);
  try {
    *out->args_ = p_->forward(*in.args_);
  } catch (...) {
    delete out;
    throw;
  }
  return out;
}
std::vector<std::string> Predictor::getInputLayerNames() const {
  std::vector<std::string> n;
  for (auto* d : p_->model().dataLayers()) n.push_back(d->name());
  return n;
}
std::vector<std::string> Predictor::getOutputLayerNames() const {
  std::vector<std::string> n;
  for (auto* l : p_->model().outputLayers()) n.push_back(l->name());
  return n;
}

// ---------------------------------------------------------------- ParameterOptimizer
ParameterOptimizer::ParameterOptimizer() = default;
ParameterOptimizer::~ParameterOptimizer() = default;

ParameterOptimizer* ParameterOptimizer::create(OptimizationConfig* config) {
  PADDLE_ENFORCE(config, std::invalid_argument, "ParameterOptimizer.create(None)");
  auto* o = new ParameterOptimizer;
  o->u_ = std::make_shared<paddle::ParameterUpdater>(paddle::Json::parse(config->json_, "OptimizationConfig"));
  return o;
}
void ParameterOptimizer::init(size_t, const ParameterConfig*) {}
void ParameterOptimizer::startPass() { u_->startPass(pass_); }
void ParameterOptimizer::finishPass() {
  u_->finishPass(batches_);
  ++pass_;
  batches_ = 0;
}
void ParameterOptimizer::startBatch(size_t numSamplesProcessed) {
  const int64_t total = static_cast<int64_t>(numSamplesProcessed);
  PADDLE_ENFORCE(total >= u_->numSamplesProcessed(), std::invalid_argument, "startBatch(", total,
                 "): the count of samples processed went down from ", u_->numSamplesProcessed());
  u_->startBatch(total - u_->numSamplesProcessed());
  ++batches_;
}
void ParameterOptimizer::finishBatch() { u_->finishBatch(); }
std::vector<int> ParameterOptimizer::getParameterTypes() const {
  std::vector<int> t{PARAMETER_VALUE, PARAMETER_GRADIENT};
  for (paddle::ParameterType b : u_->stateBuffers()) t.push_back(b);
  return t;
}

void ParameterOptimizer::update(const std::vector<Vector*>& vecs, const ParameterConfig& conf, size_t sparseId) {
  const std::vector<int> types = getParameterTypes();
  PADDLE_ENFORCE(vecs.size() == types.size(), std::invalid_argument, "ParameterOptimizer.update: ", vecs.size(),
                 " buffers given, this optimizer needs ", types.size(), " (see getParameterTypes())");
  paddle::Json pc = paddle::Json::parse(conf.json_, "ParameterConfig");
  const std::string name = pc.getString("name");
  std::shared_ptr<paddle::Parameter> p;
  for (auto& q : params_) {
    if (q->name() == name) p = q;
  }
  if (!p) {
    PADDLE_ENFORCE(vecs[0], std::invalid_argument, "ParameterOptimizer.update: the value buffer is None");
    p = std::make_shared<paddle::Parameter>(pc, vecs[0]->isGpu());
    params_.push_back(p);
  }
  // The engine's parameter reads and writes the caller's buffers (as its matrix shape).
  for (size_t i = 0; i < types.size(); ++i) {
    PADDLE_ENFORCE(vecs[i] && vecs[i]->getSize() == p->size(), std::invalid_argument,
                   "ParameterOptimizer.update: buffer ", i, " of '", name, "' must hold ", p->size(), " values");
    DenseF& b = p->buffer(static_cast<paddle::ParameterType>(types[i]));
    b = DenseF::view(vecs[i]->v_->data(), p->rows(), p->cols(), vecs[i]->isGpu());
  }
  PADDLE_ENFORCE(sparseId == NO_SPARSE_ID || sparseId < p->rows(), std::out_of_range, "row ", sparseId,
                 " outside parameter '", name, "' of ", p->rows(), " rows");
  if (sparseId == NO_SPARSE_ID || !p->sparseUpdate()) {
    p->grad();  // the whole parameter (a dense one updates every row from the caller's gradient)
  } else {
    int row = static_cast<int>(sparseId);
    float* dense = p->buffer(paddle::PARAMETER_GRADIENT).row(row);  // the caller's gradient
    float* compact = p->gradRows(&row, 1).row(row);
    if (compact != dense) {  // a sparse_update parameter updates from its compact rows
      std::copy(dense, dense + p->cols(), compact);
      std::fill(dense, dense + p->cols(), 0.0f);  // cleared like the rows the update clears
    }
  }
  u_->update(*p);
}

// ---------------------------------------------------------------- ParameterUpdater
ParameterUpdater::ParameterUpdater() = default;
ParameterUpdater::~ParameterUpdater() = default;
ParameterUpdater* ParameterUpdater::createLocalUpdater(const std::string& optConfigJson) {
  auto* u = new ParameterUpdater;
  u->u_ = std::make_shared<paddle::ParameterUpdater>(paddle::Json::parse(optConfigJson, "OptimizationConfig"));
  return u;
}
ParameterUpdater* ParameterUpdater::createLocalUpdater(OptimizationConfig* config) {
  PADDLE_ENFORCE(config, std::invalid_argument, "createLocalUpdater(None)");
  return createLocalUpdater(config->json_);
}
ParameterUpdater* ParameterUpdater::createRemoteUpdater(OptimizationConfig*, int, bool) {
  throw paddle::UnsupportedError(
      "createRemoteUpdater: there is no parameter server; train locally with createLocalUpdater (multi-process "
      "training is data parallel over MPI)");
}
ParameterUpdater* ParameterUpdater::createNewRemoteUpdater(OptimizationConfig*, const std::string&) {
  throw paddle::UnsupportedError(
      "createNewRemoteUpdater: there is no parameter server; train locally with createLocalUpdater (multi-process "
      "training is data parallel over MPI)");
}
void ParameterUpdater::init(const GradientMachine& gm) {
  params_.clear();
  for (auto& p : gm.m_->parameters()) {
    if (!p->isStatic()) params_.push_back(p);
  }
}
void ParameterUpdater::startPass(int pass) {
  if (pass < 0) pass = nextPass_;
  nextPass_ = pass + 1;
  batches_ = 0;
  u_->startPass(pass);
}
PassType ParameterUpdater::startBatch(size_t n) {
  u_->restore();  // the trained weights, in case a test left the averaged ones in
  u_->startBatch(static_cast<int64_t>(n));
  clipped_ = false;
  ++batches_;
  return PASS_TRAIN;
}
void ParameterUpdater::update(Parameter* p) {
  PADDLE_ENFORCE(p, std::invalid_argument, "ParameterUpdater.update(None)");
  if (!clipped_) {  // gradient_clipping_norm needs every gradient: first update of the batch
    clipped_ = true;
    if (!params_.empty()) u_->clipByGlobalNorm(params_);
  }
  u_->update(*p->p_);
}
void ParameterUpdater::finishBatch(float) { u_->finishBatch(); }
void ParameterUpdater::finishPass(long long n) { u_->finishPass(n < 0 ? batches_ : n); }
void ParameterUpdater::getParametersRemote(bool, bool) {}
void ParameterUpdater::apply() { u_->apply(); }
void ParameterUpdater::restore() { u_->restore(); }
void ParameterUpdater::catchUpWith() { u_->catchUp(); }
void ParameterUpdater::catchUp() { u_->catchUp(); }
double ParameterUpdater::getLearningRate() const { return u_->learningRate(); }

// ---------------------------------------------------------------- Trainer
Trainer::Trainer() = default;
Trainer::~Trainer() = default;

bool isMpiVersion() { return paddle::distributedCompiled(); }

Trainer* Trainer::create(const std::string& json, bool useGpu, int trainerCount, unsigned long long seed,
                         bool distributed, bool shardTables) {
  paddle::TrainerOptions o;
  o.useGpu = useGpu;
  o.trainerCount = trainerCount;
  o.seed = seed;
  o.distributed = distributed;
  o.shardTables = shardTables;
  o.predictFile = getPredictFile();
  auto* t = new Trainer;
  try {
    t->t_ = std::make_shared<paddle::Trainer>(json, o);
  } catch (...) {
    delete t;
    throw;
  }
  return t;
}

Trainer* Trainer::create(TrainerConfig* config, GradientMachine* gm) {
  PADDLE_ENFORCE(config, std::invalid_argument, "Trainer.create: the trainer config is None");
  if (!gm) return create(config->json_, isUsingGpu(), getTrainerCount(), 1);
  paddle::TrainerOptions o;
  o.useGpu = gm->m_->useGpu();
  o.trainerCount = getTrainerCount();
  o.predictFile = getPredictFile();
  auto* t = new Trainer;
  try {
    t->t_ = std::make_shared<paddle::Trainer>(config->json_, o, gm->m_);
  } catch (...) {
    delete t;
    throw;
  }
  return t;
}

GradientMachine* Trainer::getGradientMachine() const {
  auto* g = new GradientMachine;
  g->m_ = t_->sharedMachine();
  return g;
}
void Trainer::randParameters() { t_->randomizeParameters(); }
void Trainer::loadParameters(const std::string& dir) { t_->loadParameters(dir); }
void Trainer::saveParameters(const std::string& dir) { t_->saveParameters(dir); }
void Trainer::saveOptimizerState(const std::string& dir) const { t_->saveOptimizerState(dir); }
void Trainer::loadOptimizerState(const std::string& dir) { t_->loadOptimizerState(dir); }
size_t Trainer::getBatchSize() const { return static_cast<size_t>(t_->batchSize()); }
void Trainer::startTrain() { nextPass_ = 0; }
void Trainer::finishTrain() {}
void Trainer::startTrainPass(int pass) {
  if (pass < 0) pass = nextPass_;
  nextPass_ = pass + 1;
  pass_ = pass;
  step_ = 0;
  t_->startPass(pass);
}
void Trainer::finishTrainPass() {
  agreeOnBatch(false, 0, nullptr);
  t_->finishPass();
}
void Trainer::trainOneDataBatch(size_t n, const Arguments& args) {
  agreeOnBatch(true, n, &args);
  t_->trainOneBatch(*args.args_, n);
}

namespace {
// A 48-bit hash of a batch's host buffers (exact in a double), to compare ranks' batches.
template <typename T>
void hashBuffer(uint64_t& h, const paddle::DenseBuffer<T>& b) {
  if (b.useGpu()) return;  // (the feed's buffers are in host memory)
  const auto* w = reinterpret_cast<const uint32_t*>(b.data());
  for (size_t i = 0; i < b.size() * sizeof(T) / 4; ++i) h = (h ^ w[i]) * 0x100000001b3ULL;
  h = (h ^ b.size()) * 0x100000001b3ULL;
}

uint64_t batchHash(const std::vector<paddle::Argument>& args) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const paddle::Argument& a : args) {
    hashBuffer(h, a.value);
    hashBuffer(h, a.ids);
    hashBuffer(h, a.seqStarts);
    hashBuffer(h, a.subSeqStarts);
    hashBuffer(h, a.sparse.rowStarts);
    hashBuffer(h, a.sparse.cols);
    hashBuffer(h, a.sparse.values);
  }
  return h >> 16;
}
}  // namespace

void Trainer::agreeOnBatch(bool has, size_t samples, const Arguments* args) {
  if (!t_->distributed() || shardedData_) return;  // (sharded data: anyRankHasData, and batches differ by design)
  paddle::GradientSync* c = &t_->sync();
  const std::vector<double> mine = {has ? 1.0 : 0.0, static_cast<double>(samples),
                                    args ? static_cast<double>(batchHash(*args->args_)) : 0.0};
  const std::vector<double> all = c->gather(mine, "the all-gather that compares the ranks' batches");
  std::string differ;
  for (int r = 1; r < c->size(); ++r) {
    const double* o = &all[3 * r];
    if (o[0] == all[0] && o[1] == all[1] && o[2] == all[2]) continue;
    auto what = [](const double* v) {
      return v[0] == 0 ? std::string("no batch left") : str("a batch of ", static_cast<long long>(v[1]), " samples");
    };
    differ += str(differ.empty() ? "" : "; ", "rank ", r, " has ", what(o),
                  o[0] == all[0] && o[1] == all[1] ? " with other data" : "", " where rank 0 has ", what(&all[0]));
  }
  if (has) ++step_;
  PADDLE_ENFORCE(differ.empty(), paddle::DataError, "pass ", pass_, ", batch ", step_ + (has ? 0 : 1),
                 ": the ranks' data differ (", differ,
                 "); with --data_sharding=batch every rank must read the same file list and files with the same "
                 "seed and batch_size (--data_sharding=files splits the files instead)");
}
std::string Trainer::getConfigJson() const { return t_->config().dump(); }
void Trainer::forwardOneDataBatch(const Arguments& args) { t_->forwardOnly(*args.args_); }
Arguments* Trainer::getForwardOutput() const {
  auto* a = Arguments::createArguments(0);
  for (paddle::Argument* o : t_->machine().outputs()) a->args_->push_back(*o);
  return a;
}
Arguments* Trainer::getLayerOutput(const std::string& name) const {
  auto* a = Arguments::createArguments(0);
  a->args_->push_back(t_->machine().layer(name)->output());
  return a;
}
void Trainer::startPeriod() { t_->startPeriod(); }
double Trainer::getPassCost() const { return t_->passStats().cost; }
long long Trainer::getPassSamples() const { return t_->passStats().samples; }
std::string Trainer::getPassEval() const { return t_->passStats().evalString(); }
std::vector<EvaluatorField> Trainer::getPassEvalFields() const { return apiFields(t_->passStats().evaluators); }
double Trainer::getPeriodCost() const { return t_->periodStats().cost; }
long long Trainer::getPeriodSamples() const { return t_->periodStats().samples; }
std::string Trainer::getPeriodEval() const { return t_->periodStats().evalString(); }
std::vector<EvaluatorField> Trainer::getPeriodEvalFields() const { return apiFields(t_->periodStats().evaluators); }
std::vector<std::string> Trainer::getEvaluatorNames() const {
  std::vector<std::string> n;
  for (auto& e : t_->passStats().evaluators) n.push_back(e->name());
  return n;
}
std::vector<double> Trainer::getPassEvalValues() const {
  std::vector<double> v;
  for (auto& e : t_->passStats().evaluators) v.push_back(e->value());
  return v;
}
double Trainer::getLearningRate() const { return t_->updater().learningRate(); }
void Trainer::setRecordParameterStats(bool on) { t_->updater().setRecordGradStats(on); }

int Trainer::getReplicaCount() const { return t_->replicas(); }
void Trainer::setProfiling(bool on) { t_->machine().setProfiling(on); }

std::vector<std::string> Trainer::getProfile() const {
  paddle::GradientMachine& m = t_->machine();
  const paddle::StepProfile* prof = m.profile();
  PADDLE_ENFORCE(prof, paddle::UnsupportedError, "getProfile: call setProfiling(True) first");
  auto line = [](const std::string& name, const std::string& type, double fwd, double bwd, int64_t calls) {
    return paddle::str(name, "\t", type, "\t", fwd, "\t", bwd, "\t", calls);
  };
  std::vector<std::string> lines;
  for (size_t i = 0; i < m.layers().size(); ++i) {
    const paddle::Layer& l = *m.layers()[i];
    lines.push_back(line(l.name(), l.type(), prof->forward[i].seconds, prof->backward[i].seconds,
                         prof->forward[i].count));
  }
  lines.push_back(line("(update)", "update", prof->update.seconds, 0.0, prof->update.count));
  // The layers above are the first replica's; the others ran beside it on their share of the batch.
  if (t_->replicas() > 1) {
    lines.push_back(line("(replica sum)", "replicas", prof->replicaSum.seconds, 0.0, prof->replicaSum.count));
  }
  return lines;
}
std::vector<std::string> Trainer::getParameterStats() const {
  std::vector<std::string> lines;
  const auto& stats = t_->updater().gradStats();
  for (auto& p : t_->machine().parameters()) {
    auto it = stats.find(p->name());
    const paddle::ParameterUpdater::GradStats st = it == stats.end() ? paddle::ParameterUpdater::GradStats() : it->second;
    paddle::ParameterUpdater::AbsStats value = st.value;  // (a sharded table: every rank's rows)
    if (!p->sharded()) {
      std::vector<float> v(p->size());
      p->value().copyToHost(v.data());
      value.add(v.data(), v.size());
    }
    char buf[512];
    std::snprintf(buf, sizeof(buf), "%-20s avg_abs_val=%g max_val=%g avg_abs_grad=%g max_grad=%g",
                  p->name().c_str(), value.avg(), value.max, st.grad.avg(), st.grad.max);
    lines.push_back(buf);
  }
  return lines;
}
CollectiveTraffic Trainer::takeCollectiveTraffic() {
  // One process: what its GPU replicas sent to GPU 0; under MPI: what this rank sent the others.
  const paddle::CollectiveTraffic replicas = t_->replicaStrategy().takeTraffic();
  const paddle::CollectiveTraffic s = t_->distributed() ? t_->sync().takeTraffic() : replicas;
  CollectiveTraffic out;
  out.steps = s.steps;
  out.denseBytes = double(s.denseBytes);
  out.sparseBytes = double(s.sparseBytes);
  out.mpiSeconds = s.mpiSeconds;
  out.dgcBytes = double(s.dgcBytes);
  out.earlyBytes = double(s.earlyBytes);
  return out;
}

void Trainer::setCollectiveOptions(const CollectiveOptions& options) {
  paddle::CollectiveOptions o;
  o.bucketMb = options.bucketMb;
  o.overlap = options.overlap;
  o.localSgdSteps = options.localSgdSteps;
  o.dgcSparsity = options.dgcSparsity;
  o.dgcRampupBeginStep = options.dgcRampupBeginStep;
  o.dgcMomentum = options.dgcMomentum;
  o.timeoutSeconds = options.timeoutSeconds;
  o.bf16Gradients = options.bf16Gradients;
  t_->replicaStrategy().setOptions(o, t_->distributed());
  t_->sync().setOptions(o);
}

void Trainer::setShardedData(bool on) {
  shardedData_ = on;
  t_->setShardedData(on);
}
void Trainer::serveShards() { t_->serveShards(); }
ShardedTableRows Trainer::getShardedRows() const {
  ShardedTableRows out;
  for (const paddle::ShardedRows& t : t_->sync().shardedRows()) {
    out.names.push_back(t.name);
    out.rows.push_back(t.rows);
    out.resident.push_back(t.resident);
    out.fetched.push_back(t.fetched);
  }
  return out;
}
void Trainer::setSkipNonFiniteBatches(long long limit) {
  PADDLE_ENFORCE(limit >= 0, paddle::ConfigError, "--skip_nonfinite_batches must be >= 0, got ", limit);
  t_->setSkipNonFiniteBatches(limit);
}
std::string Trainer::lastSkippedBatch() const { return t_->lastSkippedBatch(); }

bool Trainer::anyRankHasData(bool mine) {
  if (!t_->distributed()) return mine;
  double any = mine ? 1 : 0;
  t_->sync().sum(&any, 1);
  return any > 0;
}

void Trainer::startTestPeriod() { t_->startTest(); }
void Trainer::testOneDataBatch(size_t n, const Arguments& args) { t_->testOneBatch(*args.args_, n); }
void Trainer::finishTestPeriod() { t_->finishTest(); }
double Trainer::getTestCost() const { return t_->testStats().cost; }
long long Trainer::getTestSamples() const { return t_->testStats().samples; }
std::string Trainer::getTestEval() const { return t_->testStats().evalString(); }
std::vector<EvaluatorField> Trainer::getTestEvalFields() const { return apiFields(t_->testStats().evaluators); }
std::vector<double> Trainer::getTestEvalValues() const {
  std::vector<double> v;
  for (auto& e : t_->testStats().evaluators) v.push_back(e->value());
  return v;
}
