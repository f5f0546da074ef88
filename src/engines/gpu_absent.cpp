// The GPU engines of a build without CUDA: none, with the reason.
#include "engines/engines.h"

namespace collbench::compute {
namespace {

constexpr const char* kNotBuilt = "this build has no GPU support (no CUDA toolkit was found at configure time)";

std::nullptr_t not_built(std::string* why_not) {
  if (why_not) *why_not = kNotBuilt;
  return nullptr;
}

}  // namespace

std::unique_ptr<GemmEngine> make_gpu_gemm_engine(int, std::string* why_not) { return not_built(why_not); }
std::unique_ptr<StreamEngine> make_gpu_stream_engine(int, std::string* why_not) { return not_built(why_not); }
std::unique_ptr<CopyEngine> make_gpu_copy_engine(std::uint64_t, std::string* why_not) { return not_built(why_not); }

GpuInventory probe_gpu(int) {
  GpuInventory inventory;
  inventory.reason = kNotBuilt;
  return inventory;
}

}  // namespace collbench::compute
