// A trainable tensor: its value, its gradient and whatever per-parameter state
// the optimizer keeps (momentum, Adam moments ...), plus v1's ParameterConfig.
#pragma once
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "engine/Json.h"
#include "engine/RowPartition.h"
#include "engine/SparseMatrix.h"
#include "engine/math/Buffer.h"

namespace paddle {

// v1's ParameterType numbering (the SWIG API exposes these values).
enum ParameterType {
  PARAMETER_VALUE = 0,
  PARAMETER_GRADIENT = 1,
  PARAMETER_MOMENTUM = 2,
  PARAMETER_SUM1 = 3,
  PARAMETER_SUM2 = 4,
  PARAMETER_SUM3 = 5,
  PARAMETER_LEARNING_RATE = 6,
  PARAMETER_UPDATE_TIME = 7,
  PARAMETER_DELTA = 8,
  PARAMETER_GRADIENT_SUM = 9,
  PARAMETER_GRADIENT_SQURESUM = 10,
  PARAMETER_GRADIENT_SQURESUM1 = 11,
  PARAMETER_ROWS = 12,
  PARAMETER_COLS = 13,
  PARAMETER_SECOND_MOMENTUM = 14,
  PARAMETER_WEIGHTED_INFINITY_NORM = 15,
  PARAMETER_APPLY = 16,
  PARAMETER_MOMENTUM_UT = 17,
  PARAMETER_MOMENTUM_VT = 18,
  NUM_PARAMETER_TYPES = 19
};

class Parameter {
 public:
  Parameter(const Json& config, bool useGpu);

  const std::string& name() const { return name_; }
  size_t size() const { return size_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  const Json& config() const { return config_; }
  bool isStatic() const { return isStatic_; }
  bool useGpu() const { return useGpu_; }

  // Per-parameter settings from ParameterConfig (v1 defaults when absent).
  double learningRate() const { return config_.getDouble("learning_rate"); }
  double momentum() const { return config_.getDouble("momentum"); }
  double decayRate() const { return config_.getDouble("decay_rate"); }
  double decayRateL1() const { return config_.getDouble("decay_rate_l1"); }
  double clippingThreshold() const { return config_.getDouble("gradient_clipping_threshold"); }

  // Value and gradient as [dims[0], dims[1]] (or [1, size] without 2-D dims).
  Matrix& value() { return bufs_[PARAMETER_VALUE]; }
  // The value for lookups by row id: a partitioned table's rows fetched for this batch are
  // read from the partition's compact block of fetched rows, the others in place.
  ValueRows valueRows();
  // The gradient for a dense writer: with sparse_update this marks every row touched
  // (the rows gathered so far move into a dense buffer, kept from then on).
  Matrix& grad();
  // The gradient for a writer that touches only `rows` (embedding lookups, sparse
  // input; null marks none). With sparse_update no dense gradient is kept: the touched
  // rows live in a compact buffer, and only they are updated and cleared. The view
  // is valid until the next grad() or gradRows().
  GradRows gradRows(const int* rows = nullptr, size_t n = 0);
  // A dense CPU gradient that gradRows() has written: per row, whether it may hold gradient
  // since the last clearRowMarks() (gradRows marks its rows; grad() and gradRows() without
  // rows mark all). Null when every row may: the update reads and clears only marked rows.
  const uint8_t* rowsWithGradient() const {
    return allRowsMarked_ || rowMarks_.empty() ? nullptr : rowMarks_.data();
  }
  // After the update has cleared the gradient.
  void clearRowMarks();
  // sparse_update, some rows touched: row k holds the gradient of touchedRows()[k].
  Matrix touchedGrad() { return Matrix::view(rowGrad_.data(), touched_.size(), cols_, false); }
  // A thread replica: reads `main`'s value (and catches up its lazy decay with main's clocks,
  // and reads its partition's fetched rows).
  void shareValueOf(Parameter& main);

  // sparse_update (v1 ParamAttr(sparse_update=True)): the optimizer updates
  // only the rows touched by the batch, catching up their decay lazily.
  bool sparseUpdate() const { return sparseUpdate_; }
  bool allRowsTouched() const { return allRowsTouched_; }
  const std::vector<int>& touchedRows() const { return touched_; }
  size_t rows() const { return rows_; }
  size_t cols() const { return cols_; }

  // Lazy L1/L2 decay of sparse_update rows: the optimizer records how many
  // updates have happened (and their rate); a row catches up on the decay of
  // every update since its own last one right before it is read or updated,
  // so it always holds exactly what decaying every row at every update gives
  // (while the learning rate is constant).
  // RowRate(r, out) writes row r's per-element rate of its last update (AdaGrad family).
  using RowRate = std::function<void(size_t, float*)>;
  void setDecayClock(int64_t updates, float lr, RowRate rate);
  // (distinct: no row repeats, so the rows are split over the CPU threads)
  void catchUpRows(const int* rows, size_t n, bool distinct = false);
  void catchUpAllRows();
  // After loading a checkpoint (taken with every row caught up): all rows are
  // current as of `updates`.
  void resetRowClocks(int64_t updates);
  // Per-row count of rule applications, for optimizers whose state decays
  // every update (rmsprop, decayed_adagrad).
  std::vector<int64_t>& stateClock() { return stateClock_; }
  // A table of which this process holds some rows only (`paddle train --local=0` under
  // mpiexec: trainer/ShardedTables.cpp): the value and state buffers keep an address for every
  // row (reserved, not allocated) but only rows [ownedBegin, ownedEnd) are ever written here;
  // lookups read the others from the partition's fetched rows (valueRows), saving writes them
  // through it. Only before training starts.
  void partitionRows(std::shared_ptr<RowPartition> partition);
  bool sharded() const { return partition_ != nullptr; }
  size_t ownedBegin() const { return partition_ ? partition_->begin() : 0; }
  size_t ownedEnd() const { return partition_ ? partition_->end() : rows_; }
  // Rows whose values were just copied, caught up, from elsewhere: no lazy decay pending.
  void markRowsCurrent(const int* rows, size_t n);
  // Rows of the value's range that take memory now (resident pages), for tests and benchmarks.
  size_t residentRows() const;
  // Any other buffer, created zeroed with the value's shape on first use.
  Matrix& buffer(ParameterType type);
  bool hasBuffer(ParameterType type) const { return bufs_.count(type) > 0; }
  // Frees a state buffer the optimizer no longer keeps.
  void dropBuffer(ParameterType type) {
    auto it = bufs_.find(type);
    if (it == bufs_.end()) return;
    reserved_.erase(it->second.data());
    bufs_.erase(it);
  }

  // Normal(mean, std), or uniform in [mean-std, mean+std] when initial_strategy is 1.
  void randomize(std::mt19937& rng);
  // Clears the gradient (only the touched rows for sparse_update) and the marks.
  void zeroGrad();

  // v1 binary format: int32 version 0, uint32 value size 4, uint64 count, then
  // floats. Other buffers (optimizer state) use the same format.
  // A file holds exactly one record (trailing bytes are an error).
  void save(const std::string& path, ParameterType type = PARAMETER_VALUE) const;
  void load(const std::string& path, ParameterType type = PARAMETER_VALUE);
  // One record within a stream (merged models); `what` names the source in errors.
  void write(std::ostream& out, ParameterType type = PARAMETER_VALUE) const;
  void read(std::istream& in, const std::string& what, ParameterType type = PARAMETER_VALUE);

 private:
  // rowsWithGradient's marks for the rows a dense CPU gradient's writer touches (null: all)
  void markRows(const int* rows, size_t n);

  Json config_;
  std::string name_;
  size_t size_;
  std::vector<int64_t> dims_;
  bool isStatic_;
  bool useGpu_;
  size_t rows_, cols_;
  std::map<int, Matrix> bufs_;
  bool sparseUpdate_ = false;
  bool allRowsTouched_ = false;
  std::vector<int> touched_;
  std::vector<int> slot_;       // row -> position in rowGrad_, -1 untouched
  std::vector<float> rowGrad_;  // the touched rows' gradients, in touched_ order
  std::vector<uint8_t> rowMarks_;  // rowsWithGradient(): allocated by the first gradRows(rows)
  bool allRowsMarked_ = false;
  std::vector<int64_t> stateClock_;
  double l1_ = 0, l2_ = 0;
  // Lazy decay's clocks, shared with the replicas that read this value: a row is
  // caught up by whichever thread reads it first (one lock per stripe of rows).
  struct LazyDecay {
    std::vector<int64_t> clock;  // per row: the updates whose decay it holds
    int64_t updates = 0;
    float lr = 0;
    RowRate rate;
    bool shared = false;
    std::mutex stripes[64];
  };
  std::shared_ptr<LazyDecay> decay_;
  void catchUpRow(size_t r, float* rate);
  std::map<const float*, std::shared_ptr<void>> reserved_;  // a sparse table's address ranges, by start
  std::shared_ptr<RowPartition> partition_;  // (shared with the replicas)
  Matrix reserve();  // zeroed [rows, cols] (of a sparse table) that takes memory only where written
};

using ParameterPtr = std::shared_ptr<Parameter>;

}  // namespace paddle
