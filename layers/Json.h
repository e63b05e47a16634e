// A small JSON reader for the config the Python front end hands to the engine
// (protobuf's JSON mapping of v1's ModelConfig / TrainerConfig messages).
// Absent fields read as null, so callers state v1's default at each use.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace paddle {

class Json {
 public:
  enum class Type { Null, Bool, Number, String, Array, Object };

  Json() = default;
  static Json parse(const std::string& text);  // throws ConfigError

  Type type() const { return type_; }
  bool isNull() const { return type_ == Type::Null; }
  bool has(const std::string& key) const;

  // Missing keys and out-of-range indices give a null value.
  const Json& operator[](const std::string& key) const;
  const Json& operator[](size_t i) const;
  size_t size() const;  // elements of an array, members of an object

  // Conversions throw ConfigError naming the expected type. Protobuf's JSON
  // mapping writes 64-bit integers as strings; asInt accepts both forms.
  double asDouble() const;
  int64_t asInt() const;
  bool asBool() const;
  const std::string& asString() const;

  double getDouble(const std::string& key, double def) const;
  int64_t getInt(const std::string& key, int64_t def) const;
  bool getBool(const std::string& key, bool def) const;
  std::string getString(const std::string& key, const std::string& def) const;
  std::vector<std::string> getStrings(const std::string& key) const;
  std::vector<int64_t> getInts(const std::string& key) const;

  const std::vector<Json>& items() const { return array_; }
  const std::vector<std::pair<std::string, Json>>& members() const { return object_; }

 private:
  friend class JsonParser;
  Type type_ = Type::Null;
  bool bool_ = false;
  double number_ = 0;
  std::string string_;
  std::vector<Json> array_;
  std::vector<std::pair<std::string, Json>> object_;
};

}  // namespace paddle
