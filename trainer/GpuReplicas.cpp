// GPU replicas (Replicas.h; CUDA builds, the stand-in GPU included): replica r on GPU r with its
// own copy of every value. Each step starts by copying GPU 0's values to the others; after
// backward the gradients are summed onto GPU 0, which alone runs the update (trainer/GpuCollective.h).
#include <exception>
#include <thread>

#include "engine/math/ThreadPool.h"
#include "trainer/GpuCollective.h"
#include "trainer/Replicas.h"

namespace paddle {

namespace {

class GpuReplicas : public Replicas {
 public:
  explicit GpuReplicas(int devices) : gpus_(devices) {}

  std::shared_ptr<GradientMachine> create(const Json& model, bool useGpu, uint64_t seed, int index) override {
    gpus_.select(index);  // replica i's memory lives on GPU i
    auto machine = std::make_shared<GradientMachine>(model, useGpu, seed, false);
    gpus_.select(0);
    return machine;
  }

  void linkValues(const Machines&) override {}  // a GPU cannot read another's memory: copies

  void beforeStep(const Machines& machines) override { gpus_.copyFromFirst(buffers(machines, false)); }

  void run(size_t k, const std::function<void(size_t)>& replica) override {
    std::vector<std::exception_ptr> errors(k);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < k; ++t) {  // a thread per GPU, each feeding its own device
      threads.emplace_back([&, t] {
        SerialScope oneLevel;  // the replicas are the parallelism: their kernels run serially
        try {
          gpus_.select(static_cast<int>(t));
          replica(t);
          gpus_.wait();  // done before this thread's stream is left behind
        } catch (...) {
          errors[t] = std::current_exception();
        }
      });
    }
    for (auto& th : threads) th.join();
    for (auto& e : errors) {
      if (e) std::rethrow_exception(e);
    }
  }

  void combineGradients(const Machines& machines, const std::vector<char>& active) override {
    // Every GPU takes part in the collective: an idle replica adds zeros.
    for (size_t r = 1; r < machines.size(); ++r) {
      if (active[r]) continue;
      gpus_.select(static_cast<int>(r));
      for (auto& p : machines[r]->parameters()) {
        if (!p->isStatic()) p->grad().zero();
      }
    }
    gpus_.select(0);
    // GPU 0 alone updates (one optimizer state); the next step copies its values to the others.
    const GpuCollective::Buffers grads = buffers(machines, true);
    if (bf16_) gpus_.sumOntoFirstBf16(grads);
    else gpus_.sumOntoFirst(grads);
    size_t floats = 0;
    for (const Matrix* g : grads[0]) floats += g->size();
    traffic_.steps += 1;
    traffic_.denseBytes += (machines.size() - 1) * floats * (bf16_ ? sizeof(uint16_t) : sizeof(float));
  }

  void setOptions(const CollectiveOptions& options, bool) override { bf16_ = options.bf16Gradients; }

  CollectiveTraffic takeTraffic() override {
    const CollectiveTraffic t = traffic_;
    traffic_ = CollectiveTraffic();
    return t;
  }

 private:
  // Per replica, the value or the gradient of every parameter (gradients: of the non-static ones).
  static GpuCollective::Buffers buffers(const Machines& machines, bool gradients) {
    GpuCollective::Buffers out(machines.size());
    for (size_t r = 0; r < machines.size(); ++r) {
      for (auto& p : machines[r]->parameters()) {
        if (!gradients) out[r].push_back(&p->value());
        else if (!p->isStatic()) out[r].push_back(&p->grad());
      }
    }
    return out;
  }

  GpuCollective gpus_;
  bool bf16_ = false;  // --allreduce_precision=bf16
  CollectiveTraffic traffic_;
};

}  // namespace

std::unique_ptr<Replicas> makeGpuReplicas(int devices) { return std::make_unique<GpuReplicas>(devices); }

}  // namespace paddle
