// A copy done by the SMs (a grid-stride kernel) instead of a copy engine, for copy_perf's
// CE-vs-SM comparison (nvbandwidth's method). Works across GPUs once peer access is enabled.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace collbench::gpu {

// Enqueues the copy on `stream`; `blocks` is a few per SM to keep every SM busy.
void launch_sm_copy(void* destination, const void* source, std::size_t bytes, int blocks, cudaStream_t stream);

}  // namespace collbench::gpu
