#include "engines/gpu_peaks.h"

#include <vector>

namespace collbench::compute {
namespace {

struct GpuPeaks {
  const char* name_part;  // matched against the CUDA device name, most specific first
  double fp32, tf32, fp16, bf16, fp8;  // TFLOP/s, dense; 0 = not supported
  double memory_gbps;
};

// NVIDIA datasheets (dense tensor throughput; the sparse figures are twice these).
const std::vector<GpuPeaks>& table() {
  static const std::vector<GpuPeaks> peaks = {
      // GH200 and H200 NVL names contain "H200": they come first. GH200's figures depend on its
      // memory variant and power setting, so no peak is claimed for it (all zeros: unknown).
      {"GH200", 0, 0, 0, 0, 0, 0},
      {"H200 NVL", 60.0, 417.5, 835.5, 835.5, 1670.5, 4800},
      {"H200", 66.9, 494.7, 989.4, 989.4, 1978.9, 4800},
      {"H100 NVL", 60.0, 417.5, 835.5, 835.5, 1670.5, 3900},
      {"H100 PCIe", 51.2, 378.0, 756.5, 756.5, 1513.0, 2000},
      {"H100", 66.9, 494.7, 989.4, 989.4, 1978.9, 3350},  // SXM5, "NVIDIA H100 80GB HBM3"
      {"A100-SXM4-80GB", 19.5, 156.0, 312.0, 312.0, 0, 2039},
      {"A100 80GB PCIe", 19.5, 156.0, 312.0, 312.0, 0, 1935},
      {"A100", 19.5, 156.0, 312.0, 312.0, 0, 1555},  // 40 GB parts
      {"L40S", 91.6, 183.0, 362.1, 362.1, 733.0, 864},
  };
  return peaks;
}

const GpuPeaks* find(const std::string& device_name) {
  for (const auto& entry : table()) {
    if (device_name.find(entry.name_part) != std::string::npos) return &entry;
  }
  return nullptr;
}

}  // namespace

std::optional<double> gpu_peak_tflops(const std::string& device_name, GemmType type) {
  const GpuPeaks* entry = find(device_name);
  if (!entry) return std::nullopt;
  double peak = 0;
  switch (type) {
    case GemmType::kFloat32: peak = entry->fp32; break;
    case GemmType::kTf32: peak = entry->tf32; break;
    case GemmType::kFloat16: peak = entry->fp16; break;
    case GemmType::kBfloat16: peak = entry->bf16; break;
    case GemmType::kFp8: peak = entry->fp8; break;
    case GemmType::kFloat64: peak = 0; break;
  }
  if (peak <= 0) return std::nullopt;
  return peak;
}

std::optional<double> gpu_peak_memory_gbps(const std::string& device_name) {
  const GpuPeaks* entry = find(device_name);
  if (!entry || entry->memory_gbps <= 0) return std::nullopt;
  return entry->memory_gbps;
}

}  // namespace collbench::compute
