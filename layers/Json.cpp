#include "Json.h"

#include <cmath>
#include <cstdlib>

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

bool Json::has(const std::string& key) const {
  for (auto& m : object_) if (m.first == key) return true;
  return false;
}

const Json& Json::operator[](const std::string& key) const {
  for (auto& m : object_) if (m.first == key) return m.second;
  return kNull;
}

const Json& Json::operator[](size_t i) const { return i < array_.size() ? array_[i] : kNull; }

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

namespace {
template <typename T, typename F>
T getField(const Json& obj, const std::string& key, T def, F convert) {
  const Json& v = obj[key];
  if (v.isNull()) return def;
  try {
    return convert(v);
  } catch (const ConfigError& e) {
    throw ConfigError(str("field '", key, "': ", e.what()));
  }
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
  std::vector<std::string> out;
  try {
    for (auto& v : (*this)[key].items()) out.push_back(v.asString());
  } catch (const ConfigError& e) {
    throw ConfigError(str("field '", key, "': ", e.what()));
  }
  return out;
}
std::vector<int64_t> Json::getInts(const std::string& key) const {
  std::vector<int64_t> out;
  try {
    for (auto& v : (*this)[key].items()) out.push_back(v.asInt());
  } catch (const ConfigError& e) {
    throw ConfigError(str("field '", key, "': ", e.what()));
  }
  return out;
}

}  // namespace paddle
