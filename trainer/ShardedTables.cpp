// Sharded tables (paddle train --local=0 under mpiexec): v1 kept a sparse_remote_update table
// on its parameter servers, split in blocks, and trainers prefetched the rows of each batch.
// Here the ranks themselves hold the blocks: rank r of N owns rows [R r/N, R (r+1)/N) of an
// R-row table, with their optimizer state, and
//   * before each forward every rank asks the owners for the rows its share of the batch
//     reads (ids, then rows: two MPI_Alltoallv), after the owners caught up their lazy decay,
//     into the table's compact block of fetched rows (its RowPartition, engine/RowPartition.h);
//   * after backward the touched rows' gradients go to their owners (MPI_Alltoallv), which
//     add them in rank order and run the optimizer on their rows alone;
//   * saving streams every rank's rows into rank 0's v1-format file, chunk by chunk, and
//     loading reads only the owned rows of such a file, so any number of ranks can resume it.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <ostream>

#include "engine/Errors.h"
#include "trainer/GradientMachine.h"
#include "trainer/MpiSync.h"
#include "trainer/Optimizers.h"

namespace paddle {

namespace {
size_t firstRow(size_t rows, int rank, int ranks) { return rows * rank / ranks; }

int checkedCount(size_t n, const Parameter& p) {
  PADDLE_ENFORCE(n <= size_t(INT_MAX), UnsupportedError, "sharded table '", p.name(), "': ", n,
                 " values are too many for one exchange");
  return static_cast<int>(n);
}

// Counts per rank to MPI's (counts, offsets) for `width` values per item.
void layout(const std::vector<int>& items, size_t width, const Parameter& p, std::vector<int>& counts,
            std::vector<int>& offsets) {
  counts.resize(items.size());
  offsets.resize(items.size());
  size_t total = 0;
  for (size_t r = 0; r < items.size(); ++r) {
    counts[r] = checkedCount(items[r] * width, p);
    offsets[r] = checkedCount(total, p);
    total += items[r] * width;
  }
  checkedCount(total, p);
}

// Sends, to each rank, the ids in `byRank` (sorted by owner, `counts` per rank); returns the
// ids every rank sent here, in rank order, and their counts.
std::vector<int> exchangeIds(const std::vector<int>& ids, const std::vector<int>& counts, std::vector<int>& recvCounts,
                             const Parameter& p) {
  const int ranks = static_cast<int>(counts.size());
  recvCounts.assign(ranks, 0);
  MPI_Alltoall(counts.data(), 1, MPI_INT, recvCounts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<int> sc, so, rc, ro;
  layout(counts, 1, p, sc, so);
  layout(recvCounts, 1, p, rc, ro);
  std::vector<int> got(ro.back() + rc.back());
  MPI_Alltoallv(ids.data(), sc.data(), so.data(), MPI_INT, got.data(), rc.data(), ro.data(), MPI_INT, MPI_COMM_WORLD);
  return got;
}

// Rows of `cols` floats: `send` goes by sendCounts, the answer comes back into `got` by recvCounts.
void exchangeRows(const float* send, const std::vector<int>& sendCounts, const std::vector<int>& recvCounts,
                  size_t cols, const Parameter& p, float* got) {
  std::vector<int> sc, so, rc, ro;
  layout(sendCounts, cols, p, sc, so);
  layout(recvCounts, cols, p, rc, ro);
  MPI_Alltoallv(send, sc.data(), so.data(), MPI_FLOAT, got, rc.data(), ro.data(), MPI_FLOAT, MPI_COMM_WORLD);
}
}  // namespace

// One sharded table: its rows on this rank, the rows fetched for this batch (which the table's
// lookups read, engine/RowPartition.h), and the buffers its exchanges reuse step after step.
struct ShardedTables::Shard : RowPartition {
  Parameter* param = nullptr;
  int rank = 0, ranks = 1;
  size_t ownedBegin = 0, ownedEnd = 0;
  std::vector<size_t> dataLayers;  // the inputs (data layer indices) whose ids it looks up
  std::vector<int> fetchedIds;
  std::vector<int> slot;  // row -> position in fetched, -1 not fetched
  std::vector<float> fetched;
  std::vector<float> rows, sums;  // rows sent and gradient rows received

  size_t begin() const override { return ownedBegin; }
  size_t end() const override { return ownedEnd; }
  const float* fetchedValues() const override { return fetched.data(); }
  const int* fetchedSlots() const override { return slot.data(); }
  bool writesFiles() const override { return rank == 0; }
  void writeRows(const Parameter& p, const Matrix& m, std::ostream* out) override;

  int ownerOf(int row) const {
    const size_t total = param->rows();
    int q = static_cast<int>(static_cast<size_t>(row) * ranks / total);
    while (q + 1 < ranks && firstRow(total, q + 1, ranks) <= static_cast<size_t>(row)) ++q;
    while (q > 0 && firstRow(total, q, ranks) > static_cast<size_t>(row)) --q;
    return q;
  }
  // Replaces the fetched rows with the n distinct rows `ids` (not owned here) and returns
  // where their values go, row k at k * cols. They hold their owner's caught-up values, so
  // they have no lazy decay to catch up here.
  float* fetchRows(const int* ids, size_t n) {
    for (int r : fetchedIds) slot[r] = -1;
    fetchedIds.assign(ids, ids + n);
    for (size_t k = 0; k < n; ++k) slot[ids[k]] = static_cast<int>(k);
    param->markRowsCurrent(ids, n);
    fetched.resize(n * param->cols());  // (keeps its capacity: no fresh pages batch after batch)
    return fetched.data();
  }
};

ShardedTables::ShardedTables(Collective& world, const SyncSetup& setup) : world_(world) {
  if (!setup.shardTables) return;
  GradientMachine& gm = *(*setup.machines)[0];
  const auto& data = gm.dataLayers();
  for (const ParameterPtr& pp : gm.parameters()) {
    Parameter& p = *pp;
    if (p.isStatic() || !p.sparseUpdate() || !p.config().getBool("sparse_remote_update")) continue;
    auto shard = std::make_shared<Shard>();
    shard->param = &p;
    shard->rank = world_.rank();
    shard->ranks = world_.size();
    for (const Json& lc : gm.config()["layers"].items()) {
      PADDLE_ENFORCE(lc.getString("bias_parameter_name") != p.name(), ConfigError, "layer '", lc.getString("name"),
                     "' uses the sharded table '", p.name(), "' (--local=0) as its bias: only lookups can");
      for (const Json& in : lc["inputs"].items()) {
        if (in.getString("input_parameter_name") != p.name()) continue;
        const std::string source = in.getString("input_layer_name");
        size_t k = 0;
        while (k < data.size() && data[k]->name() != source) ++k;
        PADDLE_ENFORCE(k < data.size(), ConfigError, "layer '", lc.getString("name"), "' looks up the sharded table '",
                       p.name(), "' (--local=0) with the output of '", source,
                       "', which is not a data layer: a sharded table's ids must come from the data, so that its "
                       "rows can be fetched before forward");
        shard->dataLayers.push_back(k);
      }
    }
    shard->ownedBegin = firstRow(p.rows(), world_.rank(), world_.size());
    shard->ownedEnd = firstRow(p.rows(), world_.rank() + 1, world_.size());
    shard->slot.assign(p.rows(), -1);
    p.partitionRows(shard);
    shards_.push_back(shard);
  }
  PADDLE_ENFORCE(shards_.empty() || (!setup.updater->averaging() &&
                                     setup.optConfig->getDouble("gradient_clipping_norm") <= 0),
                 ConfigError, "ModelAverage (average_window) and gradient_clipping_norm need every row of a table "
                 "on every rank: not with sharded tables (--local=0)");
}

std::vector<ShardedRows> ShardedTables::shardedRows() const {
  std::vector<ShardedRows> out;
  for (const auto& s : shards_) {
    out.push_back({s->param->name(), s->param->rows(), s->param->residentRows(), s->fetchedIds.size()});
  }
  return out;
}

void ShardedTables::beforeForward(const std::vector<Argument>& inArgs) {
  const int ranks = world_.size();
  CollectiveTraffic& traffic = world_.traffic();
  for (auto& sp : shards_) {
    Shard& shard = *sp;
    Parameter& p = *shard.param;
    std::vector<int> need;
    for (size_t k : shard.dataLayers) {
      if (k >= inArgs.size()) continue;  // (a rank without data this step)
      const Argument& a = inArgs[k];
      // a dense input would read every row of the table, most of which live on other ranks
      PADDLE_ENFORCE(!a.sparse.empty() || !a.ids.empty() || a.value.height() == 0, ConfigError, "the sharded table '",
                     p.name(), "' (--local=0) is read by a dense input: only integer ids or a sparse slot can look "
                     "up a sharded table");
      const int* ids = a.sparse.empty() ? a.ids.data() : a.sparse.activeCols();
      const size_t n = a.sparse.empty() ? a.ids.size() : a.sparse.nnz();
      for (size_t i = 0; i < n; ++i) {
        if (ids[i] == -1) continue;  // v1's ignored id
        PADDLE_ENFORCE(ids[i] >= 0 && static_cast<size_t>(ids[i]) < p.rows(), DataError, "parameter '", p.name(),
                       "': row ", ids[i], " outside [0, ", p.rows(), ")");
        if (static_cast<size_t>(ids[i]) < shard.ownedBegin || static_cast<size_t>(ids[i]) >= shard.ownedEnd) {
          need.push_back(ids[i]);
        }
      }
    }
    std::sort(need.begin(), need.end());
    need.erase(std::unique(need.begin(), need.end()), need.end());
    std::vector<int> counts(ranks, 0), recvCounts;
    for (int id : need) ++counts[shard.ownerOf(id)];  // (sorted ids: grouped by owner already)
    const size_t cols = p.cols();
    std::vector<int> asked;
    {
      MpiTimer t(traffic.mpiSeconds, "the exchange of sharded table rows");
      asked = exchangeIds(need, counts, recvCounts, p);
    }
    p.catchUpRows(asked.data(), asked.size());  // the owner's pending lazy decay first
    shard.rows.resize(asked.size() * cols);
    for (size_t i = 0; i < asked.size(); ++i) {
      std::copy(p.value().row(asked[i]), p.value().row(asked[i]) + cols, shard.rows.data() + i * cols);
    }
    float* fetched = shard.fetchRows(need.data(), need.size());  // (last batch's rows: stale by now)
    {
      MpiTimer t(traffic.mpiSeconds, "the exchange of sharded table rows");
      exchangeRows(shard.rows.data(), recvCounts, counts, cols, p, fetched);
    }
    traffic.sparseBytes += need.size() * sizeof(int) + shard.rows.size() * sizeof(float);
  }
}

void ShardedTables::exchangeGradients(const std::vector<ParameterPtr>&) {
  const int ranks = world_.size();
  CollectiveTraffic& traffic = world_.traffic();
  for (auto& sp : shards_) {
    Shard& shard = *sp;
    Parameter& p = *shard.param;
    const std::vector<int>& touched = p.touchedRows();
    std::vector<size_t> order(touched.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return touched[a] < touched[b]; });
    const size_t cols = p.cols();
    std::vector<int> ids(order.size()), counts(ranks, 0), recvCounts;
    shard.rows.resize(order.size() * cols);
    const Matrix g = p.touchedGrad();
    for (size_t i = 0; i < order.size(); ++i) {
      ids[i] = touched[order[i]];
      ++counts[shard.ownerOf(ids[i])];
      std::copy(g.row(order[i]), g.row(order[i]) + cols, shard.rows.data() + i * cols);
    }
    traffic.sparseBytes += ids.size() * sizeof(int) + shard.rows.size() * sizeof(float);
    std::vector<int> got;
    {
      MpiTimer t(traffic.mpiSeconds, "the exchange of sharded table rows");
      got = exchangeIds(ids, counts, recvCounts, p);
      shard.sums.resize(got.size() * cols);
      exchangeRows(shard.rows.data(), counts, recvCounts, cols, p, shard.sums.data());
    }
    // The owner adds every rank's rows in rank order; only its own rows stay touched.
    p.zeroGrad();
    const GradRows sum = p.gradRows(got.data(), got.size());
    p.catchUpRows(got.data(), got.size());
    for (size_t i = 0; i < got.size(); ++i) {
      float* dst = sum.row(got[i]);
      const float* src = shard.sums.data() + i * cols;
      for (size_t c = 0; c < cols; ++c) dst[c] += src[c];
    }
  }
}

void ShardedTables::stepEnd(ParameterUpdater& updater, const std::vector<ParameterPtr>&) {
  if (shards_.empty() || !updater.recordsGradStats()) return;
  std::vector<ParameterUpdater::AbsStats*> parts;
  for (auto& s : shards_) {
    Parameter& p = *s->param;
    ParameterUpdater::GradStats& st = updater.gradStats()[p.name()];
    st.value = ParameterUpdater::AbsStats();
    st.value.add(p.value().row(s->ownedBegin), (s->ownedEnd - s->ownedBegin) * p.cols());
    parts.push_back(&st.value);
    parts.push_back(&st.grad);  // (the owner's rows: the gradients every rank sent it)
  }
  std::vector<double> sums, maxes;
  for (const ParameterUpdater::AbsStats* a : parts) {
    sums.push_back(a->sum);
    sums.push_back(a->count);
    maxes.push_back(a->max);
  }
  {
    MpiTimer t(world_.traffic().mpiSeconds, "the exchange of sharded table rows");
    MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, maxes.data(), static_cast<int>(maxes.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  for (size_t k = 0; k < parts.size(); ++k) {
    parts[k]->sum = sums[2 * k];
    parts[k]->count = sums[2 * k + 1];
    parts[k]->max = maxes[k];
  }
}

int ShardedTables::announce(SaveStep step) {
  const int what = static_cast<int>(step);
  int word = what;
  {
    MpiTimer t(world_.traffic().mpiSeconds, "the announcement of a sharded save");
    MPI_Bcast(&word, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  PADDLE_ENFORCE(world_.rank() == 0 || step == SaveStep::kListen || word == what, UnsupportedError, "rank ",
                 world_.rank(), " saves sharded tables (step ", what, ") out of step with rank 0 (step ", word, ")");
  return word;
}

void ShardedTables::beforeSave(SaveStep step) {
  if (!shards_.empty()) announce(step);
}

void ShardedTables::serveSaves(ParameterUpdater& updater, const std::vector<ParameterPtr>& params) {
  if (shards_.empty()) return;
  if (world_.rank() == 0) {
    announce(SaveStep::kDone);
    return;
  }
  // What rank 0's saving of parameters or optimizer state does, for the sharded tables' rows alone.
  for (int what; (what = announce(SaveStep::kListen)) != static_cast<int>(SaveStep::kDone);) {
    if (what == static_cast<int>(SaveStep::kParameters)) {
      updater.catchUp();
      for (auto& p : params) {
        if (p->sharded()) p->save("");
      }
      continue;
    }
    for (auto& p : params) {
      for (ParameterType t : updater.stateBuffers()) {
        if (p->sharded() && p->hasBuffer(t)) p->save("", t);
      }
    }
  }
}

// Rank 0 writes its rows, then each other rank's, received in chunks of 1M floats: no rank
// ever holds more of the table than its own rows and one chunk.
void ShardedTables::Shard::writeRows(const Parameter& p, const Matrix& m, std::ostream* out) {
  constexpr size_t kChunk = size_t(1) << 20;
  const size_t cols = p.cols();
  if (rank != 0) {
    const float* mine = m.row(ownedBegin);
    const size_t n = (ownedEnd - ownedBegin) * cols;
    for (size_t done = 0; done < n; done += kChunk) {
      MPI_Send(mine + done, static_cast<int>(std::min(kChunk, n - done)), MPI_FLOAT, 0, 0, MPI_COMM_WORLD);
    }
    return;
  }
  const size_t mine = (ownedEnd - ownedBegin) * cols;
  out->write(reinterpret_cast<const char*>(m.row(ownedBegin)), static_cast<std::streamsize>(mine * sizeof(float)));
  std::vector<float> chunk;
  for (int q = 1; q < ranks; ++q) {
    const size_t n = (firstRow(p.rows(), q + 1, ranks) - firstRow(p.rows(), q, ranks)) * cols;
    for (size_t done = 0; done < n; done += kChunk) {
      chunk.resize(std::min(kChunk, n - done));
      MPI_Recv(chunk.data(), static_cast<int>(chunk.size()), MPI_FLOAT, q, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      out->write(reinterpret_cast<const char*>(chunk.data()), static_cast<std::streamsize>(chunk.size() * sizeof(float)));
    }
  }
}

}  // namespace paddle
