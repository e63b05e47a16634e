#include "Device.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "../Errors.h"
#include "GpuRuntime.h"

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
}  // namespace

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
