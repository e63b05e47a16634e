#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "engine/math/GpuRuntime.h"

namespace paddle {
namespace gpu {

namespace {
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Size-bucketed cache of device blocks (sizes rounded up to 256 bytes, or to
// 1 MiB above 1 MiB, so that batches of slightly different shapes reuse blocks).
class Pool {
 public:
  void* get(size_t bytes) {
    bytes = roundUp(bytes);
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    std::lock_guard<std::mutex> lock(mu_);
    std::multimap<size_t, void*>& cached = free_[device];
    auto it = cached.find(bytes);
    if (it != cached.end()) {
      void* p = it->second;
      cached.erase(it);
      used_[p] = {device, bytes};
      return p;
    }
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) {  // release this device's cache and retry once
      cudaGetLastError();
      for (auto& kv : cached) {
        cudaFree(kv.second);
        stats_.heldBytes -= kv.first;
      }
      cached.clear();
      check(cudaMalloc(&p, bytes), "cudaMalloc");
    }
    ++stats_.mallocs;
    stats_.heldBytes += bytes;
    stats_.peakBytes = std::max(stats_.peakBytes, stats_.heldBytes);
    used_[p] = {device, bytes};
    return p;
  }
  MemoryStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }
  void put(void* p) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = used_.find(p);
    if (it == used_.end()) return;
    free_[it->second.first].emplace(it->second.second, p);  // back to its own device's cache
    used_.erase(it);
  }

 private:
  static size_t roundUp(size_t b) {
    size_t unit = b > (1u << 20) ? (1u << 20) : 256;
    return (b + unit - 1) / unit * unit;
  }
  std::mutex mu_;
  // by device (--trainer_count GPUs each allocate on their own): a block is reused only there
  std::map<int, std::multimap<size_t, void*>> free_;
  std::unordered_map<void*, std::pair<int, size_t>> used_;  // device, bytes
  MemoryStats stats_;
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: blocks may outlive static teardown
  return *p;
}
}  // namespace

int deviceCount() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error
    return 0;
  }
  return n;
}

void setDevice(int id) { check(cudaSetDevice(id), "cudaSetDevice"); }

void* allocate(size_t bytes) { return pool().get(bytes); }
void release(void* p) { pool().put(p); }

void copy(void* dst, bool dstGpu, const void* src, bool srcGpu, size_t bytes) {
  cudaMemcpyKind kind = dstGpu ? (srcGpu ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                               : cudaMemcpyDeviceToHost;
  check(cudaMemcpy(dst, src, bytes, kind), "cudaMemcpy");
}

void zero(void* p, size_t bytes) { check(cudaMemset(p, 0, bytes), "cudaMemset"); }

MemoryStats memoryStats() { return pool().stats(); }

void checkLaunch(cudaError_t e) { check(e, "kernel launch"); }

void synchronize() { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

}  // namespace gpu
}  // namespace paddle
