// The GPUs of one process (`--use_gpu=1 --trainer_count=N`): replica r of the Trainer runs on
// GPU r with its own copy of every parameter value. After backward the gradients are summed
// onto GPU 0, which alone runs the update; each step starts by copying GPU 0's values to the
// others, so every copy holds the same bits. (MPI ranks each apply the same update to the same
// sum instead; here a reduce, one update and a broadcast move as many bytes as an all-reduce,
// and the optimizer state, ModelAverage and saving stay on GPU 0 as on one GPU.) NCCL moves the
// bytes in builds WITH_NCCL (this pair of files is the only one that sees nccl.h); the test
// build's stand-in GPU (PADDLE_FAKE_GPU) adds host buffers in replica order instead; a CUDA
// build without NCCL refuses N > 1 GPUs with "built without NCCL".
#pragma once
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
  // Buffer i of GPUs 1..N-1 = buffer i of GPU 0 (one ncclBroadcast per buffer, one group).
  void copyFromFirst(const Buffers& buffers);

 private:
  struct Comms;  // the NCCL communicators and streams (WITH_NCCL)
  int devices_;
  std::unique_ptr<Comms> comms_;
};

}  // namespace paddle
