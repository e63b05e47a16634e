// Device-generic loops: a kernel body is written once, as a lambda marked PD_HD,
// and runs as a plain loop on the CPU or as a CUDA grid (one thread per index)
// on the GPU. The CPU gradient checks thereby exercise the very code the GPU runs.
//
// Rules for a body (the GPU runs the indices concurrently, in no order):
//  - capture raw pointers and scalars by value: never `this` (copy members into
//    locals first) and never a Matrix (it holds a shared_ptr);
//  - write only what the index owns, or accumulate with atomicAddF;
//  - define it in a public function (an nvcc rule for __host__ __device__ lambdas).
// In CUDA builds every engine source is compiled by nvcc (setup.py), so any
// file may use these loops.
#pragma once
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <vector>

#include "engine/math/Buffer.h"
#include "engine/math/HostDevice.h"
#include "engine/math/ThreadPool.h"

#ifdef __CUDACC__
#include <cuda_runtime.h>
#endif

#if defined(WITH_CUDA) && !defined(__CUDACC__) && !defined(PADDLE_FAKE_GPU)
#error "CUDA builds compile the engine sources with nvcc (see setup.py)"
#endif
#ifdef PADDLE_FAKE_GPU
#include "engine/math/GpuRuntime.h"
#endif

namespace paddle {

#ifdef __CUDACC__
namespace gpu {
void checkLaunch(cudaError_t e);  // GpuRuntime.cu: throws with CUDA's message
}

template <typename F>
__global__ void forEachKernel(size_t n, F f) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) f(i);
}
#endif

// f(i) for i in [0, n) (on the CPU backwards under PADDLE_REVERSE_KERNELS=1, see Device.h).
template <typename F>
void forEach(bool gpu, size_t n, F f) {
  if (n == 0) return;
  if (!gpu) {
    if (reverseKernelOrder()) {
      for (size_t i = n; i-- > 0;) f(i);
      return;
    }
    for (size_t i = 0; i < n; ++i) f(i);
    return;
  }
#ifdef __CUDACC__
  const size_t threads = 256;
  const size_t blocks = std::min<size_t>((n + threads - 1) / threads, 65536);
  forEachKernel<<<static_cast<unsigned>(blocks), static_cast<unsigned>(threads)>>>(n, f);
  gpu::checkLaunch(cudaGetLastError());
#elif defined(PADDLE_FAKE_GPU)
  gpu::DeviceWindow open;  // the test build's stand-in GPU (FakeGpu.cpp)
  for (size_t i = 0; i < n; ++i) f(i);
#else
  throwNoCuda("GPU kernel");
#endif
}

// Values per chunk below which a CPU loop is not worth a second thread (~10 us of work).
constexpr size_t kParallelGrain = 16384;

// forEach for bodies that read and write only the elements of their own index (an
// update rule): the CPU loop is then free of loop-carried dependences, and says so to
// the compiler, which could not prove it through the body's pointers.
// Such bodies also run in parallel: the CPU splits [0, n) across the thread pool.
template <typename F>
void forEachElement(bool gpu, size_t n, F f) {
  if (gpu || reverseKernelOrder()) {
    forEach(gpu, n, f);
    return;
  }
  parallelFor(n, kParallelGrain, [&f](size_t b, size_t e) {
#pragma GCC ivdep
    for (size_t i = b; i < e; ++i) f(i);
  });
}

// f(r, c) over a rows x cols grid; the CPU walks it row by row so that the
// inner loop vectorizes, the GPU flattens it.
template <typename F>
void forEach2(bool gpu, size_t rows, size_t cols, F f) {
  if (!gpu) {
    if (reverseKernelOrder()) {
      for (size_t r = rows; r-- > 0;)
        for (size_t c = cols; c-- > 0;) f(r, c);
      return;
    }
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c) f(r, c);
    return;
  }
  if (cols == 0) return;
  forEach(true, rows * cols, [=] PD_HD(size_t i) { f(i / cols, i % cols); });
}

// forEach / forEach2 for bodies whose index (row) writes memory that no other index (row)
// writes, atomicAddF included, and that raise no flagRow. The CPU splits the indices (rows)
// across the thread pool in fixed chunks of at least `grain` values (each chunk in order);
// the GPU runs them like forEach.
template <typename F>
void forEachParallel(bool gpu, size_t n, F f, size_t grain = kParallelGrain) {
  if (gpu || reverseKernelOrder()) {
    forEach(gpu, n, f);
    return;
  }
  parallelFor(n, grain, [&f](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) f(i);
  });
}
template <typename F>
void forEach2Parallel(bool gpu, size_t rows, size_t cols, F f, size_t grain = kParallelGrain) {
  if (gpu || reverseKernelOrder()) {
    forEach2(gpu, rows, cols, f);
    return;
  }
  parallelFor(rows, grain / std::max<size_t>(cols, 1) + 1, [&f, cols](size_t b, size_t e) {
    for (size_t r = b; r < e; ++r)
      for (size_t c = 0; c < cols; ++c) f(r, c);
  });
}

// *p += v, atomically on the GPU (several indices may add to one place).
PD_HD inline void atomicAddF(float* p, float v) {
#ifdef __CUDA_ARCH__
  atomicAdd(p, v);
#else
  *p += v;
#endif
}

// *p = max(*p, v) for v >= 0, atomically on the GPU (non-negative floats order like
// their bit patterns read as ints).
PD_HD inline void atomicMaxNonNegative(float* p, float v) {
#ifdef __CUDA_ARCH__
  atomicMax(reinterpret_cast<int*>(p), __float_as_int(v));
#else
  if (v > *p) *p = v;
#endif
}

// Host-side metadata (sequence starts, ids) as kernels need it: the host
// pointer on the CPU, else a copy in `scratch` on the GPU.
template <typename T>
const T* kernelView(const DenseBuffer<T>& src, DenseBuffer<T>& scratch, bool gpu) {
  if (src.useGpu() == gpu) return src.data();
  scratch.setDevice(gpu);
  scratch.copyFrom(src);
  return scratch.data();
}

// Data checks inside kernels: a body that finds row r invalid calls flagRow(flag, r).
PD_HD inline void flagRow(int* flag, int r) {
#ifdef __CUDA_ARCH__
  atomicMin(flag, r);
#else
  if (r < *flag) *flag = r;
#endif
}

// The flag such a check writes to, in the layer's memory. Reading it back in a GPU run is a
// 4-byte device-to-host copy that waits for the kernel.
class RowFlag {
 public:
  int* reset(bool gpu) {
    const int none = INT_MAX;
    buf_.setDevice(gpu);
    buf_.copyFromHost(&none, 1, 1);
    return buf_.data();
  }
  // The smallest flagged row, or -1.
  int first() const {
    int r = INT_MAX;
    buf_.copyToHost(&r);
    return r == INT_MAX ? -1 : r;
  }

 private:
  IVector buf_;
};

// Row r of m in host memory (error messages only).
inline std::vector<float> hostRow(const Matrix& m, size_t r) {
  std::vector<float> v(m.width());
  m.rows(r, r + 1).copyToHost(v.data());
  return v;
}

}  // namespace paddle
