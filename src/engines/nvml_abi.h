// The few NVML calls collbench makes, declared here as NVML's API reference documents them
// (nvml.h of the CUDA toolkit and the driver; its numbers never change once published), so that
// collbench loads libnvidia-ml.so.1 at run time (dlopen) and builds and runs where no driver, no
// CUDA and no nvml.h are installed. The test library tests/compute/fake_nvml.cpp exports the same
// names with these signatures.
#pragma once

extern "C" {

typedef int nvmlReturn_t;  // nvmlReturn_enum: an int
constexpr nvmlReturn_t kNvmlSuccess = 0;               // NVML_SUCCESS
constexpr nvmlReturn_t kNvmlErrorNotSupported = 3;     // NVML_ERROR_NOT_SUPPORTED
constexpr nvmlReturn_t kNvmlErrorDriverNotLoaded = 9;  // NVML_ERROR_DRIVER_NOT_LOADED

typedef struct nvmlDevice_st* nvmlDevice_t;
typedef int nvmlEnableState_t;           // NVML_FEATURE_DISABLED 0, NVML_FEATURE_ENABLED 1
typedef int nvmlIntNvLinkDeviceType_t;   // NVML_NVLINK_DEVICE_TYPE_GPU 0, _IBMNPU 1, _SWITCH 2, _UNKNOWN 0xFF
constexpr nvmlEnableState_t kNvmlFeatureEnabled = 1;
constexpr nvmlIntNvLinkDeviceType_t kNvmlNvLinkDeviceTypeSwitch = 2;
// NVML_NVLINK_MAX_LINKS: the links a device may have (18 since Hopper); a higher index is refused.
constexpr unsigned kNvmlNvLinkMaxLinks = 18;
// NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned kNvmlDeviceNameBufferSize = 96;

typedef nvmlReturn_t (*NvmlInitV2)(void);                                  // nvmlInit_v2
typedef nvmlReturn_t (*NvmlShutdown)(void);                                // nvmlShutdown
typedef const char* (*NvmlErrorString)(nvmlReturn_t);                      // nvmlErrorString
typedef nvmlReturn_t (*NvmlDeviceGetCountV2)(unsigned int*);               // nvmlDeviceGetCount_v2
typedef nvmlReturn_t (*NvmlDeviceGetHandleByIndexV2)(unsigned int, nvmlDevice_t*);  // nvmlDeviceGetHandleByIndex_v2
typedef nvmlReturn_t (*NvmlDeviceGetName)(nvmlDevice_t, char*, unsigned int);
typedef nvmlReturn_t (*NvmlDeviceGetCudaComputeCapability)(nvmlDevice_t, int*, int*);
typedef nvmlReturn_t (*NvmlDeviceGetNvLinkState)(nvmlDevice_t, unsigned int, nvmlEnableState_t*);
typedef nvmlReturn_t (*NvmlDeviceGetNvLinkVersion)(nvmlDevice_t, unsigned int, unsigned int*);
typedef nvmlReturn_t (*NvmlDeviceGetNvLinkRemoteDeviceType)(nvmlDevice_t, unsigned int, nvmlIntNvLinkDeviceType_t*);
// nvmlDeviceGetCurrPcieLinkGeneration, ...MaxPcieLinkGeneration, ...CurrPcieLinkWidth, ...MaxPcieLinkWidth
typedef nvmlReturn_t (*NvmlDeviceGetPcieFigure)(nvmlDevice_t, unsigned int*);

}  // extern "C"
