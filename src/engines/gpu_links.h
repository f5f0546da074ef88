// The host's GPUs and their links as NVML reports them: each GPU's NVLinks (how many, which
// version, which are up, how many reach an NVSwitch) and its PCIe link (generation and width, now
// and at most). collbench explain picks the expected-peak entry of a GPU run from these facts
// (summarize/explain/explain.cpp). NVML is loaded at run time, so a build and a run without a driver or
// CUDA get an inventory that says why it is empty instead.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace collbench::compute {

struct GpuLinks {
  unsigned index = 0;                  // NVML's device index (PCI order, not CUDA's)
  std::string name;                    // NVML's device name, made printable
  std::string compute_capability;      // "9.0"; empty where NVML gives none
  // NVLink: the links NVML lists (its state call answers), those up, those whose far end is an
  // NVSwitch, and the version NVML reports for the first link that is up (its nvmlNvlinkVersion_t
  // code: 6 is NVLink 4.0), none where no link is up.
  unsigned nvlinks = 0, nvlinks_active = 0, nvlinks_to_nvswitch = 0;
  std::optional<unsigned> nvlink_version_code;
  // PCIe: generation and lanes the link runs at now (a GPU at rest may step its generation down)
  // and the most the GPU and its slot support; none where NVML says not supported.
  std::optional<unsigned> pcie_generation, pcie_max_generation, pcie_width, pcie_max_width;
};

struct GpuLinkInventory {
  std::string library;           // the library dlopen was given
  bool read = false;             // NVML was loaded and initialised
  std::string note;              // why not read, or what was missing
  std::vector<GpuLinks> gpus;
};

// The environment variable naming the NVML library to load instead of libnvidia-ml.so.1: a test
// hook (tests/compute load a fake NVML through it), and a way to name a library that is not on
// the loader's path. Read once per call of probe_gpu_links.
inline constexpr const char* kNvmlLibraryVariable = "COLLBENCH_NVML_LIBRARY";

// Loads `library` (empty: $COLLBENCH_NVML_LIBRARY, else libnvidia-ml.so.1), initialises NVML,
// reads every GPU and shuts NVML down again. Never throws: an absent library, a missing symbol or
// an NVML error leave `read` false (or a GPU's field unset) and say why in `note`.
GpuLinkInventory probe_gpu_links(const std::string& library = "");

// "NVLink 4.0" for NVML's nvmlNvlinkVersion_t code 6; "code N" for one this build does not know.
std::string nvlink_version_name(unsigned code);

}  // namespace collbench::compute
