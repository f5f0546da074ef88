// Datasheet peaks of GPUs we know (dense, no sparsity), by device name. Pure, so it is tested here.
#pragma once

#include <optional>
#include <string>

#include "engines/kinds.h"

namespace collbench::compute {

std::optional<double> gpu_peak_tflops(const std::string& device_name, GemmType type);
std::optional<double> gpu_peak_memory_gbps(const std::string& device_name);

}  // namespace collbench::compute
