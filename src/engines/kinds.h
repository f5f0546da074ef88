// What the engines run: GEMM element types and shapes, STREAM kernels. The workloads' options
// (workloads/matmul/matmul_options.h, membw/) choose among them; the engines need nothing else of them.
#pragma once

#include <cstdint>
#include <string>

namespace collbench::compute {

// GEMM element types; float64 and float32 run on CPUs, every one but float64 on GPUs.
enum class GemmType { kFloat64, kFloat32, kTf32, kFloat16, kBfloat16, kFp8 };

enum class StreamKernel { kCopy, kScale, kAdd, kTriad, kMemcpy };  // kMemcpy: cudaMemcpy D2D, GPU only

struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
};

std::string to_string(GemmType type);
std::string to_string(StreamKernel kernel);

}  // namespace collbench::compute
