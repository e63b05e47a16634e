// Evaluators of token sequences: chunk, ctc_edit_distance.
#include <algorithm>

#include "trainer/EvaluatorHelpers.h"

namespace paddle {
namespace {

// Segments of one sequence of token ids into sequences: the rows of `a` cut by its
// sequence starts, or by `fallback`'s when `a` has none.
const IVector& sequenceStartsOf(const Argument& a, const Argument& fallback, const std::string& who) {
  const IVector& s = a.hasSeq() ? a.seqStarts : fallback.seqStarts;
  PADDLE_ENFORCE(s.size() > 0, DataError, "evaluator '", who, "': its inputs are not sequences");
  return s;
}

// Token ids of an output: its ids, else the argmax of each row of its value.
std::vector<int> outputIds(const Argument& a) {
  if (!a.ids.empty()) {
    std::vector<int> ids(a.ids.size());
    a.ids.copyToHost(ids.data());
    return ids;
  }
  HostMatrix m(a.value);
  std::vector<int> ids(m.rows);
  for (size_t i = 0; i < m.rows; ++i) ids[i] = predictedClass(m.row(i), m.cols, 0.5f);
  return ids;
}

// "chunk": chunk detection precision / recall / F1 over sequences of tags (v1). A tag
// id encodes chunkType * numTagTypes + tagType; numChunkTypes * numTagTypes is the
// "other" (outside) tag. Schemes (tag types): IOB (B=0, I=1), IOE (I=0, E=1),
// IOBES (B=0, I=1, E=2, S=3), plain (one tag type: a chunk is a run of one type).
// A chunk counts as correct when its begin, end and type all match the label's;
// chunks of excluded_chunk_types are not counted. Inputs: [output ids (e.g.
// crf_decoding) or scores (argmax), label ids]; the value is F1.
class ChunkEvaluator : public Evaluator {
 public:
  explicit ChunkEvaluator(const Json& c) : Evaluator(c) {
    needInputs(2, 2);
    std::string scheme = c.getString("chunk_scheme");
    if (scheme == "IOB") {
      tagTypes_ = 2, begin_ = 0, inside_ = 1;
    } else if (scheme == "IOE") {
      tagTypes_ = 2, inside_ = 0, end_ = 1;
    } else if (scheme == "IOBES") {
      tagTypes_ = 4, begin_ = 0, inside_ = 1, end_ = 2, single_ = 3;
    } else if (scheme == "plain") {
      tagTypes_ = 1;
    } else {
      throw ConfigError(str("evaluator '", name_, "': chunk_scheme must be IOB, IOE, IOBES or plain, got '",
                            scheme, "'"));
    }
    PADDLE_ENFORCE(c.has("num_chunk_types") && c.getInt("num_chunk_types") > 0, ConfigError, "evaluator '",
                   name_, "': num_chunk_types must be set to a positive number");
    chunkTypes_ = static_cast<int>(c.getInt("num_chunk_types"));
    for (int64_t t : c.getInts("excluded_chunk_types")) excluded_.push_back(static_cast<int>(t));
  }
  void start() override {
    Evaluator::start();
    numLabel_ = numOutput_ = numCorrect_ = 0;
  }
  void eval(const GradientMachine& gm) override {
    const Argument& out = inputArg(gm, 0);
    const Argument& lab = inputArg(gm, 1);
    std::vector<int> pred = outputIds(out);
    std::vector<int> label = hostIds(lab, pred.size(), name_);
    const IVector& starts = sequenceStartsOf(lab, out, name_);
    const int* st = starts.data();
    for (size_t k = 0; k + 1 < starts.size(); ++k) {
      const int b = st[k], e = st[k + 1];
      PADDLE_ENFORCE(b >= 0 && e >= b && static_cast<size_t>(e) <= pred.size(), DataError, "evaluator '", name_,
                     "': sequence ", k, " rows [", b, ", ", e, ") outside the ", pred.size(), " tokens");
      segments(pred.data() + b, e - b, k, "output", outSegs_);
      segments(label.data() + b, e - b, k, "label", labSegs_);
      size_t i = 0, j = 0;
      while (i < outSegs_.size() && j < labSegs_.size()) {
        const Segment &o = outSegs_[i], &l = labSegs_[j];
        if (o.begin == l.begin && o.end == l.end && o.type == l.type && !isExcluded(o.type)) ++numCorrect_;
        if (o.end < l.end) {
          ++i;
        } else if (o.end > l.end) {
          ++j;
        } else {
          ++i;
          ++j;
        }
      }
      for (const Segment& s : labSegs_) numLabel_ += !isExcluded(s.type);
      for (const Segment& s : outSegs_) numOutput_ += !isExcluded(s.type);
    }
  }
  std::vector<double> state() override { return {double(numLabel_), double(numOutput_), double(numCorrect_)}; }
  void merge(const double* state, size_t n) override {
    PADDLE_ENFORCE(n == 3, DataError, "evaluator '", name_, "': ", n, " numbers to merge, expected 3");
    numLabel_ += static_cast<int64_t>(state[0]);
    numOutput_ += static_cast<int64_t>(state[1]);
    numCorrect_ += static_cast<int64_t>(state[2]);
  }
  double precision() const { return numOutput_ ? static_cast<double>(numCorrect_) / numOutput_ : 0.0; }
  double recall() const { return numLabel_ ? static_cast<double>(numCorrect_) / numLabel_ : 0.0; }
  double value() const override {
    double p = precision(), r = recall();
    return numCorrect_ ? 2 * p * r / (p + r) : 0.0;
  }
  std::vector<EvaluatorField> fields() const override {
    const auto higher = EvaluatorField::kHigher, count = EvaluatorField::kNeither;
    return {field(name_, value(), higher),
            field("precision", precision(), higher),
            field("recall", recall(), higher),
            field("true_chunks", static_cast<double>(numLabel_), count, true),
            field("result_chunks", static_cast<double>(numOutput_), count, true),
            field("correct_chunks", static_cast<double>(numCorrect_), count, true)};
  }

 private:
  struct Segment {
    int begin, end, type;
  };
  bool isExcluded(int type) const { return std::find(excluded_.begin(), excluded_.end(), type) != excluded_.end(); }
  bool chunkEnds(int prevTag, int prevType, int tag, int type) const {
    if (prevType == chunkTypes_) return false;
    if (type == chunkTypes_ || type != prevType) return true;
    if (prevTag == begin_ || prevTag == inside_) return tag == begin_ || tag == single_;
    return prevTag == end_ || prevTag == single_;
  }
  bool chunkBegins(int prevTag, int prevType, int tag, int type) const {
    if (prevType == chunkTypes_) return type != chunkTypes_;
    if (type == chunkTypes_) return false;
    if (type != prevType || tag == begin_ || tag == single_) return true;
    if (tag == inside_ || tag == end_) return prevTag == end_ || prevTag == single_;
    return false;
  }
  void segments(const int* ids, int len, size_t seq, const char* what, std::vector<Segment>& segs) const {
    segs.clear();
    const int maxId = chunkTypes_ * tagTypes_;
    int start = 0, tag = -1, type = chunkTypes_;
    bool in = false;
    for (int i = 0; i < len; ++i) {
      PADDLE_ENFORCE(ids[i] >= 0 && ids[i] <= maxId, DataError, "evaluator '", name_, "': sequence ", seq, " ",
                     what, " token ", i, " is ", ids[i], ", outside [0, ", maxId, "] (num_chunk_types * tag types + 1 "
                     "ids)");
      const int prevTag = tag, prevType = type;
      tag = ids[i] % tagTypes_;
      type = ids[i] / tagTypes_;
      if (in && chunkEnds(prevTag, prevType, tag, type)) {
        segs.push_back({start, i - 1, prevType});
        in = false;
      }
      if (chunkBegins(prevTag, prevType, tag, type)) {
        start = i;
        in = true;
      }
    }
    if (in) segs.push_back({start, len - 1, type});
  }

  int tagTypes_ = 1, chunkTypes_ = 0;
  int begin_ = -1, inside_ = -1, end_ = -1, single_ = -1;
  std::vector<int> excluded_;
  int64_t numLabel_ = 0, numOutput_ = 0, numCorrect_ = 0;
  std::vector<Segment> outSegs_, labSegs_;
};

// "ctc_edit_distance": best-path decoding of CTC frame probabilities (argmax per
// frame, merge repeats, drop the blank = last class), then the Levenshtein distance
// to the label sequence divided by the longer length, averaged over sequences (v1).
// Also reports the deletion / insertion / substitution parts and the fraction of
// sequences with any error.
class CtcEditDistance : public Evaluator {
 public:
  explicit CtcEditDistance(const Json& c) : Evaluator(c) { needInputs(2, 2); }
  std::vector<double*> sums() override { return {&numerator_, &denominator_, &del_, &ins_, &sub_, &seqErr_}; }
  void start() override {
    Evaluator::start();
    del_ = ins_ = sub_ = seqErr_ = 0;
  }
  void eval(const GradientMachine& gm) override {
    const Argument& out = inputArg(gm, 0);
    const Argument& lab = inputArg(gm, 1);
    PADDLE_ENFORCE(out.hasSeq() && lab.hasSeq(), DataError, "evaluator '", name_,
                   "': the output and the label must be sequences");
    PADDLE_ENFORCE(out.numSequences() == lab.numSequences(), DataError, "evaluator '", name_, "': ",
                   out.numSequences(), " output sequences but ", lab.numSequences(), " label sequences");
    HostMatrix m(out.value);
    std::vector<int> label(lab.ids.size());
    lab.ids.copyToHost(label.data());
    const int blank = static_cast<int>(m.cols) - 1;
    const int* os = out.seqStarts.data();
    const int* ls = lab.seqStarts.data();
    std::vector<int>& rec = rec_;
    for (size_t k = 0; k + 1 < out.seqStarts.size(); ++k) {
      rec.clear();
      int prev = -1;
      for (int r = os[k]; r < os[k + 1]; ++r) {
        int c = predictedClass(m.row(r), m.cols, 0.5f);
        if (c != blank && (rec.empty() || c != rec.back() || prev == blank)) rec.push_back(c);
        prev = c;
      }
      gt_.assign(label.begin() + ls[k], label.begin() + ls[k + 1]);
      align(gt_, rec);
      denominator_ += 1;
    }
  }
  std::vector<EvaluatorField> fields() const override {
    const double n = denominator_ > 0 ? denominator_ : 1;
    const auto lower = EvaluatorField::kLower;
    return {field(name_, value(), lower), field("deletion_error", del_ / n, lower),
            field("insertion_error", ins_ / n, lower), field("substitution_error", sub_ / n, lower),
            field("sequence_error", seqErr_ / n, lower)};
  }

 private:
  // Levenshtein alignment of recognised `rec` against ground truth `gt`.
  void align(const std::vector<int>& gt, const std::vector<int>& rec) {
    const size_t n = gt.size(), m = rec.size();
    size_t subs = 0, dels = 0, inss = 0;
    if (n == 0) {
      inss = m;
    } else if (m == 0) {
      dels = n;
    } else {
      d_.assign((n + 1) * (m + 1), 0);
      auto at = [&](size_t i, size_t j) -> int& { return d_[i * (m + 1) + j]; };
      for (size_t i = 0; i <= n; ++i) at(i, 0) = static_cast<int>(i);
      for (size_t j = 0; j <= m; ++j) at(0, j) = static_cast<int>(j);
      for (size_t i = 1; i <= n; ++i)
        for (size_t j = 1; j <= m; ++j)
          at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (gt[i - 1] != rec[j - 1])});
      size_t i = n, j = m;
      while (i && j) {
        if (at(i, j) == at(i - 1, j - 1) && gt[i - 1] == rec[j - 1]) {
          --i, --j;
        } else if (at(i, j) == at(i - 1, j - 1) + 1) {
          ++subs, --i, --j;
        } else if (at(i, j) == at(i - 1, j) + 1) {
          ++dels, --i;
        } else {
          ++inss, --j;
        }
      }
      dels += i;
      inss += j;
    }
    const double maxLen = static_cast<double>(std::max(n, m));
    const size_t dist = subs + dels + inss;
    if (maxLen > 0) {
      numerator_ += dist / maxLen;
      del_ += dels / maxLen;
      ins_ += inss / maxLen;
      sub_ += subs / maxLen;
    }
    seqErr_ += dist != 0;
  }

  double del_ = 0, ins_ = 0, sub_ = 0, seqErr_ = 0;
  std::vector<int> d_, rec_, gt_;  // reused across sequences
};

}  // namespace

static const EvaluatorRegistrar kChunk("chunk", makeEvaluator<ChunkEvaluator>);
static const EvaluatorRegistrar kCtcEditDistance("ctc_edit_distance", makeEvaluator<CtcEditDistance>);

}  // namespace paddle
