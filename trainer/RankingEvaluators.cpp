// Evaluators of scores against labels: last-column-auc, pnpair (also those of the validation layers).
#include <algorithm>
#include <fstream>

#include "trainer/EvaluatorHelpers.h"

namespace paddle {
namespace {

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
  std::vector<EvaluatorField> fields() const override {
    return {field(name_, value(), EvaluatorField::kHigher)};
  }

 private:
  static constexpr size_t kBins = 1 << 16;
  std::vector<double> pos_, neg_;
  std::vector<std::pair<float, int>> samples_;  // (score, label) when they are written
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
  std::vector<double> state() override {  // (query, label, score, weight) per sample
    std::vector<double> out;
    for (const Item& it : items_) out.insert(out.end(), {double(it.query), double(it.label), it.score, it.weight});
    return out;
  }
  void merge(const double* state, size_t n) override {
    for (size_t i = 0; i + 4 <= n; i += 4) {
      items_.push_back({static_cast<int>(state[i]), static_cast<int>(state[i + 1]), static_cast<float>(state[i + 2]),
                        static_cast<float>(state[i + 3])});
    }
  }
  double value() const override {
    double pos = 0, neg = 0;
    pairs(pos, neg);
    return neg > 0 ? pos / neg : pos;
  }
  std::vector<EvaluatorField> fields() const override {
    return {field(name_, value(), EvaluatorField::kHigher)};
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

}  // namespace

static const EvaluatorRegistrar kAuc("last-column-auc", makeEvaluator<AucEvaluator>);
static const EvaluatorRegistrar kPnPair("pnpair", makeEvaluator<PnPair>);

}  // namespace paddle
