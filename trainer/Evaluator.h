// Evaluators from v1's EvaluatorConfig: they read layer outputs after each
// forward pass and report named fields, printed as "name=value".
#pragma once
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "trainer/GradientMachine.h"

namespace paddle {

// One number an evaluator reports: its name as the log line prints it, its value and
// which way is better. Counts and settings (chunk counts, positive_label) are neither:
// they say what was measured, not how well. The log text is written from these.
struct EvaluatorField {
  enum Better { kLower, kHigher, kNeither };
  std::string name;
  double value = 0;
  Better better = kLower;
  bool whole = false;  // printed as an integer (counts, settings)
};

class Evaluator {
 public:
  explicit Evaluator(const Json& config);
  virtual ~Evaluator() = default;
  // Throws ConfigError for an unknown type or missing input layers.
  static std::unique_ptr<Evaluator> create(const Json& config, const GradientMachine& gm);

  const std::string& name() const { return name_; }
  virtual void start() { numerator_ = 0; denominator_ = 0; }
  virtual void eval(const GradientMachine& gm) = 0;  // accumulate one batch
  virtual double value() const { return denominator_ > 0 ? numerator_ / denominator_ : 0.0; }
  // What it reports, in log order; by default value() under its own name, lower is better
  // (errors, edit distances, sums). Printers report nothing.
  virtual std::vector<EvaluatorField> fields() const { return {field(name_, value(), EvaluatorField::kLower)}; }
  std::string toString() const;  // "name=value name2=value2" from fields()
  // Printers write what they see; the trainer runs one copy per pass kind
  // (not a second one for the log-period statistics).
  virtual bool isPrinter() const { return false; }
  // v1 --predict_file of the validation layers: last-column-auc ("score label") and pnpair
  // ("score label query") evaluators given a file keep the samples of a pass and write them
  // there, one per line, when it ends (onPassEnd, called by the trainer).
  void setSamplesFile(const std::string& path) { samplesFile_ = path; }
  virtual void onPassEnd() {}
  // Distributed training: what this evaluator accumulated since start(), as numbers, and the
  // merge of such numbers from another copy into its own; the trainer merges every rank's
  // batch in rank order, so rank 0 ends with what one process seeing whole batches
  // accumulates. By default: the sums() accumulators, added (every evaluator but the
  // printers has either).
  virtual std::vector<double> state();
  virtual void merge(const double* state, size_t n);

 protected:
  // The accumulators that add up across copies (for the default state and merge).
  virtual std::vector<double*> sums() { return {}; }
  static EvaluatorField field(const std::string& name, double value, EvaluatorField::Better better,
                              bool whole = false) {
    EvaluatorField f;
    f.name = name, f.value = value, f.better = better, f.whole = whole;
    return f;
  }
  Argument& inputArg(const GradientMachine& gm, size_t i) const;
  void needInputs(size_t lo, size_t hi) const;  // ConfigError otherwise
  // Per-row weights from input i (all 1 when the evaluator has no such input).
  std::vector<float> weights(const GradientMachine& gm, size_t i, size_t rows) const;
  Json config_;
  std::string name_, type_;
  std::vector<std::string> inputs_;
  double numerator_ = 0, denominator_ = 0;
  std::string samplesFile_;
  // Every element of some accumulator tables, for sums().
  static std::vector<double*> elementsOf(std::initializer_list<std::vector<double>*> tables) {
    std::vector<double*> out;
    for (auto* t : tables) {
      for (double& x : *t) out.push_back(&x);
    }
    return out;
  }
};

// Each evaluator family (trainer/*Evaluators.cpp) registers its types by name.
using EvaluatorFactory = std::function<std::unique_ptr<Evaluator>(const Json& config, const GradientMachine& gm)>;
struct EvaluatorRegistrar {
  EvaluatorRegistrar(const std::string& type, EvaluatorFactory factory);
};
// The factory of an evaluator made from its config alone.
template <class E>
std::unique_ptr<Evaluator> makeEvaluator(const Json& config, const GradientMachine&) {
  return std::unique_ptr<Evaluator>(new E(config));
}

// The evaluators of the root sub-model of a ModelConfig (all of them when it
// names none), then one per validation layer of `gm` (auc-validation, pnpair-validation:
// named after the layer, over its inputs, writing their samples to `predictFile` if one is
// given), reading `gm`; printers only when asked.
std::vector<std::unique_ptr<Evaluator>> createEvaluators(const Json& modelConfig, const GradientMachine& gm,
                                                         bool withPrinters, const std::string& predictFile = "");
// "name=value name2=value2 " (printers print nothing)
std::string evaluatorsString(const std::vector<std::unique_ptr<Evaluator>>& evaluators);
// Every evaluator's fields, in the same order.
std::vector<EvaluatorField> evaluatorsFields(const std::vector<std::unique_ptr<Evaluator>>& evaluators);

}  // namespace paddle
