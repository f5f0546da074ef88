#include "workloads/collectives/bitwise.h"

#include <cmath>
#include <cstring>

#include "core/printable.h"
#include "core/values.h"

namespace collbench {

BitComparison compare_bits(const void* reference, const void* actual, std::size_t count, std::size_t element_bytes,
                           std::size_t first_index, const std::function<bool(std::size_t)>& compared) {
  const auto* expected_bytes = static_cast<const unsigned char*>(reference);
  const auto* actual_bytes = static_cast<const unsigned char*>(actual);
  BitComparison result;
  // Whole equal buffers are the common case: one memcmp, then element by element only if needed.
  if (std::memcmp(expected_bytes, actual_bytes, count * element_bytes) == 0) return result;
  for (std::size_t i = 0; i < count; ++i) {
    if (std::memcmp(expected_bytes + i * element_bytes, actual_bytes + i * element_bytes, element_bytes) == 0) continue;
    if (compared && !compared(first_index + i)) continue;
    ++result.differing;
    if (!result.first) result.first = first_index + i;
  }
  return result;
}

std::string element_bits_hex(const void* base, std::size_t index, std::size_t element_bytes) {
  const auto* bytes = static_cast<const unsigned char*>(base) + index * element_bytes;
  std::uint64_t value = 0;
  std::string text = "0x";
  if (element_bytes <= sizeof(value)) {
    std::memcpy(&value, bytes, element_bytes);  // little-endian host: the low bytes of the integer
    return text + formatted("%0*llx", static_cast<int>(2 * element_bytes), static_cast<unsigned long long>(value));
  }
  for (std::size_t b = element_bytes; b-- > 0;) text += formatted("%02x", bytes[b]);  // wider than 64 bits: most significant byte first
  return text;
}

double rounding_input(std::uint64_t seed, int rank, std::uint64_t index) {
  const std::uint64_t bits = mix_bits(mix_bits(seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(rank)) ^ index);
  const double fraction = static_cast<double>(bits >> 11) * 0x1.0p-53;  // [0, 1), 53 random bits
  const double magnitude = std::ldexp(1.0 + fraction, (bits & 1u) ? -1 : 0);  // [0.5, 1) or [1, 2)
  return (bits & 2u) ? -magnitude : magnitude;
}

std::uint64_t fnv1a_64(const void* data, std::size_t bytes, std::uint64_t hash) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) {
    hash ^= p[i];
    hash *= 1099511628211ull;
  }
  return hash;
}

}  // namespace collbench
