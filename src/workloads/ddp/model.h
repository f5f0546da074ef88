// A model as DDP sees it: its layers in forward (execution) order, each with the GEMMs of its
// forward pass and of its two gradients (m, n, k; one factor grows with the batch), the bytes its
// elementwise work touches, and its parameter tensors. The tensors over all layers, in order, are
// model.parameters() in registration order. Built-in presets are data files
// (src/workloads/ddp/presets/*.csv, derived by make_presets.py there, embedded at build time); --model FILE
// reads the same format, or JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace collbench::ddp {

// Which factor of a GEMM is per sample (multiplied by the batch at run time).
enum class BatchAxis { kM, kN, kK, kCount };

// C (m x n) = A (m x k) B (k x n), `count` times; the factor `batch_axis` names is per sample.
// m == 0: no GEMM.
struct GemmShape {
  std::uint64_t m = 0, n = 0, k = 0, count = 1;
  BatchAxis batch_axis = BatchAxis::kM;
  bool empty() const { return m == 0; }
  double flops_per_sample() const { return empty() ? 0 : 2.0 * static_cast<double>(m) * n * k * count; }
  std::string text() const;  // "B*12544x64x147", as in the model files
};

// Bytes touched (reads plus writes): per sample, and per step whatever the batch (a dense
// embedding gradient zeroed every step).
struct ScaledBytes {
  double per_sample = 0;
  double fixed = 0;
  double at(double samples) const { return per_sample * samples + fixed; }
};

struct Layer {
  std::string name;                 // "layer1.0.conv1": what a --compute-profile line names
  GemmShape forward, input_grad, weight_grad;
  ScaledBytes forward_bytes, backward_bytes;
  std::vector<int> tensors;         // indices into Model::tensors, registration order
};

struct ParameterTensor {
  std::string name;                 // "layer1.0.conv1.weight"
  std::uint64_t elements = 0;
  int layer = -1;                   // index into Model::layers
};

struct Model {
  std::string name;    // the preset's name, or the file's path
  std::string source;  // where its figures come from
  std::vector<Layer> layers;
  std::vector<ParameterTensor> tensors;

  std::uint64_t parameter_count() const;
  // GEMM FLOPs per sample as the step runs them: the first layer's input gradient is not
  // computed (nothing before it needs one), so backward is less than twice forward.
  double forward_flops_per_sample() const;
  double backward_flops_per_sample() const;
  // The layer named `name`, or -1.
  int find_layer(const std::string& name) const;
};

// Text from a model or profile file, quoted for one message: control characters replaced, long names cut.
std::string shown_name(const std::string& text);

// The built-in presets' names, for --help and error messages.
std::vector<std::string> preset_names();

// A preset by name, or a model file (a path ending in .json or .csv). Throws UsageError with one
// line for an unknown preset or a bad file (exit 2).
Model load_model(const std::string& name_or_path);

// Parses a model file's text; `what` names it in errors. Throws UsageError.
//   CSV: layer,params,forward,input_grad,weight_grad,forward_bytes,backward_bytes, one layer a
//   line in forward order; params "name:elements;name:elements" (registration order, may be
//   empty); GEMMs "MxNxK" or "MxNxKxCOUNT" with exactly one factor "B*<n>" (or "B"), empty for
//   none; bytes "<n>", "B*<n>" or "B*<n>+<n>". A header line starting "layer,"; '#' starts a
//   comment; "# model: NAME" and "# source: TEXT" name the model and where its figures come from.
//   JSON: {"name", "source", "layers": [{"name", "params": [{"name", "elements"}], "forward",
//   "input_grad", "weight_grad", "forward_bytes", "backward_bytes"}]}, the same strings.
Model parse_model_json(const std::string& text, const std::string& what);
Model parse_model_csv(const std::string& text, const std::string& what);

// The text forms above (pure; exposed for tests). Throw UsageError naming `what`.
GemmShape parse_gemm_shape(const std::string& text, const std::string& what);
ScaledBytes parse_scaled_bytes(const std::string& text, const std::string& what);

}  // namespace collbench::ddp
