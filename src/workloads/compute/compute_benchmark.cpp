#include "workloads/compute/compute_benchmark.h"

#include "engines/engines.h"
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
  return collect_context(world, "compute", device, argv, options, compute_options_json(options));
}

}  // namespace collbench::compute
