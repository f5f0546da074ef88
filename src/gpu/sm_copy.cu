#include "gpu/sm_copy.h"

#include <cstdint>

#include "cuda/check.h"

namespace collbench::gpu {
namespace {

// 16-byte loads and stores, grid-stride; the few tail bytes one byte at a time.
__global__ void copy_kernel(uint4* destination, const uint4* source, std::size_t vectors, unsigned char* tail_destination,
                            const unsigned char* tail_source, std::size_t tail_bytes) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::size_t i = first; i < vectors; i += stride) destination[i] = source[i];
  if (first < tail_bytes) tail_destination[first] = tail_source[first];
}

}  // namespace

void launch_sm_copy(void* destination, const void* source, std::size_t bytes, int blocks, cudaStream_t stream) {
  constexpr int kThreads = 512;
  const std::size_t vectors = bytes / sizeof(uint4);
  const std::size_t copied = vectors * sizeof(uint4);
  copy_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<uint4*>(destination), static_cast<const uint4*>(source), vectors,
                                               static_cast<unsigned char*>(destination) + copied,
                                               static_cast<const unsigned char*>(source) + copied, bytes - copied);
  CB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace collbench::gpu
