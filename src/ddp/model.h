// A model as DDP sees it: its parameter tensors in registration order (model.parameters()), each
// with its size and the FLOPs of its forward and backward pass per sample. Built-in presets come
// from public architecture tables (README.md, "ddp_step_perf", cites them); --model FILE reads the
// same from a small JSON or CSV file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace collbench::ddp {

struct ParameterTensor {
  std::string name;                     // "layer1.0.conv1.weight"
  std::uint64_t elements = 0;
  double forward_flops_per_sample = 0;  // the layer's work credited to this tensor (0 for most biases)
  double backward_flops_per_sample = 0; // usually 2x forward: the input and the weight gradient
};

struct Model {
  std::string name;    // the preset's name, or the file's path
  std::string source;  // where its figures come from
  std::vector<ParameterTensor> tensors;

  std::uint64_t parameter_count() const;
  double forward_flops_per_sample() const;
  double backward_flops_per_sample() const;
};

// The built-in presets' names, for --help and error messages.
std::vector<std::string> preset_names();

// A preset by name, or a model file (a path ending in .json or .csv). Throws UsageError with one
// line for an unknown preset or a bad file (exit 2).
Model load_model(const std::string& name_or_path);

// The presets themselves (pure; unit-tested against the published parameter counts).
Model linear_1024();
Model resnet50();
Model bert_large(int sequence_length = 128);
Model gpt2_small(int sequence_length = 1024);

// Parses a model file's text; `what` names it in errors. Throws UsageError.
Model parse_model_json(const std::string& text, const std::string& what);
Model parse_model_csv(const std::string& text, const std::string& what);

}  // namespace collbench::ddp
