// The replicas inside one process (--trainer_count=N): where their gradient machines live, how
// they run their shares of a batch, and how their gradients end up on replica 0, whose values
// the updater changes. Two strategies: CPU replicas (the engine's thread pool, one set of values
// read by all) and GPU replicas (trainer/GpuReplicas.cpp: replica r on GPU r with a copy of every
// value, summed and copied by trainer/GpuCollective.h), the latter compiled in CUDA builds only.
// The Trainer splits the batch and keeps the statistics; the MPI ranks' strategies
// (trainer/GradientSync.h) start from replica 0's combined gradients.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/Json.h"
#include "trainer/GradientMachine.h"
#include "trainer/GradientSync.h"

namespace paddle {

using Machines = std::vector<std::shared_ptr<GradientMachine>>;

class Replicas {
 public:
  virtual ~Replicas() = default;
  // Replica `index`'s machine, made where it runs (the calling thread's device is left as before).
  virtual std::shared_ptr<GradientMachine> create(const Json& model, bool useGpu, uint64_t seed, int index) = 0;
  // Once every machine exists (precision set): how the replicas reach replica 0's values.
  virtual void linkValues(const Machines& machines) = 0;
  // Before a multi-replica forward: every replica sees replica 0's current values (updated,
  // loaded, or ModelAverage's while testing).
  virtual void beforeStep(const Machines& machines) = 0;
  // Runs replica(t) for t in [0, k), in parallel, and returns when all are done. replica(t)
  // catches its own errors; one raised by the strategy itself is rethrown here.
  virtual void run(size_t k, const std::function<void(size_t)>& replica) = 0;
  // After backward: replica 0's gradients += those of the other active replicas, in replica order.
  virtual void combineGradients(const Machines& machines, const std::vector<char>& active) = 0;
  // Trainer.setCollectiveOptions: GPU replicas honour bf16Gradients (GPUs 1..N-1 send bfloat16).
  // Elsewhere it is an error in one process (`distributed` false): nothing is sent there.
  virtual void setOptions(const CollectiveOptions& options, bool distributed);
  // The gradient bytes GPUs 1..N-1 sent to GPU 0 and the sums taken since the last call (then
  // reset); CPU replicas share memory and send nothing.
  virtual CollectiveTraffic takeTraffic() { return {}; }
};

// GPU replicas where useGpu and count > 1 (an error in a build without CUDA), CPU ones otherwise.
std::unique_ptr<Replicas> makeReplicas(bool useGpu, int count);

// trainer/GpuReplicas.cpp: in builds WITH_CUDA only (setup.py's GPU_SOURCES).
std::unique_ptr<Replicas> makeGpuReplicas(int devices);

}  // namespace paddle
