// A stand-in for libnvidia-ml.so.1, built for the tests only (this machine has no driver and no
// GPU): the NVML calls collbench makes (src/engines/nvml_abi.h), answering for one machine
// layout chosen at build time. Loaded through COLLBENCH_NVML_LIBRARY, the test hook.
//   FAKE_NVML_LAYOUT 1 (sxm):  8x NVIDIA H200 (9.0), 18 NVLinks each, all up, version code 6
//                              (NVLink 4.0), every one to an NVSwitch; PCIe gen 5 x16
//   FAKE_NVML_LAYOUT 2 (pcie): 2x NVIDIA H100 PCIe (9.0), no NVLink (NVML: not supported); PCIe
//                              gen 5, GPU 0 at x16, GPU 1 at x8 of its x16 lanes
//   FAKE_NVML_LAYOUT 3:        no driver: nvmlInit_v2 answers NVML_ERROR_DRIVER_NOT_LOADED
#include <cstring>
#include <type_traits>

#include "engines/nvml_abi.h"

#if !defined(FAKE_NVML_LAYOUT) || FAKE_NVML_LAYOUT < 1 || FAKE_NVML_LAYOUT > 3
#error "FAKE_NVML_LAYOUT must be 1, 2 or 3"
#endif

namespace {

struct FakeGpu {
  const char* name;
  unsigned nvlinks;
  unsigned pcie_width;
};

#if FAKE_NVML_LAYOUT == 1
const FakeGpu gpus[8] = {{"NVIDIA H200", 18, 16}, {"NVIDIA H200", 18, 16}, {"NVIDIA H200", 18, 16}, {"NVIDIA H200", 18, 16},
                   {"NVIDIA H200", 18, 16}, {"NVIDIA H200", 18, 16}, {"NVIDIA H200", 18, 16}, {"NVIDIA H200", 18, 16}};
#else
const FakeGpu gpus[2] = {{"NVIDIA H100 PCIe", 0, 16}, {"NVIDIA H100 PCIe", 0, 8}};
#endif
constexpr unsigned kGpuCount = sizeof(gpus) / sizeof(gpus[0]);

// A device handle is the address of its entry (NVML's handles are opaque pointers too).
nvmlDevice_t handle_of(const FakeGpu& gpu) { return reinterpret_cast<nvmlDevice_t>(const_cast<FakeGpu*>(&gpu)); }

const FakeGpu* gpu_of(nvmlDevice_t device) {
  for (const auto& gpu : gpus) {
    if (handle_of(gpu) == device) return &gpu;
  }
  return nullptr;
}

constexpr nvmlReturn_t kInvalidArgument = 2;  // NVML_ERROR_INVALID_ARGUMENT

}  // namespace

extern "C" {

__attribute__((visibility("default"))) nvmlReturn_t nvmlInit_v2(void) { return FAKE_NVML_LAYOUT == 3 ? kNvmlErrorDriverNotLoaded : kNvmlSuccess; }
__attribute__((visibility("default"))) nvmlReturn_t nvmlShutdown(void) { return kNvmlSuccess; }
__attribute__((visibility("default"))) const char* nvmlErrorString(nvmlReturn_t code) {
  return code == kNvmlErrorDriverNotLoaded ? "Driver Not Loaded" : code == kNvmlErrorNotSupported ? "Not Supported" : "Unknown Error";
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  *count = kGpuCount;
  return kNvmlSuccess;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  if (index >= kGpuCount) return kInvalidArgument;
  *device = handle_of(gpus[index]);
  return kNvmlSuccess;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  const FakeGpu* gpu = gpu_of(device);
  if (!gpu || length <= std::strlen(gpu->name)) return kInvalidArgument;
  std::strcpy(name, gpu->name);
  return kNvmlSuccess;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int* major, int* minor) {
  if (!gpu_of(device)) return kInvalidArgument;
  *major = 9;
  *minor = 0;
  return kNvmlSuccess;
}
// A GPU without NVLink answers "not supported" for every link; one with N refuses index N and up.
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, nvmlEnableState_t* state) {
  const FakeGpu* gpu = gpu_of(device);
  if (!gpu) return kInvalidArgument;
  if (gpu->nvlinks == 0) return kNvmlErrorNotSupported;
  if (link >= gpu->nvlinks) return kInvalidArgument;
  *state = kNvmlFeatureEnabled;
  return kNvmlSuccess;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link, unsigned int* version) {
  const FakeGpu* gpu = gpu_of(device);
  if (!gpu || link >= gpu->nvlinks) return gpu && gpu->nvlinks == 0 ? kNvmlErrorNotSupported : kInvalidArgument;
  *version = 6;  // NVML_NVLINK_VERSION_4_0
  return kNvmlSuccess;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link,
                                                                                          nvmlIntNvLinkDeviceType_t* type) {
  const FakeGpu* gpu = gpu_of(device);
  if (!gpu || link >= gpu->nvlinks) return gpu && gpu->nvlinks == 0 ? kNvmlErrorNotSupported : kInvalidArgument;
  *type = kNvmlNvLinkDeviceTypeSwitch;
  return kNvmlSuccess;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int* value) {
  if (!gpu_of(device)) return kInvalidArgument;
  *value = 5;
  return kNvmlSuccess;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int* value) {
  return nvmlDeviceGetCurrPcieLinkGeneration(device, value);
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int* value) {
  const FakeGpu* gpu = gpu_of(device);
  if (!gpu) return kInvalidArgument;
  *value = gpu->pcie_width;
  return kNvmlSuccess;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int* value) {
  if (!gpu_of(device)) return kInvalidArgument;
  *value = 16;
  return kNvmlSuccess;
}

}  // extern "C"

// Each export has the signature collbench's loader casts it to.
static_assert(std::is_same_v<decltype(&nvmlInit_v2), NvmlInitV2>);
static_assert(std::is_same_v<decltype(&nvmlShutdown), NvmlShutdown>);
static_assert(std::is_same_v<decltype(&nvmlErrorString), NvmlErrorString>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetCount_v2), NvmlDeviceGetCountV2>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetHandleByIndex_v2), NvmlDeviceGetHandleByIndexV2>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetName), NvmlDeviceGetName>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetCudaComputeCapability), NvmlDeviceGetCudaComputeCapability>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetNvLinkState), NvmlDeviceGetNvLinkState>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetNvLinkVersion), NvmlDeviceGetNvLinkVersion>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetNvLinkRemoteDeviceType), NvmlDeviceGetNvLinkRemoteDeviceType>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetCurrPcieLinkWidth), NvmlDeviceGetPcieFigure>);
