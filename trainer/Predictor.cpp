#include "trainer/Predictor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "engine/Checksum.h"
#include "engine/Errors.h"
#include "engine/InputFile.h"
#include "engine/math/ThreadPool.h"
#include "layers/InferenceFusion.h"
#include "trainer/FoldBatchNorm.h"

namespace paddle {

namespace {
const char kMagic[8] = {'P', 'D', 'M', 'E', 'R', 'G', 'E', 'D'};
const uint32_t kVersion = 2;  // 2: a CRC-32C after the config and after each parameter entry (1: none)
// the front end's data (py_paddle/deploy.py): 2 carries its own checksum, 1 (earlier files) none
const char kTrailerMagic[8] = {'P', 'D', 'E', 'X', 'T', 'R', 'A', '2'};
const char kUncheckedTrailerMagic[8] = {'P', 'D', 'E', 'X', 'T', 'R', 'A', '1'};

template <typename T>
void put(std::ostream& out, T v) {
  out.write(reinterpret_cast<const char*>(&v), sizeof(v));
}

template <typename T>
T get(std::istream& in, const std::string& path, const char* what) {
  T v{};
  in.read(reinterpret_cast<char*>(&v), sizeof(v));
  PADDLE_ENFORCE(in.gcount() == sizeof(v), IOError, "merged model '", path, "' is truncated (at its ", what, ")");
  return v;
}

// Bytes left after the read position: a declared size is checked against them before
// anything of that size is allocated (a damaged size would ask for terabytes).
uint64_t bytesLeft(std::istream& in) {
  const std::streampos pos = in.tellg();
  in.seekg(0, std::ios::end);
  const std::streampos end = in.tellg();
  in.seekg(pos);
  return end > pos ? static_cast<uint64_t>(end - pos) : 0;
}

std::string getString(std::istream& in, uint64_t size, const std::string& path, const char* what) {
  PADDLE_ENFORCE(size <= bytesLeft(in), IOError, "merged model '", path, "' is truncated (its ", what, " size says ",
                 size, " bytes, ", bytesLeft(in), " remain)");
  std::string s(size, '\0');
  in.read(&s[0], static_cast<std::streamsize>(size));
  PADDLE_ENFORCE(static_cast<uint64_t>(in.gcount()) == size, IOError, "merged model '", path,
                 "' is truncated (in its ", what, ")");
  return s;
}

// The ModelConfig text with the evaluators' result_file removed: a model file is data and
// does not choose files to write (a printer writes to stderr instead).
std::string withoutWrittenFiles(const std::string& config) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(config);
  } catch (const std::exception& e) {
    throw ConfigError(str("not JSON: ", e.what()));
  }
  if (!j.is_object() || !j.contains("evaluators") || !j["evaluators"].is_array()) return config;
  for (auto& e : j["evaluators"]) {
    if (e.is_object()) e.erase("result_file");
  }
  return j.dump();
}

// A merged model may end with data for the Python front end (the readers' fitted
// preprocessing as JSON): its bytes, their uint64 size and "PDEXTRA2" (or "PDEXTRA1"). The
// engine skips it; anything else after the last parameter is damage.
bool frontEndTrailerFits(std::istream& in) {
  const uint64_t rest = bytesLeft(in);
  if (rest == 0) return true;
  if (rest < sizeof(uint64_t) + sizeof(kTrailerMagic)) return false;
  in.seekg(-static_cast<std::streamoff>(sizeof(uint64_t) + sizeof(kTrailerMagic)), std::ios::end);
  uint64_t size = 0;
  char magic[sizeof(kTrailerMagic)] = {};
  in.read(reinterpret_cast<char*>(&size), sizeof(size));
  in.read(magic, sizeof(magic));
  return in.good() &&
         (std::memcmp(magic, kTrailerMagic, sizeof(magic)) == 0 ||
          std::memcmp(magic, kUncheckedTrailerMagic, sizeof(magic)) == 0) &&
         size == rest - sizeof(uint64_t) - sizeof(kTrailerMagic);
}

// Passes what is written on to another stream's buffer and keeps the CRC-32C of it.
class ChecksummingBuf : public std::streambuf {
 public:
  ChecksummingBuf(std::streambuf* out, uint32_t crc) : out_(out), crc_(crc) {}
  uint32_t crc() const { return crc_; }

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    crc_ = crc32c(crc_, s, static_cast<size_t>(n));
    return out_->sputn(s, n);
  }
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    crc_ = crc32c(crc_, &ch, 1);
    return out_->sputc(ch);
  }

 private:
  std::streambuf* out_;
  uint32_t crc_;
};

// Checks the CRC-32C after the parameter record at the read position (v1's header, then its
// float32 values), continuing `crc` (its name's), before the record is parsed: a damaged
// value is reported as damage, not as whatever it decoded to. Leaves the position unchanged.
void checkEntry(std::istream& in, uint32_t crc, const std::string& what) {
  const std::streampos start = in.tellg();
  char header[16];
  in.read(header, sizeof(header));
  PADDLE_ENFORCE(in.gcount() == sizeof(header), IOError, what, " is too short for a parameter header");
  uint64_t count = 0;
  std::memcpy(&count, header + 8, sizeof(count));
  PADDLE_ENFORCE(count <= bytesLeft(in) / sizeof(float), IOError, what, " is truncated (its header says ", count,
                 " values)");
  crc = crc32c(crc, header, sizeof(header));
  // (1 MB at most at a time; a small record gets a buffer of its own size, not a cleared megabyte)
  std::vector<char> chunk(static_cast<size_t>(std::min<uint64_t>(count * sizeof(float), uint64_t(1) << 20)));
  for (uint64_t left = count * sizeof(float); left > 0;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(left, chunk.size()));
    in.read(chunk.data(), static_cast<std::streamsize>(n));
    crc = crc32c(crc, chunk.data(), n);
    left -= n;
  }
  uint32_t stored = 0;
  in.read(reinterpret_cast<char*>(&stored), sizeof(stored));
  PADDLE_ENFORCE(in.gcount() == sizeof(stored), IOError, what, " is truncated (at its checksum)");
  PADDLE_ENFORCE(stored == crc, IOError, what, " fails its checksum (the file is damaged)");
  in.seekg(start);
}

// A copy the caller owns: the machine that produced `a` is reused by other calls.
Argument ownedCopy(const Argument& a) {
  Argument out;
  if (!a.value.empty()) {
    out.value = Matrix(0, 0, a.value.useGpu());
    out.value.copyFrom(a.value);
  }
  if (!a.ids.empty()) {
    out.ids = IVector(0, 0, a.ids.useGpu());
    out.ids.copyFrom(a.ids);
  }
  if (!a.seqStarts.empty()) out.seqStarts.copyFrom(a.seqStarts);
  if (!a.subSeqStarts.empty()) out.subSeqStarts.copyFrom(a.subSeqStarts);
  out.frameHeight = a.frameHeight;
  out.frameWidth = a.frameWidth;
  return out;
}
// Samples per forward when a Predictor runs a batch in slices (0: whole batches). A conv net's
// activations are what its forward moves (a ResNet-20 layer: 64 KB a sample): in slices of a few
// samples each layer's output is still in cache when the next layer reads it, where a batch of 64
// streams every layer through memory (b64 cost 12% more CPU a sample than b1). Only for layers that
// treat rows alone (the slices then give the whole batch's bits on the packed kernels, which sum
// each element in one order whatever rows a call holds) and small fc weights (each slice reads
// them again). PADDLE_PREDICT_SLICE=n sets n samples (0: off).
size_t sliceRowsFor(const Json& config) {
  if (const char* v = std::getenv("PADDLE_PREDICT_SLICE")) return static_cast<size_t>(std::strtoul(v, nullptr, 10));
  constexpr size_t kSliceFloats = size_t(1) << 14;      // activations a slice's widest layer holds
  constexpr size_t kFcWeightFloats = size_t(1) << 16;  // fc weights read once a slice
  static const std::set<std::string> kRowWise = {"data", "exconv", "cudnn_conv", "batch_norm", "cudnn_batch_norm",
                                                 "addto", "pool", "fc"};
  for (const Json& sub : config["sub_models"].items()) {
    if (sub.getString("name") != "root") return 0;
  }
  std::map<std::string, size_t> sizes;
  bool conv = false;
  size_t widest = 1;
  for (const Json& l : config["layers"].items()) {
    const std::string type = l.getString("type");
    const size_t size = static_cast<size_t>(l.getInt("size"));
    if (!kRowWise.count(type) || l.getDouble("drop_rate") != 0) return 0;
    if (type.find("batch_norm") != std::string::npos && l.has("use_global_stats") && !l.getBool("use_global_stats"))
      return 0;  // batch statistics in testing: rows depend on each other
    if (type == "fc") {
      for (const Json& in : l["inputs"].items()) {
        if (sizes[in.getString("input_layer_name")] * size > kFcWeightFloats) return 0;
      }
    }
    conv = conv || type == "exconv" || type == "cudnn_conv";
    widest = std::max(widest, size);
    sizes[l.getString("name")] = size;
  }
  // a sample for each of the engine's threads (each takes one in a conv layer)
  return conv ? std::max<size_t>(1, kSliceFloats / widest) * static_cast<size_t>(cpuThreads()) : 0;
}

// Whether a batch can run in slices of rows: dense rows only, all on the CPU.
bool denseRows(const std::vector<Argument>& args, size_t rows) {
  for (const Argument& a : args) {
    if (a.value.height() != rows || a.value.useGpu() || !a.ids.empty() || !a.sparse.empty() || a.hasSeq() ||
        a.hasSubSeq())
      return false;
  }
  return !args.empty();
}
}  // namespace

void saveMergedModel(const GradientMachine& gm, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  PADDLE_ENFORCE(out.good(), IOError, "cannot write merged model '", path, "'");
  out.write(kMagic, sizeof(kMagic));
  put(out, kVersion);
  const std::string config = gm.config().dump();
  put<uint64_t>(out, config.size());
  out.write(config.data(), static_cast<std::streamsize>(config.size()));
  put<uint32_t>(out, crc32c(0, config.data(), config.size()));
  put<uint32_t>(out, static_cast<uint32_t>(gm.parameters().size()));
  for (const ParameterPtr& p : gm.parameters()) {
    put<uint32_t>(out, static_cast<uint32_t>(p->name().size()));
    out.write(p->name().data(), static_cast<std::streamsize>(p->name().size()));
    ChecksummingBuf buf(out.rdbuf(), crc32c(0, p->name().data(), p->name().size()));
    std::ostream record(&buf);  // the record streams to the file, its checksum taken on the way
    p->write(record);
    PADDLE_ENFORCE(record.good(), IOError, "failed writing merged model '", path, "' (parameter '", p->name(), "')");
    put<uint32_t>(out, buf.crc());
  }
  out.flush();
  PADDLE_ENFORCE(out.good(), IOError, "failed writing merged model '", path, "'");
}

std::shared_ptr<GradientMachine> loadMergedModel(const std::string& path, bool useGpu) {
  std::ifstream in = openInputFile(path, "merged model");
  char magic[sizeof(kMagic)] = {};
  in.read(magic, sizeof(magic));
  PADDLE_ENFORCE(in.gcount() == sizeof(magic) && std::memcmp(magic, kMagic, sizeof(kMagic)) == 0, IOError, "'",
                 path, "' is not a merged model (write one with `paddle merge_model`)");
  const uint32_t version = get<uint32_t>(in, path, "version");
  PADDLE_ENFORCE(version == 1 || version == kVersion, IOError, "merged model '", path, "' has format version ",
                 version, "; this engine reads versions 1 and ", kVersion);
  const bool checksums = version >= 2;
  const std::string config = getString(in, get<uint64_t>(in, path, "config size"), path, "config");
  if (checksums) {
    PADDLE_ENFORCE(get<uint32_t>(in, path, "config checksum") == crc32c(0, config.data(), config.size()), IOError,
                   "merged model '", path, "': its config fails its checksum (the file is damaged)");
  }
  std::shared_ptr<GradientMachine> gm;
  try {
    gm = std::make_shared<GradientMachine>(Json::parse(withoutWrittenFiles(config), "ModelConfig"), useGpu, 1,
                                           false);
  } catch (const ConfigError& e) {
    throw ConfigError(str("merged model '", path, "': its config: ", e.what()));
  } catch (const UnsupportedError& e) {
    throw UnsupportedError(str("merged model '", path, "': its config: ", e.what()));
  }
  const uint32_t count = get<uint32_t>(in, path, "parameter count");
  PADDLE_ENFORCE(count == gm->parameters().size(), IOError, "merged model '", path, "' holds ", count,
                 " parameters but its config defines ", gm->parameters().size());
  std::set<std::string> seen;
  for (uint32_t i = 0; i < count; ++i) {
    const std::string name = getString(in, get<uint32_t>(in, path, "parameter name size"), path, "parameter name");
    // count == the config's parameters, so a name twice means another one is missing
    PADDLE_ENFORCE(seen.insert(name).second, IOError, "merged model '", path, "' holds parameter '", name,
                   "' twice (entry ", i + 1, " of ", count, ")");
    const std::string what = "merged model '" + path + "' (parameter '" + name + "')";
    Parameter* p = nullptr;
    try {
      p = gm->parameter(name);
    } catch (const std::exception&) {
      throw IOError(str(what, ": its config defines no parameter of that name"));
    }
    if (checksums) checkEntry(in, crc32c(0, name.data(), name.size()), what);
    p->read(in, what);  // (refuses NaN and inf)
    if (checksums) get<uint32_t>(in, path, "parameter checksum");  // (checked above)
  }
  PADDLE_ENFORCE(frontEndTrailerFits(in), IOError, "merged model '", path, "' has bytes after its last parameter");
  return gm;
}

Predictor::Predictor(const std::string& path, bool useGpu) : main_(loadMergedModel(path, useGpu)) {
  if (batchNormFoldingEnabled()) {
    values_ = foldBatchNormForInference(*main_, &foldedBatchNorms_);
    fuseBatchNorms_ = batchNormFusionEnabled();
    if (fuseBatchNorms_) residualSums_ = residualSumsOnFolded(main_->config(), foldedBatchNorms_);
  } else {
    for (const ParameterPtr& p : main_->parameters()) values_.push_back(p->value());
  }
  if (useGpu || !math::packedGemmSupported()) return;  // products stay on OpenBLAS
  for (const Matrix& v : values_) {
    if (!v.empty()) packed_.add(v.data(), v.height(), v.width());
  }
  sliceRows_ = sliceRowsFor(main_->config());
}

std::unique_ptr<GradientMachine> Predictor::acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      std::unique_ptr<GradientMachine> m = std::move(idle_.back());
      idle_.pop_back();
      return m;
    }
  }
  auto m = std::make_unique<GradientMachine>(main_->config(), main_->useGpu(), 1, false);
  for (size_t k = 0; k < m->parameters().size(); ++k) {
    m->parameters()[k]->value() = values_[k];  // one copy of the weights
  }
  // a folded batch norm's shift (and relu) done by its conv as it stores each sample
  // (layers/InferenceFusion.h); PADDLE_FUSE_BN=0 keeps them apart
  if (fuseBatchNorms_) {
    for (const std::string& name : foldedBatchNorms_) {
      if (auto* bn = dynamic_cast<FusesIntoInput*>(m->layer(name))) bn->fuseIntoInput();
    }
    for (const auto& sum : residualSums_) {
      if (auto* addto = dynamic_cast<FusesResidualSum*>(m->layer(sum.first))) addto->fuseIntoInput(sum.second);
    }
  }
  return m;
}

std::vector<Argument> Predictor::forward(const std::vector<Argument>& inArgs) {
  std::unique_ptr<GradientMachine> m = acquire();
  std::vector<Argument> out;
  try {
    math::PackedWeightsScope packed(&packed_);
    const size_t rows = inArgs.empty() ? 0 : inArgs[0].batchSize();
    if (sliceRows_ && rows > sliceRows_ && denseRows(inArgs, rows)) {
      forwardInSlices(*m, inArgs, rows, &out);
    } else {
      m->forward(inArgs, PASS_TEST);
      for (Argument* a : m->outputs()) out.push_back(ownedCopy(*a));
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    idle_.push_back(std::move(m));
    throw;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(std::move(m));
  return out;
}

void Predictor::forwardInSlices(GradientMachine& m, const std::vector<Argument>& inArgs, size_t rows,
                                std::vector<Argument>* out) {
  for (size_t s0 = 0; s0 < rows; s0 += sliceRows_) {
    const size_t s1 = std::min(rows, s0 + sliceRows_);
    std::vector<Argument> slice(inArgs.size());
    for (size_t i = 0; i < inArgs.size(); ++i) {
      slice[i].value = inArgs[i].value.rows(s0, s1);  // a view
      slice[i].frameHeight = inArgs[i].frameHeight;
      slice[i].frameWidth = inArgs[i].frameWidth;
    }
    m.forward(slice, PASS_TEST);
    const std::vector<Argument*>& outs = m.outputs();
    for (size_t k = 0; k < outs.size(); ++k) {
      const Argument& a = *outs[k];
      PADDLE_ENFORCE(a.value.height() == s1 - s0 && a.ids.empty() && !a.hasSeq(), DataError,
                     "a sliced forward's output ", k, " is not one dense row a sample");
      if (s0 == 0) {
        out->emplace_back();
        (*out)[k].value = Matrix(rows, a.value.width(), false);
        (*out)[k].frameHeight = a.frameHeight;
        (*out)[k].frameWidth = a.frameWidth;
      }
      std::copy(a.value.data(), a.value.data() + a.value.size(), (*out)[k].value.row(s0));
    }
  }
}

}  // namespace paddle
