#include <cstring>
#include <new>

#include "backends/backend.h"
#include "core/error.h"

namespace collbench {

HostBuffer::HostBuffer(std::size_t bytes) : bytes_(bytes) {
  // Page-aligned so results do not depend on where malloc happened to put the buffer.
  void* memory = nullptr;
  if (bytes == 0 || ::posix_memalign(&memory, 4096, bytes) != 0) {
    if (bytes != 0) throw Error("cannot allocate " + std::to_string(bytes) + " bytes of host memory");
  }
  storage_.reset(static_cast<unsigned char*>(memory));
}

void HostBuffer::copy_from_host(const void* source, std::size_t offset_bytes, std::size_t bytes) {
  std::memcpy(storage_.get() + offset_bytes, source, bytes);
}

void HostBuffer::copy_to_host(void* destination, std::size_t offset_bytes, std::size_t bytes) const {
  std::memcpy(destination, storage_.get() + offset_bytes, bytes);
}

void HostBuffer::fill_bytes(unsigned char value, std::size_t offset_bytes, std::size_t bytes) {
  std::memset(storage_.get() + offset_bytes, value, bytes);
}

}  // namespace collbench
