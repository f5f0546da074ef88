// The device inventory: what the CUDA runtime says about this machine. No CUDA headers here, so
// the registry and the programs can ask without depending on them.
#pragma once

#include <cstddef>
#include <string>

namespace collbench::cuda {

// How many CUDA devices this process sees; 0 with the runtime's reason in `why_none` (no driver,
// no device, CUDA_VISIBLE_DEVICES empty, ...). Never throws.
int visible_device_count(std::string* why_none);

// nccl-tests' model: the local rank picks the device, modulo the visible ones (so one visible GPU
// per rank, as srun sets it, also works). -1 with "no CUDA device is visible (...)" where none is.
int device_for_local_rank(int local_rank, std::string* why_not);

struct DeviceInfo {
  int index = 0;
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  std::size_t memory_bytes = 0;
  std::string pci_bus_id;  // "0000:1b:00.0": the same GPU has the same id in every process
  int multiprocessors = 0;

  // "NVIDIA H100 80GB HBM3 [cuda:0] sm_90 79.1 GiB pci 0000:1b:00.0"
  std::string describe() const;
};

DeviceInfo device_info(int index);  // throws Error

// "13.0" from the runtime this process loaded, and the newest CUDA the driver supports.
std::string runtime_version();
std::string driver_version();

}  // namespace collbench::cuda
