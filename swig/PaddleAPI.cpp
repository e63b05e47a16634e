#include "PaddleAPI.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "../layers/Errors.h"
#include "../layers/math/GpuRuntime.h"
#include "../layers/math/MathOps.h"
#include "../trainer/Trainer.h"

namespace {
bool gUseGpu = false;
int gTrainerCount = 1;

using paddle::str;
using DenseF = paddle::DenseBuffer<float>;
using DenseI = paddle::DenseBuffer<int>;

template <typename T>
std::shared_ptr<paddle::DenseBuffer<T>> fromHost(const T* data, size_t h, size_t w, bool gpu) {
  auto m = std::make_shared<paddle::DenseBuffer<T>>(0, 0, gpu);
  m->copyFromHost(data, h, w);
  return m;
}

template <typename T>
std::vector<T> toHost(const paddle::DenseBuffer<T>& m) {
  std::vector<T> v(m.size());
  m.copyToHost(v.data());
  return v;
}

template <typename T>
T elementAt(const paddle::DenseBuffer<T>& m, size_t i) {
  PADDLE_ENFORCE(i < m.size(), std::out_of_range, "index ", i, " out of range for ", m.size(), " elements");
  T v;
  paddle::deviceCopy(&v, false, m.data() + i, m.useGpu(), sizeof(T));
  return v;
}

template <typename T>
void setElement(paddle::DenseBuffer<T>& m, size_t i, T v) {
  PADDLE_ENFORCE(i < m.size(), std::out_of_range, "index ", i, " out of range for ", m.size(), " elements");
  paddle::deviceCopy(m.data() + i, m.useGpu(), &v, false, sizeof(T));
}

template <typename T>
unsigned long long hostPointer(const paddle::DenseBuffer<T>& m) {
  PADDLE_ENFORCE(!m.useGpu(), paddle::UnsupportedError,
                 "a GPU buffer has no host view: use copyToNumpy* instead");
  return reinterpret_cast<unsigned long long>(m.data());
}

// The engine's kernels run asynchronously; a pointer handed to (or taken from)
// another library is only valid once the device has caught up.
void syncDevice() {
#ifdef WITH_CUDA
  paddle::gpu::synchronize();
#else
  paddle::throwNoCuda("device pointers");
#endif
}

template <typename T>
unsigned long long devicePointer(const paddle::DenseBuffer<T>& m) {
  PADDLE_ENFORCE(m.useGpu(), paddle::UnsupportedError,
                 "a CPU buffer has no device pointer: use the numpy views instead");
  syncDevice();
  return reinterpret_cast<unsigned long long>(m.data());
}

template <typename T>
std::shared_ptr<paddle::DenseBuffer<T>> fromDevice(unsigned long long ptr, size_t h, size_t w, bool copy) {
  syncDevice();
  auto view = paddle::DenseBuffer<T>::view(reinterpret_cast<T*>(ptr), h, w, true);
  if (!copy) return std::make_shared<paddle::DenseBuffer<T>>(view);
  auto m = std::make_shared<paddle::DenseBuffer<T>>(0, 0, true);
  m->copyFrom(view);
  return m;
}
}  // namespace

void initPaddle(const std::vector<std::string>& args) {
  for (const std::string& raw : args) {
    std::string a = raw;
    while (!a.empty() && a[0] == '-') a.erase(0, 1);
    size_t eq = a.find('=');
    std::string key = a.substr(0, eq), val = eq == std::string::npos ? "1" : a.substr(eq + 1);
    bool truth = val == "1" || val == "true" || val == "True";
    if (key == "use_gpu") {
      setUseGpu(truth);
    } else if (key == "trainer_count") {
      gTrainerCount = std::stoi(val);
      PADDLE_ENFORCE(gTrainerCount >= 1, paddle::ConfigError, "--trainer_count must be >= 1");
    }
    // Other v1 flags (log_period, ...) concern the Python trainer loop.
  }
}

bool isGpuVersion() { return paddle::cudaCompiled(); }
std::vector<std::string> getLayerTypes() {
  std::vector<std::string> t = paddle::LayerRegistry::instance().types();
  std::sort(t.begin(), t.end());
  return t;
}
bool isUsingGpu() { return gUseGpu; }
void setUseGpu(bool useGpu) {
  if (useGpu && !paddle::cudaCompiled()) paddle::throwNoCuda("--use_gpu=1");
  gUseGpu = useGpu;
}
int getTrainerCount() { return gTrainerCount; }
int getGpuCount() { return paddle::gpuDeviceCount(); }

std::vector<size_t> getGpuMemoryStats() {
#ifdef WITH_CUDA
  paddle::gpu::MemoryStats s = paddle::gpu::memoryStats();
  return {s.mallocs, s.heldBytes, s.peakBytes};
#else
  return {0, 0, 0};
#endif
}
std::string getVersion() { return PADDLE_VERSION; }

// ---------------------------------------------------------------- Matrix
Matrix::Matrix() = default;
Matrix::~Matrix() = default;

Matrix* Matrix::createZero(size_t h, size_t w, bool useGpu) {
  auto* m = new Matrix;
  m->m_ = std::make_shared<DenseF>(h, w, useGpu);
  m->m_->zero();
  return m;
}

Matrix* Matrix::createDense(const std::vector<float>& data, size_t h, size_t w, bool useGpu) {
  PADDLE_ENFORCE(data.size() == h * w, std::invalid_argument, "createDense: ", data.size(),
                 " values for a ", h, "x", w, " matrix");
  auto* m = new Matrix;
  m->m_ = fromHost(data.data(), h, w, useGpu);
  return m;
}

Matrix* Matrix::createDenseFromNumpy(float* data, size_t h, size_t w, bool copy, bool useGpu) {
  auto* m = new Matrix;
  if (copy || useGpu) {
    m->m_ = fromHost(data, h, w, useGpu);
  } else {
    m->m_ = std::make_shared<DenseF>(DenseF::view(data, h, w, false));
  }
  return m;
}

size_t Matrix::getHeight() const { return m_->height(); }
size_t Matrix::getWidth() const { return m_->width(); }
float Matrix::get(size_t x, size_t y) const {
  PADDLE_ENFORCE(x < m_->height() && y < m_->width(), std::out_of_range, "Matrix.get(", x, ", ", y,
                 ") outside ", paddle::shapeStr(*m_));
  return elementAt(*m_, x * m_->width() + y);
}
void Matrix::set(size_t x, size_t y, float v) {
  PADDLE_ENFORCE(x < m_->height() && y < m_->width(), std::out_of_range, "Matrix.set(", x, ", ", y,
                 ") outside ", paddle::shapeStr(*m_));
  setElement(*m_, x * m_->width() + y, v);
}
bool Matrix::isGpu() const { return m_->useGpu(); }
std::vector<float> Matrix::getData() const { return toHost(*m_); }
void Matrix::copyToNumpyMat(float* data, size_t h, size_t w) const {
  PADDLE_ENFORCE(h == m_->height() && w == m_->width(), std::invalid_argument, "copyToNumpyMat: buffer is ",
                 h, "x", w, ", matrix is ", paddle::shapeStr(*m_));
  m_->copyToHost(data);
}
void Matrix::copyFromNumpyMat(float* data, size_t h, size_t w) { m_->copyFromHost(data, h, w); }
unsigned long long Matrix::dataPointer() const { return hostPointer(*m_); }
unsigned long long Matrix::devicePointer() const { return ::devicePointer(*m_); }
Matrix* Matrix::createDenseFromDevicePointer(unsigned long long ptr, size_t h, size_t w, bool copy) {
  auto* m = new Matrix;
  m->m_ = fromDevice<float>(ptr, h, w, copy);
  return m;
}

// ---------------------------------------------------------------- IVector
IVector::IVector() = default;
IVector::~IVector() = default;

IVector* IVector::createZero(size_t n, bool useGpu) {
  auto* v = new IVector;
  v->v_ = std::make_shared<DenseI>(1, n, useGpu);
  v->v_->zero();
  return v;
}
IVector* IVector::create(const std::vector<int>& data, bool useGpu) {
  auto* v = new IVector;
  v->v_ = fromHost(data.data(), 1, data.size(), useGpu);
  return v;
}
IVector* IVector::createVectorFromNumpy(int* data, size_t n, bool copy, bool useGpu) {
  auto* v = new IVector;
  v->v_ = (copy || useGpu) ? fromHost(data, 1, n, useGpu) : std::make_shared<DenseI>(DenseI::view(data, 1, n, false));
  return v;
}
size_t IVector::getSize() const { return v_->size(); }
int IVector::get(size_t i) const { return elementAt(*v_, i); }
void IVector::set(size_t i, int x) { setElement(*v_, i, x); }
bool IVector::isGpu() const { return v_->useGpu(); }
std::vector<int> IVector::getData() const { return toHost(*v_); }
void IVector::copyToNumpyArray(int* data, size_t n) const {
  PADDLE_ENFORCE(n == v_->size(), std::invalid_argument, "copyToNumpyArray: buffer of ", n, " for ", v_->size());
  v_->copyToHost(data);
}
void IVector::copyFromNumpyArray(int* data, size_t n) { v_->copyFromHost(data, 1, n); }
unsigned long long IVector::dataPointer() const { return hostPointer(*v_); }
unsigned long long IVector::devicePointer() const { return ::devicePointer(*v_); }
IVector* IVector::createVectorFromDevicePointer(unsigned long long ptr, size_t n, bool copy) {
  auto* v = new IVector;
  v->v_ = fromDevice<int>(ptr, 1, n, copy);
  return v;
}

// ---------------------------------------------------------------- Vector
Vector::Vector() = default;
Vector::~Vector() = default;

Vector* Vector::createZero(size_t n, bool useGpu) {
  auto* v = new Vector;
  v->v_ = std::make_shared<DenseF>(1, n, useGpu);
  v->v_->zero();
  return v;
}
Vector* Vector::create(const std::vector<float>& data, bool useGpu) {
  auto* v = new Vector;
  v->v_ = fromHost(data.data(), 1, data.size(), useGpu);
  return v;
}
Vector* Vector::createVectorFromNumpy(float* data, size_t n, bool copy, bool useGpu) {
  auto* v = new Vector;
  v->v_ = (copy || useGpu) ? fromHost(data, 1, n, useGpu) : std::make_shared<DenseF>(DenseF::view(data, 1, n, false));
  return v;
}
size_t Vector::getSize() const { return v_->size(); }
float Vector::get(size_t i) const { return elementAt(*v_, i); }
void Vector::set(size_t i, float x) { setElement(*v_, i, x); }
bool Vector::isGpu() const { return v_->useGpu(); }
std::vector<float> Vector::getData() const { return toHost(*v_); }
void Vector::copyToNumpyArray(float* data, size_t n) const {
  PADDLE_ENFORCE(n == v_->size(), std::invalid_argument, "copyToNumpyArray: buffer of ", n, " for ", v_->size());
  v_->copyToHost(data);
}
void Vector::copyFromNumpyArray(float* data, size_t n) {
  PADDLE_ENFORCE(n == v_->size(), std::invalid_argument, "copyFromNumpyArray: buffer of ", n, " for ", v_->size());
  v_->copyFromHost(data, v_->height(), v_->width());
}
unsigned long long Vector::dataPointer() const { return hostPointer(*v_); }
unsigned long long Vector::devicePointer() const { return ::devicePointer(*v_); }
Vector* Vector::createVectorFromDevicePointer(unsigned long long ptr, size_t n, bool copy) {
  auto* v = new Vector;
  v->v_ = fromDevice<float>(ptr, 1, n, copy);
  return v;
}

// ---------------------------------------------------------------- Arguments
Arguments::Arguments() : args_(std::make_shared<std::vector<paddle::Argument>>()) {}
Arguments::~Arguments() = default;

Arguments* Arguments::createArguments(size_t n) {
  auto* a = new Arguments;
  a->args_->resize(n);
  return a;
}
size_t Arguments::getSlotNum() const { return args_->size(); }
void Arguments::resize(size_t n) { args_->resize(n); }

paddle::Argument& Arguments::at(size_t idx) const {
  PADDLE_ENFORCE(idx < args_->size(), std::out_of_range, "slot ", idx, " out of range (", args_->size(), " slots)");
  return (*args_)[idx];
}

Matrix* Arguments::wrap(const paddle::DenseBuffer<float>& v) {
  if (v.empty()) return nullptr;
  auto* m = new Matrix;
  m->m_ = std::make_shared<DenseF>(v);
  return m;
}
Matrix* Arguments::getSlotValue(size_t idx) const { return wrap(at(idx).value); }
Matrix* Arguments::getSlotGrad(size_t idx) const { return wrap(at(idx).grad); }

IVector* Arguments::wrap(const paddle::DenseBuffer<int>& v) {
  if (v.empty()) return nullptr;
  auto* r = new IVector;
  r->v_ = std::make_shared<DenseI>(v);
  return r;
}
IVector* Arguments::getSlotIds(size_t idx) const { return wrap(at(idx).ids); }
IVector* Arguments::getSlotSequenceStartPositions(size_t idx) const { return wrap(at(idx).seqStarts); }
IVector* Arguments::getSlotSubSequenceStartPositions(size_t idx) const { return wrap(at(idx).subSeqStarts); }
void Arguments::setSlotValue(size_t idx, Matrix* mat) { at(idx).value = mat ? *mat->m_ : DenseF(); }
void Arguments::setSlotIds(size_t idx, IVector* vec) { at(idx).ids = vec ? *vec->v_ : DenseI(); }
void Arguments::setSlotSequenceStartPositions(size_t idx, IVector* vec) {
  PADDLE_ENFORCE(!vec || !vec->isGpu(), std::invalid_argument, "sequence start positions must be on the CPU");
  at(idx).seqStarts = vec ? *vec->v_ : DenseI();
}
void Arguments::setSlotSubSequenceStartPositions(size_t idx, IVector* vec) {
  PADDLE_ENFORCE(!vec || !vec->isGpu(), std::invalid_argument, "sequence start positions must be on the CPU");
  at(idx).subSeqStarts = vec ? *vec->v_ : DenseI();
}
void Arguments::setSlotFrameHeight(size_t idx, size_t h) { at(idx).frameHeight = h; }
void Arguments::setSlotFrameWidth(size_t idx, size_t w) { at(idx).frameWidth = w; }
size_t Arguments::getSlotFrameHeight(size_t idx) const { return at(idx).frameHeight; }
size_t Arguments::getSlotFrameWidth(size_t idx) const { return at(idx).frameWidth; }

void Arguments::setSlotValueFromBuffer(size_t idx, float* data, size_t h, size_t w) {
  auto& v = at(idx).value;
  v = DenseF(0, 0, false);  // a fresh buffer: the previous one may still be shared
  v.copyFromHost(data, h, w);
}
void Arguments::setSlotIdsFromBuffer(size_t idx, int* data, size_t n) {
  auto& v = at(idx).ids;
  v = DenseI(0, 0, false);
  v.copyFromHost(data, 1, n);
}
void Arguments::setSlotSequenceStartPositionsFromBuffer(size_t idx, int* data, size_t n) {
  auto& v = at(idx).seqStarts;
  v = DenseI(0, 0, false);
  v.copyFromHost(data, 1, n);
}
void Arguments::setSlotSubSequenceStartPositionsFromBuffer(size_t idx, int* data, size_t n) {
  auto& v = at(idx).subSeqStarts;
  v = DenseI(0, 0, false);
  v.copyFromHost(data, 1, n);
}
void Arguments::setSlotSparseFromBuffers(size_t idx, int* rows, size_t nRows, int* cols, size_t nCols,
                                         float* values, size_t nValues, size_t width) {
  PADDLE_ENFORCE(nRows >= 1, std::invalid_argument,
                 "setSlotSparseFromBuffers: row offsets need rows + 1 entries, got none");
  PADDLE_ENFORCE(nValues == 0 || nValues == nCols, std::invalid_argument, "setSlotSparseFromBuffers: ", nValues,
                 " values for ", nCols, " column ids (pass an empty buffer for binary input)");
  PADDLE_ENFORCE(rows[0] >= 0 && static_cast<size_t>(rows[nRows - 1]) <= nCols, std::invalid_argument,
                 "setSlotSparseFromBuffers: row offsets end at ", rows[nRows - 1], " but there are ", nCols,
                 " column ids");
  paddle::SparseMatrix& s = at(idx).sparse;
  s = paddle::SparseMatrix();  // fresh buffers: the previous ones may still be shared
  s.rowStarts.copyFromHost(rows, 1, nRows);
  s.cols.copyFromHost(cols, 1, nCols);
  if (nValues) s.values.copyFromHost(values, 1, nValues);
  s.width = width;
}
bool Arguments::isSlotSparse(size_t idx) const { return !at(idx).sparse.empty(); }
size_t Arguments::getBatchSize(size_t idx) const { return at(idx).batchSize(); }
double Arguments::sum() const {
  double s = 0;
  for (const auto& a : *args_) {
    for (float x : toHost(a.value)) s += x;
  }
  return s;
}

// ---------------------------------------------------------------- Parameter
Parameter::Parameter() = default;
Parameter::~Parameter() = default;
std::string Parameter::getName() const { return p_->name(); }
size_t Parameter::getSize() const { return p_->size(); }
std::vector<size_t> Parameter::getDims() const {
  std::vector<size_t> d;
  for (auto x : p_->dims()) d.push_back(static_cast<size_t>(x));
  return d;
}
bool Parameter::isStatic() const { return p_->isStatic(); }
Vector* Parameter::getBuf(ParameterType type) {
  PADDLE_ENFORCE(type >= 0 && type < NUM_PARAMETER_TYPES, std::out_of_range, "bad parameter buffer type ", type);
  auto t = static_cast<paddle::ParameterType>(type);
  PADDLE_ENFORCE(!(t == paddle::PARAMETER_GRADIENT && p_->isStatic()), std::invalid_argument,
                 "static parameter '", p_->name(), "' has no gradient");
  const DenseF& b = p_->buffer(t);
  auto* v = new Vector;
  v->v_ = std::make_shared<DenseF>(b);  // aliases the engine's memory and keeps it alive
  return v;
}
void Parameter::save(const std::string& path) const { p_->save(path); }
void Parameter::load(const std::string& path) { p_->load(path); }

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

void GradientMachine::forward(const Arguments& in, Arguments* out, PassType passType) {
  m_->forward(*in.args_, static_cast<paddle::PassType>(passType));
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
  PADDLE_ENFORCE(i < m_->parameters().size(), std::out_of_range, "parameter ", i, " out of range");
  auto* p = new Parameter;
  p->p_ = m_->parameters()[i];
  p->owner_ = m_;
  return p;
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
Arguments* GradientMachine::getLayerOutput(const std::string& name) const {
  auto* a = Arguments::createArguments(0);
  a->args_->push_back(m_->layer(name)->output());
  return a;
}
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

// ---------------------------------------------------------------- ParameterUpdater
ParameterUpdater::ParameterUpdater() = default;
ParameterUpdater::~ParameterUpdater() = default;
ParameterUpdater* ParameterUpdater::createLocalUpdater(const std::string& optConfigJson) {
  auto* u = new ParameterUpdater;
  u->u_ = std::make_shared<paddle::ParameterUpdater>(paddle::Json::parse(optConfigJson, "OptimizationConfig"));
  return u;
}
void ParameterUpdater::startPass(int pass) { u_->startPass(pass); }
void ParameterUpdater::startBatch(size_t n) { u_->startBatch(static_cast<int64_t>(n)); }
void ParameterUpdater::update(Parameter* p) { u_->update(*p->p_); }
void ParameterUpdater::finishBatch() { u_->finishBatch(); }
void ParameterUpdater::finishPass(size_t n) { u_->finishPass(static_cast<int64_t>(n)); }
void ParameterUpdater::apply() { u_->apply(); }
void ParameterUpdater::restore() { u_->restore(); }
void ParameterUpdater::catchUp() { u_->catchUp(); }
double ParameterUpdater::getLearningRate() const { return u_->learningRate(); }

// ---------------------------------------------------------------- Trainer
Trainer::Trainer() = default;
Trainer::~Trainer() = default;

Trainer* Trainer::create(const std::string& json, bool useGpu, int trainerCount, unsigned long long seed) {
  paddle::TrainerOptions o;
  o.useGpu = useGpu;
  o.trainerCount = trainerCount;
  o.seed = seed;
  auto* t = new Trainer;
  try {
    t->t_ = std::make_shared<paddle::Trainer>(json, o);
  } catch (...) {
    delete t;
    throw;
  }
  return t;
}
GradientMachine* Trainer::getGradientMachine() const {
  auto* g = new GradientMachine;
  g->m_ = std::shared_ptr<paddle::GradientMachine>(t_, &t_->machine());  // keeps the trainer alive
  return g;
}
void Trainer::randParameters() { t_->randomizeParameters(); }
void Trainer::loadParameters(const std::string& dir) { t_->loadParameters(dir); }
void Trainer::saveParameters(const std::string& dir) { t_->saveParameters(dir); }
void Trainer::saveOptimizerState(const std::string& dir) const { t_->saveOptimizerState(dir); }
void Trainer::loadOptimizerState(const std::string& dir) { t_->loadOptimizerState(dir); }
size_t Trainer::getBatchSize() const { return static_cast<size_t>(t_->batchSize()); }
void Trainer::startTrainPass(int pass) { t_->startPass(pass); }
void Trainer::finishTrainPass() { t_->finishPass(); }
void Trainer::trainOneDataBatch(size_t n, const Arguments& args) { t_->trainOneBatch(*args.args_, n); }
void Trainer::startPeriod() { t_->startPeriod(); }
double Trainer::getPassCost() const { return t_->passStats().cost; }
long long Trainer::getPassSamples() const { return t_->passStats().samples; }
std::string Trainer::getPassEval() const { return t_->passStats().evalString(); }
double Trainer::getPeriodCost() const { return t_->periodStats().cost; }
long long Trainer::getPeriodSamples() const { return t_->periodStats().samples; }
std::string Trainer::getPeriodEval() const { return t_->periodStats().evalString(); }
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
std::vector<std::string> Trainer::getParameterStats() const {
  std::vector<std::string> lines;
  const auto& grads = t_->updater().gradStats();
  for (auto& p : t_->machine().parameters()) {
    std::vector<float> v(p->size());
    p->value().copyToHost(v.data());
    double avg = 0, mx = 0;
    for (float x : v) {
      avg += std::fabs(x);
      mx = std::max<double>(mx, std::fabs(x));
    }
    avg /= std::max<size_t>(v.size(), 1);
    auto g = grads.find(p->name());
    char buf[512];
    std::snprintf(buf, sizeof(buf), "%-20s avg_abs_val=%g max_val=%g avg_abs_grad=%g max_grad=%g",
                  p->name().c_str(), avg, mx, g == grads.end() ? 0.0 : g->second.avgAbs,
                  g == grads.end() ? 0.0 : g->second.maxAbs);
    lines.push_back(buf);
  }
  return lines;
}
void Trainer::startTestPeriod() { t_->startTest(); }
void Trainer::testOneDataBatch(size_t n, const Arguments& args) { t_->testOneBatch(*args.args_, n); }
void Trainer::finishTestPeriod() { t_->finishTest(); }
double Trainer::getTestCost() const { return t_->testStats().cost; }
long long Trainer::getTestSamples() const { return t_->testStats().samples; }
std::string Trainer::getTestEval() const { return t_->testStats().evalString(); }
std::vector<double> Trainer::getTestEvalValues() const {
  std::vector<double> v;
  for (auto& e : t_->testStats().evaluators) v.push_back(e->value());
  return v;
}
