#include "cuda/input_fill.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/input_pattern.h"
#include "cuda/check.h"

namespace collbench::cuda {
namespace {

// One element per thread and turn of the grid-stride loop; the encoded value is copied a byte at a
// time, since -u (unaligned buffers) gives addresses no wider store may take.
template <unsigned kElementBytes>
__global__ void input_fill_kernel(unsigned char* out, InputPattern pattern, EncodedChoices encoded, int rank,
                                  unsigned long long count) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count;
       i += stride) {
    const unsigned char* value = encoded.bytes[input_choice(pattern, rank, i)];
    unsigned char* element = out + i * kElementBytes;
#pragma unroll
    for (unsigned byte = 0; byte < kElementBytes; ++byte) element[byte] = value[byte];
  }
}

template <unsigned kElementBytes>
void launch(void* destination, const ValueSpec& spec, int rank, std::size_t count, cudaStream_t stream) {
  constexpr unsigned kThreads = 256;
  constexpr std::size_t kMostBlocks = 65536;  // the loop strides over the rest
  const std::size_t blocks = std::min(kMostBlocks, (count + kThreads - 1) / kThreads);
  input_fill_kernel<kElementBytes><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      static_cast<unsigned char*>(destination), input_pattern(spec), encode_choices(spec), rank, count);
  CB_CUDA_CHECK(cudaGetLastError());
}

// Compares elements [start, start + n) of the device fill with the host's.
void compare_with_host(const void* destination, const ValueSpec& spec, int rank, std::size_t start, std::size_t n,
                       cudaStream_t stream) {
  const std::size_t element = dtype_info(spec.dtype).size_bytes;
  std::vector<unsigned char> written(n * element), expected(n * element);
  CB_CUDA_CHECK(cudaMemcpyAsync(written.data(), static_cast<const unsigned char*>(destination) + start * element,
                                written.size(), cudaMemcpyDeviceToHost, stream));
  CB_CUDA_CHECK(cudaStreamSynchronize(stream));
  fill_inputs(spec, rank, expected.data(), n, start);
  for (std::size_t i = 0; i < n; ++i) {
    if (std::memcmp(written.data() + i * element, expected.data() + i * element, element) != 0) {
      throw Error("the GPU input fill wrote " + std::string(to_string(spec.dtype)) + " element " +
                  std::to_string(start + i) + " of rank " + std::to_string(rank) +
                  " unlike the host's generator (a collbench defect: cuda/input_fill.cu)");
    }
  }
}

}  // namespace

void fill_inputs_on_device(void* destination, const ValueSpec& spec, int rank, std::size_t count, cudaStream_t stream) {
  if (count == 0) return;
  switch (dtype_info(spec.dtype).size_bytes) {
    case 1: launch<1>(destination, spec, rank, count, stream); break;
    case 2: launch<2>(destination, spec, rank, count, stream); break;
    case 4: launch<4>(destination, spec, rank, count, stream); break;
    case 8: launch<8>(destination, spec, rank, count, stream); break;
    default:
      throw Error("no GPU input fill for " + std::string(to_string(spec.dtype)) + "'s " +
                  std::to_string(dtype_info(spec.dtype).size_bytes) + "-byte elements");
  }
  CB_CUDA_CHECK(cudaStreamSynchronize(stream));
  constexpr std::size_t kSampled = 64;  // elements compared at each end and in the middle
  const std::size_t n = std::min(kSampled, count);
  compare_with_host(destination, spec, rank, 0, n, stream);
  if (count > n) compare_with_host(destination, spec, rank, (count - n) / 2, n, stream);
  if (count > n) compare_with_host(destination, spec, rank, count - n, n, stream);
}

}  // namespace collbench::cuda
