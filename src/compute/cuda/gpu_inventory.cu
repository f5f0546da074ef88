// The GPU of one rank, for envcheck's inventory.
#include <cuda_runtime.h>

#ifdef COLLBENCH_HAVE_NCCL
#include <nccl.h>
#endif

#include "compute/engines.h"

namespace collbench::compute {

int visible_gpu_for(int local_rank, std::string* why_not);  // gpu_gemm_engine.cu

namespace {
std::string version_text(int packed) {  // CUDA packs versions as 1000*major + 10*minor
  return std::to_string(packed / 1000) + "." + std::to_string((packed % 1000) / 10);
}
}  // namespace

GpuInventory probe_gpu(int local_rank) {
  GpuInventory inventory;
  const int device = visible_gpu_for(local_rank, &inventory.reason);
  if (device < 0) return inventory;
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, device) != cudaSuccess) {
    inventory.reason = "cudaGetDeviceProperties failed";
    return inventory;
  }
  inventory.present = true;
  inventory.name = properties.name;
  inventory.compute_capability = std::to_string(properties.major) + "." + std::to_string(properties.minor);
  inventory.memory_bytes = properties.totalGlobalMem;
  char bus_id[32] = {0};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), device) == cudaSuccess) inventory.pci_bus_id = bus_id;
  int driver = 0, runtime = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess) inventory.driver_version = "CUDA " + version_text(driver);
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) inventory.cuda_runtime_version = version_text(runtime);
#ifdef COLLBENCH_HAVE_NCCL
  int nccl = 0;
  if (ncclGetVersion(&nccl) == ncclSuccess) inventory.nccl_version = std::to_string(nccl);
#else
  inventory.nccl_version = "not built";
#endif
  return inventory;
}

}  // namespace collbench::compute
