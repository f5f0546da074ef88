// Inputs as a function of (rank, index, seed), and the closed-form results collectives must produce.
//
// Every input is a small integer (|v| <= 4, or a product pattern of +-1 and 2), so sums, products,
// minima and maxima over any number of ranks are exact in every dtype until the dtype's integer
// range runs out: integers then wrap exactly as the library's arithmetic does, and floats round
// within reduction_tolerance().
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/dtype.h"
#include "core/input_pattern.h"  // mix_bits, and the per-element choice the fills share

namespace collbench {

struct ValueSpec {
  DType dtype;
  ReduceOp op;  // chooses the input pattern; kSum for collectives without an op
  int ranks;
  std::uint64_t seed;
};

// splitmix64: the next number of a fixed stream for a seed (`state`, advanced), the same on every
// platform and rank (std::mt19937 is fixed too, but the standard's distributions are not).
std::uint64_t splitmix64(std::uint64_t& state);

// Input element `index` of `rank`'s send buffer.
double input_value(const ValueSpec& spec, int rank, std::uint64_t index);

// The reduction over all ranks of input_value(spec, r, index), as the dtype's arithmetic gives it.
double reduced_value(const ValueSpec& spec, std::uint64_t index);

// Largest accepted |actual - expected| for a reduced element: 0 for integers, and for floating
// types the rounding bound of (ranks - 1) additions (plus the division of avg).
double reduction_tolerance(const ValueSpec& spec, std::uint64_t index);

// The same closed forms with what every element of one spec shares worked out once (each choice's
// value, the dtype's facts, its unit roundoff): what a check asks for each of millions of elements.
// The functions above are one-element calls of it.
class ValueModel {
 public:
  explicit ValueModel(const ValueSpec& spec);
  double input(int rank, std::uint64_t index) const { return choice_values_[input_choice(pattern_, rank, index)]; }
  struct Reduction {
    double value;      // reduced_value()
    double tolerance;  // reduction_tolerance()
  };
  Reduction reduction(std::uint64_t index) const;

 private:
  ValueSpec spec_;
  InputPattern pattern_;
  double choice_values_[kInputChoices] = {};
  bool floating_;
  double unit_roundoff_;
};

// Writes input_value(spec, rank, first_index + i) for i in [0, count) into `buffer`.
void fill_inputs(const ValueSpec& spec, int rank, void* buffer, std::size_t count, std::uint64_t first_index = 0);

// What a fill outside this file (the GPU's, cuda/input_fill.h) needs to write the same bytes: the
// pattern input_choice() takes, and each choice's value encoded in spec.dtype.
InputPattern input_pattern(const ValueSpec& spec);
EncodedChoices encode_choices(const ValueSpec& spec);

// A byte pattern written over output buffers before a check, so unwritten elements are caught.
constexpr unsigned char kPoisonByte = 0xA5;

}  // namespace collbench
