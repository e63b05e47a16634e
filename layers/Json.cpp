#include "Json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "ConfigSchema.h"
#include "Errors.h"

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

class JsonParser {
 public:
  explicit JsonParser(const std::string& s) : s_(s) {}

  Json parseDocument() {
    Json v = parseValue();
    skipSpace();
    if (pos_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  const std::string& s_;
  size_t pos_ = 0;

  [[noreturn]] void fail(const std::string& what) {
    throw ConfigError(str("invalid config JSON at offset ", pos_, ": ", what));
  }
  void skipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r')) ++pos_;
  }
  bool consume(const char* word) {
    size_t n = std::char_traits<char>::length(word);
    if (s_.compare(pos_, n, word) == 0) { pos_ += n; return true; }
    return false;
  }
  void expect(char c) {
    skipSpace();
    if (pos_ >= s_.size() || s_[pos_] != c) fail(str("expected '", c, "'"));
    ++pos_;
  }

  Json parseValue() {
    skipSpace();
    if (pos_ >= s_.size()) fail("unexpected end");
    Json v;
    char c = s_[pos_];
    if (c == '{') {
      v.type_ = Json::Type::Object;
      ++pos_;
      skipSpace();
      if (pos_ < s_.size() && s_[pos_] == '}') { ++pos_; return v; }
      while (true) {
        skipSpace();
        std::string key = parseString();
        expect(':');
        v.object_.emplace_back(std::move(key), parseValue());
        skipSpace();
        if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
        expect('}');
        return v;
      }
    }
    if (c == '[') {
      v.type_ = Json::Type::Array;
      ++pos_;
      skipSpace();
      if (pos_ < s_.size() && s_[pos_] == ']') { ++pos_; return v; }
      while (true) {
        v.array_.push_back(parseValue());
        skipSpace();
        if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
        expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.type_ = Json::Type::String;
      v.string_ = parseString();
      return v;
    }
    if (consume("true")) { v.type_ = Json::Type::Bool; v.bool_ = true; return v; }
    if (consume("false")) { v.type_ = Json::Type::Bool; return v; }
    if (consume("null")) return v;
    const char* begin = s_.c_str() + pos_;
    char* end = nullptr;
    double d = std::strtod(begin, &end);
    if (end == begin) fail("unexpected character");
    pos_ += static_cast<size_t>(end - begin);
    v.type_ = Json::Type::Number;
    v.number_ = d;
    return v;
  }

  std::string parseString() {
    if (pos_ >= s_.size() || s_[pos_] != '"') fail("expected a string");
    ++pos_;
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c != '\\') { out += c; continue; }
      if (pos_ >= s_.size()) break;
      char e = s_[pos_++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          if (pos_ + 4 > s_.size()) fail("bad \\u escape");
          unsigned cp = std::stoul(s_.substr(pos_, 4), nullptr, 16);
          pos_ += 4;
          if (cp >= 0xD800 && cp <= 0xDBFF && s_.compare(pos_, 2, "\\u") == 0) {  // surrogate pair
            unsigned lo = std::stoul(s_.substr(pos_ + 2, 4), nullptr, 16);
            pos_ += 6;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          if (cp < 0x80) {
            out += static_cast<char>(cp);
          } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          } else {
            out += static_cast<char>(0xF0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          }
          break;
        }
        default: out += e;  // \" \\ \/
      }
    }
    if (pos_ >= s_.size()) fail("unterminated string");
    ++pos_;
    return out;
  }
};

Json Json::parse(const std::string& text) { return JsonParser(text).parseDocument(); }

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
  if (type_ == Type::String) {
    char* end = nullptr;
    long long v = std::strtoll(string_.c_str(), &end, 10);
    if (end && *end == '\0' && !string_.empty()) return v;
  }
  double d = asDouble();
  if (std::floor(d) != d) throw ConfigError(str("expected an integer, got ", d));
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

namespace {
void dumpString(const std::string& s, std::string& out) {
  out += '"';
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (ch < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", ch);
          out += buf;
        } else {
          out += static_cast<char>(ch);
        }
    }
  }
  out += '"';
}

void dumpValue(const Json& v, std::string& out) {
  switch (v.type()) {
    case Json::Type::Null: out += "null"; break;
    case Json::Type::Bool: out += v.asBool() ? "true" : "false"; break;
    case Json::Type::Number: {
      char buf[32];
      double x = v.asDouble();
      // integers print as such; other values with enough digits to read back exactly
      if (x == std::floor(x) && std::fabs(x) < 9007199254740992.0) {
        std::snprintf(buf, sizeof(buf), "%.0f", x);
      } else {
        std::snprintf(buf, sizeof(buf), "%.17g", x);
      }
      out += buf;
      break;
    }
    case Json::Type::String: dumpString(v.asString(), out); break;
    case Json::Type::Array: {
      out += '[';
      for (size_t i = 0; i < v.items().size(); ++i) {
        if (i) out += ',';
        dumpValue(v.items()[i], out);
      }
      out += ']';
      break;
    }
    case Json::Type::Object: {
      out += '{';
      bool first = true;
      for (const auto& kv : v.members()) {
        if (!first) out += ',';
        first = false;
        dumpString(kv.first, out);
        out += ':';
        dumpValue(kv.second, out);
      }
      out += '}';
      break;
    }
  }
}
}  // namespace

std::string Json::dump() const {
  std::string out;
  dumpValue(*this, out);
  return out;
}

}  // namespace paddle
