// The MPI transport the distributed strategies share (trainer/MpiSync.h): this rank's place in
// MPI_COMM_WORLD, the options, the traffic, the watchdog, and the exchanges every strategy uses.
// Compiled only in builds with MPI (setup.py's MPI_SOURCES); mpi.h stays in the .cpp files.
#pragma once
#include <chrono>
#include <cstdint>
#include <vector>

#include "engine/math/Buffer.h"
#include "trainer/GradientSync.h"

namespace paddle {

// The collective watchdog (paddle train --collective_timeout): a thread that ends the job
// (MPI_Abort), naming this rank and the operation, when a thread has waited in one MPI
// exchange for longer than `seconds` (a rank stuck or gone would otherwise hang the others).
// seconds <= 0: off.
void setCollectiveTimeout(double seconds, int rank, int size);
void enterCollective(const char* what);  // this thread now waits in MPI for `what`
void leaveCollective();

// Adds the time the training thread spends blocked on MPI to the traffic statistics, and
// shows the wait to the watchdog.
class MpiTimer {
 public:
  explicit MpiTimer(double& total, const char* what = "an MPI exchange of gradients or statistics")
      : total_(total), start_(std::chrono::steady_clock::now()) {
    enterCollective(what);
  }
  ~MpiTimer() {
    leaveCollective();
    total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  double& total_;
  std::chrono::steady_clock::time_point start_;
};

class Collective {
 public:
  // Joins MPI_COMM_WORLD; MPI must already be initialised (mpi4py does it).
  Collective();
  int rank() const { return rank_; }
  int size() const { return size_; }
  // MPI was initialised with MPI_THREAD_MULTIPLE: a second thread may exchange gradients.
  bool threadMultiple() const { return threadMultiple_; }
  void setOptions(const CollectiveOptions& o);  // checked; also sets the watchdog's timeout
  const CollectiveOptions& options() const { return options_; }
  CollectiveTraffic& traffic() { return traffic_; }

  void sum(double* data, size_t n);
  std::vector<double> gather(const std::vector<double>& mine, const char* what);
  // Every rank's ints (the counts may differ by rank), concatenated in rank order.
  std::vector<int> gatherInts(const std::vector<int>& mine, const char* what);
  // Sums n floats over the ranks in place on MPI_COMM_WORLD (the training thread's).
  void reduceFloats(float* data, size_t n);
  // Sums n gradient floats over the ranks in place on comm (an MPI_Comm; null: the world), in
  // fp32 or, with the bf16Gradients option, as bfloat16 (reduceBf16). Any thread may call it.
  void reduceGradients(float* data, size_t n, void* comm = nullptr);
  // The bytes an all-reduce of n gradient floats puts on the wire (for the traffic counts).
  uint64_t gradientBytes(size_t n) const { return n * (options_.bf16Gradients ? sizeof(uint16_t) : sizeof(float)); }
  // Sums host copies of the matrices over ranks, run by run of about --bucket_cap_mb, times scale.
  void reduceMatrices(const std::vector<Matrix*>& ms, float scale);

 private:
  int rank_ = 0, size_ = 1;
  bool threadMultiple_ = false;
  CollectiveOptions options_;
  CollectiveTraffic traffic_;
  std::vector<float> staging_;
};

// Sums n floats over the ranks of comm (an MPI_Comm) through a bfloat16 buffer: each rank's
// values rounded to bfloat16, each pair of contributions added in fp32 and rounded again, in
// rank order (the same bits on every rank), the result widened back in place.
void reduceBf16(float* data, size_t n, void* comm, std::vector<uint16_t>& scratch);

// The most values one MPI call may carry (its counts are ints).
constexpr size_t kMaxMpiCount = 2147483647;

// The gradients every strategy exchanges: trainable and not sparse_update.
inline bool isDense(const Parameter& p) { return !p.isStatic() && !p.sparseUpdate(); }

}  // namespace paddle
