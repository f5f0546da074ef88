// A Buffer in GPU memory (cudaMalloc). Every copy and fill is synchronous: they happen outside the
// timed region, and the runner reads results right after.
#pragma once

#include "backends/backend.h"

namespace collbench::cuda {

class DeviceBuffer final : public Buffer {
 public:
  explicit DeviceBuffer(std::size_t bytes);  // on the current device
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
};

}  // namespace collbench::cuda
