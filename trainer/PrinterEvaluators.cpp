// Printers: value_printer, gradient_printer, max_id_printer, seq_text_printer.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <iostream>

#include "trainer/EvaluatorHelpers.h"
#include "trainer/RecurrentGroup.h"

namespace paddle {
namespace {

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
  std::vector<EvaluatorField> fields() const override { return {}; }
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
    // beam results (several per sample, with scores) only from the beam_search group whose output
    // this prints; other nested sequences (a group generating per sub-sequence) print as v1's
    // nested sequences
    for (auto& l : gm.layers()) {
      auto* group = dynamic_cast<const RecurrentLayerGroup*>(l.get());
      if (group && group->generatesInto(inputs_.back())) scoreLayer_ = l.get();
    }
    if (!resultFile_.empty()) {
      out_.open(resultFile_, std::ios::trunc);
      PADDLE_ENFORCE(out_.good(), IOError, "evaluator '", name_, "': cannot write result_file '", resultFile_, "'");
    }
  }
  bool isPrinter() const override { return true; }
  std::vector<EvaluatorField> fields() const override { return {}; }

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

}  // namespace

static const EvaluatorRegistrar kValuePrinter("value_printer", [](const Json& c, const GradientMachine&) {
  return std::unique_ptr<Evaluator>(new Printer(c, "value"));
});
static const EvaluatorRegistrar kGradientPrinter("gradient_printer", [](const Json& c, const GradientMachine&) {
  return std::unique_ptr<Evaluator>(new Printer(c, "gradient"));
});
static const EvaluatorRegistrar kMaxIdPrinter("max_id_printer", [](const Json& c, const GradientMachine&) {
  return std::unique_ptr<Evaluator>(new Printer(c, "ids"));
});
static const EvaluatorRegistrar kSeqTextPrinter("seq_text_printer", [](const Json& c, const GradientMachine& gm) {
  return std::unique_ptr<Evaluator>(new SeqTextPrinter(c, gm));
});

}  // namespace paddle
