#include "core/host_reduce.h"

namespace collbench {
namespace {

template <typename T>
void divide_all(void* data, std::size_t count, int divisor) {
  T* values = static_cast<T*>(data);
  for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<T>(values[i] / static_cast<T>(divisor));
}

template <SixteenBitFormat Format>
void divide_sixteen_bit(void* data, std::size_t count, int divisor) {
  auto* values = static_cast<std::uint16_t*>(data);
  for (std::size_t i = 0; i < count; ++i) {
    values[i] = encode_sixteen_bit<Format>(decode_sixteen_bit<Format>(values[i]) / static_cast<float>(divisor));
  }
}

}  // namespace

void divide_elements(DType dtype, void* data, std::size_t count, int divisor) {
  switch (dtype) {
    case DType::kFloat16: return divide_sixteen_bit<SixteenBitFormat::kHalf>(data, count, divisor);
    case DType::kBfloat16: return divide_sixteen_bit<SixteenBitFormat::kBfloat16>(data, count, divisor);
    case DType::kFloat8E4M3:
    case DType::kFloat8E5M2: {
      auto* values = static_cast<std::uint8_t*>(data);
      for (std::size_t i = 0; i < count; ++i) {
        values[i] = double_to_fp8_bits(fp8_bits_to_double(values[i], dtype) / divisor, dtype);
      }
      return;
    }
    default: return with_arithmetic_type(dtype, [&](auto element) { divide_all<decltype(element)>(data, count, divisor); });
  }
}

}  // namespace collbench
