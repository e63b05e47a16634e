#include "Evaluator.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include "../layers/Errors.h"

namespace paddle {

Evaluator::Evaluator(const Json& config)
    : config_(config),
      name_(config.getString("name", "")),
      type_(config.getString("type", "")),
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
struct HostMatrix {
  std::vector<float> v;
  size_t rows = 0, cols = 0;
  explicit HostMatrix(const Matrix& m) : v(m.size()), rows(m.height()), cols(m.width()) { m.copyToHost(v.data()); }
  const float* row(size_t i) const { return v.data() + i * cols; }
};

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
        topK_(static_cast<size_t>(c.getInt("top_k", 1))),
        threshold_(static_cast<float>(c.getDouble("classification_threshold", 0.5))) {
    needInputs(2, 3);
  }

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
  void start() override {
    Evaluator::start();
    pos_.assign(kBins + 1, 0.0);
    neg_.assign(kBins + 1, 0.0);
  }
  void eval(const GradientMachine& gm) override {
    HostMatrix out(inputArg(gm, 0).value);
    std::vector<int> ids = hostIds(inputArg(gm, 1), out.rows, name_);
    std::vector<float> weight = weights(gm, 2, out.rows);
    for (size_t i = 0; i < out.rows; ++i) {
      float score = std::min(std::max(out.row(i)[out.cols - 1], 0.0f), 1.0f);
      size_t bin = static_cast<size_t>(score * kBins);
      (ids[i] > 0 ? pos_ : neg_)[bin] += weight[i];
    }
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
};

// "precision_recall": per-class counts; positive_label >= 0 reports that class,
// otherwise macro and micro averages over all classes.
class PrecisionRecall : public Evaluator {
 public:
  explicit PrecisionRecall(const Json& c)
      : Evaluator(c),
        positive_(static_cast<int>(c.getInt("positive_label", -1))),
        threshold_(static_cast<float>(c.getDouble("classification_threshold", 0.5))) {
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
      : Evaluator(c), what_(std::move(what)), numResults_(static_cast<size_t>(c.getInt("num_results", 1))) {}
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

// "seq_text_printer": writes generated (or any id) sequences as text, one
// block per sample: its id, then "rank<TAB>score<TAB>words" per result (the
// scores of a beam_search group, best first). Inputs: [ids] or [sample ids, ids].
class SeqTextPrinter : public Evaluator {
 public:
  SeqTextPrinter(const Json& c, const GradientMachine& gm)
      : Evaluator(c), delimited_(c.getBool("delimited", true)), resultFile_(c.getString("result_file", "")) {
    needInputs(1, 2);
    std::string dictFile = c.getString("dict_file", "");
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
      if (l->secondaryOutput("scores")) scoreLayer_ = l.get();
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
      const Matrix& s = scoreLayer_->secondaryOutput("scores")->value;
      scores.resize(s.size());
      s.copyToHost(scores.data());
    }
    std::ostringstream os;
    const int* seq = gen.seqStarts.data();
    const int* c = cut.data();
    size_t result = 0;
    for (size_t sample = 0; sample + 1 < gen.seqStarts.size(); ++sample) {
      os << (sample < sampleIds.size() ? sampleIds[sample] : static_cast<int>(count_ + sample)) << "\n";
      for (size_t rank = 0; result + 1 < cut.size() && c[result] < seq[sample + 1]; ++rank, ++result) {
        os << rank << "\t";
        if (result < scores.size()) os << scores[result] << "\t";
        for (int k = c[result]; k < c[result + 1]; ++k) {
          if (k > c[result] && delimited_) os << " ";
          int id = ids[k];
          os << (id >= 0 && static_cast<size_t>(id) < dict_.size() ? dict_[id] : std::to_string(id));
        }
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

}  // namespace

std::unique_ptr<Evaluator> Evaluator::create(const Json& config, const GradientMachine& gm) {
  std::string type = config.getString("type", "");
  std::string name = config.getString("name", "");
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
  else if (type == "value_printer") e.reset(new Printer(config, "value"));
  else if (type == "gradient_printer") e.reset(new Printer(config, "gradient"));
  else if (type == "max_id_printer") e.reset(new Printer(config, "ids"));
  else if (type == "seq_text_printer") e.reset(new SeqTextPrinter(config, gm));
  else
    throw ConfigError(str("evaluator '", name, "': unknown type '", type,
                          "' (known: classification_error, sum, last-column-sum, last-column-auc, "
                          "precision_recall, pnpair, value_printer, gradient_printer, max_id_printer, seq_text_printer)"));
  e->start();
  return e;
}

}  // namespace paddle
