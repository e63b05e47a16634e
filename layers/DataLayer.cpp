#include "layers/DataLayer.h"

#include "engine/Errors.h"
#include "engine/SparseMatrix.h"

namespace paddle {

REGISTER_LAYER("data", DataLayer);

void DataLayer::init(LayerContext& ctx) {
  Layer::init(ctx);
  PADDLE_ENFORCE(size_ > 0, ConfigError, "data layer needs a positive size");
  checkInputCount(0, 0);
  needGrad_ = false;  // turned on only when someone asks for input gradients
}

void DataLayer::setData(const Argument& data) {
  PADDLE_ENFORCE(!data.value.empty() || !data.ids.empty() || !data.sparse.empty(), DataError, "data layer '",
                 name_, "' got an empty slot");
  if (!data.sparse.empty()) {
    PADDLE_ENFORCE(data.sparse.width == size_, DataError, "data layer '", name_, "' has size ", size_,
                   " but its sparse slot has width ", data.sparse.width);
    math::checkSparse(data.sparse, str("data layer '", name_, "'"));
  }
  if (!data.value.empty()) {
    PADDLE_ENFORCE(data.value.width() == size_, DataError, "data layer '", name_,
                   "' has size ", size_, " but its slot has ", data.value.width(), " columns");
  }
  if (!data.ids.empty() && data.value.empty()) {
    // v1 declares ids with any size (labels often as size=1): the layer that uses an id
    // checks its range. -1 is v1's ignored id.
    const int* id = data.ids.data();  // ids arrive in host memory
    for (size_t i = 0; i < data.ids.size(); ++i) {
      PADDLE_ENFORCE(id[i] >= -1, DataError, "data layer '", name_, "': sample ", i, " has id ", id[i]);
    }
  }
  checkStarts(data.seqStarts, data.batchSize(), "sequence");
  checkStarts(data.subSeqStarts, data.batchSize(), "sub-sequence");
  if (data.hasSubSeq()) {
    PADDLE_ENFORCE(data.hasSeq(), DataError, "data layer '", name_, "': sub-sequence starts without sequence starts");
    // every sequence start is also a sub-sequence start
    const int* sub = data.subSeqStarts.data();
    const int* top = data.seqStarts.data();
    size_t k = 0;
    for (size_t i = 0; i < data.seqStarts.size(); ++i) {
      while (k < data.subSeqStarts.size() && sub[k] < top[i]) ++k;
      PADDLE_ENFORCE(k < data.subSeqStarts.size() && sub[k] == top[i], DataError, "data layer '", name_,
                     "': sequence ", i, " starts at row ", top[i], ", which is not a sub-sequence start");
    }
  }
  output_ = data;
  if (useGpu_) {  // the one copy of the batch onto the device (sequence starts stay on the host)
    if (!data.value.empty() && !data.value.useGpu()) {
      output_.value = Matrix();
      output_.value.setDevice(true);
      output_.value.copyFrom(data.value);
    }
    if (!data.ids.empty() && !data.ids.useGpu()) {
      output_.ids = IVector();
      output_.ids.setDevice(true);
      output_.ids.copyFrom(data.ids);
    }
  }
}

void DataLayer::checkStarts(const IVector& starts, size_t rows, const char* what) const {
  if (starts.empty()) return;
  const int* s = starts.data();  // host memory
  const size_t n = starts.size();
  PADDLE_ENFORCE(s[0] == 0 && static_cast<size_t>(s[n - 1]) == rows, DataError, "data layer '", name_, "': ", what,
                 " start positions run from ", s[0], " to ", s[n - 1], ", expected 0 to ", rows, " (the slot's rows)");
  for (size_t i = 0; i + 1 < n; ++i) {
    PADDLE_ENFORCE(s[i] <= s[i + 1], DataError, "data layer '", name_, "': ", what, " start positions decrease at ",
                   what, " ", i);
  }
}

void DataLayer::forward(PassType pass) {
  pass_ = pass;
  if (needGrad_ && (pass == PASS_TRAIN || pass == PASS_GC) && !output_.value.empty()) {
    output_.grad.setDevice(output_.value.useGpu());
    output_.grad.resize(output_.value.height(), output_.value.width());
    output_.grad.zero();
  }
}

}  // namespace paddle
