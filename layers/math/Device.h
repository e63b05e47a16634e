// Where a buffer lives and how bytes move between host and GPU. Without CUDA
// every GPU entry point throws UnsupportedError("built without CUDA").
#pragma once
#include <cstddef>

namespace paddle {

bool cudaCompiled();  // true when the engine was built WITH_CUDA
int gpuDeviceCount();  // 0 without CUDA or without a visible GPU

void* deviceAlloc(size_t bytes, bool gpu);
void deviceFree(void* p, bool gpu);
// Copies `bytes` between any two buffers; each side says where it lives.
void deviceCopy(void* dst, bool dstGpu, const void* src, bool srcGpu, size_t bytes);
void deviceZero(void* p, bool gpu, size_t bytes);

// The engine's own accounting of its Matrix / IVector storage (Memory blocks, host and GPU):
// bytes alive now and their high-water mark since the last reset (recompute is measured by it).
void countBufferBytes(size_t bytes, bool allocated);
size_t bufferBytesLive();
size_t bufferBytesPeak();
void resetBufferBytesPeak();  // the peak restarts from what is alive now

[[noreturn]] void throwNoCuda(const char* what);

// PADDLE_REVERSE_KERNELS=1 runs Kernel.h's CPU loops backwards: a test run that catches
// loop bodies which depend on the order of indices (the GPU runs them in no order).
bool reverseKernelOrder();

// Flush denormal floats to zero on the calling thread (x86 MXCSR FTZ/DAZ).
// Tiny values (Adam's second moments, softmax tails) otherwise turn into
// denormals whose arithmetic is ~100x slower; the engine calls this on every
// thread that computes.
void flushDenormals();

}  // namespace paddle
