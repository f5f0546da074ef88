#include "workloads/compute/compute_workload.h"

#include "engines/engines.h"

namespace collbench::compute {

std::string compute_build_features() {
#ifdef COLLBENCH_HAVE_CUDA
  return "cpu: openblas, openmp; gpu: cuda, cublaslt";
#else
  return "cpu: openblas, openmp; gpu: not built (no CUDA toolkit found)";
#endif
}

bool runs_on_host(const ComputeFlags& flags) {
  if (flags.device == DeviceChoice::kCpu) return true;
  return flags.device == DeviceChoice::kAuto && !probe_gpu(0).present;
}

}  // namespace collbench::compute
