// A stand-in GPU for test builds (PADDLE_FAKE_GPU=1 python setup.py build_ext): the GPU
// entry points of GpuRuntime.h / GpuOps.h run on the CPU, and "device"
// memory is host memory kept inaccessible (mprotect PROT_NONE) except inside a kernel
// loop, a copy or a device op. PADDLE_TEST_USE_GPU=1 runs of the engine tests on such a
// build therefore crash at the first host-side read or write of device data: the bug a
// CPU-only machine otherwise cannot see. It has kFakeDevices GPUs; their kernels and
// copies take turns (one lock).
#ifdef PADDLE_FAKE_GPU
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/Activation.h"
#include "engine/math/GpuRuntime.h"
#include "engine/math/MathOps.h"

namespace paddle {
namespace gpu {

namespace {
struct Region {
  size_t len;
  int device;
};
std::map<void*, Region>& regions() {
  static auto* r = new std::map<void*, Region>;  // never destroyed: blocks may outlive static teardown
  return *r;
}
// Replica threads of a multi-GPU trainer use the stand-in at once: one window at a time (a
// window's owner may open nested ones), and the region table changes only under this lock.
std::recursive_mutex& lock() {
  static auto* m = new std::recursive_mutex;
  return *m;
}
int openDepth = 0;
thread_local int currentDevice = 0;
MemoryStats stats;

// Opens (or closes) the memory of one device, or of all (-1).
void protect(int device, int prot) {
  for (auto& r : regions()) {
    if (device < 0 || r.second.device == device) mprotect(r.first, r.second.len, prot);
  }
}
}  // namespace

// A kernel or device op opens only its own device's memory, so a replica's kernel that
// reads another GPU's buffer faults here as it would on real GPUs without peer access.
DeviceWindow::DeviceWindow(bool allDevices) {
  lock().lock();
  if (openDepth++ == 0 || allDevices) protect(allDevices ? -1 : currentDevice, PROT_READ | PROT_WRITE);
}
DeviceWindow::~DeviceWindow() {
  if (--openDepth == 0) protect(-1, PROT_NONE);
  lock().unlock();
}

int deviceCount() { return kFakeDevices; }
void setDevice(int id) {
  if (id < 0 || id >= kFakeDevices) throw std::runtime_error("fake GPU: no device " + std::to_string(id));
  currentDevice = id;
}

void* allocate(size_t bytes) {
  std::lock_guard<std::recursive_mutex> held(lock());
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t len = (std::max<size_t>(bytes, 1) + page - 1) / page * page;
  void* p = mmap(nullptr, len, openDepth ? PROT_READ | PROT_WRITE : PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::runtime_error("fake GPU: mmap failed");
  regions()[p] = {len, currentDevice};
  ++stats.mallocs;
  stats.heldBytes += len;
  stats.peakBytes = std::max(stats.peakBytes, stats.heldBytes);
  return p;
}

void release(void* p) {
  std::lock_guard<std::recursive_mutex> held(lock());
  auto it = regions().find(p);
  if (it == regions().end()) return;
  munmap(p, it->second.len);
  stats.heldBytes -= it->second.len;
  regions().erase(it);
}

void copy(void* dst, bool, const void* src, bool, size_t bytes) {
  DeviceWindow open(true);  // (cudaMemcpy copies between GPUs too)
  std::memmove(dst, src, bytes);
}
void zero(void* p, size_t bytes) {
  DeviceWindow open;
  std::memset(p, 0, bytes);
}
void synchronize() {}
MemoryStats memoryStats() {
  std::lock_guard<std::recursive_mutex> held(lock());
  return stats;
}

// The device ops run the CPU code of MathOps / Activation on host views of the memory.
namespace {
Matrix hostView(const float* p, size_t h, size_t w) { return Matrix::view(const_cast<float*>(p), h, w, false); }
}  // namespace

// x rounded to the nearest IEEE half (ties to even; beyond 65504 to inf), as a float.
float roundToFp16(float x) {
  const float a = std::fabs(x);
  if (!std::isfinite(x) || a == 0.0f) return x;
  if (a >= 65520.0f) return std::copysign(INFINITY, x);
  int e = 0;
  std::frexp(a, &e);                                           // a = m 2^e, m in [0.5, 1)
  const float quantum = std::ldexp(1.0f, std::max(e, -13) - 11);  // 11 significant bits; 2^-24 below 2^-14
  return std::copysign(std::nearbyint(a / quantum) * quantum, x);
}

// precision 1 (bf16) runs the CPU's bf16 GEMM (the caller's GemmPrecisionScope is still set);
// 2 (fp16) rounds copies of the operands to half, as cuBLAS GemmEx reads them, and sums in fp32.
void gemm(const float* A, bool transA, const float* B, bool transB, float* C, int M, int N, int K, float alpha,
          float beta, int precision) {
  DeviceWindow open;
  Matrix c = hostView(C, M, N);
  const size_t ha = transA ? K : M, wa = transA ? M : K, hb = transB ? N : K, wb = transB ? K : N;
  if (precision != 2) {
    math::gemm(hostView(A, ha, wa), transA, hostView(B, hb, wb), transB, c, alpha, beta);
    return;
  }
  std::vector<float> a(A, A + ha * wa), b(B, B + hb * wb);
  for (float& v : a) v = roundToFp16(v);
  for (float& v : b) v = roundToFp16(v);
  math::GemmPrecisionScope fp32(math::Precision::kFp32);
  math::gemm(hostView(a.data(), ha, wa), transA, hostView(b.data(), hb, wb), transB, c, alpha, beta);
}
void addRowVector(float* m, const float* row, int h, int w, float scale, float beta) {
  DeviceWindow open;
  Matrix v = hostView(m, h, w);
  math::addRowVector(v, hostView(row, 1, w), scale, beta);
}
void sumRows(const float* m, float* out, int h, int w, float beta) {
  DeviceWindow open;
  Matrix o = hostView(out, 1, w);
  math::sumRows(hostView(m, h, w), o, beta);
}
void axpby(float alpha, const float* x, float beta, float* y, size_t n) {
  DeviceWindow open;
  Matrix v = hostView(y, 1, n);
  math::axpby(alpha, hostView(x, 1, n), beta, v);
}
void dotMul(float* y, const float* x, size_t n) {
  DeviceWindow open;
  Matrix v = hostView(y, 1, n);
  math::dotMul(v, hostView(x, 1, n));
}

void activationForward(int kind, float* v, size_t n) {
  DeviceWindow open;
  activate(static_cast<act::Kind>(kind), v, n);
}
void activationBackward(int kind, const float* y, const float* x, float* g, size_t n) {
  DeviceWindow open;
  multiplyDerivative(static_cast<act::Kind>(kind), y, x, g, n);
}
void softmaxForward(float* v, int h, int w) {
  DeviceWindow open;
  softmaxRows(v, h, w);
}
void softmaxBackward(const float* y, float* g, int h, int w) {
  DeviceWindow open;
  softmaxRowsBackward(y, g, h, w);
}

}  // namespace gpu
}  // namespace paddle
#endif  // PADDLE_FAKE_GPU
