// What a rank runs on, as the reports record it, and the warnings users must see: a slow OpenBLAS
// core, and threads squeezed onto fewer cores by mpirun's default binding.
#pragma once

#include <string>
#include <vector>

#include "engines/host_info.h"
#include "report/report.h"

namespace collbench::compute {

// `threads_requested` is the --threads value (0 = the cores this rank may use).
report::RankPlatform local_platform(const HostInfo& host, int threads_requested, int threads_used, int world_size,
                                    const std::string& device, const std::string& library, bool uses_openblas);

// The distinct warnings of all ranks, each once, naming the ranks that gave it.
std::vector<std::string> distinct_warnings(const std::vector<report::RankPlatform>& platforms);

}  // namespace collbench::compute
