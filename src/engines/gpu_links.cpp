#include "engines/gpu_links.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

#include "core/printable.h"
#include "engines/nvml_abi.h"

namespace collbench::compute {
namespace {

constexpr const char* kDefaultNvmlLibrary = "libnvidia-ml.so.1";

// The loaded library and the calls it exports; closed by its destructor, after nvmlShutdown.
class Nvml {
 public:
  explicit Nvml(const std::string& library) : handle_(::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    if (!handle_) {
      const char* why = ::dlerror();
      error_ = "cannot load " + printable(library) + (why ? ": " + printable(why) : std::string());
      return;
    }
    bind(init_, "nvmlInit_v2");
    bind(shutdown_, "nvmlShutdown");
    bind(error_string_, "nvmlErrorString");
    bind(count, "nvmlDeviceGetCount_v2");
    bind(handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
    bind(name, "nvmlDeviceGetName");
    bind(compute_capability, "nvmlDeviceGetCudaComputeCapability");
    bind(nvlink_state, "nvmlDeviceGetNvLinkState");
    bind(nvlink_version, "nvmlDeviceGetNvLinkVersion");
    bind(nvlink_remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType");
    bind(pcie_generation, "nvmlDeviceGetCurrPcieLinkGeneration");
    bind(pcie_max_generation, "nvmlDeviceGetMaxPcieLinkGeneration");
    bind(pcie_width, "nvmlDeviceGetCurrPcieLinkWidth");
    bind(pcie_max_width, "nvmlDeviceGetMaxPcieLinkWidth");
    if (!error_.empty()) return;
    const nvmlReturn_t started = init_();
    if (started != kNvmlSuccess) {
      error_ = "nvmlInit_v2: " + describe(started);
      return;
    }
    initialised_ = true;
  }
  ~Nvml() {
    if (initialised_) shutdown_();
    if (handle_) ::dlclose(handle_);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool usable() const { return initialised_; }
  const std::string& error() const { return error_; }
  std::string describe(nvmlReturn_t code) const {
    const char* text = error_string_ ? error_string_(code) : nullptr;
    return printable(text ? text : "error") + " (" + std::to_string(code) + ")";
  }

  NvmlDeviceGetCountV2 count = nullptr;
  NvmlDeviceGetHandleByIndexV2 handle_by_index = nullptr;
  NvmlDeviceGetName name = nullptr;
  NvmlDeviceGetCudaComputeCapability compute_capability = nullptr;
  NvmlDeviceGetNvLinkState nvlink_state = nullptr;
  NvmlDeviceGetNvLinkVersion nvlink_version = nullptr;
  NvmlDeviceGetNvLinkRemoteDeviceType nvlink_remote_type = nullptr;
  NvmlDeviceGetPcieFigure pcie_generation = nullptr, pcie_max_generation = nullptr, pcie_width = nullptr, pcie_max_width = nullptr;

 private:
  // Every call collbench makes has been in NVML since the 2020 drivers (R450); a library without
  // one is not an NVML collbench can read.
  template <typename Function>
  void bind(Function& function, const char* symbol) {
    // dlsym's object pointer into a function pointer: copied, as POSIX requires them to agree.
    void* address = ::dlsym(handle_, symbol);
    static_assert(sizeof(function) == sizeof(address));
    std::memcpy(&function, &address, sizeof(function));
    if (!function && error_.empty()) error_ = std::string("the library has no ") + symbol;
  }

  void* handle_ = nullptr;
  bool initialised_ = false;
  std::string error_;
  NvmlInitV2 init_ = nullptr;
  NvmlShutdown shutdown_ = nullptr;
  NvmlErrorString error_string_ = nullptr;
};

std::optional<unsigned> pcie_figure(NvmlDeviceGetPcieFigure call, nvmlDevice_t device) {
  unsigned value = 0;
  if (call(device, &value) != kNvmlSuccess || value == 0) return std::nullopt;
  return value;
}

GpuLinks read_gpu(const Nvml& nvml, unsigned index, nvmlDevice_t device) {
  GpuLinks gpu;
  gpu.index = index;
  char name[kNvmlDeviceNameBufferSize] = {};
  if (nvml.name(device, name, sizeof(name)) == kNvmlSuccess) {
    name[sizeof(name) - 1] = '\0';
    gpu.name = printable(name);
  }
  int major = 0, minor = 0;
  if (nvml.compute_capability(device, &major, &minor) == kNvmlSuccess && major > 0) {
    gpu.compute_capability = std::to_string(major) + "." + std::to_string(minor);
  }
  for (unsigned link = 0; link < kNvmlNvLinkMaxLinks; ++link) {
    nvmlEnableState_t state = 0;
    // A GPU without NVLink answers "not supported"; one with fewer links refuses the index.
    if (nvml.nvlink_state(device, link, &state) != kNvmlSuccess) continue;
    ++gpu.nvlinks;
    if (state != kNvmlFeatureEnabled) continue;
    ++gpu.nvlinks_active;
    unsigned version = 0;
    if (!gpu.nvlink_version_code && nvml.nvlink_version(device, link, &version) == kNvmlSuccess && version > 0) gpu.nvlink_version_code = version;
    nvmlIntNvLinkDeviceType_t remote = -1;
    if (nvml.nvlink_remote_type(device, link, &remote) == kNvmlSuccess && remote == kNvmlNvLinkDeviceTypeSwitch) ++gpu.nvlinks_to_nvswitch;
  }
  gpu.pcie_generation = pcie_figure(nvml.pcie_generation, device);
  gpu.pcie_max_generation = pcie_figure(nvml.pcie_max_generation, device);
  gpu.pcie_width = pcie_figure(nvml.pcie_width, device);
  gpu.pcie_max_width = pcie_figure(nvml.pcie_max_width, device);
  return gpu;
}

}  // namespace

GpuLinkInventory probe_gpu_links(const std::string& library) {
  GpuLinkInventory inventory;
  inventory.library = library;
  if (inventory.library.empty()) {
    const char* named = std::getenv(kNvmlLibraryVariable);
    inventory.library = named && *named ? named : kDefaultNvmlLibrary;
  }
  const Nvml nvml(inventory.library);
  if (!nvml.usable()) {
    inventory.note = nvml.error();
    return inventory;
  }
  unsigned count = 0;
  if (const nvmlReturn_t code = nvml.count(&count); code != kNvmlSuccess) {
    inventory.note = "nvmlDeviceGetCount_v2: " + nvml.describe(code);
    return inventory;
  }
  inventory.read = true;
  for (unsigned index = 0; index < count; ++index) {
    nvmlDevice_t device = nullptr;
    if (const nvmlReturn_t code = nvml.handle_by_index(index, &device); code != kNvmlSuccess) {
      inventory.note += (inventory.note.empty() ? "" : "; ") + std::string("GPU ") + std::to_string(index) + ": " + nvml.describe(code);
      continue;
    }
    inventory.gpus.push_back(read_gpu(nvml, index, device));
  }
  if (count == 0) inventory.note = "NVML lists no GPU";
  return inventory;
}

std::string nvlink_version_name(unsigned code) {
  // nvmlNvlinkVersion_t: 1.0, 2.0, 2.2, 3.0, 3.1, 4.0, 5.0 for codes 1 to 7.
  static const char* const kNames[] = {"1.0", "2.0", "2.2", "3.0", "3.1", "4.0", "5.0"};
  if (code >= 1 && code <= sizeof(kNames) / sizeof(kNames[0])) return std::string("NVLink ") + kNames[code - 1];
  return "code " + std::to_string(code);
}

}  // namespace collbench::compute
