// Device-aware dense storage: Matrix (float, 2-D) and IVector (int, 1-D).
// Copying a Matrix or IVector aliases the same memory (like v1's MatrixPtr);
// resize() reuses capacity so steady-state training allocates nothing.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "engine/Errors.h"
#include "engine/math/Device.h"

namespace paddle {

class Memory {
 public:
  Memory(size_t bytes, bool gpu) : bytes_(bytes), gpu_(gpu), ptr_(bufferAlloc(bytes, gpu)) {}
  ~Memory() { bufferFree(ptr_, bytes_, gpu_); }
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
  void* ptr() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  size_t bytes_;
  bool gpu_;
  void* ptr_;
};

template <typename T>
class DenseBuffer {
 public:
  DenseBuffer() = default;
  DenseBuffer(size_t h, size_t w, bool gpu) : gpu_(gpu) { resize(h, w); }

  // A non-owning view over memory someone else keeps alive.
  static DenseBuffer view(T* data, size_t h, size_t w, bool gpu) {
    DenseBuffer b;
    b.data_ = data;
    b.h_ = h;
    b.w_ = w;
    b.cap_ = h * w;
    b.gpu_ = gpu;
    return b;
  }

  // Keeps the memory when it is big enough; otherwise allocates new memory
  // (contents are not kept).
  void resize(size_t h, size_t w) {
    // A size from a config or a batch can be anything: refuse a product that wraps around.
    PADDLE_ENFORCE(w == 0 || h <= SIZE_MAX / sizeof(T) / w, ConfigError, "a buffer of ", h, " x ", w,
                   " elements is larger than memory can address");
    if (h * w > cap_) {
      mem_ = std::make_shared<Memory>(std::max<size_t>(h * w, 1) * sizeof(T), gpu_);
      data_ = static_cast<T*>(mem_->ptr());
      cap_ = h * w;
    }
    h_ = h;
    w_ = w;
  }
  // Moves the buffer to the other device (contents are not kept).
  void setDevice(bool gpu) {
    if (gpu == gpu_) return;
    gpu_ = gpu;
    mem_.reset();
    data_ = nullptr;
    cap_ = 0;
    resize(h_, w_);
  }
  void zero() { if (size()) deviceZero(data_, gpu_, size() * sizeof(T)); }
  void copyFrom(const DenseBuffer& src) {
    resize(src.h_, src.w_);
    if (size()) deviceCopy(data_, gpu_, src.data_, src.gpu_, size() * sizeof(T));
  }
  void copyFromHost(const T* src, size_t h, size_t w) {
    resize(h, w);
    if (size()) deviceCopy(data_, gpu_, src, false, size() * sizeof(T));
  }
  void copyToHost(T* dst) const {
    if (size()) deviceCopy(dst, false, data_, gpu_, size() * sizeof(T));
  }
  // A view of rows [begin, end).
  DenseBuffer rows(size_t begin, size_t end) const {
    DenseBuffer b = *this;
    b.data_ = data_ + begin * w_;
    b.h_ = end - begin;
    b.cap_ = b.h_ * w_;
    return b;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  T* row(size_t i) { return data_ + i * w_; }
  const T* row(size_t i) const { return data_ + i * w_; }
  size_t height() const { return h_; }
  size_t width() const { return w_; }
  size_t size() const { return h_ * w_; }
  bool useGpu() const { return gpu_; }
  bool empty() const { return size() == 0; }

 private:
  std::shared_ptr<Memory> mem_;
  T* data_ = nullptr;
  size_t h_ = 0, w_ = 0, cap_ = 0;
  bool gpu_ = false;
};

using Matrix = DenseBuffer<float>;
using IVector = DenseBuffer<int>;  // stored as 1 x n

inline std::string shapeStr(const Matrix& m) {
  return std::to_string(m.height()) + "x" + std::to_string(m.width());
}

}  // namespace paddle
