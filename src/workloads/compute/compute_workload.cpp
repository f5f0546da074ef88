#include "workloads/compute/compute_workload.h"

#include "engines/engines.h"
#include "harness/build_features.h"

namespace collbench::compute {

std::string compute_build_features() {
  return cuda_built() ? "cpu: openblas, openmp; gpu: cuda, cublaslt"
                      : "cpu: openblas, openmp; gpu: not built (no CUDA toolkit found)";
}

bool runs_on_host(const ComputeFlags& flags) {
  if (flags.device == DeviceChoice::kCpu) return true;
  return flags.device == DeviceChoice::kAuto && !probe_gpu(0).present;
}

}  // namespace collbench::compute
