// RAII for what the CUDA code of collbench holds: device memory, pinned host memory, streams and
// events. Each is freed when it goes; none is copyable, all are movable.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <type_traits>

#include "core/values.h"

namespace collbench::cuda {

// Memory on the current GPU (cudaMalloc), or allocated elsewhere with its own release (ncclMemAlloc,
// registered with a communicator). Copies and fills are issued on `stream` and waited for before
// they return: they happen outside timed regions, and they must be ordered with the library's
// calls on that stream (a copy on the legacy default stream is not ordered before work on a
// non-blocking stream, so a check could read a buffer still being filled).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes, cudaStream_t stream = nullptr);
  DeviceBuffer(void* memory, std::size_t bytes, cudaStream_t stream, std::function<void(void*)> release);

  void* data() const { return memory_.get(); }
  template <typename T>
  T* as() const { return static_cast<T*>(memory_.get()); }
  std::size_t bytes() const { return bytes_; }
  void copy_from_host(const void* source, std::size_t offset_bytes, std::size_t bytes);
  void copy_to_host(void* destination, std::size_t offset_bytes, std::size_t bytes) const;
  void fill_bytes(unsigned char value, std::size_t offset_bytes, std::size_t bytes);
  void copy_within(std::size_t from_offset, std::size_t to_offset, std::size_t bytes);
  // The collectives' inputs, written by a kernel (cuda/input_fill.h): `count` elements at the offset.
  void fill_inputs(const ValueSpec& spec, int rank, std::size_t offset_bytes, std::size_t count);

 private:
  std::unique_ptr<void, std::function<void(void*)>> memory_;  // released by its deleter
  std::size_t bytes_ = 0;
  cudaStream_t stream_ = nullptr;
};

// Releases a handle with `release` (cudaStreamDestroy, ...); an error is ignored, as in a destructor.
template <typename Handle, cudaError_t (*release)(Handle)>
struct Released {
  void operator()(Handle handle) const { release(handle); }
};

// Page-locked host memory (cudaMallocHost), which copy engines read and write without staging.
using PinnedBuffer = std::unique_ptr<unsigned char[], Released<void*, cudaFreeHost>>;
PinnedBuffer allocate_pinned(std::size_t bytes);

// A stream on the current device; `flags` as cudaStreamCreateWithFlags (cudaStreamNonBlocking:
// not ordered with the legacy default stream).
using Stream = std::unique_ptr<std::remove_pointer_t<cudaStream_t>, Released<cudaStream_t, cudaStreamDestroy>>;
Stream create_stream(unsigned flags = cudaStreamDefault);

// An event on the current device; `flags` as cudaEventCreateWithFlags (cudaEventDisableTiming for
// ordering only).
using Event = std::unique_ptr<std::remove_pointer_t<cudaEvent_t>, Released<cudaEvent_t, cudaEventDestroy>>;
Event create_event(unsigned flags = cudaEventDefault);

}  // namespace collbench::cuda
