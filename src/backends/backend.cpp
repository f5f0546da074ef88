#include "backends/backend.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"

namespace collbench {

const CollectiveEntry* Backend::entry_for(std::string_view collective) const {
  for (const CollectiveEntry& entry : support().collectives) {
    if (entry.name == collective) return &entry;
  }
  return nullptr;
}

std::string Backend::unsupported_reason(const CallShape& shape) const {
  const BackendSupport& supported = support();
  const auto lacks = [](const auto& list, auto value) { return std::find(list.begin(), list.end(), value) == list.end(); };
  const std::string prefix = "the " + name() + " backend ";
  const CollectiveEntry* entry = entry_for(shape.collective);
  if (!entry) return prefix + "has no " + std::string(shape.collective);
  if (!entry->unsupported.empty()) return entry->unsupported;
  if (lacks(supported.dtypes, shape.dtype)) {
    const auto reason = supported.dtype_reasons.find(shape.dtype);
    return reason != supported.dtype_reasons.end() ? reason->second : prefix + "has no dtype " + std::string(to_string(shape.dtype));
  }
  if (shape.op && lacks(supported.ops, *shape.op)) return prefix + "has no op " + std::string(to_string(*shape.op));
  if (shape.op) {
    const auto together = supported.dtype_op_reasons.find({shape.dtype, *shape.op});
    if (together != supported.dtype_op_reasons.end()) return together->second;
  }
  if (shape.in_place && !entry->in_place_unsupported.empty()) return entry->in_place_unsupported;
  if (shape.call_count > supported.max_call_count) {
    return prefix + "takes at most " + std::to_string(supported.max_call_count) + " elements per call, not " +
           std::to_string(shape.call_count);
  }
  return "";
}

std::string Backend::point_to_point_unsupported(std::size_t bytes, std::size_t peers) const {
  const PointToPointEntry& entry = support().point_to_point;
  if (!entry.exchange) {
    return entry.unsupported.empty() ? "the " + name() + " backend has no point-to-point transfers" : entry.unsupported;
  }
  if (bytes > entry.max_transfer_bytes) {
    return "the " + name() + " backend takes at most " + std::to_string(entry.max_transfer_bytes) + " bytes per message, not " +
           std::to_string(bytes);
  }
  if (peers > 1 && !entry.many_peers) {
    return "the " + name() + " backend exchanges with one peer at a time, not " + std::to_string(peers) + " at once";
  }
  return "";
}

std::vector<DType> host_dtypes() {
  std::vector<DType> dtypes;
  for (DType dtype : all_dtypes()) {
    if (!is_fp8(dtype)) dtypes.push_back(dtype);
  }
  return dtypes;
}

std::map<DType, std::string> fp8_reasons(const std::string& why) {
  return {{DType::kFloat8E4M3, why}, {DType::kFloat8E5M2, why}};
}

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

void HostBuffer::copy_within(std::size_t from_offset, std::size_t to_offset, std::size_t bytes) {
  std::memcpy(storage_.get() + to_offset, storage_.get() + from_offset, bytes);
}

void HostBuffer::fill_inputs(const ValueSpec& spec, int rank, std::size_t offset_bytes, std::size_t count) {
  collbench::fill_inputs(spec, rank, storage_.get() + offset_bytes, count);
}

}  // namespace collbench
