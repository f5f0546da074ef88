#include "backends/cuda/device_buffer.h"

#include "backends/cuda/cuda_check.h"

namespace collbench::cuda {

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes > 0) CB_CUDA_CHECK(cudaMalloc(&memory_, bytes));
}

DeviceBuffer::~DeviceBuffer() {
  if (memory_) cudaFree(memory_);
}

void DeviceBuffer::copy_from_host(const void* source, std::size_t offset_bytes, std::size_t bytes) {
  if (bytes == 0) return;
  CB_CUDA_CHECK(cudaMemcpy(static_cast<char*>(memory_) + offset_bytes, source, bytes, cudaMemcpyHostToDevice));
}

void DeviceBuffer::copy_to_host(void* destination, std::size_t offset_bytes, std::size_t bytes) const {
  if (bytes == 0) return;
  CB_CUDA_CHECK(cudaMemcpy(destination, static_cast<const char*>(memory_) + offset_bytes, bytes, cudaMemcpyDeviceToHost));
}

void DeviceBuffer::fill_bytes(unsigned char value, std::size_t offset_bytes, std::size_t bytes) {
  if (bytes == 0) return;
  CB_CUDA_CHECK(cudaMemset(static_cast<char*>(memory_) + offset_bytes, value, bytes));
  // cudaMemset may return before the device is written; the poison must land before the next call.
  CB_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace collbench::cuda
