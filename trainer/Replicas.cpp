// CPU replicas (Replicas.h) and the choice between them and the GPU ones.
#include "trainer/Replicas.h"

#include "engine/Errors.h"
#include "engine/math/Device.h"
#include "engine/math/MathOps.h"
#include "engine/math/ThreadPool.h"

namespace paddle {

namespace {

// dst's gradient += src's: only the touched rows of a sparse_update parameter, so
// the update stays sparse with --trainer_count > 1.
void addGradient(Parameter& src, Parameter& dst) {
  if (!src.sparseUpdate() || src.allRowsTouched()) {
    math::axpby(1.0f, src.grad(), 1.0f, dst.grad());
    return;
  }
  const std::vector<int>& rows = src.touchedRows();
  const Matrix from = src.touchedGrad();
  const GradRows to = dst.gradRows(rows.data(), rows.size());
  for (size_t k = 0; k < rows.size(); ++k) {
    float* y = to.row(rows[k]);
    const float* x = from.row(k);
    for (size_t c = 0; c < src.cols(); ++c) y[c] += x[c];
  }
}

// Threads of the engine's pool, all reading replica 0's values; each computes its own gradients.
// Also the lone machine of a single replica, on the CPU or on the current GPU.
class CpuReplicas : public Replicas {
 public:
  std::shared_ptr<GradientMachine> create(const Json& model, bool useGpu, uint64_t seed, int) override {
    return std::make_shared<GradientMachine>(model, useGpu, seed, false);
  }

  void linkValues(const Machines& machines) override {
    for (size_t r = 1; r < machines.size(); ++r) {
      for (size_t k = 0; k < machines[0]->parameters().size(); ++k) {
        machines[r]->parameters()[k]->shareValueOf(*machines[0]->parameters()[k]);
      }
    }
  }

  void beforeStep(const Machines&) override {}  // the values are shared

  void run(size_t k, const std::function<void(size_t)>& replica) override {
    // The pool's threads stay warm between batches; inside a replica, kernels and GEMMs run serially.
    parallelFor(k, 1, [&](size_t b, size_t e) {
      for (size_t t = b; t < e; ++t) replica(t);
    });
  }

  void combineGradients(const Machines& machines, const std::vector<char>& active) override {
    auto& main = machines[0]->parameters();
    for (size_t r = 1; r < machines.size(); ++r) {
      if (!active[r]) continue;
      for (size_t i = 0; i < main.size(); ++i) {
        if (!main[i]->isStatic()) addGradient(*machines[r]->parameters()[i], *main[i]);
      }
    }
  }
};

}  // namespace

void Replicas::setOptions(const CollectiveOptions& options, bool distributed) {
  PADDLE_ENFORCE(!options.bf16Gradients || distributed, ConfigError,
                 "--allreduce_precision=bf16 rounds the gradients that MPI ranks (under mpiexec) or GPU replicas "
                 "(--use_gpu=1 --trainer_count=N > 1) send to each other; this process trains alone with replicas "
                 "that share memory and sends none: use --allreduce_precision=fp32");
}

std::unique_ptr<Replicas> makeReplicas(bool useGpu, int count) {
  if (useGpu && count > 1) {
#ifdef WITH_CUDA
    return makeGpuReplicas(count);
#else
    throwNoCuda("--use_gpu=1 with --trainer_count > 1");
#endif
  }
  return std::make_unique<CpuReplicas>();
}

}  // namespace paddle
