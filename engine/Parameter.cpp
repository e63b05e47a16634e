#include "engine/Parameter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <vector>

#include "engine/Errors.h"
#include "engine/InputFile.h"
#include "engine/math/Kernel.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace paddle {

namespace {
struct FileHeader {  // v1 Parameter::save header, 16 bytes, native byte order
  int32_t version;
  uint32_t valueSize;
  uint64_t size;
};
static_assert(sizeof(FileHeader) == 16, "v1 parameter header is 16 bytes");

// A sparse_update table is read and written at random rows: on 2 MB pages (a hint,
// given before the first touch) a row costs a cache miss but no TLB miss.
void adviseHugePages(Matrix& m) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const size_t bytes = m.size() * sizeof(float), page = 4096;
  if (m.useGpu() || bytes < (size_t(8) << 20)) return;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(m.data()) + page - 1) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(m.data()) + bytes) / page * page;
  madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)m;
#endif
}

// Rows [begin, end) of a sparse table on 4 KB pages (the whole pages inside them), given
// before the first touch.
void adviseSmallPages(Matrix& m, size_t begin, size_t end) {
#if defined(__linux__) && defined(MADV_NOHUGEPAGE)
  const uintptr_t page = 4096;
  const uintptr_t b = (reinterpret_cast<uintptr_t>(m.row(begin)) + page - 1) / page * page;
  const uintptr_t e = reinterpret_cast<uintptr_t>(m.row(end)) / page * page;
  if (e > b) madvise(reinterpret_cast<void*>(b), e - b, MADV_NOHUGEPAGE);
#else
  (void)m, (void)begin, (void)end;
#endif
}
}  // namespace

Parameter::Parameter(const Json& config, bool useGpu)
    : config_(config),
      name_(config.getString("name")),
      size_(static_cast<size_t>(config.getInt("size"))),
      dims_(config.getInts("dims")),
      isStatic_(config.getBool("is_static")),
      useGpu_(useGpu) {
  PADDLE_ENFORCE(!name_.empty(), ConfigError, "a parameter has no name");
  PADDLE_ENFORCE(size_ > 0, ConfigError, "parameter '", name_, "' has size 0");
  if (dims_.size() == 2 && dims_[0] * dims_[1] == static_cast<int64_t>(size_)) {
    rows_ = dims_[0];
    cols_ = dims_[1];
  } else {
    rows_ = 1;
    cols_ = size_;
  }
  sparseUpdate_ = !isStatic_ && config.getBool("sparse_update");
  if (sparseUpdate_ && !useGpu) {
    bufs_[PARAMETER_VALUE] = reserve();
  } else {
    bufs_[PARAMETER_VALUE] = Matrix(rows_, cols_, useGpu);
    bufs_[PARAMETER_VALUE].zero();
  }
  if (!isStatic_ && !sparseUpdate_) buffer(PARAMETER_GRADIENT);
  if (sparseUpdate_) {
    PADDLE_ENFORCE(!useGpu, UnsupportedError, "parameter '", name_, "': sparse_update is CPU-only");
    slot_.assign(rows_, -1);
    stateClock_.assign(rows_, 0);
    l1_ = decayRateL1();
    l2_ = decayRate();
    decay_ = std::make_shared<LazyDecay>();
    decay_->clock.assign(rows_, 0);
  }
}

Matrix& Parameter::grad() {
  allRowsMarked_ = true;
  if (!sparseUpdate_) return bufs_[PARAMETER_GRADIENT];
  PADDLE_ENFORCE(!partition_, UnsupportedError, "parameter '", name_,
                 "' is a sharded table (--local=0): only row lookups (table projection, sparse input) may use it, "
                 "not a layer that writes its whole gradient");
  Matrix& g = buffer(PARAMETER_GRADIENT);
  if (!allRowsTouched_) {  // a dense writer: the compact rows move into the dense buffer
    allRowsTouched_ = true;
    for (size_t k = 0; k < touched_.size(); ++k) {
      std::copy(rowGrad_.data() + k * cols_, rowGrad_.data() + (k + 1) * cols_, g.row(touched_[k]));
    }
  }
  return g;
}

GradRows Parameter::gradRows(const int* rows, size_t n) {
  if (!sparseUpdate_ || allRowsTouched_) {
    markRows(rows, n);
    Matrix& g = bufs_[PARAMETER_GRADIENT];
    return {g.data(), nullptr, rows_, cols_, useGpu_};
  }
  for (size_t i = 0; rows && i < n; ++i) {
    int r = rows[i];
    if (r == -1) continue;  // v1's ignored id: no row
    PADDLE_ENFORCE(r >= 0 && static_cast<size_t>(r) < rows_, DataError, "parameter '", name_, "': row ", r,
                   " outside [0, ", rows_, ")");
    if (slot_[r] < 0) {
      slot_[r] = static_cast<int>(touched_.size());
      touched_.push_back(r);
    }
  }
  rowGrad_.resize(touched_.size() * cols_, 0.0f);
  return {rowGrad_.data(), slot_.data(), rows_, cols_, false};
}

void Parameter::markRows(const int* rows, size_t n) {
  if (!rows || sparseUpdate_ || useGpu_) {
    allRowsMarked_ = true;
    return;
  }
  if (rowMarks_.empty()) rowMarks_.assign(rows_, 0);
  for (size_t i = 0; i < n; ++i) {
    if (rows[i] >= 0 && static_cast<size_t>(rows[i]) < rows_) rowMarks_[rows[i]] = 1;
  }
}

void Parameter::clearRowMarks() {
  std::fill(rowMarks_.begin(), rowMarks_.end(), 0);
  allRowsMarked_ = false;
}

void Parameter::shareValueOf(Parameter& main) {
  value() = main.value();
  if (!sparseUpdate_) return;
  partition_ = main.partition_;
  decay_ = main.decay_;
  decay_->shared = true;
}

void Parameter::setDecayClock(int64_t updates, float lr, RowRate rate) {
  decay_->updates = updates;
  decay_->lr = lr;
  decay_->rate = std::move(rate);
}

void Parameter::catchUpRow(size_t r, float* rate) {
  LazyDecay& d = *decay_;
  std::unique_lock<std::mutex> lock;
  if (d.shared) lock = std::unique_lock<std::mutex>(d.stripes[r % 64]);
  const int64_t dt = d.updates - d.clock[r];
  if (dt <= 0) return;
  d.clock[r] = d.updates;
  const double l1 = l1_, l2 = l2_;
  float* w = value().row(r);
  if (d.rate) d.rate(r, rate);
  for (size_t j = 0; j < cols_; ++j) {
    const double k = d.lr * (d.rate ? rate[j] : 1.0);
    double x = w[j];
    if (l1 > 0 && l2 > 0) {  // shrink then scale, once per missed update
      for (int64_t s = 0; s < dt; ++s) {
        x = x > k * l1 ? x - k * l1 : (x < -k * l1 ? x + k * l1 : 0.0);
        x /= 1 + k * l2;
      }
    } else if (l1 > 0) {  // repeated shrinking = one shrink by the sum
      double t = k * l1 * dt;
      x = x > t ? x - t : (x < -t ? x + t : 0.0);
    } else {
      x /= std::pow(1 + k * l2, static_cast<double>(dt));
    }
    w[j] = static_cast<float>(x);
  }
}

// (Without L1/L2 there is nothing to catch up: the clocks are not needed.)
void Parameter::catchUpRows(const int* rows, size_t n, bool distinct) {
  if (!sparseUpdate_ || (l1_ <= 0 && l2_ <= 0)) return;
  auto some = [&](size_t b, size_t e) {
    std::vector<float> rate(cols_);
    for (size_t i = b; i < e; ++i) {
      if (rows[i] >= 0 && static_cast<size_t>(rows[i]) < rows_) catchUpRow(rows[i], rate.data());
    }
  };
  if (distinct) {
    parallelFor(n, std::max<size_t>(1, kParallelGrain / std::max<size_t>(cols_, 1)), some);
  } else {
    some(0, n);  // a row may repeat: one thread, so that it catches up once
  }
}

void Parameter::catchUpAllRows() {
  if (!sparseUpdate_ || (l1_ <= 0 && l2_ <= 0)) return;
  std::vector<float> rate(cols_);
  for (size_t r = ownedBegin(), end = ownedEnd(); r < end; ++r) catchUpRow(r, rate.data());
}

Matrix Parameter::reserve() {
#ifdef __linux__
  const size_t bytes = std::max<size_t>(rows_ * cols_ * sizeof(float), 1);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  PADDLE_ENFORCE(p != MAP_FAILED, UnsupportedError, "parameter '", name_, "': cannot reserve ", bytes,
                 " bytes of address space for a sparse_update table");
  reserved_[static_cast<float*>(p)] = std::shared_ptr<void>(p, [bytes](void* q) { munmap(q, bytes); });
  Matrix m = Matrix::view(static_cast<float*>(p), rows_, cols_, false);
  Matrix owned = Matrix::view(m.row(ownedBegin()), ownedEnd() - ownedBegin(), cols_, false);
  adviseHugePages(owned);
  return m;
#else
  Matrix m(rows_, cols_, false);  // no reservations: every row takes memory
  m.zero();
  return m;
#endif
}

void Parameter::partitionRows(std::shared_ptr<RowPartition> partition) {
  const size_t begin = partition->begin(), end = partition->end();
  PADDLE_ENFORCE(sparseUpdate_ && !useGpu_, ConfigError, "parameter '", name_,
                 "': only CPU sparse_update tables can be sharded");
  PADDLE_ENFORCE(begin <= end && end <= rows_ && bufs_.size() == 1, ConfigError, "parameter '", name_,
                 "': cannot shard rows [", begin, ", ", end, ") of ", rows_, " after training started");
  partition_ = std::move(partition);
  adviseSmallPages(value(), 0, begin);  // (no 2 MB page of the owned rows reaches into the others)
  adviseSmallPages(value(), end, rows_);
}

void Parameter::markRowsCurrent(const int* rows, size_t n) {
  if (!decay_) return;
  for (size_t k = 0; k < n; ++k) decay_->clock[rows[k]] = decay_->updates;  // (catchUpRows leaves them alone)
}

ValueRows Parameter::valueRows() {
  const Matrix& v = value();
  if (!partition_) return {v.data(), nullptr, nullptr, rows_, cols_, v.useGpu()};
  return {v.data(), partition_->fetchedValues(), partition_->fetchedSlots(), rows_, cols_, false};
}

size_t Parameter::residentRows() const {
  const Matrix& v = bufs_.at(PARAMETER_VALUE);
#ifdef __linux__
  const uintptr_t page = 4096, base = reinterpret_cast<uintptr_t>(v.data()) / page * page;
  const uintptr_t end = reinterpret_cast<uintptr_t>(v.data() + v.size());
  std::vector<unsigned char> resident((end - base + page - 1) / page);
  if (mincore(reinterpret_cast<void*>(base), end - base, resident.data()) != 0) return rows_;
  size_t n = 0;
  for (size_t r = 0; r < rows_; ++r) n += resident[(reinterpret_cast<uintptr_t>(v.data() + r * cols_) - base) / page] & 1;
  return n;
#else
  return rows_;
#endif
}

void Parameter::resetRowClocks(int64_t updates) {
  if (!sparseUpdate_) return;
  decay_->updates = updates;
  std::fill(decay_->clock.begin(), decay_->clock.end(), updates);
  std::fill(stateClock_.begin(), stateClock_.end(), updates);
}

void Parameter::zeroGrad() {
  if (sparseUpdate_) {
    for (int r : touched_) slot_[r] = -1;
    touched_.clear();
    rowGrad_.clear();  // (keeps its capacity for the next batch)
  }
  auto g = bufs_.find(PARAMETER_GRADIENT);  // (a sparse table may have no dense gradient)
  if (g != bufs_.end() && (!sparseUpdate_ || allRowsTouched_)) g->second.zero();
  allRowsTouched_ = false;
  clearRowMarks();
}

Matrix& Parameter::buffer(ParameterType type) {
  auto it = bufs_.find(type);
  if (it != bufs_.end()) return it->second;
  if (sparseUpdate_ && !useGpu_) return bufs_[type] = reserve();
  Matrix& m = bufs_[type] = Matrix(rows_, cols_, useGpu_);
  m.zero();
  return m;
}

void Parameter::randomize(std::mt19937& rng) {
  double mean = config_.getDouble("initial_mean");
  double std = config_.getDouble("initial_std");
  int strategy = static_cast<int>(config_.getInt("initial_strategy"));
  std::uniform_real_distribution<double> uniform(mean - std, mean + std);
  std::normal_distribution<double> normal(mean, std > 0 ? std : 1.0);
  auto draw = [&](float* out, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      out[i] = static_cast<float>(strategy == 1 ? uniform(rng) : std > 0 ? normal(rng) : mean);
    }
  };
  if (partition_) {  // every rank draws the whole stream (the same on every rank), keeps its rows
    std::vector<float> row(cols_);
    const size_t begin = ownedBegin(), end = ownedEnd();
    for (size_t r = 0; r < rows_; ++r) {
      draw(row.data(), cols_);
      if (r >= begin && r < end) std::copy(row.begin(), row.end(), value().row(r));
    }
    return;
  }
  std::vector<float> host(size_);
  draw(host.data(), size_);
  value().copyFromHost(host.data(), rows_, cols_);
}

void Parameter::write(std::ostream& out, ParameterType type) const {
  auto it = bufs_.find(type);
  PADDLE_ENFORCE(it != bufs_.end(), IOError, "parameter '", name_, "' has no buffer ", type, " to save");
  if (partition_) {  // streamed in from the ranks that own the rows
    FileHeader h{0, sizeof(float), size_};
    out.write(reinterpret_cast<const char*>(&h), sizeof(h));
    partition_->writeRows(*this, it->second, &out);
    return;
  }
  std::vector<float> host(size_);
  it->second.copyToHost(host.data());
  FileHeader h{0, sizeof(float), size_};
  out.write(reinterpret_cast<const char*>(&h), sizeof(h));
  out.write(reinterpret_cast<const char*>(host.data()), size_ * sizeof(float));
}

void Parameter::save(const std::string& path, ParameterType type) const {
  if (partition_ && !partition_->writesFiles()) {  // another rank writes the file: this one sends its rows
    auto it = bufs_.find(type);
    PADDLE_ENFORCE(it != bufs_.end(), IOError, "parameter '", name_, "' has no buffer ", type, " to save");
    partition_->writeRows(*this, it->second, nullptr);
    return;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  PADDLE_ENFORCE(out.good(), IOError, "cannot write parameter file '", path, "'");
  write(out, type);
  out.flush();
  PADDLE_ENFORCE(out.good(), IOError, "failed writing parameter file '", path, "'");
}

void Parameter::read(std::istream& in, const std::string& what, ParameterType type) {
  FileHeader h{};
  in.read(reinterpret_cast<char*>(&h), sizeof(h));
  PADDLE_ENFORCE(in.gcount() == sizeof(h), IOError, what, " is too short for a parameter header");
  PADDLE_ENFORCE(h.version == 0, IOError, what, ": unsupported format version ", h.version);
  PADDLE_ENFORCE(h.valueSize == sizeof(float), IOError, what, ": values are ", h.valueSize,
                 " bytes wide, this engine uses float32");
  PADDLE_ENFORCE(h.size == size_, IOError, what, " holds ", h.size, " values but parameter '", name_, "' has ",
                 size_);
  if (partition_) {  // only the owned rows (the file may come from any number of ranks)
    const size_t begin = ownedBegin(), end = ownedEnd();
    const std::streamoff start = in.tellg(), rowBytes = static_cast<std::streamoff>(cols_ * sizeof(float));
    in.seekg(0, std::ios::end);
    PADDLE_ENFORCE(in.tellg() - start >= static_cast<std::streamoff>(size_ * sizeof(float)), IOError, what,
                   " is truncated");
    in.seekg(start + rowBytes * static_cast<std::streamoff>(begin));
    Matrix& m = buffer(type);
    in.read(reinterpret_cast<char*>(m.row(begin)), rowBytes * (end - begin));
    PADDLE_ENFORCE(in.good(), IOError, what, ": cannot read rows [", begin, ", ", end, ")");
    in.seekg(start + rowBytes * static_cast<std::streamoff>(rows_));
    return;
  }
  std::vector<float> host(size_);
  in.read(reinterpret_cast<char*>(host.data()), size_ * sizeof(float));
  PADDLE_ENFORCE(static_cast<size_t>(in.gcount()) == size_ * sizeof(float), IOError, what, " is truncated");
  // NaN or inf in a saved parameter would silently turn every output into NaN
  bool finite = true;
  for (float v : host) finite &= std::isfinite(v);
  if (!finite) {
    const size_t k = std::find_if(host.begin(), host.end(), [](float v) { return !std::isfinite(v); }) - host.begin();
    throw IOError(str(what, ": value ", k, " is ", host[k], " (a parameter must be finite)"));
  }
  buffer(type).copyFromHost(host.data(), rows_, cols_);
}

void Parameter::load(const std::string& path, ParameterType type) {
  std::ifstream in = openInputFile(path, "parameter file");
  read(in, "'" + path + "'", type);
  PADDLE_ENFORCE(in.peek() == std::char_traits<char>::eof(), IOError, "'", path,
                 "' has bytes after its values (not a parameter file of '", name_, "'?)");
}

}  // namespace paddle
