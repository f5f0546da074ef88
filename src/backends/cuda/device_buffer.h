// A Buffer in GPU memory. Every copy and fill is issued on the backend's stream and waited for
// before it returns: they happen outside the timed region, and they must be ordered with the
// library's calls on that stream (a copy on the legacy default stream is not ordered before work
// on a non-blocking stream, so a check could read a buffer still being filled).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>

#include "backends/backend.h"

namespace collbench::cuda {

class DeviceBuffer final : public Buffer {
 public:
  DeviceBuffer(std::size_t bytes, cudaStream_t stream);  // cudaMalloc on the current device
  // Memory allocated elsewhere (ncclMemAlloc, registered with a communicator); `release` frees it.
  DeviceBuffer(void* memory, std::size_t bytes, cudaStream_t stream, std::function<void(void*)> release);
  ~DeviceBuffer() override;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() override { return memory_; }
  std::size_t bytes() const override { return bytes_; }
  void copy_from_host(const void* source, std::size_t offset_bytes, std::size_t bytes) override;
  void copy_to_host(void* destination, std::size_t offset_bytes, std::size_t bytes) const override;
  void fill_bytes(unsigned char value, std::size_t offset_bytes, std::size_t bytes) override;

 private:
  std::size_t bytes_;
  void* memory_ = nullptr;
  cudaStream_t stream_;
  std::function<void(void*)> release_;
};

}  // namespace collbench::cuda
