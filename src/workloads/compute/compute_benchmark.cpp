#include "workloads/compute/compute_benchmark.h"

#include "engines/engines.h"
#include "workloads/collectives/collective_options.h"
#include "harness/context.h"

namespace collbench::compute {

std::string compute_build_features() {
#ifdef COLLBENCH_HAVE_CUDA
  return "cpu: openblas, openmp; gpu: cuda, cublaslt";
#else
  return "cpu: openblas, openmp; gpu: not built (no CUDA toolkit found)";
#endif
}

bool runs_on_host(const ComputeOptions& options) {
  if (options.device == DeviceChoice::kCpu) return true;
  return options.device == DeviceChoice::kAuto && !probe_gpu(0).present;
}

report::Context compute_context(World& world, const ComputeOptions& options, const std::string& device,
                                const std::vector<std::string>& argv) {
  // The collectives' context collector gathers identities and versions; only the options differ.
  return collect_context(world, "compute", device, argv, options, compute_options_as_json(options));
}

nlohmann::json compute_options_as_json(const ComputeOptions& options) {
  nlohmann::json out = {{"threads", options.threads}, {"device", to_string(options.device)}};
  if (options.program == ComputeProgram::kMatmul) {
    nlohmann::json shapes = nlohmann::json::array(), types = nlohmann::json::array();
    for (const auto& shape : options.gemm_shapes()) shapes.push_back({shape.m, shape.n, shape.k});
    for (GemmType type : options.gemm_types) types.push_back(to_string(type));
    out["shapes_mnk"] = shapes;
    out["dtypes"] = types;
    out["rotate_sets"] = options.rotate_sets == 0 ? nlohmann::json("auto") : nlohmann::json(options.rotate_sets);
  } else if (options.program == ComputeProgram::kMembw) {
    nlohmann::json kernels = nlohmann::json::array();
    for (StreamKernel kernel : options.kernels) kernels.push_back(to_string(kernel));
    out["array_bytes"] = options.array_sizes();
    out["kernels"] = kernels;
  } else {
    out.update({{"slow_factor", options.slow_factor}, {"repeats", options.iterations}, {"probe_ms", options.probe_ms},
                {"probe_n", options.probe_matrix_n}, {"probe_bytes", options.probe_bytes}});
  }
  return out;
}

}  // namespace collbench::compute
