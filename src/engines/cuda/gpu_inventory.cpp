// The GPU of one rank, for envcheck's inventory.
#ifdef COLLBENCH_HAVE_NCCL
#include <nccl.h>
#endif

#include "engines/engines.h"
#include "core/error.h"
#include "cuda/device.h"

namespace collbench::compute {

GpuInventory probe_gpu(int local_rank) {
  GpuInventory inventory;
  const int device = cuda::device_for_local_rank(local_rank, &inventory.reason);
  if (device < 0) return inventory;
  try {
    const cuda::DeviceInfo info = cuda::device_info(device);
    inventory.name = info.name;
    inventory.compute_capability = std::to_string(info.compute_major) + "." + std::to_string(info.compute_minor);
    inventory.memory_bytes = info.memory_bytes;
    inventory.pci_bus_id = info.pci_bus_id;
    inventory.driver_version = "CUDA " + cuda::driver_version();
    inventory.cuda_runtime_version = cuda::runtime_version();
  } catch (const Error& error) {
    inventory.reason = error.what();
    return inventory;
  }
  inventory.present = true;
#ifdef COLLBENCH_HAVE_NCCL
  int nccl = 0;
  if (ncclGetVersion(&nccl) == ncclSuccess) inventory.nccl_version = std::to_string(nccl);
#else
  inventory.nccl_version = "not built";
#endif
  return inventory;
}

}  // namespace collbench::compute
