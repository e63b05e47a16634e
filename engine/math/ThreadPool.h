// The engine's intra-op parallelism: one persistent pool of CPU threads that
// splits a loop over [0, n) into fixed chunks. Chunk bounds depend only on n, the
// grain and the thread count, never on timing, so a kernel whose chunks write
// disjoint memory (and whose reductions add per-chunk results in chunk order)
// gives the same bits run after run at a fixed thread count.
//
// Workers wait passively (a short spin, then a condition variable). A loop called
// from inside a chunk, or while another thread holds the pool, runs serially on
// its caller: nesting never deadlocks and concurrent callers (trainer replicas,
// Predictor threads) stay correct. While the pool has more than one thread,
// OpenBLAS runs one thread per call and math::gemm splits large products itself,
// so only one set of threads ever competes for the cores.
#pragma once
#include <cstddef>
#include <type_traits>

namespace paddle {

// Threads the CPU loops use (>= 1). The first call reads PADDLE_THREADS, else
// OMP_NUM_THREADS, else OPENBLAS_NUM_THREADS, else the number of cores.
int cpuThreads();
// Resizes the pool (n >= 1); waits for a loop in flight to finish first.
void setCpuThreads(int n);

// The number of chunks parallelFor(n, grain, ...) cuts [0, n) into.
size_t parallelChunks(size_t n, size_t grain);

namespace detail {
using ChunkFn = void (*)(void* ctx, size_t chunk, size_t begin, size_t end);
void runChunks(size_t n, size_t chunks, ChunkFn fn, void* ctx);
}  // namespace detail

// f(chunk, begin, end) for the chunks [n*i/k, n*(i+1)/k), i < k = parallelChunks(n, grain):
// at most one chunk per thread, each at least `grain` long (a single chunk, run on
// the caller, when n < 2 * grain). Chunks run concurrently; the first exception (by
// chunk index) is rethrown after every chunk has finished.
template <typename F>
void parallelChunks(size_t n, size_t grain, F&& f) {
  const size_t k = parallelChunks(n, grain);
  if (k <= 1) {
    if (n) f(size_t(0), size_t(0), n);
    return;
  }
  using Body = typename std::remove_reference<F>::type;
  detail::runChunks(n, k,
                    [](void* ctx, size_t c, size_t b, size_t e) { (*static_cast<Body*>(ctx))(c, b, e); },
                    const_cast<void*>(static_cast<const void*>(&f)));
}

// f(begin, end) over the chunks of parallelChunks.
template <typename F>
void parallelFor(size_t n, size_t grain, F&& f) {
  parallelChunks(n, grain, [&f](size_t, size_t b, size_t e) { f(b, e); });
}

// While alive, loops started on this thread run serially (a replica thread of
// --trainer_count, which is itself one level of parallelism).
class SerialScope {
 public:
  SerialScope();
  ~SerialScope();
  SerialScope(const SerialScope&) = delete;
  SerialScope& operator=(const SerialScope&) = delete;

 private:
  bool was_;
};

}  // namespace paddle
