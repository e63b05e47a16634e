// Evaluators of classifier outputs: classification_error, sum, last-column-sum, precision_recall.
#include <algorithm>

#include "trainer/EvaluatorHelpers.h"

namespace paddle {
namespace {

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
  std::vector<double> state() override {
    std::vector<double> out(tp_);
    out.insert(out.end(), fp_.begin(), fp_.end());
    out.insert(out.end(), fn_.begin(), fn_.end());
    return out;
  }
  void merge(const double* state, size_t n) override {  // [tp, fp, fn] of n / 3 classes
    const size_t classes = n / 3;
    if (tp_.size() < classes) {
      tp_.resize(classes, 0);
      fp_.resize(classes, 0);
      fn_.resize(classes, 0);
    }
    for (size_t c = 0; c < classes; ++c) {
      tp_[c] += state[c];
      fp_[c] += state[classes + c];
      fn_[c] += state[2 * classes + c];
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
  std::vector<EvaluatorField> fields() const override {
    const auto higher = EvaluatorField::kHigher;
    if (positive_ >= 0) {
      double tp = positive_ < static_cast<int>(tp_.size()) ? tp_[positive_] : 0;
      double fp = positive_ < static_cast<int>(fp_.size()) ? fp_[positive_] : 0;
      double fn = positive_ < static_cast<int>(fn_.size()) ? fn_[positive_] : 0;
      double p = ratio(tp, tp + fp), r = ratio(tp, tp + fn);
      return {field("positive_label", positive_, EvaluatorField::kNeither, true), field("precision", p, higher),
              field("recall", r, higher), field("F1-score", f1(p, r), higher)};
    }
    std::vector<double> m = macro();
    double tp = 0, fp = 0, fn = 0;
    for (size_t c = 0; c < tp_.size(); ++c) {
      tp += tp_[c];
      fp += fp_[c];
      fn += fn_[c];
    }
    double mp = ratio(tp, tp + fp), mr = ratio(tp, tp + fn);
    return {field("macro-average-precision", m[0], higher), field("macro-average-recall", m[1], higher),
            field("macro-average-F1-score", m[2], higher), field("micro-average-precision", mp, higher),
            field("micro-average-recall", mr, higher), field("micro-average-F1-score", f1(mp, mr), higher)};
  }

 private:
  int positive_;
  float threshold_;
  std::vector<double> tp_, fp_, fn_;
};

}  // namespace

static const EvaluatorRegistrar kClassificationError("classification_error", makeEvaluator<ClassificationError>);
static const EvaluatorRegistrar kSum("sum", [](const Json& c, const GradientMachine&) {
  return std::unique_ptr<Evaluator>(new SumEvaluator(c, false));
});
static const EvaluatorRegistrar kLastColumnSum("last-column-sum", [](const Json& c, const GradientMachine&) {
  return std::unique_ptr<Evaluator>(new SumEvaluator(c, true));
});
static const EvaluatorRegistrar kPrecisionRecall("precision_recall", makeEvaluator<PrecisionRecall>);

}  // namespace paddle
