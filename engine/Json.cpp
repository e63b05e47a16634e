#include "engine/Json.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "engine/ConfigSchema.h"
#include "engine/Errors.h"

namespace paddle {

namespace {
const Json kNull;

const char* typeName(Json::Type t) {
  switch (t) {
    case Json::Type::Null: return "null";
    case Json::Type::Bool: return "a boolean";
    case Json::Type::Number: return "a number";
    case Json::Type::String: return "a string";
    case Json::Type::Array: return "a list";
    case Json::Type::Object: return "an object";
  }
  return "?";
}
}  // namespace

// Documents come from our own front end, from optimizer state files on disk and
// from SWIG callers, so nesting is bounded: the converter below recurses.
constexpr int kMaxDepth = 256;

class JsonParser {
 public:
  // ordered_json keeps members in the document's order, as the engine's Json does.
  static Json convert(const nlohmann::ordered_json& j) {
    Json v;
    switch (j.type()) {
      case nlohmann::ordered_json::value_t::null: break;
      case nlohmann::ordered_json::value_t::boolean:
        v.type_ = Json::Type::Bool;
        v.bool_ = j.get<bool>();
        break;
      case nlohmann::ordered_json::value_t::number_integer:
        v.type_ = Json::Type::Number;
        v.isInteger_ = true;
        v.integer_ = j.get<int64_t>();
        v.number_ = static_cast<double>(v.integer_);
        break;
      case nlohmann::ordered_json::value_t::number_unsigned:  // any integer >= 0; above INT64_MAX not an int64
        v.type_ = Json::Type::Number;
        v.number_ = static_cast<double>(j.get<uint64_t>());
        v.isInteger_ = j.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX);
        v.integer_ = static_cast<int64_t>(j.get<uint64_t>());
        break;
      case nlohmann::ordered_json::value_t::number_float:
        v.type_ = Json::Type::Number;
        v.number_ = j.get<double>();
        break;
      case nlohmann::ordered_json::value_t::string:
        v.type_ = Json::Type::String;
        v.string_ = j.get<std::string>();
        break;
      case nlohmann::ordered_json::value_t::array:
        v.type_ = Json::Type::Array;
        v.array_.reserve(j.size());
        for (const auto& e : j) v.array_.push_back(convert(e));
        break;
      case nlohmann::ordered_json::value_t::object:
        v.type_ = Json::Type::Object;
        v.object_.reserve(j.size());
        for (auto it = j.begin(); it != j.end(); ++it) v.object_.emplace_back(it.key(), convert(it.value()));
        break;
      default: throw ConfigError("invalid config JSON: binary values are not JSON");
    }
    return v;
  }

  static nlohmann::ordered_json toLibrary(const Json& v) {
    switch (v.type_) {
      case Json::Type::Null: return nullptr;
      case Json::Type::Bool: return v.bool_;
      case Json::Type::Number:
        if (v.isInteger_) return v.integer_;
        return v.number_;
      case Json::Type::String: return v.string_;
      case Json::Type::Array: {
        nlohmann::ordered_json a = nlohmann::ordered_json::array();
        for (const auto& e : v.array_) a.push_back(toLibrary(e));
        return a;
      }
      case Json::Type::Object: {
        nlohmann::ordered_json o = nlohmann::ordered_json::object();
        for (const auto& kv : v.object_) o[kv.first] = toLibrary(kv.second);
        return o;
      }
    }
    return nullptr;
  }
};

Json Json::parse(const std::string& text) {
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(text, [](int depth, nlohmann::ordered_json::parse_event_t, nlohmann::ordered_json&) {
      if (depth > kMaxDepth) throw ConfigError(str("invalid JSON: nested deeper than ", kMaxDepth, " levels"));
      return true;
    });
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(str("invalid JSON: ", e.what()));
  }
  return JsonParser::convert(j);
}

Json Json::parse(const std::string& text, const std::string& message) {
  Json v = parse(text);
  v.applySchema(configMessage(message), "");
  return v;
}

// Marks this object and its sub-messages with their message types; refuses
// fields the messages do not have. `path` locates the object in error messages.
void Json::applySchema(const ConfigMessage& m, const std::string& path) {
  message_ = &m;
  if (type_ == Type::Null) return;  // protobuf's JSON: null is an unset field
  const std::string where = path.empty() ? "" : str(" (at ", path, ")");
  if (type_ != Type::Object) throw ConfigError(str(m.name, where, ": expected an object, got ", typeName(type_)));
  for (auto& kv : object_) {
    auto it = m.fields.find(kv.first);
    if (it == m.fields.end()) throw ConfigError(str(m.name, " has no field '", kv.first, "'", where));
    const ConfigField& f = it->second;
    if (f.kind != ConfigKind::Message) continue;
    Json& v = kv.second;
    const std::string at = path.empty() ? kv.first : str(path, ".", kv.first);
    if (!f.repeated) {
      v.applySchema(*f.type, at);
      continue;
    }
    if (v.isNull()) continue;
    if (v.type_ != Type::Array) throw ConfigError(str(m.name, " field '", kv.first, "'", where,
                                                      ": expected a list, got ", typeName(v.type_)));
    v.message_ = f.type;
    for (size_t i = 0; i < v.array_.size(); ++i) v.array_[i].applySchema(*f.type, str(at, "[", i, "]"));
  }
}

const ConfigMessage* Json::typedMessage() const { return type_ == Type::Array ? nullptr : message_; }

const Json& Json::member(const std::string& key) const {
  for (auto& m : object_) if (m.first == key) return m.second;
  return kNull;
}

bool Json::has(const std::string& key) const {
  if (const ConfigMessage* m = typedMessage()) m->field(key);  // throws for unknown names
  return !member(key).isNull();
}

const Json& Json::operator[](const std::string& key) const {
  const Json& v = member(key);
  const ConfigMessage* m = typedMessage();
  if (!m || !v.isNull()) return v;
  const ConfigField& f = m->field(key);
  if (f.kind != ConfigKind::Message) return v;
  return f.repeated ? f.type->absentList : f.type->absent;
}

const Json& Json::operator[](size_t i) const {
  if (i < array_.size()) return array_[i];
  return message_ ? message_->absent : kNull;
}

size_t Json::size() const { return type_ == Type::Object ? object_.size() : array_.size(); }

double Json::asDouble() const {
  if (type_ == Type::Number) return number_;
  if (type_ == Type::String) {  // protobuf JSON: "NaN", "Infinity", int64 as string
    if (string_ == "NaN") return NAN;
    if (string_ == "Infinity") return INFINITY;
    if (string_ == "-Infinity") return -INFINITY;
    char* end = nullptr;
    double d = std::strtod(string_.c_str(), &end);
    if (end && *end == '\0' && !string_.empty()) return d;
  }
  throw ConfigError(str("expected a number, got ", typeName(type_)));
}

int64_t Json::asInt() const {
  if (type_ == Type::Number && isInteger_) return integer_;
  if (type_ == Type::String) {  // protobuf's JSON writes 64-bit integers as strings
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(string_.c_str(), &end, 10);
    if (end && *end == '\0' && !string_.empty()) {
      if (errno == ERANGE) throw ConfigError(str("integer ", string_, " is outside the 64-bit range"));
      return v;
    }
  }
  double d = asDouble();
  if (std::floor(d) != d) throw ConfigError(str("expected an integer, got ", d));
  // 2^63 is the first double outside int64; casting it or beyond is undefined
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
    throw ConfigError(str("integer ", d, " is outside the 64-bit range"));
  }
  return static_cast<int64_t>(d);
}

bool Json::asBool() const {
  if (type_ != Type::Bool) throw ConfigError(str("expected a boolean, got ", typeName(type_)));
  return bool_;
}

const std::string& Json::asString() const {
  if (type_ == Type::String) return string_;
  // Enum values may be written as numbers by other producers; refuse clearly.
  throw ConfigError(str("expected a string, got ", typeName(type_)));
}

const ConfigField& Json::typedField(const std::string& key, ConfigKind kind, bool repeated) const {
  const ConfigMessage* m = typedMessage();
  if (!m) throw std::logic_error(str("reading '", key, "' without a default needs a schema-typed config message"));
  const ConfigField& f = m->field(key);
  bool sameKind = f.kind == kind || (kind == ConfigKind::String && f.kind == ConfigKind::Enum);
  if (!sameKind || f.repeated != repeated) {
    throw std::logic_error(str(m->name, ".", key, " (", f.repeated ? "repeated " : "", configKindName(f.kind),
                               ") read as ", repeated ? "repeated " : "", configKindName(kind)));
  }
  return f;
}

template <typename T, typename F>
T Json::typedGet(const std::string& key, ConfigKind kind, F convert) const {
  const ConfigField& f = typedField(key, kind, false);
  const Json& v = member(key);
  try {
    return convert(v.isNull() ? f.defaultValue : v);
  } catch (const ConfigError& e) {
    throw ConfigError(str(message_->name, " field '", key, "': ", e.what()));
  }
}

double Json::getDouble(const std::string& key) const {
  return typedGet<double>(key, ConfigKind::Double, [](const Json& v) { return v.asDouble(); });
}
int64_t Json::getInt(const std::string& key) const {
  return typedGet<int64_t>(key, ConfigKind::Int, [](const Json& v) { return v.asInt(); });
}
bool Json::getBool(const std::string& key) const {
  return typedGet<bool>(key, ConfigKind::Bool, [](const Json& v) { return v.asBool(); });
}
std::string Json::getString(const std::string& key) const {
  return typedGet<std::string>(key, ConfigKind::String, [](const Json& v) { return v.asString(); });
}

namespace {
template <typename T, typename F>
T getField(const Json& obj, const std::string& key, T def, F convert) {
  // A config message's defaults live in the .proto, not at the read.
  if (obj.message() && obj.type() != Json::Type::Array) {
    throw std::logic_error(
        str(obj.message()->name, ".", key, ": a config field takes its default from the .proto, read it without one"));
  }
  const Json& v = obj[key];
  if (v.isNull()) return def;
  try {
    return convert(v);
  } catch (const ConfigError& e) {
    throw ConfigError(str("field '", key, "': ", e.what()));
  }
}

template <typename T, typename F>
std::vector<T> getList(const Json& list, const std::string& key, F convert) {
  std::vector<T> out;
  try {
    for (auto& v : list.items()) out.push_back(convert(v));
  } catch (const ConfigError& e) {
    throw ConfigError(str("field '", key, "': ", e.what()));
  }
  return out;
}
}  // namespace

double Json::getDouble(const std::string& key, double def) const {
  return getField(*this, key, def, [](const Json& v) { return v.asDouble(); });
}
int64_t Json::getInt(const std::string& key, int64_t def) const {
  return getField(*this, key, def, [](const Json& v) { return v.asInt(); });
}
bool Json::getBool(const std::string& key, bool def) const {
  return getField(*this, key, def, [](const Json& v) { return v.asBool(); });
}
std::string Json::getString(const std::string& key, const std::string& def) const {
  return getField(*this, key, def, [](const Json& v) { return v.asString(); });
}
std::vector<std::string> Json::getStrings(const std::string& key) const {
  if (typedMessage()) typedField(key, ConfigKind::String, true);
  return getList<std::string>(member(key), key, [](const Json& v) { return v.asString(); });
}
std::vector<int64_t> Json::getInts(const std::string& key) const {
  if (typedMessage()) typedField(key, ConfigKind::Int, true);
  return getList<int64_t>(member(key), key, [](const Json& v) { return v.asInt(); });
}

std::string Json::dump() const { return JsonParser::toLibrary(*this).dump(); }

}  // namespace paddle
