#include "cuda/memory.h"

#include <utility>

#include "cuda/check.h"
#include "cuda/input_fill.h"

namespace collbench::cuda {

DeviceBuffer::DeviceBuffer(std::size_t bytes, cudaStream_t stream) : bytes_(bytes), stream_(stream) {
  void* memory = nullptr;
  if (bytes > 0) CB_CUDA_CHECK(cudaMalloc(&memory, bytes));
  memory_ = {memory, [](void* allocated) { cudaFree(allocated); }};
}

DeviceBuffer::DeviceBuffer(void* memory, std::size_t bytes, cudaStream_t stream, std::function<void(void*)> release)
    : memory_(memory, std::move(release)), bytes_(bytes), stream_(stream) {}

void DeviceBuffer::copy_from_host(const void* source, std::size_t offset_bytes, std::size_t bytes) {
  if (bytes == 0) return;
  CB_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(data()) + offset_bytes, source, bytes, cudaMemcpyHostToDevice, stream_));
  CB_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the source is pageable and reused for the next piece
}

void DeviceBuffer::copy_to_host(void* destination, std::size_t offset_bytes, std::size_t bytes) const {
  if (bytes == 0) return;
  CB_CUDA_CHECK(cudaMemcpyAsync(destination, static_cast<const char*>(data()) + offset_bytes, bytes,
                                cudaMemcpyDeviceToHost, stream_));
  CB_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void DeviceBuffer::fill_bytes(unsigned char value, std::size_t offset_bytes, std::size_t bytes) {
  if (bytes == 0) return;
  CB_CUDA_CHECK(cudaMemsetAsync(static_cast<char*>(data()) + offset_bytes, value, bytes, stream_));
  CB_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void DeviceBuffer::copy_within(std::size_t from_offset, std::size_t to_offset, std::size_t bytes) {
  if (bytes == 0) return;
  char* base = static_cast<char*>(data());
  CB_CUDA_CHECK(cudaMemcpyAsync(base + to_offset, base + from_offset, bytes, cudaMemcpyDeviceToDevice, stream_));
  CB_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void DeviceBuffer::fill_inputs(const ValueSpec& spec, int rank, std::size_t offset_bytes, std::size_t count) {
  fill_inputs_on_device(static_cast<char*>(data()) + offset_bytes, spec, rank, count, stream_);
}

PinnedBuffer allocate_pinned(std::size_t bytes) {
  void* memory = nullptr;
  CB_CUDA_CHECK(cudaMallocHost(&memory, bytes));
  return PinnedBuffer(static_cast<unsigned char*>(memory));
}

Stream create_stream(unsigned flags) {
  cudaStream_t stream = nullptr;
  CB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, flags));
  return Stream(stream);
}

Event create_event(unsigned flags) {
  cudaEvent_t event = nullptr;
  CB_CUDA_CHECK(cudaEventCreateWithFlags(&event, flags));
  return Event(event);
}

}  // namespace collbench::cuda
