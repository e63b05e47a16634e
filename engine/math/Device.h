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

// The storage of Matrix / IVector (Memory blocks): deviceAlloc / deviceFree, except that once
// the block cache is on, a freed host block of 64 KB or more waits for the next request of
// its exact size (recompute frees and remakes the same shapes every step: reuse spares the
// page faults and the heap's fragmentation); the cache keeps at most a third of the peak,
// dropping its oldest blocks first.
void* bufferAlloc(size_t bytes, bool gpu);
void bufferFree(void* p, size_t bytes, bool gpu);
void enableBufferCache();  // process-wide, from the first machine that recomputes
// The engine's own accounting of that storage (host and GPU): bytes held now (in buffers or
// cached) and their high-water mark since the last reset (recompute is measured by it).
size_t bufferBytesLive();
size_t bufferBytesPeak();
void resetBufferBytesPeak();  // the peak restarts from what is alive now

[[noreturn]] void throwNoCuda(const char* what);

// PADDLE_REVERSE_KERNELS=1 runs Kernel.h's CPU loops backwards: a test run that catches
// loop bodies which depend on the order of indices (the GPU runs them in no order).
bool reverseKernelOrder();

// Whether the environment variable `name` is "0" or "off": how an engine switch that is on by
// default (PADDLE_PACKED_GEMM, PADDLE_FOLD_BN, PADDLE_FUSE_BN, PADDLE_FUSE_LSTM_INPUT,
// PADDLE_SKIP_ZEROS) is turned off.
bool switchedOffInEnvironment(const char* name);

// Flush denormal floats to zero on the calling thread (x86 MXCSR FTZ/DAZ).
// Tiny values (Adam's second moments, softmax tails) otherwise turn into
// denormals whose arithmetic is ~100x slower; the engine calls this on every
// thread that computes.
void flushDenormals();

}  // namespace paddle
