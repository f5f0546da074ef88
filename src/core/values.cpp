#include "core/values.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace collbench {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

namespace {

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

// Every input is one of a few small integers: which one is an element's "choice" (input_choice,
// core/input_pattern.h), its value choice_value(). fill_inputs encodes each choice in the dtype once
// and copies it per element.
double choice_value(const InputPattern& pattern, int choice) {
  if (pattern.product) return ((choice & 2) ? 2.0 : 1.0) * ((choice & 1) ? -1.0 : 1.0);
  return pattern.is_signed ? choice - 4 : choice;
}

// The fill's inner loop for one element size: a copy of the element's encoded choice.
template <std::size_t kSize>
void copy_choices(const InputPattern& pattern, int rank, unsigned char* out, std::size_t count, std::uint64_t first_index,
                  const EncodedChoices& encoded) {
  for (std::size_t i = 0; i < count; ++i) {
    std::memcpy(out + i * kSize, encoded.bytes[input_choice(pattern, rank, first_index + i)], kSize);
  }
}

}  // namespace

InputPattern input_pattern(const ValueSpec& spec) {
  return InputPattern{spec.op == ReduceOp::kProd, dtype_info(spec.dtype).is_signed, spec.ranks, spec.seed};
}

EncodedChoices encode_choices(const ValueSpec& spec) {
  const InputPattern pattern = input_pattern(spec);
  EncodedChoices encoded;
  for (int choice = 0; choice < kInputChoices; ++choice) {
    const double value = choice_value(pattern, choice);
    if (value >= 0 || pattern.is_signed) store_element(spec.dtype, encoded.bytes[choice], 0, value);  // unsigned: never chosen
  }
  return encoded;
}

double input_value(const ValueSpec& spec, int rank, std::uint64_t index) {
  const InputPattern pattern = input_pattern(spec);
  return choice_value(pattern, input_choice(pattern, rank, index));
}

double reduced_value(const ValueSpec& spec, std::uint64_t index) { return ValueModel(spec).reduction(index).value; }

double reduction_tolerance(const ValueSpec& spec, std::uint64_t index) { return ValueModel(spec).reduction(index).tolerance; }

ValueModel::ValueModel(const ValueSpec& spec)
    : spec_(spec),
      pattern_(input_pattern(spec)),
      floating_(dtype_info(spec.dtype).is_floating),
      unit_roundoff_(floating_ ? unit_roundoff(spec.dtype) : 0.0) {
  for (int choice = 0; choice < kInputChoices; ++choice) choice_values_[choice] = choice_value(pattern_, choice);
}

ValueModel::Reduction ValueModel::reduction(std::uint64_t index) const {
  // Inputs are small integers, so the exact result fits an int64 for any realistic rank count.
  const double first = input(0, index);
  std::int64_t exact = static_cast<std::int64_t>(first);
  double sum_of_magnitudes = std::fabs(first);
  for (int rank = 1; rank < spec_.ranks; ++rank) {
    const double input_of_rank = input(rank, index);
    const auto value = static_cast<std::int64_t>(input_of_rank);
    sum_of_magnitudes += std::fabs(input_of_rank);
    switch (spec_.op) {
      case ReduceOp::kSum:
      case ReduceOp::kAvg: exact += value; break;
      case ReduceOp::kProd: exact *= value; break;
      case ReduceOp::kMin: exact = std::min(exact, value); break;
      case ReduceOp::kMax: exact = std::max(exact, value); break;
    }
  }
  const bool avg = spec_.op == ReduceOp::kAvg;
  if (!floating_) {
    const double wrapped = wrap_to_dtype(spec_.dtype, exact);
    // Integer avg is the wrapped sum divided in the dtype, truncating toward zero like C and NCCL.
    // Integers are exact: no tolerance.
    return {avg ? std::trunc(wrapped / spec_.ranks) : wrapped, 0.0};
  }
  const double result = static_cast<double>(exact);
  // Floating sum and avg round within (ranks - 1) additions (plus avg's division); prod, min and
  // max are exact by construction.
  if (spec_.op != ReduceOp::kSum && !avg) return {result, 0.0};
  const double bound = (spec_.ranks - 1) * unit_roundoff_ * sum_of_magnitudes;
  if (!avg) return {result, bound};
  return {result / spec_.ranks, bound / spec_.ranks + 2 * unit_roundoff_ * sum_of_magnitudes / spec_.ranks};
}

// The same bytes as store_element(input_value(...)) per element, at a hash and a copy per element
// instead of a conversion (about 3 ns an element in every dtype, from 5-21 before:
// results/micro/fill-inputs-2026-11-27.md).
void fill_inputs(const ValueSpec& spec, int rank, void* buffer, std::size_t count, std::uint64_t first_index) {
  const InputPattern pattern = input_pattern(spec);
  const EncodedChoices encoded = encode_choices(spec);
  auto* out = static_cast<unsigned char*>(buffer);
  switch (dtype_info(spec.dtype).size_bytes) {
    case 1: copy_choices<1>(pattern, rank, out, count, first_index, encoded); return;
    case 2: copy_choices<2>(pattern, rank, out, count, first_index, encoded); return;
    case 4: copy_choices<4>(pattern, rank, out, count, first_index, encoded); return;
    case 8: copy_choices<8>(pattern, rank, out, count, first_index, encoded); return;
    default: break;  // no dtype has another size today; a new one is still filled right, element by element
  }
  for (std::size_t i = 0; i < count; ++i) store_element(spec.dtype, buffer, i, input_value(spec, rank, first_index + i));
}

}  // namespace collbench
