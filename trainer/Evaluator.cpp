#include "Evaluator.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include "../layers/Errors.h"

namespace paddle {

Evaluator::Evaluator(const Json& config)
    : config_(config),
      name_(config.getString("name")),
      type_(config.getString("type")),
      inputs_(config.getStrings("input_layers")) {}

Argument& Evaluator::inputArg(const GradientMachine& gm, size_t i) const {
  return gm.layer(inputs_.at(i))->output();
}

void Evaluator::needInputs(size_t lo, size_t hi) const {
  PADDLE_ENFORCE(inputs_.size() >= lo && inputs_.size() <= hi, ConfigError, "evaluator '", name_, "' (", type_,
                 ") needs ", lo == hi ? str(lo) : str(lo, " to ", hi), " input layers, got ", inputs_.size());
}

std::vector<float> Evaluator::weights(const GradientMachine& gm, size_t i, size_t rows) const {
  if (i >= inputs_.size()) return std::vector<float>(rows, 1.0f);
  const Matrix& w = inputArg(gm, i).value;
  PADDLE_ENFORCE(w.height() == rows && w.width() == 1, DataError, "evaluator '", name_, "': weight layer '",
                 inputs_[i], "' must be ", rows, "x1, got ", shapeStr(w));
  std::vector<float> v(rows);
  w.copyToHost(v.data());
  return v;
}

std::string Evaluator::toString() const {
  std::ostringstream os;
  os << name_ << "=" << value();
  return os.str();
}

namespace {

// A layer output copied to host memory, so evaluators run the same on any device.
// (host matrices are read in place; GPU ones are copied)
struct HostMatrix {
  std::vector<float> copy;
  const float* data = nullptr;
  size_t rows = 0, cols = 0;
  explicit HostMatrix(const Matrix& m) : rows(m.height()), cols(m.width()) {
    if (m.useGpu()) {
      copy.resize(m.size());
      m.copyToHost(copy.data());
      data = copy.data();
    } else {
      data = m.data();
    }
  }
  const float* row(size_t i) const { return data + i * cols; }
};

// v1 --predict_file: the samples a validation layer saw in a pass, one per line (rewritten each pass).
std::ofstream openSamplesFile(const std::string& path, const std::string& who) {
  std::ofstream out(path, std::ios::trunc);
  PADDLE_ENFORCE(out.good(), IOError, "evaluator '", who, "': cannot write the predict file '", path, "'");
  return out;
}

std::vector<int> hostIds(const Argument& a, size_t rows, const std::string& who) {
  PADDLE_ENFORCE(a.ids.size() == rows, DataError, "evaluator '", who, "': ", a.ids.size(),
                 " labels for ", rows, " predictions");
  std::vector<int> ids(rows);
  a.ids.copyToHost(ids.data());
  return ids;
}

// Predicted class of a row: argmax, or threshold on a single column.
int predictedClass(const float* x, size_t w, float threshold) {
  if (w == 1) return x[0] > threshold ? 1 : 0;
  return static_cast<int>(std::max_element(x, x + w) - x);
}

// "classification_error": a sample is wrong when its label is not among the
// top_k scores (binary width-1 outputs compare with classification_threshold).
class ClassificationError : public Evaluator {
 public:
  explicit ClassificationError(const Json& c)
      : Evaluator(c),
        topK_(static_cast<size_t>(c.getInt("top_k"))),
        threshold_(static_cast<float>(c.getDouble("classification_threshold"))) {
    needInputs(2, 3);
  }
  std::vector<double*> sums() override { return {&numerator_, &denominator_}; }

  void eval(const GradientMachine& gm) override {
    HostMatrix out(inputArg(gm, 0).value);
    std::vector<int> ids = hostIds(inputArg(gm, 1), out.rows, name_);
    std::vector<float> weight = weights(gm, 2, out.rows);
    for (size_t i = 0; i < out.rows; ++i) {
      const float* x = out.row(i);
      bool wrong;
      if (out.cols == 1) {
        wrong = predictedClass(x, 1, threshold_) != ids[i];
      } else {
        size_t higher = 0;  // classes scoring strictly above the label
        for (size_t j = 0; j < out.cols; ++j) higher += x[j] > x[ids[i]];
        wrong = higher >= topK_;
      }
      numerator_ += wrong ? weight[i] : 0.0;
      denominator_ += weight[i];
    }
  }

 private:
  size_t topK_;
  float threshold_;
};

// "sum": sum of the input's values (weighted per row) / samples.
// "last-column-sum": the same over the last column only.
class SumEvaluator : public Evaluator {
 public:
  SumEvaluator(const Json& c, bool lastColumn) : Evaluator(c), lastColumn_(lastColumn) { needInputs(1, 2); }
  std::vector<double*> sums() override { return {&numerator_, &denominator_}; }

  void eval(const GradientMachine& gm) override {
    HostMatrix in(inputArg(gm, 0).value);
    std::vector<float> weight = weights(gm, 1, in.rows);
    for (size_t i = 0; i < in.rows; ++i) {
      double s = 0;
      for (size_t j = lastColumn_ ? in.cols - 1 : 0; j < in.cols; ++j) s += in.row(i)[j];
      numerator_ += weight[i] * s;
      denominator_ += 1;
    }
  }

 private:
  bool lastColumn_;
};

// "last-column-auc": area under the ROC curve of the last column's score
// against 0/1 labels, from 2^16-bin histograms of positive and negative scores.
class AucEvaluator : public Evaluator {
 public:
  explicit AucEvaluator(const Json& c) : Evaluator(c) { needInputs(2, 3); }
  std::vector<double*> sums() override { return elementsOf({&pos_, &neg_}); }  // 2^17 bins: 1 MB a step
  void start() override {
    Evaluator::start();
    pos_.assign(kBins + 1, 0.0);
    neg_.assign(kBins + 1, 0.0);
    samples_.clear();
  }
  void eval(const GradientMachine& gm) override {
    HostMatrix out(inputArg(gm, 0).value);
    std::vector<int> ids = hostIds(inputArg(gm, 1), out.rows, name_);
    std::vector<float> weight = weights(gm, 2, out.rows);
    for (size_t i = 0; i < out.rows; ++i) {
      float raw = out.row(i)[out.cols - 1];
      float score = std::min(std::max(raw, 0.0f), 1.0f);
      size_t bin = static_cast<size_t>(score * kBins);
      (ids[i] > 0 ? pos_ : neg_)[bin] += weight[i];
      if (!samplesFile_.empty()) samples_.push_back({raw, ids[i]});
    }
  }
  void onPassEnd() override {
    if (samplesFile_.empty()) return;
    std::ofstream out = openSamplesFile(samplesFile_, name_);
    for (auto& s : samples_) out << s.first << " " << s.second << "\n";
  }
  double value() const override {
    double totPos = 0, totNeg = 0, area = 0;
    for (size_t b = pos_.size(); b-- > 0;) {  // sweep the threshold from high to low scores
      area += neg_[b] * (totPos + pos_[b] / 2);
      totPos += pos_[b];
      totNeg += neg_[b];
    }
    return totPos > 0 && totNeg > 0 ? area / (totPos * totNeg) : 0.0;
  }

 private:
  static constexpr size_t kBins = 1 << 16;
  std::vector<double> pos_, neg_;
  std::vector<std::pair<float, int>> samples_;  // (score, label) when they are written
};

// "precision_recall": per-class counts; positive_label >= 0 reports that class,
// otherwise macro and micro averages over all classes.
class PrecisionRecall : public Evaluator {
 public:
  explicit PrecisionRecall(const Json& c)
      : Evaluator(c),
        positive_(static_cast<int>(c.getInt("positive_label"))),
        threshold_(static_cast<float>(c.getDouble("classification_threshold"))) {
    needInputs(2, 3);
  }
  void start() override {
    Evaluator::start();
    tp_.clear();
    fp_.clear();
    fn_.clear();
  }
  void eval(const GradientMachine& gm) override {
    HostMatrix out(inputArg(gm, 0).value);
    std::vector<int> ids = hostIds(inputArg(gm, 1), out.rows, name_);
    std::vector<float> weight = weights(gm, 2, out.rows);
    size_t classes = std::max<size_t>(out.cols, 2);
    if (tp_.size() < classes) {
      tp_.resize(classes, 0);
      fp_.resize(classes, 0);
      fn_.resize(classes, 0);
    }
    for (size_t i = 0; i < out.rows; ++i) {
      int pred = predictedClass(out.row(i), out.cols, threshold_);
      PADDLE_ENFORCE(ids[i] >= 0 && static_cast<size_t>(ids[i]) < classes, DataError, "evaluator '", name_,
                     "': sample ", i, " has label ", ids[i], ", outside [0, ", classes, ")");
      if (pred == ids[i]) {
        tp_[pred] += weight[i];
      } else {
        fp_[pred] += weight[i];
        fn_[ids[i]] += weight[i];
      }
    }
  }
  static double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }
  static double f1(double p, double r) { return p + r > 0 ? 2 * p * r / (p + r) : 0.0; }
  double value() const override {
    if (positive_ >= 0) {
      if (static_cast<size_t>(positive_) >= tp_.size()) return 0.0;
      return f1(ratio(tp_[positive_], tp_[positive_] + fp_[positive_]), ratio(tp_[positive_], tp_[positive_] + fn_[positive_]));
    }
    return macro()[2];
  }
  std::vector<double> macro() const {
    double p = 0, r = 0;
    for (size_t c = 0; c < tp_.size(); ++c) {
      p += ratio(tp_[c], tp_[c] + fp_[c]);
      r += ratio(tp_[c], tp_[c] + fn_[c]);
    }
    size_t n = std::max<size_t>(tp_.size(), 1);
    return {p / n, r / n, f1(p / n, r / n)};
  }
  std::string toString() const override {
    std::ostringstream os;
    if (positive_ >= 0) {
      double tp = positive_ < static_cast<int>(tp_.size()) ? tp_[positive_] : 0;
      double fp = positive_ < static_cast<int>(fp_.size()) ? fp_[positive_] : 0;
      double fn = positive_ < static_cast<int>(fn_.size()) ? fn_[positive_] : 0;
      double p = ratio(tp, tp + fp), r = ratio(tp, tp + fn);
      os << "positive_label=" << positive_ << " precision=" << p << " recall=" << r << " F1-score=" << f1(p, r);
      return os.str();
    }
    std::vector<double> m = macro();
    double tp = 0, fp = 0, fn = 0;
    for (size_t c = 0; c < tp_.size(); ++c) {
      tp += tp_[c];
      fp += fp_[c];
      fn += fn_[c];
    }
    double mp = ratio(tp, tp + fp), mr = ratio(tp, tp + fn);
    os << "macro-average-precision=" << m[0] << " macro-average-recall=" << m[1]
       << " macro-average-F1-score=" << m[2] << " micro-average-precision=" << mp
       << " micro-average-recall=" << mr << " micro-average-F1-score=" << f1(mp, mr);
    return os.str();
  }

 private:
  int positive_;
  float threshold_;
  std::vector<double> tp_, fp_, fn_;
};

// "pnpair": within each query (the ids of the third input), pairs of samples
// with different labels count as positive when the higher label has the higher
// score, negative when it has the lower one; prints positive / negative.
class PnPair : public Evaluator {
 public:
  explicit PnPair(const Json& c) : Evaluator(c) { needInputs(3, 4); }
  void start() override {
    Evaluator::start();
    items_.clear();
  }
  void onPassEnd() override {
    if (samplesFile_.empty()) return;
    std::ofstream out = openSamplesFile(samplesFile_, name_);
    for (auto& it : items_) out << it.score << " " << it.label << " " << it.query << "\n";
  }
  void eval(const GradientMachine& gm) override {
    HostMatrix out(inputArg(gm, 0).value);
    std::vector<int> labels = hostIds(inputArg(gm, 1), out.rows, name_);
    std::vector<int> query = hostIds(inputArg(gm, 2), out.rows, name_);
    std::vector<float> weight = weights(gm, 3, out.rows);
    for (size_t i = 0; i < out.rows; ++i) {
      items_.push_back({query[i], labels[i], out.row(i)[out.cols - 1], weight[i]});
    }
  }
  double value() const override {
    double pos = 0, neg = 0;
    pairs(pos, neg);
    return neg > 0 ? pos / neg : pos;
  }

 private:
  struct Item {
    int query, label;
    float score, weight;
  };
  void pairs(double& pos, double& neg) const {
    std::vector<Item> items = items_;
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.query < b.query; });
    for (size_t b = 0; b < items.size();) {
      size_t e = b;
      while (e < items.size() && items[e].query == items[b].query) ++e;
      for (size_t i = b; i < e; ++i) {
        for (size_t j = i + 1; j < e; ++j) {
          if (items[i].label == items[j].label || items[i].score == items[j].score) continue;
          double w = (items[i].weight + items[j].weight) / 2;
          bool agree = (items[i].label > items[j].label) == (items[i].score > items[j].score);
          (agree ? pos : neg) += w;
        }
      }
      b = e;
    }
  }
  std::vector<Item> items_;
};

// Printers log values for inspection; they add nothing to the Eval: line.
class Printer : public Evaluator {
 public:
  Printer(const Json& c, std::string what)
      : Evaluator(c), what_(std::move(what)), numResults_(static_cast<size_t>(c.getInt("num_results"))) {}
  void eval(const GradientMachine& gm) override {
    for (size_t k = 0; k < inputs_.size(); ++k) {
      const Argument& a = inputArg(gm, k);
      std::ostringstream os;
      os << name_ << ": layer=" << inputs_[k] << " " << what_ << ":\n";
      if (what_ == "ids") {
        HostMatrix m(a.value);
        for (size_t i = 0; i < m.rows; ++i) {  // top numResults ids of each row
          std::vector<size_t> order(m.cols);
          for (size_t j = 0; j < m.cols; ++j) order[j] = j;
          size_t n = std::min(numResults_, m.cols);
          std::partial_sort(order.begin(), order.begin() + n, order.end(),
                            [&](size_t x, size_t y) { return m.row(i)[x] > m.row(i)[y]; });
          for (size_t j = 0; j < n; ++j) os << order[j] << (j + 1 < n ? " " : "\n");
        }
      } else {
        const Matrix& src = what_ == "gradient" ? a.grad : a.value;
        if (src.empty() && !a.ids.empty()) {
          std::vector<int> ids(a.ids.size());
          a.ids.copyToHost(ids.data());
          for (int id : ids) os << id << "\n";
        } else {
          HostMatrix m(src);
          for (size_t i = 0; i < m.rows; ++i) {
            for (size_t j = 0; j < m.cols; ++j) os << m.row(i)[j] << (j + 1 < m.cols ? " " : "\n");
          }
        }
      }
      std::cerr << os.str();
    }
  }
  std::string toString() const override { return ""; }
  bool isPrinter() const override { return true; }

 private:
  std::string what_;
  size_t numResults_;
};

// "seq_text_printer": writes id sequences as text in v1's formats (every word is preceded
// by a space when delimited): one result per sample gives one line "id<TAB> w w ...";
// beam_search results (several per sample, with scores) give a block "id", then
// "rank<TAB>score<TAB> w w ..." per result, best first, then an empty line; other nested
// sequences give "id<TAB> w w" for the first sub-sequence and "<TAB> w w" for the others,
// then an empty line. Inputs: [ids] or [sample ids, ids].
class SeqTextPrinter : public Evaluator {
 public:
  SeqTextPrinter(const Json& c, const GradientMachine& gm)
      : Evaluator(c), delimited_(c.getBool("delimited")), resultFile_(c.getString("result_file")) {
    needInputs(1, 2);
    std::string dictFile = c.getString("dict_file");
    if (!dictFile.empty()) {
      std::ifstream in(dictFile);
      PADDLE_ENFORCE(in.good(), ConfigError, "evaluator '", name_, "': cannot read dict_file '", dictFile, "'");
      std::string line;
      while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        size_t tab = line.find_first_of(" \t");
        dict_.push_back(tab == std::string::npos ? line : line.substr(0, tab));
      }
    }
    for (auto& l : gm.layers()) {
      if (l->findOutput("scores")) scoreLayer_ = l.get();
    }
    if (!resultFile_.empty()) {
      out_.open(resultFile_, std::ios::trunc);
      PADDLE_ENFORCE(out_.good(), IOError, "evaluator '", name_, "': cannot write result_file '", resultFile_, "'");
    }
  }
  bool isPrinter() const override { return true; }
  std::string toString() const override { return ""; }

  void eval(const GradientMachine& gm) override {
    const Argument& gen = inputArg(gm, inputs_.size() - 1);
    PADDLE_ENFORCE(gen.hasSeq() && gen.ids.size(), DataError, "evaluator '", name_, "': input '", inputs_.back(),
                   "' must be id sequences");
    std::vector<int> ids(gen.ids.size());
    gen.ids.copyToHost(ids.data());
    // results: the sub-sequences when nested (several per sample), else the sequences
    const IVector& cut = gen.subSeqStarts.size() ? gen.subSeqStarts : gen.seqStarts;
    std::vector<int> sampleIds;
    if (inputs_.size() == 2) {
      const Argument& sid = inputArg(gm, 0);
      sampleIds.resize(sid.ids.size());
      sid.ids.copyToHost(sampleIds.data());
    }
    std::vector<float> scores;
    if (scoreLayer_) {
      const Matrix& s = scoreLayer_->findOutput("scores")->value;
      scores.resize(s.size());
      s.copyToHost(scores.data());
    }
    std::ostringstream os;
    auto words = [&](int begin, int end) {
      os << "\t";
      for (int k = begin; k < end; ++k) {
        if (delimited_) os << " ";
        const int id = ids[k];
        os << (id >= 0 && static_cast<size_t>(id) < dict_.size() ? dict_[id] : std::to_string(id));
      }
    };
    const bool nested = gen.subSeqStarts.size() > 0, beam = nested && scoreLayer_;
    const int* seq = gen.seqStarts.data();
    const int* c = cut.data();
    size_t result = 0;
    for (size_t sample = 0; sample + 1 < gen.seqStarts.size(); ++sample) {
      os << (sample < sampleIds.size() ? sampleIds[sample] : static_cast<int>(count_ + sample));
      if (!nested) {
        words(seq[sample], seq[sample + 1]);
        os << "\n";
        continue;
      }
      if (beam) os << "\n";
      for (size_t rank = 0; result + 1 < cut.size() && c[result] < seq[sample + 1]; ++rank, ++result) {
        if (beam) os << rank << "\t" << (result < scores.size() ? scores[result] : 0.0f);
        words(c[result], c[result + 1]);
        os << "\n";
      }
      os << "\n";
    }
    count_ += gen.seqStarts.size() - 1;
    if (out_.is_open()) {
      out_ << os.str();
      out_.flush();
    } else {
      std::cerr << os.str();
    }
  }

 private:
  bool delimited_;
  std::string resultFile_;
  std::vector<std::string> dict_;
  Layer* scoreLayer_ = nullptr;
  std::ofstream out_;
  size_t count_ = 0;
};

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
  double precision() const { return numOutput_ ? static_cast<double>(numCorrect_) / numOutput_ : 0.0; }
  double recall() const { return numLabel_ ? static_cast<double>(numCorrect_) / numLabel_ : 0.0; }
  double value() const override {
    double p = precision(), r = recall();
    return numCorrect_ ? 2 * p * r / (p + r) : 0.0;
  }
  std::string toString() const override {
    std::ostringstream os;
    os << name_ << "=" << value() << " precision=" << precision() << " recall=" << recall()
       << " true_chunks=" << numLabel_ << " result_chunks=" << numOutput_ << " correct_chunks=" << numCorrect_;
    return os.str();
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
  std::string toString() const override {
    const double n = denominator_ > 0 ? denominator_ : 1;
    std::ostringstream os;
    os << name_ << "=" << value() << " deletion_error=" << del_ / n << " insertion_error=" << ins_ / n
       << " substitution_error=" << sub_ / n << " sequence_error=" << seqErr_ / n;
    return os.str();
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

std::unique_ptr<Evaluator> Evaluator::create(const Json& config, const GradientMachine& gm) {
  std::string type = config.getString("type");
  std::string name = config.getString("name");
  for (const std::string& in : config.getStrings("input_layers")) {
    try {
      gm.layer(in);
    } catch (const ConfigError&) {
      throw ConfigError(str("evaluator '", name, "': input layer '", in, "' does not exist"));
    }
  }
  std::unique_ptr<Evaluator> e;
  if (type == "classification_error") e.reset(new ClassificationError(config));
  else if (type == "sum") e.reset(new SumEvaluator(config, false));
  else if (type == "last-column-sum") e.reset(new SumEvaluator(config, true));
  else if (type == "last-column-auc") e.reset(new AucEvaluator(config));
  else if (type == "precision_recall") e.reset(new PrecisionRecall(config));
  else if (type == "pnpair") e.reset(new PnPair(config));
  else if (type == "chunk") e.reset(new ChunkEvaluator(config));
  else if (type == "ctc_edit_distance") e.reset(new CtcEditDistance(config));
  else if (type == "value_printer") e.reset(new Printer(config, "value"));
  else if (type == "gradient_printer") e.reset(new Printer(config, "gradient"));
  else if (type == "max_id_printer") e.reset(new Printer(config, "ids"));
  else if (type == "seq_text_printer") e.reset(new SeqTextPrinter(config, gm));
  else
    throw ConfigError(str("evaluator '", name, "': unknown type '", type,
                          "' (known: classification_error, sum, last-column-sum, last-column-auc, "
                          "precision_recall, pnpair, chunk, ctc_edit_distance, value_printer, gradient_printer, "
                          "max_id_printer, seq_text_printer)"));
  e->start();
  return e;
}

namespace {

// v1's validation layers (layers/ValidationLayers.cpp) hold an evaluator of this type
// over their own inputs, named after the layer.
const char* validationEvaluatorType(const std::string& layerType) {
  if (layerType == "auc-validation") return "last-column-auc";
  if (layerType == "pnpair-validation") return "pnpair";
  return nullptr;
}

Json validationEvaluatorConfig(const Json& layer, const char* type) {
  std::string inputs;
  for (const Json& in : layer["inputs"].items()) {
    inputs += (inputs.empty() ? "" : ",") + in["input_layer_name"].dump();
  }
  return Json::parse(str("{\"name\":", layer["name"].dump(), ",\"type\":\"", type, "\",\"input_layers\":[",
                         inputs, "]}"),
                     "EvaluatorConfig");
}

}  // namespace

std::vector<std::unique_ptr<Evaluator>> createEvaluators(const Json& model, const GradientMachine& gm,
                                                         bool withPrinters, const std::string& predictFile) {
  std::vector<std::string> wanted;
  for (const Json& sm : model["sub_models"].items()) {
    if (sm.getString("name") == "root") wanted = sm.getStrings("evaluator_names");
  }
  std::vector<std::unique_ptr<Evaluator>> out;
  for (const Json& ec : model["evaluators"].items()) {
    std::string name = ec.getString("name");
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), name) == wanted.end()) continue;
    std::unique_ptr<Evaluator> e = Evaluator::create(ec, gm);
    if (withPrinters || !e->isPrinter()) out.push_back(std::move(e));
  }
  for (const auto& layer : gm.layers()) {
    if (const char* type = validationEvaluatorType(layer->type())) {
      out.push_back(Evaluator::create(validationEvaluatorConfig(layer->config(), type), gm));
      out.back()->setSamplesFile(predictFile);
    }
  }
  return out;
}

std::string evaluatorsString(const std::vector<std::unique_ptr<Evaluator>>& evaluators) {
  std::string s;
  for (auto& e : evaluators) {
    std::string t = e->toString();
    if (!t.empty()) s += t + " ";
  }
  return s;
}

}  // namespace paddle
