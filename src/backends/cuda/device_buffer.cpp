#include "backends/cuda/device_buffer.h"

#include "backends/cuda/cuda_check.h"

namespace collbench::cuda {

DeviceBuffer::DeviceBuffer(std::size_t bytes, cudaStream_t stream) : bytes_(bytes), stream_(stream) {
  if (bytes > 0) CB_CUDA_CHECK(cudaMalloc(&memory_, bytes));
  release_ = [](void* memory) { cudaFree(memory); };
}

DeviceBuffer::DeviceBuffer(void* memory, std::size_t bytes, cudaStream_t stream, std::function<void(void*)> release)
    : bytes_(bytes), memory_(memory), stream_(stream), release_(std::move(release)) {}

DeviceBuffer::~DeviceBuffer() {
  if (memory_) release_(memory_);
}

void DeviceBuffer::copy_from_host(const void* source, std::size_t offset_bytes, std::size_t bytes) {
  if (bytes == 0) return;
  CB_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(memory_) + offset_bytes, source, bytes, cudaMemcpyHostToDevice, stream_));
  CB_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the source is pageable and reused for the next piece
}

void DeviceBuffer::copy_to_host(void* destination, std::size_t offset_bytes, std::size_t bytes) const {
  if (bytes == 0) return;
  CB_CUDA_CHECK(cudaMemcpyAsync(destination, static_cast<const char*>(memory_) + offset_bytes, bytes,
                                cudaMemcpyDeviceToHost, stream_));
  CB_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void DeviceBuffer::fill_bytes(unsigned char value, std::size_t offset_bytes, std::size_t bytes) {
  if (bytes == 0) return;
  CB_CUDA_CHECK(cudaMemsetAsync(static_cast<char*>(memory_) + offset_bytes, value, bytes, stream_));
  CB_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

}  // namespace collbench::cuda
