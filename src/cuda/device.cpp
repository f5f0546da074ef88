#include "cuda/device.h"

#include "core/printable.h"
#include "cuda/check.h"

namespace collbench::cuda {
namespace {

std::string version_text(int encoded) {  // CUDA encodes 13.0 as 13000
  return std::to_string(encoded / 1000) + "." + std::to_string((encoded % 1000) / 10);
}

}  // namespace

int visible_device_count(std::string* why_none) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    if (why_none) *why_none = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(status);
    return 0;
  }
  if (count == 0 && why_none) *why_none = "cudaGetDeviceCount found 0 devices";
  return count;
}

int device_for_local_rank(int local_rank, std::string* why_not) {
  std::string why_none;
  const int count = visible_device_count(&why_none);
  if (count > 0) return local_rank % count;
  if (why_not) *why_not = "no CUDA device is visible (" + why_none + ")";
  return -1;
}

std::string DeviceInfo::describe() const {
  return name + " [cuda:" + std::to_string(index) + "] sm_" + std::to_string(compute_major) + std::to_string(compute_minor) + " " +
         formatted("%.1f GiB", static_cast<double>(memory_bytes) / (1024.0 * 1024.0 * 1024.0)) + " pci " + pci_bus_id;
}

DeviceInfo device_info(int index) {
  cudaDeviceProp properties{};
  CB_CUDA_CHECK(cudaGetDeviceProperties(&properties, index));
  char bus_id[32] = {0};
  CB_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), index));
  return {index, properties.name, properties.major, properties.minor, properties.totalGlobalMem, bus_id,
          properties.multiProcessorCount};
}

std::string runtime_version() {
  int version = 0;
  CB_CUDA_CHECK(cudaRuntimeGetVersion(&version));
  return version_text(version);
}

std::string driver_version() {
  int version = 0;
  CB_CUDA_CHECK(cudaDriverGetVersion(&version));
  return version_text(version);
}

}  // namespace collbench::cuda
