#include "trainer/Evaluator.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "engine/Errors.h"

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
  for (const EvaluatorField& f : fields()) {
    if (os.tellp() > 0) os << " ";
    os << f.name << "=";
    if (f.whole) {
      os << static_cast<long long>(f.value);
    } else {
      os << f.value;
    }
  }
  return os.str();
}

std::vector<double> Evaluator::state() {
  std::vector<double> out;
  for (double* x : sums()) out.push_back(*x);
  return out;
}

void Evaluator::merge(const double* state, size_t n) {
  std::vector<double*> mine = sums();
  PADDLE_ENFORCE(n == mine.size(), DataError, "evaluator '", name_, "': ", n, " numbers to merge, expected ",
                 mine.size());
  for (size_t i = 0; i < n; ++i) *mine[i] += state[i];
}

namespace {
std::map<std::string, EvaluatorFactory>& evaluatorFactories() {
  static std::map<std::string, EvaluatorFactory> factories;
  return factories;
}
}  // namespace

EvaluatorRegistrar::EvaluatorRegistrar(const std::string& type, EvaluatorFactory factory) {
  evaluatorFactories()[type] = std::move(factory);
}

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
  auto& factories = evaluatorFactories();
  auto it = factories.find(type);
  if (it == factories.end()) {
    std::string known;
    for (const auto& f : factories) known += (known.empty() ? "" : ", ") + f.first;
    throw ConfigError(str("evaluator '", name, "': unknown type '", type, "' (known: ", known, ")"));
  }
  std::unique_ptr<Evaluator> e = it->second(config, gm);
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

std::vector<EvaluatorField> evaluatorsFields(const std::vector<std::unique_ptr<Evaluator>>& evaluators) {
  std::vector<EvaluatorField> out;
  for (auto& e : evaluators) {
    for (EvaluatorField& f : e->fields()) out.push_back(std::move(f));
  }
  return out;
}

}  // namespace paddle
