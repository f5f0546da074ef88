#include "workloads/ddp/model.h"

#include <numeric>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/flag_values.h"
#include "core/input_file.h"
#include "core/printable.h"

namespace collbench::ddp {

// The presets' CSV text, generated from src/workloads/ddp/presets/*.csv by src/workloads/ddp/CMakeLists.txt.
const std::vector<std::pair<std::string, std::string>>& embedded_presets();

std::string shown_name(const std::string& text) {
  const std::string shown = printable(text.size() > 80 ? text.substr(0, 80) + "..." : text);
  return "'" + shown + "'";
}

namespace {

// Every factor of a GEMM and every element count stays below 2^34, so products of three stay
// far from overflowing a double's exact range for the checks that follow.
constexpr long long kMaxFactor = 1LL << 34;
constexpr double kMaxBytes = 1e18;

[[noreturn]] void bad_file(const std::string& what, const std::string& problem) {
  throw UsageError("model file " + printable(what) + ": " + problem);
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// "B*<n>" or "B" (per sample), or "<n>".
std::uint64_t parse_factor(const std::string& text, const std::string& what, bool& per_sample) {
  std::string digits = trim(text);
  per_sample = false;
  if (digits == "B" || digits == "b") {
    per_sample = true;
    return 1;
  }
  if (digits.size() > 2 && (digits[0] == 'B' || digits[0] == 'b') && digits[1] == '*') {
    per_sample = true;
    digits = digits.substr(2);
  }
  return static_cast<std::uint64_t>(parse_integer(digits, what, 1, kMaxFactor));
}

void check_model(Model& model, const std::string& what) {
  if (model.layers.empty()) bad_file(what, "has no layers");
  if (model.tensors.empty()) bad_file(what, "has no parameter tensors");
  std::set<std::string> layer_names, tensor_names;
  for (const auto& layer : model.layers) {
    if (layer.name.empty()) bad_file(what, "a layer has no name");
    if (!layer_names.insert(layer.name).second) bad_file(what, "layer " + shown_name(layer.name) + " appears twice");
  }
  std::uint64_t total = 0;
  for (const auto& tensor : model.tensors) {
    if (tensor.name.empty()) bad_file(what, "a tensor of layer " + shown_name(model.layers[static_cast<std::size_t>(tensor.layer)].name) + " has no name");
    if (!tensor_names.insert(tensor.name).second) bad_file(what, "tensor " + shown_name(tensor.name) + " appears twice");
    total += tensor.elements;
    if (total > (1ULL << 34)) bad_file(what, "has more than 2^34 parameters");
  }
}

std::string lower_extension(const std::string& path) {
  const auto dot = path.rfind('.');
  return lowercase(dot == std::string::npos ? "" : path.substr(dot + 1));
}

// "name:elements;name:elements" -> tensors of layer `layer_index`.
void add_params(Model& model, int layer_index, const std::string& text, const std::string& where) {
  if (trim(text).empty()) return;
  for (const auto& item : split_list(text, ';')) {
    const auto colon = item.rfind(':');
    if (colon == std::string::npos) bad_file(model.name, where + ": params expects name:elements, got " + shown_name(item));
    ParameterTensor tensor;
    tensor.name = trim(item.substr(0, colon));
    tensor.layer = layer_index;
    try {
      tensor.elements = static_cast<std::uint64_t>(parse_integer(trim(item.substr(colon + 1)), where + " elements of " + shown_name(tensor.name), 1, 1LL << 34));
    } catch (const UsageError& e) {
      bad_file(model.name, e.what());
    }
    model.layers[static_cast<std::size_t>(layer_index)].tensors.push_back(static_cast<int>(model.tensors.size()));
    model.tensors.push_back(tensor);
  }
}

// One layer from its seven text fields (CSV columns or JSON strings).
void add_layer(Model& model, const std::vector<std::string>& fields, const std::string& where) {
  Layer layer;
  layer.name = trim(fields[0]);
  try {
    layer.forward = parse_gemm_shape(fields[2], where + " forward");
    layer.input_grad = parse_gemm_shape(fields[3], where + " input_grad");
    layer.weight_grad = parse_gemm_shape(fields[4], where + " weight_grad");
    layer.forward_bytes = parse_scaled_bytes(fields[5], where + " forward_bytes");
    layer.backward_bytes = parse_scaled_bytes(fields[6], where + " backward_bytes");
  } catch (const UsageError& e) {
    bad_file(model.name, e.what());
  }
  model.layers.push_back(layer);
  add_params(model, static_cast<int>(model.layers.size()) - 1, fields[1], where);
}

}  // namespace

std::string GemmShape::text() const {
  if (empty()) return "";
  auto factor = [this](std::uint64_t value, BatchAxis axis) {
    return (batch_axis == axis ? "B*" : "") + std::to_string(value);
  };
  std::string text = factor(m, BatchAxis::kM) + "x" + factor(n, BatchAxis::kN) + "x" + factor(k, BatchAxis::kK);
  if (count != 1 || batch_axis == BatchAxis::kCount) text += "x" + factor(count, BatchAxis::kCount);
  return text;
}

GemmShape parse_gemm_shape(const std::string& text, const std::string& what) {
  if (trim(text).empty()) return {};
  const std::vector<std::string> factors = split_list(trim(text), 'x');
  if (factors.size() != 3 && factors.size() != 4) {
    throw UsageError(what + ": expected MxNxK or MxNxKxCOUNT, got " + shown_name(text));
  }
  std::uint64_t values[4] = {0, 0, 0, 1};
  BatchAxis batch_axis = BatchAxis::kM;
  int per_sample_factors = 0;
  for (std::size_t i = 0; i < factors.size(); ++i) {
    bool per_sample = false;
    values[i] = parse_factor(factors[i], what, per_sample);
    if (per_sample) {
      ++per_sample_factors;
      batch_axis = static_cast<BatchAxis>(i);
    }
  }
  if (per_sample_factors != 1) {
    throw UsageError(what + ": exactly one factor of " + shown_name(text) + " must be B*<n> (the one that grows with the batch)");
  }
  return {values[0], values[1], values[2], values[3], batch_axis};
}

ScaledBytes parse_scaled_bytes(const std::string& text, const std::string& what) {
  ScaledBytes bytes;
  const std::string trimmed = trim(text);
  if (trimmed.empty()) return bytes;
  for (const auto& term : split_list(trimmed, '+')) {
    const std::string value = trim(term);
    const bool scaled = value.size() > 2 && (value[0] == 'B' || value[0] == 'b') && value[1] == '*';
    const double number = parse_real(scaled ? value.substr(2) : value, what, 0, kMaxBytes);
    (scaled ? bytes.per_sample : bytes.fixed) += number;
  }
  return bytes;
}

std::uint64_t Model::parameter_count() const {
  return std::accumulate(tensors.begin(), tensors.end(), std::uint64_t{0}, [](std::uint64_t total, const auto& tensor) { return total + tensor.elements; });
}

double Model::forward_flops_per_sample() const {
  return std::accumulate(layers.begin(), layers.end(), 0.0, [](double total, const auto& layer) { return total + layer.forward.flops_per_sample(); });
}

double Model::backward_flops_per_sample() const {
  double total = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (i > 0) total += layers[i].input_grad.flops_per_sample();
    total += layers[i].weight_grad.flops_per_sample();
  }
  return total;
}

int Model::find_layer(const std::string& name) const {
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (layers[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& [name, text] : embedded_presets()) names.push_back(name);
  return names;
}

Model parse_model_csv(const std::string& text, const std::string& what) {
  Model model{what, "model file " + what, {}, {}};
  std::string source;
  const auto comment = [&](const std::string& line) {
    if (line.rfind("# model:", 0) == 0) model.name = trim(line.substr(8));
    if (line.rfind("# source:", 0) == 0) source += (source.empty() ? "" : " ") + trim(line.substr(9));
  };
  for_each_csv_row(text, "layer,", [&](int number, const std::vector<std::string>& fields, const std::string& line) {
    const std::string where = "line " + std::to_string(number);
    if (model.layers.empty() && line.rfind("name,elements", 0) == 0) {
      bad_file(what, where + ": the name,elements,forward_flops format is gone; layers now carry their GEMM shapes "
                             "(docs/ddp.md)");
    }
    if (fields.size() != 7) {
      bad_file(what, where + ": expected layer,params,forward,input_grad,weight_grad,forward_bytes,backward_bytes (" +
                         std::to_string(fields.size()) + " fields)");
    }
    add_layer(model, fields, where);
  }, comment);
  if (!source.empty()) model.source = source;
  check_model(model, what);
  return model;
}

Model parse_model_json(const std::string& text, const std::string& what) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    bad_file(what, "is not valid JSON");
  }
  if (!document.is_object() || !document.contains("layers") || !document["layers"].is_array()) {
    bad_file(what, "expected an object with a \"layers\" array");
  }
  Model model{what, "model file " + what, {}, {}};
  if (document.contains("name") && document["name"].is_string() && !document["name"].get<std::string>().empty()) {
    model.name = document["name"].get<std::string>();
  }
  if (document.contains("source") && document["source"].is_string()) model.source = document["source"].get<std::string>();
  const auto& layers = document["layers"];
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto& entry = layers[i];
    const std::string where = "layers[" + std::to_string(i) + "]";
    if (!entry.is_object()) bad_file(what, where + " must be an object");
    auto text_of = [&](const char* key) -> std::string {
      if (!entry.contains(key) || entry[key].is_null()) return "";
      if (entry[key].is_string()) return entry[key].get<std::string>();
      if (entry[key].is_number_unsigned()) return std::to_string(entry[key].get<std::uint64_t>());
      bad_file(what, where + "." + key + " must be a string");
    };
    if (!entry.contains("name") || !entry["name"].is_string()) bad_file(what, where + ".name must be a string");
    std::string params;
    if (entry.contains("params")) {
      if (!entry["params"].is_array()) bad_file(what, where + ".params must be an array");
      for (const auto& param : entry["params"]) {
        if (!param.is_object() || !param.contains("name") || !param["name"].is_string() || !param.contains("elements") ||
            !param["elements"].is_number_unsigned()) {
          bad_file(what, where + ".params entries are {\"name\": string, \"elements\": positive integer}");
        }
        const std::string name = param["name"].get<std::string>();
        if (name.find_first_of(";:") != std::string::npos) bad_file(what, where + ": tensor name " + shown_name(name) + " has ';' or ':'");
        params += (params.empty() ? "" : ";") + name + ":" + std::to_string(param["elements"].get<std::uint64_t>());
      }
    }
    add_layer(model, {entry["name"].get<std::string>(), params, text_of("forward"), text_of("input_grad"), text_of("weight_grad"),
                      text_of("forward_bytes"), text_of("backward_bytes")},
              where);
  }
  check_model(model, what);
  return model;
}

Model load_model(const std::string& name_or_path) {
  for (const auto& [name, text] : embedded_presets()) {
    if (name == name_or_path) return parse_model_csv(text, name);
  }
  const std::string extension = lower_extension(name_or_path);
  if (extension != "json" && extension != "csv") {
    std::string names;
    for (const auto& name : preset_names()) names += name + ", ";
    throw UsageError("unknown model " + shown_name(name_or_path) + " for --model (use " + names + "or a .json or .csv file)");
  }
  // A model is one entry per layer: a few MiB for the largest models there are.
  const std::string text = read_input_file(name_or_path, {"model file", 64u << 20, extension == "json" ? 64u << 20 : 64u << 10});
  return extension == "json" ? parse_model_json(text, name_or_path) : parse_model_csv(text, name_or_path);
}

}  // namespace collbench::ddp
