#include "trainer/GpuCollective.h"

#include <numeric>
#include <stdexcept>

#include "engine/Errors.h"
#include "engine/math/Bf16.h"
#include "engine/math/Device.h"
#include "engine/math/Kernel.h"
#ifdef WITH_CUDA
#include "engine/math/GpuRuntime.h"
#endif
#ifdef WITH_NCCL
#include <cuda_runtime.h>
#include <nccl.h>
#endif

namespace paddle {

#ifdef WITH_NCCL
struct GpuCollective::Comms {
  std::vector<ncclComm_t> comms;     // one per GPU, made together (ncclCommInitAll)
  std::vector<cudaStream_t> streams;  // the collectives' stream on each GPU
};

namespace {
void checkCuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(str(what, ": ", cudaGetErrorString(e)));
}
void checkNccl(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(str(what, ": ", ncclGetErrorString(r)));
}

// One collective per buffer and GPU, all in one NCCL group (NCCL then runs them as one launch
// per GPU; a single thread may drive every GPU only inside a group). The replicas' and the
// update's kernels run on other streams: every GPU is idle first, and done after.
template <typename Launch>
void grouped(std::vector<ncclComm_t>& comms, std::vector<cudaStream_t>& streams, const GpuCollective::Buffers& buffers,
             Launch launch) {
  for (size_t d = 0; d < comms.size(); ++d) {
    checkCuda(cudaSetDevice(static_cast<int>(d)), "cudaSetDevice");
    checkCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  checkNccl(ncclGroupStart(), "ncclGroupStart");
  for (size_t i = 0; i < buffers[0].size(); ++i) {
    for (size_t d = 0; d < comms.size(); ++d) launch(buffers[d][i]->data(), buffers[d][i]->size(), comms[d], streams[d]);
  }
  checkNccl(ncclGroupEnd(), "ncclGroupEnd");
  for (cudaStream_t s : streams) checkCuda(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  checkCuda(cudaSetDevice(0), "cudaSetDevice");
}
}  // namespace
#else
struct GpuCollective::Comms {};
#endif

GpuCollective::GpuCollective(int devices) : devices_(devices) {
#if !defined(WITH_NCCL) && !defined(PADDLE_FAKE_GPU)
  throw UnsupportedError(str("--use_gpu=1 --trainer_count=", devices, ": this engine was built without NCCL, which "
                             "sums the gradients across GPUs (pip install nvidia-nccl-cu13, or set NCCL_HOME, and "
                             "rebuild; or train on one GPU with --trainer_count=1)"));
#else
  const int visible = gpuDeviceCount();
  PADDLE_ENFORCE(devices <= visible, UnsupportedError, "--use_gpu=1 --trainer_count=", devices, " puts replica r on GPU r",
                 " and needs ", devices, " GPUs, but ", visible, " are visible (check CUDA_VISIBLE_DEVICES)");
  comms_ = std::make_unique<Comms>();
#ifdef WITH_NCCL
  comms_->comms.resize(devices);
  std::vector<int> ids(devices);
  std::iota(ids.begin(), ids.end(), 0);
  checkNccl(ncclCommInitAll(comms_->comms.data(), devices, ids.data()), "ncclCommInitAll");
  for (int d = 0; d < devices; ++d) {
    cudaStream_t s;
    checkCuda(cudaSetDevice(d), "cudaSetDevice");
    checkCuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    comms_->streams.push_back(s);
  }
  checkCuda(cudaSetDevice(0), "cudaSetDevice");
#endif
#endif
}

GpuCollective::~GpuCollective() {
#ifdef WITH_NCCL
  if (!comms_) return;
  for (size_t d = 0; d < comms_->comms.size(); ++d) {
    cudaSetDevice(static_cast<int>(d));
    ncclCommDestroy(comms_->comms[d]);
    if (d < comms_->streams.size()) cudaStreamDestroy(comms_->streams[d]);
  }
  cudaSetDevice(0);
#endif
}

void GpuCollective::select(int device) const {
#ifdef WITH_CUDA
  gpu::setDevice(device);
#else
  (void)device;
#endif
}

void GpuCollective::wait() const {
#ifdef WITH_CUDA
  gpu::synchronize();
#endif
}

void GpuCollective::sumOntoFirst(const Buffers& buffers) {
#ifdef WITH_NCCL
  grouped(comms_->comms, comms_->streams, buffers, [](float* b, size_t n, ncclComm_t comm, cudaStream_t s) {
    checkNccl(ncclReduce(b, b, n, ncclFloat, ncclSum, 0, comm, s), "ncclReduce");
  });
#elif defined(PADDLE_FAKE_GPU)
  gpu::DeviceWindow open(true);
  for (size_t i = 0; i < buffers[0].size(); ++i) {
    float* sum = buffers[0][i]->data();
    for (int d = 1; d < devices_; ++d) {  // in replica order, as the CPU replicas' gradients add up
      const float* g = buffers[d][i]->data();
      for (size_t k = 0; k < buffers[0][i]->size(); ++k) sum[k] += g[k];
    }
  }
  gpu::setDevice(0);
#else
  (void)buffers;
#endif
}

void packBf16(bool gpu, const float* in, size_t n, uint16_t* out) {
  forEachElement(gpu, n, [=] PD_HD(size_t k) { out[k] = toBf16Bits(in[k]); });
}

void addBf16InOrder(bool gpu, float* sum, size_t n, const uint16_t* halves, size_t stride, int senders) {
  forEachElement(gpu, n, [=] PD_HD(size_t k) {
    float s = sum[k];
    for (int r = 0; r < senders; ++r) s += fromBf16Bits(halves[r * stride + k]);
    sum[k] = s;
  });
}

void GpuCollective::sumOntoFirstBf16(const Buffers& buffers) {
  size_t total = 0;
  for (const Matrix* m : buffers[0]) total += m->size();
  const int senders = devices_ - 1;
  if (total == 0 || senders <= 0) return;
  halves_.resize(devices_);
  for (int d = 0; d < devices_; ++d) {  // allocated once, on the GPU that writes them
    const size_t want = d == 0 ? total * senders : total;
    if (halves_[d].size() == want) continue;
    select(d);
    halves_[d] = DenseBuffer<uint16_t>(1, want, true);
  }
  for (int d = 1; d < devices_; ++d) {
    select(d);
    size_t offset = 0;
    for (const Matrix* m : buffers[d]) {
      packBf16(true, m->data(), m->size(), halves_[d].data() + offset);
      offset += m->size();
    }
  }
#ifdef WITH_NCCL
  for (int d = 0; d < devices_; ++d) {  // the packs (and the replicas' kernels) are done
    checkCuda(cudaSetDevice(d), "cudaSetDevice");
    checkCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  // Point-to-point moves bytes as they are: bfloat16 travels as pairs of bytes.
  checkNccl(ncclGroupStart(), "ncclGroupStart");
  for (int r = 1; r < devices_; ++r) {
    checkNccl(ncclSend(halves_[r].data(), total * sizeof(uint16_t), ncclUint8, 0, comms_->comms[r], comms_->streams[r]),
              "ncclSend");
    checkNccl(ncclRecv(halves_[0].data() + (r - 1) * total, total * sizeof(uint16_t), ncclUint8, r, comms_->comms[0],
                       comms_->streams[0]),
              "ncclRecv");
  }
  checkNccl(ncclGroupEnd(), "ncclGroupEnd");
  for (cudaStream_t s : comms_->streams) checkCuda(cudaStreamSynchronize(s), "cudaStreamSynchronize");
#elif defined(PADDLE_FAKE_GPU)
  for (int r = 1; r < devices_; ++r) {  // what the NCCL pair moves, a device-to-device copy
    deviceCopy(halves_[0].data() + (r - 1) * total, true, halves_[r].data(), true, total * sizeof(uint16_t));
  }
#endif
  select(0);
  size_t offset = 0;
  for (Matrix* m : buffers[0]) {
    addBf16InOrder(true, m->data(), m->size(), halves_[0].data() + offset, total, senders);
    offset += m->size();
  }
  wait();
}

void GpuCollective::copyFromFirst(const Buffers& buffers) {
#ifdef WITH_NCCL
  grouped(comms_->comms, comms_->streams, buffers, [](float* b, size_t n, ncclComm_t comm, cudaStream_t s) {
    checkNccl(ncclBroadcast(b, b, n, ncclFloat, 0, comm, s), "ncclBroadcast");
  });
#elif defined(PADDLE_FAKE_GPU)
  for (int d = 1; d < devices_; ++d) {
    for (size_t i = 0; i < buffers[0].size(); ++i) buffers[d][i]->copyFrom(*buffers[0][i]);
  }
  gpu::setDevice(0);
#else
  (void)buffers;
#endif
}

}  // namespace paddle
