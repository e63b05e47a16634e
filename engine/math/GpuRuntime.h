// CUDA runtime entry points used by the host code. Defined in GpuRuntime.cu;
// only declared (and only called) in builds WITH_CUDA.
#pragma once
#include <cstddef>

namespace paddle {
namespace gpu {

int deviceCount();
void setDevice(int id);
// Pooled device memory: freed blocks are cached by size and reused, so the
// training loop makes no cudaMalloc/cudaFree calls in steady state.
void* allocate(size_t bytes);
void release(void* p);
void copy(void* dst, bool dstGpu, const void* src, bool srcGpu, size_t bytes);
void zero(void* p, size_t bytes);
void synchronize();

struct MemoryStats {
  size_t mallocs = 0;    // cudaMalloc calls so far (flat in steady-state training)
  size_t heldBytes = 0;  // device memory the pool holds: in use plus cached
  size_t peakBytes = 0;  // the most it ever held
};
MemoryStats memoryStats();

#ifdef PADDLE_FAKE_GPU
// FakeGpu.cpp: device memory is accessible only while a window is open (kernels, copies):
// the calling thread's device's memory, or every device's (copies, the stand-in collective).
struct DeviceWindow {
  explicit DeviceWindow(bool allDevices = false);
  ~DeviceWindow();
};
constexpr int kFakeDevices = 2;  // enough for a --trainer_count=2 multi-GPU trainer
#endif

}  // namespace gpu
}  // namespace paddle
