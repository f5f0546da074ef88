#include "engines/kinds.h"

namespace collbench::compute {

std::string to_string(GemmType type) {
  constexpr const char* kNames[] = {"float64", "float32", "tf32", "float16", "bfloat16", "fp8"};  // in GemmType's order
  return kNames[static_cast<std::size_t>(type)];
}

std::string to_string(StreamKernel kernel) {
  constexpr const char* kNames[] = {"copy", "scale", "add", "triad", "memcpy"};  // in StreamKernel's order
  return kNames[static_cast<std::size_t>(kernel)];
}

}  // namespace collbench::compute
