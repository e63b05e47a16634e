"""Schema-typed config reads (engine/Json.h, engine/ConfigSchema.h): a misspelled
field name is a clear error, an unset field reads as its .proto default.

A small driver compiled against the engine's Json reader reads one field of a
config message given as JSON, so each read can be checked on its own; the
engine's entry points (GradientMachine, Trainer, ParameterUpdater) refuse
config JSON with a field its message lacks."""
import json
import os
import shutil
import subprocess

import pytest

from netbuilder import Net
from py_paddle import swig_paddle as api

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CXX = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")

# read MESSAGE JSON PATH ACCESSOR: PATH is "inputs.0.conv_conf.stride" (the last
# part is the field); ACCESSOR is int, double, bool, string, has or int_with_default.
DRIVER = r'''
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/Errors.h"
#include "engine/Json.h"
using paddle::Json;

int main(int argc, char** argv) {
  try {
    Json root = Json::parse(argv[2], argv[1]);
    std::vector<std::string> parts;
    std::stringstream path(argv[3]);
    for (std::string part; std::getline(path, part, '.');) parts.push_back(part);
    const Json* v = &root;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      v = isdigit(parts[i][0]) ? &(*v)[std::stoul(parts[i])] : &(*v)[parts[i]];
    }
    const std::string& field = parts.back();
    std::string how = argv[4];
    std::cout.precision(17);
    if (how == "int") std::cout << v->getInt(field);
    if (how == "double") std::cout << v->getDouble(field);
    if (how == "bool") std::cout << (v->getBool(field) ? "true" : "false");
    if (how == "string") std::cout << "'" << v->getString(field) << "'";
    if (how == "has") std::cout << (v->has(field) ? "true" : "false");
    if (how == "int_with_default") std::cout << v->getInt(field, 7);
  } catch (const paddle::ConfigError& e) {
    std::cout << "ConfigError: " << e.what();
  } catch (const std::logic_error& e) {
    std::cout << "logic_error: " << e.what();
  }
  return 0;
}
'''


@pytest.fixture(scope="module")
def read(tmp_path_factory):
    if CXX is None:
        pytest.skip("no C++ compiler")
    d = tmp_path_factory.mktemp("schema_driver")
    (d / "driver.cpp").write_text(DRIVER)
    exe = str(d / "driver")
    import nlohmann_json
    subprocess.run([CXX, "-std=c++17", "-O0", "-I", ROOT, "-I", str(nlohmann_json.get_include()), str(d / "driver.cpp"),
                    os.path.join(ROOT, "engine", "Json.cpp"), os.path.join(ROOT, "engine", "ConfigSchema.cpp"),
                    "-o", exe], check=True, capture_output=True)

    def run(message, config, path, accessor):
        out = subprocess.run([exe, message, json.dumps(config), path, accessor], capture_output=True, text=True)
        return out.stdout

    return run


FC = {"name": "fc", "type": "fc", "size": 4,
      "inputs": [{"input_layer_name": "x", "conv_conf": {"filter_size": 3, "stride": 2}}]}


@pytest.mark.parametrize("path,accessor,expected", [
    ("num_filter", "int", "ConfigError: LayerConfig has no field 'num_filter'"),
    ("inputs.0.conv_conf.strid", "int", "ConfigError: ConvConfig has no field 'strid'"),
    ("inputs.0.pool_conf.size_X", "has", "ConfigError: PoolConfig has no field 'size_X'"),
    ("size", "int", "4"),
    ("inputs.0.conv_conf.stride", "int", "2"),
    # unset fields: the .proto default
    ("num_filters", "int", "0"),
    ("trans_type", "string", "'non-seq'"),
    ("has_selected_colums", "bool", "true"),
    ("cos_scale", "double", "1"),
    ("active_type", "string", "''"),
    ("inputs.0.conv_conf.groups", "int", "1"),
    # an unset sub-message, and a list element past the end, read as unset messages
    ("inputs.0.pool_conf.stride", "int", "1"),
    ("inputs.0.pool_conf.size_x", "has", "false"),
    ("inputs.2.input_layer_name", "string", "''"),
    ("inputs.2.conv_conf.caffe_mode", "bool", "true"),
])
def test_layer_config_reads(read, path, accessor, expected):
    assert read("LayerConfig", FC, path, accessor) == expected


def test_engine_bugs_are_logic_errors(read):
    assert read("LayerConfig", FC, "num_filters", "double") == \
        "logic_error: LayerConfig.num_filters (integer) read as floating-point"
    assert read("LayerConfig", FC, "num_filters", "int_with_default").startswith(
        "logic_error: LayerConfig.num_filters: a config field takes its default from the .proto")


def test_64_bit_defaults_are_exact(read):
    assert read("OptimizationConfig", {}, "max_average_window", "int") == str(2**63 - 1)
    assert read("OptimizationConfig", {}, "ada_epsilon", "double") == "9.9999999999999995e-07"


def test_parse_refuses_fields_the_message_lacks(read):
    model = {"layers": [{"name": "x", "type": "data", "size": 3}, {"name": "y", "type": "data", "sizee": 3}]}
    assert read("ModelConfig", model, "type", "string") == \
        "ConfigError: LayerConfig has no field 'sizee' (at layers[1])"
    assert read("ModelConfig", {"layers": {"name": "x"}}, "type", "string") == \
        "ConfigError: ModelConfig field 'layers': expected a list, got an object"
    assert read("ModelConfig", {}, "type", "string") == "'nn'"


def test_engine_entry_points_name_the_misspelled_field():
    net = Net()
    net.data("x", 3)
    model = net.config()
    model["layers"][0]["sizee"] = 3
    with pytest.raises(ValueError, match="LayerConfig has no field 'sizee'"):
        api.GradientMachine.createByConfigJson(json.dumps(model), False, 1)
    with pytest.raises(ValueError, match="OptimizationConfig has no field 'learning_rat'"):
        api.ParameterUpdater.createLocalUpdater(json.dumps({"learning_rat": 0.1}))
    del model["layers"][0]["sizee"]
    with pytest.raises(ValueError, match="TrainerConfig has no field 'opt_conf'"):
        api.Trainer.create(json.dumps({"model_config": model, "opt_conf": {"batch_size": 2}}), False, 1, 1)
