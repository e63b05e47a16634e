// The config messages (paddle/proto/*.proto) as the engine sees them: the table
// engine/ConfigSchema.inc, generated from the .proto by tools/gen_config_schema.py.
// A schema-typed Json (Json::parse(text, "ModelConfig")) checks every field
// name it is asked for against this table and answers unset fields with the
// .proto default, so no default is written at a read.
#pragma once
#include <string>
#include <unordered_map>

#include "engine/Json.h"

namespace paddle {

enum class ConfigKind { Bool, Int, Double, String, Enum, Message };

const char* configKindName(ConfigKind k);

struct ConfigMessage;

struct ConfigField {
  std::string name;
  ConfigKind kind;
  bool repeated;
  const ConfigMessage* type;  // the sub-message's type (kind Message), else null
  Json defaultValue;          // the .proto default of a single scalar; null otherwise
};

struct ConfigMessage {
  std::string name;
  std::unordered_map<std::string, ConfigField> fields;
  Json absent;      // an unset sub-message of this type: its reads give the defaults
  Json absentList;  // an unset repeated field of this type: no elements

  // Throws ConfigError "LayerConfig has no field 'num_filter'".
  const ConfigField& field(const std::string& name) const;
};

// The message named `name` ("LayerConfig"); throws ConfigError for unknown names.
const ConfigMessage& configMessage(const std::string& name);

}  // namespace paddle
