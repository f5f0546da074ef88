#include "ddp/model.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/flag_values.h"

namespace collbench::ddp {
namespace {

// A layer's forward FLOPs go to its weight; backward is twice that (the gradient of the input and
// the gradient of the weight each cost one forward's multiply-adds), the usual rule of thumb.
void add(Model& model, const std::string& name, std::uint64_t elements, double forward_flops = 0) {
  model.tensors.push_back({name, elements, forward_flops, 2 * forward_flops});
}

// A convolution without bias (torchvision's ResNets) and its batch norm's weight and bias.
void add_conv_bn(Model& model, const std::string& conv, const std::string& bn, int in, int out, int kernel, int output_side) {
  const auto weights = static_cast<std::uint64_t>(in) * out * kernel * kernel;
  const double positions = static_cast<double>(output_side) * output_side;
  add(model, conv + ".weight", weights, 2.0 * static_cast<double>(weights) * positions);
  // Batch norm: a few operations per activation, credited to its weight.
  add(model, bn + ".weight", static_cast<std::uint64_t>(out), 4.0 * out * positions);
  add(model, bn + ".bias", static_cast<std::uint64_t>(out));
}

// A dense layer with bias applied to `tokens` positions per sample.
void add_linear(Model& model, const std::string& name, int in, int out, double tokens, double extra_flops = 0) {
  const auto weights = static_cast<std::uint64_t>(in) * out;
  add(model, name + ".weight", weights, 2.0 * static_cast<double>(weights) * tokens + extra_flops);
  add(model, name + ".bias", static_cast<std::uint64_t>(out));
}

void add_layer_norm(Model& model, const std::string& name, int width, double tokens) {
  add(model, name + ".weight", static_cast<std::uint64_t>(width), 8.0 * width * tokens);
  add(model, name + ".bias", static_cast<std::uint64_t>(width));
}

[[noreturn]] void bad_file(const std::string& what, const std::string& problem) {
  throw UsageError("model file " + what + ": " + problem);
}

double non_negative_number(const nlohmann::json& value, const std::string& what, const std::string& where) {
  if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0) {
    bad_file(what, where + " must be a non-negative number");
  }
  return value.get<double>();
}

void check_model(const Model& model, const std::string& what) {
  if (model.tensors.empty()) bad_file(what, "has no parameter tensors");
  for (const auto& tensor : model.tensors) {
    if (tensor.elements == 0) bad_file(what, "tensor '" + tensor.name + "' has 0 elements");
    if (tensor.elements > (1ULL << 34)) bad_file(what, "tensor '" + tensor.name + "' has more than 2^34 elements");
  }
}

std::string lower_extension(const std::string& path) {
  const auto dot = path.rfind('.');
  std::string extension = dot == std::string::npos ? "" : path.substr(dot + 1);
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return extension;
}

}  // namespace

std::uint64_t Model::parameter_count() const {
  std::uint64_t total = 0;
  for (const auto& tensor : tensors) total += tensor.elements;
  return total;
}

double Model::forward_flops_per_sample() const {
  double total = 0;
  for (const auto& tensor : tensors) total += tensor.forward_flops_per_sample;
  return total;
}

double Model::backward_flops_per_sample() const {
  double total = 0;
  for (const auto& tensor : tensors) total += tensor.backward_flops_per_sample;
  return total;
}

std::vector<std::string> preset_names() { return {"linear-1024", "resnet50", "bert-large", "gpt2-small"}; }

// torch.nn.Linear(1024, 1) of the seed article's DDP example: weight 1x1024 and bias 1.
Model linear_1024() {
  Model model{"linear-1024", "torch.nn.Linear(1024, 1): weight 1x1024, bias 1", {}};
  add_linear(model, "weight_and_bias", 1024, 1, 1);
  model.tensors[0].name = "weight";
  model.tensors[1].name = "bias";
  return model;
}

// torchvision.models.resnet50 (ResNet v1.5: the stride on the 3x3 convolution), 224x224 inputs,
// in torchvision's registration order. He et al. 2016, Table 1; torchvision lists 25,557,032
// parameters and 4.09 GMACs.
Model resnet50() {
  Model model{"resnet50", "torchvision resnet50 (He et al. 2016, Table 1; v1.5), 224x224 input", {}};
  add_conv_bn(model, "conv1", "bn1", 3, 64, 7, 112);
  int in = 64, side = 56;
  const int planes_of_stage[] = {64, 128, 256, 512}, blocks_of_stage[] = {3, 4, 6, 3};
  for (int stage = 0; stage < 4; ++stage) {
    const int planes = planes_of_stage[stage];
    for (int block = 0; block < blocks_of_stage[stage]; ++block) {
      const std::string prefix = "layer" + std::to_string(stage + 1) + "." + std::to_string(block) + ".";
      const bool downsamples = block == 0;
      const int stride = downsamples && stage > 0 ? 2 : 1;
      const int out_side = side / stride;
      add_conv_bn(model, prefix + "conv1", prefix + "bn1", in, planes, 1, side);
      add_conv_bn(model, prefix + "conv2", prefix + "bn2", planes, planes, 3, out_side);
      add_conv_bn(model, prefix + "conv3", prefix + "bn3", planes, 4 * planes, 1, out_side);
      if (downsamples) add_conv_bn(model, prefix + "downsample.0", prefix + "downsample.1", in, 4 * planes, 1, out_side);
      in = 4 * planes;
      side = out_side;
    }
  }
  add_linear(model, "fc", 2048, 1000, 1);
  return model;
}

// BERT-large (Devlin et al. 2019: L=24, H=1024, A=16, "340M"), as Hugging Face's BertModel with its
// pooler: 335,141,888 parameters. FLOPs for `sequence_length` tokens per sample (128: pre-training phase 1).
Model bert_large(int sequence_length) {
  Model model{"bert-large", "BERT-large (Devlin et al. 2019), Hugging Face BertModel layout, sequence " +
                                std::to_string(sequence_length), {}};
  const int hidden = 1024, intermediate = 4096, layers = 24;
  const double tokens = sequence_length;
  add(model, "embeddings.word_embeddings.weight", 30522ULL * hidden);
  add(model, "embeddings.position_embeddings.weight", 512ULL * hidden);
  add(model, "embeddings.token_type_embeddings.weight", 2ULL * hidden);
  add_layer_norm(model, "embeddings.LayerNorm", hidden, tokens);
  // Attention scores (QK^T) and their application to V: 2 x 2 x S^2 x H per layer, credited to
  // the output projection since they have no parameters of their own.
  const double attention_flops = 4.0 * tokens * tokens * hidden;
  for (int layer = 0; layer < layers; ++layer) {
    const std::string prefix = "encoder.layer." + std::to_string(layer) + ".";
    add_linear(model, prefix + "attention.self.query", hidden, hidden, tokens);
    add_linear(model, prefix + "attention.self.key", hidden, hidden, tokens);
    add_linear(model, prefix + "attention.self.value", hidden, hidden, tokens);
    add_linear(model, prefix + "attention.output.dense", hidden, hidden, tokens, attention_flops);
    add_layer_norm(model, prefix + "attention.output.LayerNorm", hidden, tokens);
    add_linear(model, prefix + "intermediate.dense", hidden, intermediate, tokens);
    add_linear(model, prefix + "output.dense", intermediate, hidden, tokens);
    add_layer_norm(model, prefix + "output.LayerNorm", hidden, tokens);
  }
  add_linear(model, "pooler.dense", hidden, hidden, 1);
  return model;
}

// GPT-2 small (Radford et al. 2019: 12 layers, d=768; Hugging Face GPT2Model: 124,439,808
// parameters, the LM head tied to wte). FLOPs for `sequence_length` tokens per sample.
Model gpt2_small(int sequence_length) {
  Model model{"gpt2-small", "GPT-2 small (Radford et al. 2019), Hugging Face GPT2Model layout, sequence " +
                                std::to_string(sequence_length), {}};
  const int width = 768, layers = 12, vocabulary = 50257;
  const double tokens = sequence_length;
  // The tied LM head's logits (2 x d x V per token) are wte's work.
  add(model, "wte.weight", static_cast<std::uint64_t>(vocabulary) * width, 2.0 * width * vocabulary * tokens);
  add(model, "wpe.weight", 1024ULL * width);
  const double attention_flops = 4.0 * tokens * tokens * width;
  for (int layer = 0; layer < layers; ++layer) {
    const std::string prefix = "h." + std::to_string(layer) + ".";
    add_layer_norm(model, prefix + "ln_1", width, tokens);
    add_linear(model, prefix + "attn.c_attn", width, 3 * width, tokens);
    add_linear(model, prefix + "attn.c_proj", width, width, tokens, attention_flops);
    add_layer_norm(model, prefix + "ln_2", width, tokens);
    add_linear(model, prefix + "mlp.c_fc", width, 4 * width, tokens);
    add_linear(model, prefix + "mlp.c_proj", 4 * width, width, tokens);
  }
  add_layer_norm(model, "ln_f", width, tokens);
  return model;
}

// {"name": "...", "tensors": [{"name": "fc.weight", "elements": 1024, "forward_flops": 2048,
//   "backward_flops": 4096}, ...]}; backward_flops defaults to twice forward_flops.
Model parse_model_json(const std::string& text, const std::string& what) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    bad_file(what, "is not valid JSON");
  }
  if (!document.is_object() || !document.contains("tensors") || !document["tensors"].is_array()) {
    bad_file(what, "expected an object with a \"tensors\" array");
  }
  Model model{document.value("name", what), "model file " + what, {}};
  if (!model.name.size()) model.name = what;
  const auto& tensors = document["tensors"];
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto& entry = tensors[i];
    const std::string where = "tensors[" + std::to_string(i) + "]";
    if (!entry.is_object()) bad_file(what, where + " must be an object");
    if (!entry.contains("elements") || !entry["elements"].is_number_integer() || entry["elements"].get<std::int64_t>() <= 0) {
      bad_file(what, where + ".elements must be a positive integer");
    }
    ParameterTensor tensor;
    tensor.name = entry.contains("name") && entry["name"].is_string() ? entry["name"].get<std::string>() : where;
    tensor.elements = entry["elements"].get<std::uint64_t>();
    tensor.forward_flops_per_sample = entry.contains("forward_flops") ? non_negative_number(entry["forward_flops"], what, where + ".forward_flops") : 0;
    tensor.backward_flops_per_sample = entry.contains("backward_flops")
                                           ? non_negative_number(entry["backward_flops"], what, where + ".backward_flops")
                                           : 2 * tensor.forward_flops_per_sample;
    model.tensors.push_back(tensor);
  }
  check_model(model, what);
  return model;
}

// name,elements,forward_flops[,backward_flops], one tensor a line in registration order; an
// optional header line starting with "name"; '#' starts a comment line.
Model parse_model_csv(const std::string& text, const std::string& what) {
  Model model{what, "model file " + what, {}};
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#' || (model.tensors.empty() && line.rfind("name,", 0) == 0)) continue;
    const std::vector<std::string> fields = split_list(line);
    const std::string where = "line " + std::to_string(number);
    if (fields.size() < 3 || fields.size() > 4) bad_file(what, where + ": expected name,elements,forward_flops[,backward_flops]");
    ParameterTensor tensor;
    tensor.name = fields[0];
    try {
      tensor.elements = static_cast<std::uint64_t>(parse_integer(fields[1], where + " elements", 1, 1LL << 34));
      tensor.forward_flops_per_sample = parse_real(fields[2], where + " forward_flops", 0);
      tensor.backward_flops_per_sample =
          fields.size() == 4 ? parse_real(fields[3], where + " backward_flops", 0) : 2 * tensor.forward_flops_per_sample;
    } catch (const UsageError& e) {
      bad_file(what, e.what());
    }
    model.tensors.push_back(tensor);
  }
  check_model(model, what);
  return model;
}

Model load_model(const std::string& name_or_path) {
  if (name_or_path == "linear-1024") return linear_1024();
  if (name_or_path == "resnet50") return resnet50();
  if (name_or_path == "bert-large") return bert_large();
  if (name_or_path == "gpt2-small") return gpt2_small();
  const std::string extension = lower_extension(name_or_path);
  if (extension != "json" && extension != "csv") {
    throw UsageError("unknown model '" + name_or_path + "' for --model (use linear-1024, resnet50, bert-large, gpt2-small, "
                     "or a .json or .csv file)");
  }
  std::ifstream in(name_or_path);
  if (!in) throw UsageError("model file " + name_or_path + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  return extension == "json" ? parse_model_json(text.str(), name_or_path) : parse_model_csv(text.str(), name_or_path);
}

}  // namespace collbench::ddp
