#include "engines/kinds.h"

namespace collbench::compute {

std::string to_string(GemmType type) {
  switch (type) {
    case GemmType::kFloat64: return "float64";
    case GemmType::kFloat32: return "float32";
    case GemmType::kTf32: return "tf32";
    case GemmType::kFloat16: return "float16";
    case GemmType::kBfloat16: return "bfloat16";
    case GemmType::kFp8: return "fp8";
  }
  return "?";
}

std::string to_string(StreamKernel kernel) {
  switch (kernel) {
    case StreamKernel::kCopy: return "copy";
    case StreamKernel::kScale: return "scale";
    case StreamKernel::kAdd: return "add";
    case StreamKernel::kTriad: return "triad";
    case StreamKernel::kMemcpy: return "memcpy";
  }
  return "?";
}

}  // namespace collbench::compute
