#include "engine/math/Device.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <list>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#if defined(__linux__)
#include <malloc.h>
#endif
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "engine/Errors.h"
#include "engine/math/GpuRuntime.h"

namespace paddle {

void throwNoCuda(const char* what) {
  throw UnsupportedError(str(what, ": this engine was built without CUDA "
                             "(rebuild with nvcc and cuBLAS available, WITH_CUDA=1)"));
}

#ifdef WITH_CUDA
bool cudaCompiled() { return true; }
int gpuDeviceCount() { return gpu::deviceCount(); }
#else
bool cudaCompiled() { return false; }
int gpuDeviceCount() { return 0; }
#endif

bool reverseKernelOrder() {
  static const bool reverse = [] {
    const char* v = std::getenv("PADDLE_REVERSE_KERNELS");
    return v && std::string(v) == "1";
  }();
  return reverse;
}

bool switchedOffInEnvironment(const char* name) {
  const char* v = std::getenv(name);
  return v && (std::string(v) == "0" || std::string(v) == "off");
}

void flushDenormals() {
#if defined(__SSE__) || defined(__x86_64__)
  _mm_setcsr(_mm_getcsr() | 0x8040);  // FTZ (bit 15) | DAZ (bit 6)
#endif
}

void* deviceAlloc(size_t bytes, bool gpu) {
  if (gpu) {
#ifdef WITH_CUDA
    return gpu::allocate(bytes);
#else
    throwNoCuda("GPU memory");
#endif
  }
  // 64-byte alignment keeps AVX-512 loads aligned for every row start of width % 16 == 0.
  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p) throw std::bad_alloc();
  return p;
}

namespace {
std::atomic<size_t> gBufferLive{0}, gBufferPeak{0};
std::atomic<bool> gCacheOn{false};
// host blocks by their size; never destroyed (a static Matrix may be freed after it otherwise)
struct BlockCache {
  using Entry = std::pair<size_t, void*>;  // bytes, block
  std::mutex mutex;
  std::list<Entry> order;  // oldest first: the first to go when the cache is full
  std::unordered_multimap<size_t, std::list<Entry>::iterator> bySize;
  size_t bytes = 0;
};
BlockCache& blockCache() {
  static BlockCache* cache = new BlockCache;
  return *cache;
}
constexpr size_t kCachedBlockMin = size_t(64) << 10;

void countBufferBytes(size_t bytes, bool allocated) {
  if (!allocated) {
    gBufferLive -= bytes;
    return;
  }
  const size_t live = gBufferLive += bytes;
  size_t peak = gBufferPeak.load();
  while (live > peak && !gBufferPeak.compare_exchange_weak(peak, live)) {
  }
}
}  // namespace

void enableBufferCache() {
  if (gCacheOn.exchange(true)) return;
  // Blocks of 1 MB or more straight from the system and back to it: glibc would otherwise
  // raise its mmap threshold at the first freed block and keep the later ones in its heap,
  // resident (the cache spares the page faults of the sizes that come back)
#ifdef M_MMAP_THRESHOLD
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

void* bufferAlloc(size_t bytes, bool gpu) {
  if (!gpu && gCacheOn && bytes >= kCachedBlockMin) {
    BlockCache& c = blockCache();
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.bySize.find(bytes);
    if (it != c.bySize.end()) {
      void* p = it->second->second;
      c.order.erase(it->second);
      c.bySize.erase(it);
      c.bytes -= bytes;
      return p;  // still counted as held
    }
  }
  void* p = deviceAlloc(bytes, gpu);
  countBufferBytes(bytes, true);
  return p;
}

void bufferFree(void* p, size_t bytes, bool gpu) {
  if (!p) return;
  if (!gpu && gCacheOn && bytes >= kCachedBlockMin) {
    BlockCache& c = blockCache();
    std::lock_guard<std::mutex> lock(c.mutex);
    c.order.emplace_back(bytes, p);
    c.bySize.emplace(bytes, std::prev(c.order.end()));
    c.bytes += bytes;
    // the blocks freed last are the likeliest to be asked for next: the oldest go
    while (c.bytes > gBufferPeak.load() / 3) {
      const BlockCache::Entry oldest = c.order.front();
      auto range = c.bySize.equal_range(oldest.first);
      for (auto it = range.first; it != range.second; ++it) {
        if (it->second == c.order.begin()) {
          c.bySize.erase(it);
          break;
        }
      }
      c.order.pop_front();
      c.bytes -= oldest.first;
      deviceFree(oldest.second, false);
      countBufferBytes(oldest.first, false);
    }
    return;
  }
  deviceFree(p, gpu);
  countBufferBytes(bytes, false);
}
size_t bufferBytesLive() { return gBufferLive.load(); }
size_t bufferBytesPeak() { return gBufferPeak.load(); }
void resetBufferBytesPeak() { gBufferPeak = gBufferLive.load(); }

void deviceFree(void* p, bool gpu) {
  if (!p) return;
#ifdef WITH_CUDA
  if (gpu) { gpu::release(p); return; }
#endif
  if (!gpu) std::free(p);
}

void deviceCopy(void* dst, bool dstGpu, const void* src, bool srcGpu, size_t bytes) {
  if (!dstGpu && !srcGpu) {
    std::memmove(dst, src, bytes);
    return;
  }
#ifdef WITH_CUDA
  gpu::copy(dst, dstGpu, src, srcGpu, bytes);
#else
  throwNoCuda("GPU copy");
#endif
}

void deviceZero(void* p, bool gpu, size_t bytes) {
  if (!gpu) {
    std::memset(p, 0, bytes);
    return;
  }
#ifdef WITH_CUDA
  gpu::zero(p, bytes);
#else
  throwNoCuda("GPU memset");
#endif
}

}  // namespace paddle
