#include "core/values.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace collbench {
std::uint64_t mix_bits(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

namespace {

std::uint64_t element_hash(const ValueSpec& spec, int rank, std::uint64_t index) {
  return mix_bits(index + 0x9e3779b97f4a7c15ULL * (static_cast<std::uint64_t>(rank) + 1) + (spec.seed << 40));
}

// At most this many ranks contribute a factor 2 to one product element, so |product| <= 2^6 fits
// every dtype (int8 included) and stays exact in bfloat16.
constexpr int kMaxDoublingsPerProduct = 6;

int doubling_stride(int ranks) { return std::max(1, (ranks + kMaxDoublingsPerProduct - 1) / kMaxDoublingsPerProduct); }

// Brings an exact integer result into the dtype's range the way two's-complement arithmetic does.
double wrap_to_dtype(DType type, std::int64_t value) {
  switch (type) {
    case DType::kInt8: return static_cast<std::int8_t>(static_cast<std::uint8_t>(value & 0xff));
    case DType::kUint8: return static_cast<std::uint8_t>(value & 0xff);
    case DType::kInt32: return static_cast<std::int32_t>(static_cast<std::uint32_t>(value & 0xffffffffLL));
    case DType::kUint32: return static_cast<std::uint32_t>(value & 0xffffffffLL);
    case DType::kInt64: return static_cast<double>(value);
    case DType::kUint64: return static_cast<double>(static_cast<std::uint64_t>(value));
    default: return static_cast<double>(value);
  }
}

double unit_roundoff(DType type) { return std::ldexp(1.0, -dtype_info(type).significand_bits); }

// Every input is one of a few small integers: which one is an element's "choice", its value
// choice_value(). fill_inputs encodes each choice in the dtype once and copies it per element.
// Sum-like ops: choices 0..8 are the values -4..4 (signed) or 0..8 (unsigned). prod: bit 1 says
// the element doubles, bit 0 that it is negated.
int input_choice(const ValueSpec& spec, bool is_signed, int rank, std::uint64_t index) {
  const std::uint64_t hash = element_hash(spec, rank, index);
  if (spec.op == ReduceOp::kProd) {
    const bool doubles = (static_cast<std::uint64_t>(rank) + index) % doubling_stride(spec.ranks) == 0;
    const bool negates = is_signed && (hash & 7) == 0;
    return (doubles ? 2 : 0) | (negates ? 1 : 0);
  }
  return static_cast<int>(((hash >> 32) * 9) >> 32);  // uniform in [0, 9)
}

double choice_value(const ValueSpec& spec, bool is_signed, int choice) {
  if (spec.op == ReduceOp::kProd) return ((choice & 2) ? 2.0 : 1.0) * ((choice & 1) ? -1.0 : 1.0);
  return is_signed ? choice - 4 : choice;
}

constexpr int kChoices = 9;  // the most an op has (sum-like: 9, prod: 4)

// The fill's inner loop for one element size: a copy of the element's encoded choice.
template <std::size_t kSize>
void copy_choices(const ValueSpec& spec, bool is_signed, int rank, unsigned char* out, std::size_t count, std::uint64_t first_index,
                  const unsigned char (&encoded)[kChoices][8]) {
  for (std::size_t i = 0; i < count; ++i) {
    std::memcpy(out + i * kSize, encoded[input_choice(spec, is_signed, rank, first_index + i)], kSize);
  }
}

}  // namespace

double input_value(const ValueSpec& spec, int rank, std::uint64_t index) {
  const bool is_signed = dtype_info(spec.dtype).is_signed;
  return choice_value(spec, is_signed, input_choice(spec, is_signed, rank, index));
}

double reduced_value(const ValueSpec& spec, std::uint64_t index) {
  const bool floating = dtype_info(spec.dtype).is_floating;
  // Inputs are small integers, so the exact result fits an int64 for any realistic rank count.
  std::int64_t exact = static_cast<std::int64_t>(input_value(spec, 0, index));
  for (int rank = 1; rank < spec.ranks; ++rank) {
    const auto value = static_cast<std::int64_t>(input_value(spec, rank, index));
    switch (spec.op) {
      case ReduceOp::kSum:
      case ReduceOp::kAvg: exact += value; break;
      case ReduceOp::kProd: exact *= value; break;
      case ReduceOp::kMin: exact = std::min(exact, value); break;
      case ReduceOp::kMax: exact = std::max(exact, value); break;
    }
  }
  if (floating) {
    const double result = static_cast<double>(exact);
    return spec.op == ReduceOp::kAvg ? result / spec.ranks : result;
  }
  const double wrapped = wrap_to_dtype(spec.dtype, exact);
  if (spec.op != ReduceOp::kAvg) return wrapped;
  // Integer avg is the wrapped sum divided in the dtype, truncating toward zero like C and NCCL.
  return std::trunc(wrapped / spec.ranks);
}

double reduction_tolerance(const ValueSpec& spec, std::uint64_t index) {
  if (!dtype_info(spec.dtype).is_floating) return 0.0;
  if (spec.op != ReduceOp::kSum && spec.op != ReduceOp::kAvg) return 0.0;  // exact by construction
  double sum_of_magnitudes = 0.0;
  for (int rank = 0; rank < spec.ranks; ++rank) sum_of_magnitudes += std::fabs(input_value(spec, rank, index));
  const double u = unit_roundoff(spec.dtype);
  double bound = (spec.ranks - 1) * u * sum_of_magnitudes;
  if (spec.op == ReduceOp::kAvg) bound = bound / spec.ranks + 2 * u * sum_of_magnitudes / spec.ranks;
  return bound;
}

// The same bytes as store_element(input_value(...)) per element, at a hash and a copy per element
// instead of a conversion (about 3 ns an element in every dtype, from 5-21 before:
// results/micro/fill-inputs-2026-11-27.md).
void fill_inputs(const ValueSpec& spec, int rank, void* buffer, std::size_t count, std::uint64_t first_index) {
  const DTypeInfo& info = dtype_info(spec.dtype);
  unsigned char encoded[kChoices][8] = {};
  for (int choice = 0; choice < kChoices; ++choice) {
    const double value = choice_value(spec, info.is_signed, choice);
    if (value >= 0 || info.is_signed) store_element(spec.dtype, encoded[choice], 0, value);  // unsigned: never chosen
  }
  auto* out = static_cast<unsigned char*>(buffer);
  switch (info.size_bytes) {
    case 1: copy_choices<1>(spec, info.is_signed, rank, out, count, first_index, encoded); return;
    case 2: copy_choices<2>(spec, info.is_signed, rank, out, count, first_index, encoded); return;
    case 4: copy_choices<4>(spec, info.is_signed, rank, out, count, first_index, encoded); return;
    case 8: copy_choices<8>(spec, info.is_signed, rank, out, count, first_index, encoded); return;
    default: break;  // no dtype has another size today; a new one is still filled right, element by element
  }
  for (std::size_t i = 0; i < count; ++i) store_element(spec.dtype, buffer, i, input_value(spec, rank, first_index + i));
}

}  // namespace collbench
