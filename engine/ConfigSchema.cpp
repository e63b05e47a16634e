#include "engine/ConfigSchema.h"

#include <cstdlib>

#include "engine/Errors.h"

namespace paddle {

namespace {
struct SchemaRow {
  const char* message;
  const char* field;
  ConfigKind kind;
  bool repeated;
  const char* subMessage;
  const char* defaultText;
};

const SchemaRow kSchemaRows[] = {
#include "engine/ConfigSchema.inc"
};
}  // namespace

// Builds the messages from kSchemaRows once; Json's members are private to it.
class ConfigRegistry {
 public:
  static const ConfigRegistry& instance() {
    static const ConfigRegistry registry;
    return registry;
  }
  std::unordered_map<std::string, ConfigMessage> messages;

 private:
  ConfigRegistry() {
    for (const SchemaRow& row : kSchemaRows) {
      ConfigMessage& m = message(row.message);
      ConfigField f{row.field, row.kind, row.repeated, nullptr, Json()};
      if (row.kind == ConfigKind::Message) f.type = &message(row.subMessage);
      if (!row.repeated) f.defaultValue = scalarDefault(row.kind, row.defaultText);
      m.fields.emplace(row.field, std::move(f));
    }
  }

  ConfigMessage& message(const std::string& name) {
    auto it = messages.find(name);
    if (it != messages.end()) return it->second;
    ConfigMessage& m = messages[name];  // node-based map: the address stays valid
    m.name = name;
    m.absent.message_ = &m;
    m.absentList.type_ = Json::Type::Array;
    m.absentList.message_ = &m;
    return m;
  }

  static Json scalarDefault(ConfigKind kind, const std::string& text) {
    Json v;
    switch (kind) {
      case ConfigKind::Bool:
        v.type_ = Json::Type::Bool;
        v.bool_ = text == "true";
        break;
      case ConfigKind::Double:
        v.type_ = Json::Type::Number;
        v.number_ = std::strtod(text.c_str(), nullptr);
        break;
      case ConfigKind::Int:  // as protobuf's JSON writes 64-bit integers: exact beyond 2^53
      case ConfigKind::String:
      case ConfigKind::Enum:
        v.type_ = Json::Type::String;
        v.string_ = text;
        break;
      case ConfigKind::Message:
        break;
    }
    return v;
  }
};

const char* configKindName(ConfigKind k) {
  switch (k) {
    case ConfigKind::Bool: return "bool";
    case ConfigKind::Int: return "integer";
    case ConfigKind::Double: return "floating-point";
    case ConfigKind::String: return "string";
    case ConfigKind::Enum: return "enum";
    case ConfigKind::Message: return "message";
  }
  return "?";
}

const ConfigField& ConfigMessage::field(const std::string& fieldName) const {
  auto it = fields.find(fieldName);
  if (it == fields.end()) throw ConfigError(str(name, " has no field '", fieldName, "'"));
  return it->second;
}

const ConfigMessage& configMessage(const std::string& name) {
  const auto& messages = ConfigRegistry::instance().messages;
  auto it = messages.find(name);
  if (it == messages.end()) throw ConfigError(str("no config message named '", name, "'"));
  return it->second;
}

}  // namespace paddle
