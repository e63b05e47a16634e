// Data-parallel training across processes (`mpiexec -n N paddle train`): after
// backward, every rank's gradients are summed over MPI_COMM_WORLD, so each rank
// applies the same update to the same parameters. MPI is the transport; this
// pair of files is the only place that sees mpi.h (built with PADDLE_WITH_MPI;
// otherwise joining throws "built without MPI").
#pragma once
#include <cstdint>
#include <vector>

#include "../layers/Parameter.h"

namespace paddle {

// What the exchanges of one rank cost, since the last reset.
struct CollectiveTraffic {
  int64_t steps = 0;           // gradient exchanges
  uint64_t denseBytes = 0;     // gradient bytes this rank put into all-reduces
  uint64_t sparseBytes = 0;    // row ids + rows this rank contributed to all-gathers
  double mpiSeconds = 0;       // time spent inside MPI calls (transfer + waiting for the others)
};

class Collective {
 public:
  // Joins MPI_COMM_WORLD; MPI must already be initialised (mpi4py does it).
  Collective();
  static bool compiled();  // the engine was built with MPI
  int rank() const { return rank_; }
  int size() const { return size_; }

  // Sums n doubles across ranks in place (statistics: cost, evaluator counts).
  void sum(double* data, size_t n);
  // Sums the gradients of every non-static parameter across ranks: dense ones in
  // buckets of about 4 MB in parameter order; sparse_update ones as their touched
  // rows only (unless some rank wrote the whole gradient this step). Every rank
  // ends with the same sums, added in the same order.
  void sumGradients(const std::vector<ParameterPtr>& params);
  const CollectiveTraffic& traffic() const { return traffic_; }
  void resetTraffic() { traffic_ = CollectiveTraffic(); }

 private:
  // A run of dense gradients reduced in one call (the unit a later overlap with
  // backward would launch as soon as its parameters' gradients are final).
  struct Bucket {
    std::vector<size_t> params;  // indices into the parameter list
    size_t floats = 0;
  };
  void plan(const std::vector<ParameterPtr>& params);
  void reduceBucket(const Bucket& b, const std::vector<ParameterPtr>& params);
  void reduceFloats(float* data, size_t n);
  void gatherRows(Parameter& p, const std::vector<int>& counts);

  int rank_ = 0, size_ = 1;
  size_t planned_ = 0;  // size of the parameter list the plan was made for
  std::vector<Bucket> buckets_;
  std::vector<size_t> sparse_;  // sparse_update parameters, in order
  std::vector<float> staging_;
  CollectiveTraffic traffic_;
};

}  // namespace paddle
