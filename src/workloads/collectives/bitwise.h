// Bitwise reproducibility (-B N): output buffers compared bit for bit, across repeats of the
// same call with the same inputs and, where every rank must hold the same result, across ranks.
//
// A tolerance check (#wrong) passes results that differ in their last bits; data-parallel replicas
// drift apart on exactly those bits (NCCL #2360, #1497; nccl-tests PR #388 proposes -B). Pure: no
// world, no backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace collbench {

// Elements of `actual` whose bits differ from `reference`, and the first of them. Elements for
// which `compared` (when given) returns false are skipped; indices are `first_index` + position,
// so a buffer compared a piece at a time reports indices into the whole buffer.
struct BitComparison {
  std::int64_t differing = 0;
  std::optional<std::size_t> first;  // the first differing element's index
};
BitComparison compare_bits(const void* reference, const void* actual, std::size_t count, std::size_t element_bytes,
                           std::size_t first_index = 0, const std::function<bool(std::size_t index)>& compared = {});

// One element's bits as the integer of its width in hex: "0x3f800000" for float32 1.0 (the host's
// byte order, so the text reads as the value's encoding, not its bytes in memory).
std::string element_bits_hex(const void* base, std::size_t index, std::size_t element_bytes);

// The inputs of -B's repeats for floating types: +-[0.5, 2) with every significand bit random,
// a function of (seed, rank, index). The checks' inputs (core/values.h) are small integers whose
// sums are exact in any order, so they cannot show a result that depends on the order of the
// additions; these round at every addition, so two reduction orders give different bits.
double rounding_input(std::uint64_t seed, int rank, std::uint64_t index);

// FNV-1a over the bytes: what ranks exchange first, so that identical outputs cost one string each.
std::uint64_t fnv1a_64(const void* data, std::size_t bytes, std::uint64_t hash = 14695981039346656037ull);

}  // namespace collbench
