// The GPUs of one process (`--use_gpu=1 --trainer_count=N`): replica r of the Trainer runs on
// GPU r with its own copy of every parameter value. After backward the gradients are summed
// onto GPU 0, which alone runs the update; each step starts by copying GPU 0's values to the
// others, so every copy holds the same bits. (MPI ranks each apply the same update to the same
// sum instead; here a reduce, one update and a broadcast move as many bytes as an all-reduce,
// and the optimizer state, ModelAverage and saving stay on GPU 0 as on one GPU.) NCCL moves the
// bytes in builds WITH_NCCL (this pair of files is the only one that sees nccl.h); the test
// build's stand-in GPU (PADDLE_FAKE_GPU) adds host buffers in replica order instead; a CUDA
// build without NCCL refuses N > 1 GPUs with "built without NCCL".
// With --allreduce_precision=bf16 GPUs 1..N-1 send their gradients as bfloat16 (half the bytes)
// and GPU 0 adds them to its own in fp32; the values broadcast stay fp32.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/math/Buffer.h"

namespace paddle {

class GpuCollective {
 public:
  // Over GPUs 0..devices-1 (checked against the visible ones); one NCCL communicator each.
  explicit GpuCollective(int devices);
  ~GpuCollective();
  int devices() const { return devices_; }

  // Makes `device` the calling thread's GPU (its kernels and allocations go there).
  void select(int device) const;
  // Waits for the calling thread's work on its GPU (a replica before the trainer reads it).
  void wait() const;

  // buffers[d][i]: buffer i on GPU d (the same size on every GPU). Both calls return when done
  // on every GPU, with GPU 0 selected on the calling thread.
  using Buffers = std::vector<std::vector<Matrix*>>;
  // Buffer i of GPU 0 += buffer i of GPUs 1..N-1 (NCCL: one ncclReduce per buffer, one group).
  void sumOntoFirst(const Buffers& buffers);
  // Buffer i of GPU 0 += bf16(buffer i of GPU r) for r = 1..N-1 in that order, each add in
  // fp32 (the same bits every run). GPU r packs all its buffers into one bfloat16 buffer
  // (packBf16) and sends it (NCCL: ncclSend/ncclRecv, one group); GPU 0 adds (addBf16InOrder).
  void sumOntoFirstBf16(const Buffers& buffers);
  // Buffer i of GPUs 1..N-1 = buffer i of GPU 0 (one ncclBroadcast per buffer, one group).
  void copyFromFirst(const Buffers& buffers);

 private:
  struct Comms;  // the NCCL communicators and streams (WITH_NCCL)
  int devices_;
  std::unique_ptr<Comms> comms_;
  // sumOntoFirstBf16's bfloat16 buffers, kept between steps: [r] on GPU r for r >= 1 (what it
  // sends); [0] on GPU 0, senders 1..N-1 one after another (what it receives).
  std::vector<DenseBuffer<uint16_t>> halves_;
};

// The kernels of sumOntoFirstBf16 (engine/math/Kernel.h loops on the current device):
// out[k] = bf16(in[k]) for k < n;
void packBf16(bool gpu, const float* in, size_t n, uint16_t* out);
// sum[k] += halves[s * stride + k] widened, for s = 0..senders-1 in order, in fp32.
void addBf16InOrder(bool gpu, float* sum, size_t n, const uint16_t* halves, size_t stride, int senders);

}  // namespace paddle
