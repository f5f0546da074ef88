// Which of a few small integers input element `index` of a rank is: one definition for the host
// fill (core/values.cpp) and the GPU fill (cuda/input_fill.cu). Both must write the same bytes,
// since the checks compute the expected results on the host, so neither keeps a copy of this.
// Plain types only, so a kernel takes it by value.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define CB_HOST_DEVICE __host__ __device__
#else
#define CB_HOST_DEVICE
#endif

namespace collbench {

// What the choice of an element depends on (a ValueSpec's part of it, core/values.h).
struct InputPattern {
  bool product = false;    // the op is prod: a pattern of +-1 and 2 instead of -4..4
  bool is_signed = true;   // the dtype has negative values
  int ranks = 1;
  std::uint64_t seed = 0;
};

// Sum-like ops choose one of 9 values (-4..4, or 0..8 unsigned), prod one of 4.
constexpr int kInputChoices = 9;

// Each choice's value encoded in the dtype, little-endian, at most 8 bytes (values.cpp fills it).
struct EncodedChoices {
  unsigned char bytes[kInputChoices][8] = {};
};

// A 64-bit finaliser (splitmix/murmur style): spreads nearby integers over all bits. The input
// generator is built on it; other deterministic generators (GEMM sampling) reuse it.
CB_HOST_DEVICE inline std::uint64_t mix_bits(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// At most this many ranks contribute a factor 2 to one product element, so |product| <= 2^6 fits
// every dtype (int8 included) and stays exact in bfloat16.
constexpr int kMaxDoublingsPerProduct = 6;

CB_HOST_DEVICE inline int doubling_stride(int ranks) {
  const int stride = (ranks + kMaxDoublingsPerProduct - 1) / kMaxDoublingsPerProduct;
  return stride > 1 ? stride : 1;
}

// Sum-like ops: choices 0..8 are the values -4..4 (signed) or 0..8 (unsigned). prod: bit 1 says
// the element doubles, bit 0 that it is negated.
CB_HOST_DEVICE inline int input_choice(const InputPattern& pattern, int rank, std::uint64_t index) {
  const std::uint64_t hash =
      mix_bits(index + 0x9e3779b97f4a7c15ULL * (static_cast<std::uint64_t>(rank) + 1) + (pattern.seed << 40));
  if (pattern.product) {
    const auto stride = static_cast<std::uint64_t>(doubling_stride(pattern.ranks));
    const bool doubles = (static_cast<std::uint64_t>(rank) + index) % stride == 0;
    const bool negates = pattern.is_signed && (hash & 7) == 0;
    return (doubles ? 2 : 0) | (negates ? 1 : 0);
  }
  return static_cast<int>(((hash >> 32) * kInputChoices) >> 32);  // uniform in [0, 9)
}

}  // namespace collbench
