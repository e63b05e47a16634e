#include "swig/PaddleAPI.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "engine/Errors.h"
#include "engine/math/GpuRuntime.h"
#include "engine/math/MathOps.h"
#include "trainer/Trainer.h"

namespace {
bool gUseGpu = false;
int gTrainerCount = 1;
std::string gPredictFile;

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

// A buffer over the memory `b` has now, which stays valid when `b` later reallocates: the
// copy shares the allocation, and holding `b` keeps alive whatever `b` holds (a parameter
// whose rows it views).
template <typename T>
std::shared_ptr<paddle::DenseBuffer<T>> sharedMemory(const std::shared_ptr<paddle::DenseBuffer<T>>& b) {
  struct Held {
    std::shared_ptr<paddle::DenseBuffer<T>> source;
    paddle::DenseBuffer<T> copy;
  };
  auto held = std::make_shared<Held>(Held{b, *b});
  return std::shared_ptr<paddle::DenseBuffer<T>>(held, &held->copy);
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
    } else if (key == "predict_file") {
      gPredictFile = eq == std::string::npos ? "" : val;
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
const std::string& getPredictFile() { return gPredictFile; }
int getGpuCount() { return paddle::gpuDeviceCount(); }

std::vector<size_t> getGpuMemoryStats() {
#ifdef WITH_CUDA
  paddle::gpu::MemoryStats s = paddle::gpu::memoryStats();
  return {s.mallocs, s.heldBytes, s.peakBytes};
#else
  return {0, 0, 0};
#endif
}
std::vector<size_t> getBufferMemoryStats(bool resetPeak) {
  std::vector<size_t> stats{paddle::bufferBytesLive(), paddle::bufferBytesPeak()};
  if (resetPeak) paddle::resetBufferBytesPeak();
  return stats;
}
std::string getVersion() { return PADDLE_VERSION; }
std::string getBuildCpuFeatures() {
  std::string s;
  // the compiler defines these for the -march the build used
#ifdef __SSE4_2__
  s += " sse4_2";
#endif
#ifdef __AVX__
  s += " avx";
#endif
#ifdef __AVX2__
  s += " avx2";
#endif
#ifdef __FMA__
  s += " fma";
#endif
#ifdef __AVX512F__
  s += " avx512f";
#endif
#ifdef __ARM_NEON
  s += " neon";
#endif
  return s.empty() ? s : s.substr(1);
}

// ---------------------------------------------------------------- Matrix
Matrix::Matrix() = default;
Matrix::~Matrix() = default;

DenseF& Matrix::dense() const {
  PADDLE_ENFORCE(m_, paddle::UnsupportedError, "this is a sparse matrix: read it with getSparseRowCols / getSparseRowColsVal");
  return *m_;
}

const paddle::SparseMatrix& Matrix::sparse() const {
  PADDLE_ENFORCE(s_, paddle::UnsupportedError, "this is a dense matrix, not a sparse one");
  return *s_;
}

Matrix* Matrix::createSparse(size_t h, size_t w, size_t nnz, bool isNonVal, bool trans, bool useGpu) {
  (void)useGpu;  // sparse input stays in host memory; GPU layers read it from there
  PADDLE_ENFORCE(!trans, paddle::UnsupportedError, "createSparse: CSC (trans=True) is not supported, only CSR");
  auto* m = new Matrix;
  m->s_ = std::make_shared<paddle::SparseMatrix>();
  std::vector<int> rows(h + 1, 0);
  m->s_->rowStarts.copyFromHost(rows.data(), 1, rows.size());
  m->s_->cols = DenseI(1, nnz, false);
  m->s_->cols.zero();
  if (!isNonVal) {
    m->s_->values = DenseF(1, nnz, false);
    m->s_->values.zero();
  }
  m->s_->width = w;
  return m;
}

void Matrix::sparseCopyFrom(const std::vector<int>& rows, const std::vector<int>& cols,
                            const std::vector<float>& values) {
  sparse();  // UnsupportedError for a dense matrix
  paddle::SparseMatrix& s = *s_;
  const size_t h = s.height();
  PADDLE_ENFORCE(rows.size() == h + 1, std::invalid_argument, "sparseCopyFrom: ", rows.size(),
                 " row offsets for ", h, " rows (need rows + 1)");
  PADDLE_ENFORCE(rows[0] == 0 && static_cast<size_t>(rows[h]) == cols.size(), std::invalid_argument,
                 "sparseCopyFrom: row offsets run from ", rows[0], " to ", rows[h], " but there are ", cols.size(),
                 " column ids");
  PADDLE_ENFORCE(s.binary() ? values.empty() : values.size() == cols.size(), std::invalid_argument,
                 "sparseCopyFrom: ", values.size(), " values for ", cols.size(), " column ids",
                 s.binary() ? " (a non-value matrix takes none)" : "");
  paddle::SparseMatrix t;
  t.width = s.width;
  t.rowStarts.copyFromHost(rows.data(), 1, rows.size());
  t.cols.copyFromHost(cols.data(), 1, cols.size());
  if (!s.binary()) t.values.copyFromHost(values.data(), 1, values.size());
  paddle::math::checkSparse(t, "sparseCopyFrom");
  s = t;
}

bool Matrix::isSparse() const { return s_ != nullptr; }
SparseValueType Matrix::getSparseValueType() const { return sparse().binary() ? SPARSE_NON_VALUE : SPARSE_VALUE; }
SparseFormatType Matrix::getSparseFormat() const {
  sparse();
  return SPARSE_CSR;
}

std::vector<int> Matrix::getSparseRowCols(size_t i) const {
  const paddle::SparseMatrix& s = sparse();
  PADDLE_ENFORCE(i < s.height(), std::out_of_range, "row ", i, " outside a sparse matrix of ", s.height(), " rows");
  const int* r = s.rowStarts.data();
  return std::vector<int>(s.cols.data() + r[i], s.cols.data() + r[i + 1]);
}

std::vector<std::pair<int, float>> Matrix::getSparseRowColsVal(size_t i) const {
  const paddle::SparseMatrix& s = sparse();
  std::vector<int> cols = getSparseRowCols(i);
  std::vector<std::pair<int, float>> out;
  const int begin = s.rowStarts.data()[i];
  for (size_t k = 0; k < cols.size(); ++k) out.emplace_back(cols[k], s.binary() ? 1.0f : s.values.data()[begin + k]);
  return out;
}

Matrix* Matrix::createZero(size_t h, size_t w, bool useGpu) {
  auto* m = new Matrix;
  m->m_ = std::make_shared<DenseF>(h, w, useGpu);
  m->dense().zero();
  return m;
}

Matrix* Matrix::createDense(const std::vector<float>& data, size_t h, size_t w, bool useGpu) {
  PADDLE_ENFORCE(data.size() <= h * w, std::invalid_argument, "createDense: ", data.size(),
                 " values for a ", h, "x", w, " matrix");
  // v1 copied the values it was given into the matrix's first elements; the rest are zero here.
  std::vector<float> full(data);
  full.resize(h * w, 0.0f);
  auto* m = new Matrix;
  m->m_ = fromHost(full.data(), h, w, useGpu);
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

size_t Matrix::getHeight() const { return s_ ? s_->height() : m_->height(); }
size_t Matrix::getWidth() const { return s_ ? s_->width : m_->width(); }
float Matrix::get(size_t x, size_t y) const {
  PADDLE_ENFORCE(x < dense().height() && y < dense().width(), std::out_of_range, "Matrix.get(", x, ", ", y,
                 ") outside ", paddle::shapeStr(dense()));
  return elementAt(dense(), x * dense().width() + y);
}
void Matrix::set(size_t x, size_t y, float v) {
  PADDLE_ENFORCE(x < dense().height() && y < dense().width(), std::out_of_range, "Matrix.set(", x, ", ", y,
                 ") outside ", paddle::shapeStr(dense()));
  setElement(dense(), x * dense().width() + y, v);
}
bool Matrix::isGpu() const { return !s_ && m_->useGpu(); }
std::vector<float> Matrix::getData() const { return toHost(dense()); }
void Matrix::copyToNumpyMat(float* data, size_t h, size_t w) const {
  PADDLE_ENFORCE(h == dense().height() && w == dense().width(), std::invalid_argument, "copyToNumpyMat: buffer is ",
                 h, "x", w, ", matrix is ", paddle::shapeStr(dense()));
  dense().copyToHost(data);
}
void Matrix::copyFromNumpyMat(float* data, size_t h, size_t w) { dense().copyFromHost(data, h, w); }
unsigned long long Matrix::dataPointer() const { return hostPointer(dense()); }
Matrix* Matrix::shareMemory() const {
  dense();  // UnsupportedError for a sparse matrix
  auto* m = new Matrix;
  m->m_ = sharedMemory(m_);
  return m;
}
unsigned long long Matrix::devicePointer() const { return ::devicePointer(dense()); }
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
IVector* IVector::shareMemory() const {
  auto* v = new IVector;
  v->v_ = sharedMemory(v_);
  return v;
}
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
void Vector::copyFrom(Vector* src) {
  PADDLE_ENFORCE(src, std::invalid_argument, "Vector.copyFrom(None)");
  PADDLE_ENFORCE(src->v_->size() == v_->size(), std::out_of_range, "Vector.copyFrom: ", src->v_->size(),
                 " values into a vector of ", v_->size());
  paddle::deviceCopy(v_->data(), v_->useGpu(), src->v_->data(), src->v_->useGpu(), sizeof(float) * v_->size());
}
void Vector::copyToNumpyArray(float* data, size_t n) const {
  PADDLE_ENFORCE(n == v_->size(), std::invalid_argument, "copyToNumpyArray: buffer of ", n, " for ", v_->size());
  v_->copyToHost(data);
}
void Vector::copyFromNumpyArray(float* data, size_t n) {
  // The same size: in place (a parameter buffer keeps sharing the engine's memory). Another
  // size resizes the vector to the array, as v1 did (and IVector's does).
  if (n == v_->size()) {
    v_->copyFromHost(data, v_->height(), v_->width());
  } else {
    v_->copyFromHost(data, 1, n);
  }
}
unsigned long long Vector::dataPointer() const { return hostPointer(*v_); }
Vector* Vector::shareMemory() const {
  auto* v = new Vector;
  v->v_ = sharedMemory(v_);
  return v;
}
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
Matrix* Arguments::getSlotValue(size_t idx) const {
  const paddle::Argument& a = at(idx);
  if (a.sparse.empty()) return wrap(a.value);
  auto* m = new Matrix;
  m->s_ = std::make_shared<paddle::SparseMatrix>(a.sparse);
  return m;
}
Matrix* Arguments::getSlotIn(size_t idx) const { return wrap(at(idx).in); }
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
IVector* Arguments::getSlotSequenceDim(size_t idx) const { return wrap(at(idx).seqDims); }
void Arguments::setSlotValue(size_t idx, Matrix* mat) {
  paddle::Argument& a = at(idx);
  a.value = mat && mat->m_ ? *mat->m_ : DenseF();
  a.sparse = mat && mat->s_ ? *mat->s_ : paddle::SparseMatrix();
}
void Arguments::setSlotGrad(size_t idx, Matrix* mat) { at(idx).grad = mat ? mat->dense() : DenseF(); }
void Arguments::setSlotIn(size_t idx, Matrix* mat) { at(idx).in = mat ? mat->dense() : DenseF(); }
void Arguments::setSlotSequenceDim(size_t idx, IVector* vec) { at(idx).seqDims = vec ? *vec->v_ : DenseI(); }
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

