#include "trainer/GradientSync.h"

#include "engine/Errors.h"

namespace paddle {

namespace {
SyncFactory& distributedFactory() {
  static SyncFactory* f = new SyncFactory;  // (never destroyed: registered during static init)
  return *f;
}
}  // namespace

bool registerDistributedSync(SyncFactory factory) {
  distributedFactory() = std::move(factory);
  return true;
}

bool distributedCompiled() { return static_cast<bool>(distributedFactory()); }

std::unique_ptr<GradientSync> makeGradientSync(const SyncSetup& setup) {
  if (!setup.distributed) return std::make_unique<GradientSync>();
  PADDLE_ENFORCE(distributedCompiled(), UnsupportedError,
                 "this engine was built without MPI: install it (pip install mpich mpi4py) and rebuild to train on "
                 "several processes");
  return distributedFactory()(setup);
}

}  // namespace paddle
