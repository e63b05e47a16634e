#include "engine/math/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "engine/Errors.h"
#include "engine/math/Device.h"

namespace paddle {

namespace {

thread_local bool tSerial = false;  // inside a chunk, or under a SerialScope

int threadsFromEnvironment() {
  for (const char* name : {"PADDLE_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"}) {
    const char* v = std::getenv(name);
    if (!v || !*v) continue;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end == '\0' && n >= 1) return static_cast<int>(std::min<long>(n, 256));
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

void cpuPause() {
#if defined(__x86_64__)
  _mm_pause();
#endif
}

// Workers sleep on `wake_` between loops. A loop publishes its job under the mutex and
// bumps `generation_`; every thread (caller included) then claims chunks until none is
// left. A claim carries the job's generation in the high half of `claim_`, so a worker
// that wakes late, after its job is done, can never take a chunk of the next one. Which
// thread runs a chunk varies, its bounds never do.
class Pool {
 public:
  explicit Pool(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { workerLoop(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }
  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  void run(size_t n, size_t chunks, detail::ChunkFn fn, void* ctx) {
    errors_.assign(chunks, nullptr);
    Job job{n, chunks, fn, ctx, 0};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job.generation = ++generation_;
      job_ = job;
      done_.store(0);
      claim_.store(static_cast<uint64_t>(job.generation) << 32);
      published_.store(job.generation, std::memory_order_release);
    }
    wake_.notify_all();
    claimChunks(job);
    // The caller finished its share: wait for chunks still running elsewhere.
    for (int spin = 0; done_.load(std::memory_order_acquire) < chunks; ++spin) {
      if (spin < kSpins) {
        cpuPause();
      } else {
        std::unique_lock<std::mutex> lock(mutex_);
        finished_.wait(lock, [&] { return done_.load() >= chunks; });
      }
    }
    for (auto& e : errors_) {
      if (e) std::rethrow_exception(e);
    }
  }

 private:
  struct Job {
    size_t n, chunks;
    detail::ChunkFn fn;
    void* ctx;
    uint32_t generation;
  };
  static constexpr int kSpins = 1000;  // ~50 us of pause before sleeping

  // The next chunk of `job`, or false when it has none left (or is no longer current).
  bool claim(const Job& job, size_t& chunk) {
    uint64_t v = claim_.load();
    for (;;) {
      if (static_cast<uint32_t>(v >> 32) != job.generation || (v & 0xffffffffu) >= job.chunks) return false;
      if (claim_.compare_exchange_weak(v, v + 1)) {
        chunk = static_cast<size_t>(v & 0xffffffffu);
        return true;
      }
    }
  }

  void claimChunks(const Job& job) {
    const bool was = tSerial;
    tSerial = true;  // loops inside a chunk run serially
    for (size_t c; claim(job, c);) {
      try {
        job.fn(job.ctx, c, job.n * c / job.chunks, job.n * (c + 1) / job.chunks);
      } catch (...) {
        errors_[c] = std::current_exception();
      }
      if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == job.chunks) {
        std::lock_guard<std::mutex> lock(mutex_);  // the caller may be about to wait
        finished_.notify_all();
      }
    }
    tSerial = was;
  }

  void workerLoop() {
    flushDenormals();  // like every thread that computes
    uint32_t seen = 0;
    for (;;) {
      // A short spin catches the next loop of a layer without a sleep and wake-up;
      // then the worker sleeps, so an idle engine leaves the cores alone.
      for (int spin = 0; spin < kSpins && published_.load(std::memory_order_acquire) == seen; ++spin) cpuPause();
      Job job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        job = job_;
        seen = generation_;
      }
      claimChunks(job);
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  bool stop_ = false;
  uint32_t generation_ = 0;  // guarded by mutex_
  Job job_{};                // guarded by mutex_
  std::atomic<uint32_t> published_{0};  // generation_, for the workers' spin
  std::atomic<uint64_t> claim_{0};      // generation << 32 | next chunk
  std::atomic<size_t> done_{0};
  std::vector<std::exception_ptr> errors_;
};

std::mutex gPoolOwner;  // held by the one thread running a loop on the pool (or resizing it)
std::atomic<int> gThreads{0};
Pool* gPool = nullptr;  // created on first use; never destroyed (workers sleep at exit)

int configuredThreads() {
  int n = gThreads.load();
  if (n == 0) {
    const int fromEnv = threadsFromEnvironment();
    gThreads.compare_exchange_strong(n, fromEnv);
    n = gThreads.load();
  }
  return n;
}

}  // namespace

int cpuThreads() { return configuredThreads(); }

void setCpuThreads(int n) {
  PADDLE_ENFORCE(n >= 1, ConfigError, "the number of CPU threads must be >= 1, not ", n);
  std::lock_guard<std::mutex> lock(gPoolOwner);
  if (gPool && gPool->threads() != n) {
    delete gPool;
    gPool = nullptr;
  }
  gThreads.store(n);
}

// PADDLE_PARALLEL_ALL=1 (tests) splits every loop the pool can split, however small, so
// that the small networks of the gradient checks run their parallel paths too.
bool splitEverything() {
  static const bool all = [] {
    const char* v = std::getenv("PADDLE_PARALLEL_ALL");
    return v && std::string(v) == "1";
  }();
  return all;
}

size_t parallelChunks(size_t n, size_t grain) {
  if (tSerial || reverseKernelOrder()) return 1;
  const size_t threads = static_cast<size_t>(configuredThreads());
  if (threads <= 1) return 1;
  if (splitEverything()) grain = 1;
  return std::max<size_t>(1, std::min(threads, n / std::max<size_t>(grain, 1)));
}

namespace detail {
void runChunks(size_t n, size_t chunks, ChunkFn fn, void* ctx) {
  std::unique_lock<std::mutex> owner(gPoolOwner, std::try_to_lock);
  if (!owner.owns_lock()) {  // another thread's loop holds the pool: run this one here, chunk by chunk
    for (size_t c = 0; c < chunks; ++c) fn(ctx, c, n * c / chunks, n * (c + 1) / chunks);
    return;
  }
  if (!gPool) gPool = new Pool(configuredThreads());
  gPool->run(n, chunks, fn, ctx);
}
}  // namespace detail

SerialScope::SerialScope() : was_(tSerial) { tSerial = true; }
SerialScope::~SerialScope() { tSerial = was_; }

}  // namespace paddle
