// The engine's JSON value, read and written with nlohmann-json: the config the
// Python front end hands to the engine (protobuf's JSON mapping of v1's
// ModelConfig / TrainerConfig messages) and the optimizer state.
//
// A config message is parsed schema-typed, Json::parse(text, "ModelConfig"):
// its objects know their message type (engine/ConfigSchema.h, generated from
// the .proto), a field read names no default (getInt("num_filters")), an
// unknown field name throws ConfigError, and an unset field reads as its .proto
// default. Other JSON (the optimizer state) is parsed untyped and its reads
// state their defaults (getInt("step", 1)).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace paddle {

struct ConfigField;
struct ConfigMessage;
enum class ConfigKind;

class Json {
 public:
  enum class Type { Null, Bool, Number, String, Array, Object };

  Json() = default;
  static Json parse(const std::string& text);  // throws ConfigError
  // protobuf JSON of the config message `message` ("ModelConfig"): also throws
  // ConfigError for a field the message does not have.
  static Json parse(const std::string& text, const std::string& message);

  Type type() const { return type_; }
  bool isNull() const { return type_ == Type::Null; }
  bool has(const std::string& key) const;  // present and not null (protobuf's JSON: null is unset)
  // The config message type of a schema-typed object (or of a list's elements); null when untyped.
  const ConfigMessage* message() const { return message_; }

  // Missing keys and out-of-range indices give a null value (in a typed value,
  // an unset sub-message reads as one of its type, so its reads give defaults).
  const Json& operator[](const std::string& key) const;
  const Json& operator[](size_t i) const;
  size_t size() const;  // elements of an array, members of an object

  // Conversions throw ConfigError naming the expected type. Protobuf's JSON
  // mapping writes 64-bit integers as strings; asInt accepts both forms.
  double asDouble() const;
  int64_t asInt() const;
  bool asBool() const;
  const std::string& asString() const;

  // Fields of a schema-typed config message; unset fields give the .proto default.
  double getDouble(const std::string& key) const;
  int64_t getInt(const std::string& key) const;
  bool getBool(const std::string& key) const;
  std::string getString(const std::string& key) const;

  // Untyped JSON only: absent keys give `def`.
  double getDouble(const std::string& key, double def) const;
  int64_t getInt(const std::string& key, int64_t def) const;
  bool getBool(const std::string& key, bool def) const;
  std::string getString(const std::string& key, const std::string& def) const;

  // List fields (typed or untyped); absent ones are empty.
  std::vector<std::string> getStrings(const std::string& key) const;
  std::vector<int64_t> getInts(const std::string& key) const;

  // Compact JSON text of this value (numbers round-trip; strings escaped).
  std::string dump() const;

  const std::vector<Json>& items() const { return array_; }
  const std::vector<std::pair<std::string, Json>>& members() const { return object_; }

 private:
  friend class JsonParser;
  friend class ConfigRegistry;
  void applySchema(const ConfigMessage& message, const std::string& path);
  const ConfigMessage* typedMessage() const;          // the message of a typed object (not of a list)
  const Json& member(const std::string& key) const;  // no schema check
  // The typed field `key`, checked to be of `kind` (list or not as `repeated`).
  const ConfigField& typedField(const std::string& key, ConfigKind kind, bool repeated) const;
  template <typename T, typename F>
  T typedGet(const std::string& key, ConfigKind kind, F convert) const;

  Type type_ = Type::Null;
  const ConfigMessage* message_ = nullptr;
  bool bool_ = false;
  double number_ = 0;
  bool isInteger_ = false;  // written as an integer that fits int64: integer_ holds it exactly
  int64_t integer_ = 0;
  std::string string_;
  std::vector<Json> array_;
  std::vector<std::pair<std::string, Json>> object_;
};

}  // namespace paddle
