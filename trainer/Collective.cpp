#include "trainer/Collective.h"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>

#include "engine/Errors.h"
#include "engine/math/Bf16.h"

namespace paddle {

namespace {
// The collective watchdog's state: who waits in MPI since when. Never destroyed, and its
// thread detached, so process exit does not wait for (or on) it.
struct Watchdog {
  std::mutex mutex;
  std::map<std::thread::id, std::pair<const char*, std::chrono::steady_clock::time_point>> waiting;
  double timeout = 0;
  int rank = 0, size = 1;
  bool started = false;
};
Watchdog& watchdog() {
  static Watchdog* w = new Watchdog;
  return *w;
}

void watch() {
  Watchdog& w = watchdog();
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::lock_guard<std::mutex> lock(w.mutex);
    if (w.timeout <= 0) continue;
    const auto now = std::chrono::steady_clock::now();
    for (const auto& entry : w.waiting) {
      const double waited = std::chrono::duration<double>(now - entry.second.second).count();
      if (waited <= w.timeout) continue;
      std::fprintf(stderr,
                   "paddle train: rank %d of %d: %s has waited %.0f s for the other ranks (--collective_timeout=%g):"
                   " a rank is stuck or gone, so the job ends\n",
                   w.rank, w.size, entry.second.first, waited, w.timeout);
      std::fflush(stderr);
      std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the launcher forwards the line first
      MPI_Abort(MPI_COMM_WORLD, 1);
      std::_Exit(1);
    }
  }
}

// Every rank's `mine`, concatenated in rank order (the lengths may differ between ranks).
template <class T>
std::vector<T> allGatherv(const std::vector<T>& mine, MPI_Datatype type, int ranks, const char* what) {
  std::vector<int> counts(ranks), offsets(ranks);
  int n = static_cast<int>(mine.size());
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  size_t total = 0;
  for (int r = 0; r < ranks; ++r) {
    offsets[r] = static_cast<int>(total);
    total += counts[r];
  }
  PADDLE_ENFORCE(total <= kMaxMpiCount, UnsupportedError, what, ": ", total, " values are too many for one exchange");
  std::vector<T> all(total);
  MPI_Allgatherv(mine.data(), n, type, all.data(), counts.data(), offsets.data(), type, MPI_COMM_WORLD);
  return all;
}
}  // namespace

void setCollectiveTimeout(double seconds, int rank, int size) {
  Watchdog& w = watchdog();
  std::lock_guard<std::mutex> lock(w.mutex);
  w.timeout = seconds;
  w.rank = rank;
  w.size = size;
  if (seconds > 0 && !w.started) {
    w.started = true;
    std::thread(watch).detach();
  }
}

void enterCollective(const char* what) {
  Watchdog& w = watchdog();
  std::lock_guard<std::mutex> lock(w.mutex);
  w.waiting[std::this_thread::get_id()] = {what, std::chrono::steady_clock::now()};
}

void leaveCollective() {
  Watchdog& w = watchdog();
  std::lock_guard<std::mutex> lock(w.mutex);
  w.waiting.erase(std::this_thread::get_id());
}

Collective::Collective() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  PADDLE_ENFORCE(initialized, UnsupportedError,
                 "MPI is not initialised: start distributed training through `paddle train` under mpiexec "
                 "(paddle.trainer.distributed initialises MPI with mpi4py)");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  threadMultiple_ = provided == MPI_THREAD_MULTIPLE;
}

void Collective::setOptions(const CollectiveOptions& o) {
  PADDLE_ENFORCE(o.bucketMb > 0, ConfigError, "--bucket_cap_mb must be > 0, got ", o.bucketMb);
  PADDLE_ENFORCE(o.localSgdSteps >= 0, ConfigError, "--local_sgd_steps must be >= 0, got ", o.localSgdSteps);
  PADDLE_ENFORCE(o.dgcSparsity < 1, ConfigError, "--dgc_sparsity must be below 1 (the fraction left behind), got ",
                 o.dgcSparsity);
  PADDLE_ENFORCE(o.dgcMomentum >= 0 && o.dgcMomentum < 1, ConfigError, "--dgc_momentum must be in [0, 1), got ",
                 o.dgcMomentum);
  PADDLE_ENFORCE(!(o.localSgdSteps > 0 && o.dgcSparsity >= 0), ConfigError,
                 "--local_sgd_steps and --dgc_sparsity exclude each other (choose one way to save communication)");
  options_ = o;
  setCollectiveTimeout(o.timeoutSeconds, rank_, size_);
}

void Collective::sum(double* data, size_t n) {
  MpiTimer t(traffic_.mpiSeconds, "the all-reduce of statistics");
  MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

std::vector<double> Collective::gather(const std::vector<double>& mine, const char* what) {
  MpiTimer t(traffic_.mpiSeconds, what);
  return allGatherv(mine, MPI_DOUBLE, size_, "evaluator statistics");
}

std::vector<int> Collective::gatherInts(const std::vector<int>& mine, const char* what) {
  return allGatherv(mine, MPI_INT, size_, what);
}

namespace {
void sumFloats(float* data, size_t n, MPI_Comm comm) {
  for (size_t done = 0; done < n;) {
    const size_t count = std::min(n - done, kMaxMpiCount);
    MPI_Allreduce(MPI_IN_PLACE, data + done, static_cast<int>(count), MPI_FLOAT, MPI_SUM, comm);
    done += count;
  }
}
}  // namespace

void Collective::reduceFloats(float* data, size_t n) { sumFloats(data, n, MPI_COMM_WORLD); }

namespace {
// MPI's user reduction: inout[i] = bf16(in[i] + inout[i]), the add in fp32.
void sumBf16(void* in, void* inout, int* len, MPI_Datatype*) {
  const uint16_t* a = static_cast<const uint16_t*>(in);
  uint16_t* b = static_cast<uint16_t*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = toBf16Bits(fromBf16Bits(a[i]) + fromBf16Bits(b[i]));
}
}  // namespace

void reduceBf16(float* data, size_t n, void* comm, std::vector<uint16_t>& scratch) {
  // not commutative for MPI: it keeps the operands in rank order, so every rank gets the same bits
  static MPI_Op op = [] {
    MPI_Op o;
    MPI_Op_create(&sumBf16, 0, &o);
    return o;
  }();
  scratch.resize(n);
  for (size_t i = 0; i < n; ++i) scratch[i] = toBf16Bits(data[i]);
  for (size_t done = 0; done < n;) {
    const size_t count = std::min(n - done, kMaxMpiCount);
    MPI_Allreduce(MPI_IN_PLACE, scratch.data() + done, static_cast<int>(count), MPI_UINT16_T, op,
                  *static_cast<MPI_Comm*>(comm));
    done += count;
  }
  for (size_t i = 0; i < n; ++i) data[i] = fromBf16Bits(scratch[i]);
}

void Collective::reduceGradients(float* data, size_t n, void* comm) {
  MPI_Comm world = MPI_COMM_WORLD;
  MPI_Comm* on = comm ? static_cast<MPI_Comm*>(comm) : &world;
  if (!options_.bf16Gradients) return sumFloats(data, n, *on);
  thread_local std::vector<uint16_t> scratch;
  reduceBf16(data, n, on, scratch);
}

void Collective::reduceMatrices(const std::vector<Matrix*>& ms, float scale) {
  const size_t runFloats = std::max<size_t>(1, static_cast<size_t>(options_.bucketMb * (1 << 20) / sizeof(float)));
  for (size_t first = 0; first < ms.size();) {
    size_t last = first, floats = 0;
    while (last < ms.size() && (last == first || floats + ms[last]->size() <= runFloats)) floats += ms[last++]->size();
    staging_.resize(floats);
    size_t offset = 0;
    for (size_t i = first; i < last; ++i) {
      ms[i]->copyToHost(staging_.data() + offset);
      offset += ms[i]->size();
    }
    traffic_.denseBytes += floats * sizeof(float);
    {
      MpiTimer t(traffic_.mpiSeconds, "the all-reduce of gradients");
      reduceFloats(staging_.data(), floats);
    }
    if (scale != 1.0f) {
      for (float& x : staging_) x *= scale;
    }
    offset = 0;
    for (size_t i = first; i < last; ++i) {
      ms[i]->copyFromHost(staging_.data() + offset, ms[i]->height(), ms[i]->width());
      offset += ms[i]->size();
    }
    first = last;
  }
}

}  // namespace paddle
