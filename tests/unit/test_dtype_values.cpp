#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/dtype.h"
#include "core/values.h"

namespace collbench {
namespace {

TEST(DType, NamesAndAliases) {
  EXPECT_EQ(parse_dtype("half"), DType::kFloat16);
  EXPECT_EQ(parse_dtype("FLOAT"), DType::kFloat32);
  EXPECT_EQ(parse_dtype("double"), DType::kFloat64);
  EXPECT_EQ(parse_dtype("bf16"), DType::kBfloat16);
  EXPECT_FALSE(parse_dtype("float8"));
  for (DType type : all_dtypes()) EXPECT_EQ(parse_dtype(to_string(type)), type);
  EXPECT_EQ(dtype_info(DType::kFloat16).size_bytes, 2u);
  EXPECT_EQ(dtype_info(DType::kUint64).size_bytes, 8u);
}

TEST(SixteenBit, KnownEncodings) {
  EXPECT_EQ(float_to_half_bits(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half_bits(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half_bits(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half_bits(1e6f), 0x7c00);  // overflow to inf
  EXPECT_EQ(float_to_half_bits(5.9604645e-8f), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16_bits(-3.0f), 0xc040);
  EXPECT_TRUE(std::isnan(half_bits_to_float(float_to_half_bits(NAN))));
}

TEST(SixteenBit, RoundTripEveryHalf) {
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    const auto half = static_cast<std::uint16_t>(bits);
    const float value = half_bits_to_float(half);
    if (std::isnan(value)) continue;
    EXPECT_EQ(float_to_half_bits(value), half) << std::hex << bits;
    const float bf = bf16_bits_to_float(half);
    if (!std::isnan(bf)) EXPECT_EQ(float_to_bf16_bits(bf), half) << std::hex << bits;
  }
}

TEST(SixteenBit, RoundsToNearestEven) {
  // 1 + 2^-11 lies halfway between 1 and the next half (1 + 2^-10): ties to even -> 1.
  EXPECT_EQ(float_to_half_bits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(float_to_half_bits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(float_to_bf16_bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
}

TEST(EightBit, KnownEncodings) {
  // OCP FP8: e4m3 (bias 7, no infinities, max 448), e5m2 (bias 15, IEEE-like, max 57344).
  EXPECT_EQ(double_to_fp8_bits(1.0, DType::kFloat8E4M3), 0x38);
  EXPECT_EQ(double_to_fp8_bits(-2.0, DType::kFloat8E4M3), 0xc0);
  EXPECT_EQ(double_to_fp8_bits(448.0, DType::kFloat8E4M3), 0x7e);
  EXPECT_EQ(double_to_fp8_bits(1e6, DType::kFloat8E4M3), 0x7e);  // saturates, no infinity
  EXPECT_EQ(double_to_fp8_bits(std::ldexp(1.0, -9), DType::kFloat8E4M3), 0x01);  // smallest subnormal
  EXPECT_EQ(double_to_fp8_bits(1.0, DType::kFloat8E5M2), 0x3c);
  EXPECT_EQ(double_to_fp8_bits(57344.0, DType::kFloat8E5M2), 0x7b);
  EXPECT_EQ(double_to_fp8_bits(1e6, DType::kFloat8E5M2), 0x7c);  // infinity
  EXPECT_EQ(double_to_fp8_bits(std::ldexp(1.0, -16), DType::kFloat8E5M2), 0x01);
  EXPECT_TRUE(std::isnan(fp8_bits_to_double(0x7f, DType::kFloat8E4M3)));
  EXPECT_TRUE(std::isinf(fp8_bits_to_double(0x7c, DType::kFloat8E5M2)));
  EXPECT_EQ(double_to_fp8_bits(HUGE_VAL, DType::kFloat8E5M2), 0x7c);
  EXPECT_EQ(double_to_fp8_bits(-HUGE_VAL, DType::kFloat8E4M3), 0xfe);  // saturates
  // Ties to even: 1 + 2^-4 lies halfway between 1 and 1 + 2^-3 in e4m3.
  EXPECT_EQ(double_to_fp8_bits(1.0 + std::ldexp(1.0, -4), DType::kFloat8E4M3), 0x38);
  EXPECT_EQ(double_to_fp8_bits(1.0 + 3 * std::ldexp(1.0, -4), DType::kFloat8E4M3), 0x3a);
  EXPECT_EQ(parse_dtype("fp8_e4m3"), DType::kFloat8E4M3);
  EXPECT_EQ(dtype_info(DType::kFloat8E5M2).size_bytes, 1u);
}

TEST(EightBit, RoundTripEveryCode) {
  for (DType type : {DType::kFloat8E4M3, DType::kFloat8E5M2}) {
    for (int bits = 0; bits < 256; ++bits) {
      const double value = fp8_bits_to_double(static_cast<std::uint8_t>(bits), type);
      if (std::isnan(value)) continue;
      EXPECT_EQ(double_to_fp8_bits(value, type), bits) << to_string(type) << " 0x" << std::hex << bits;
    }
  }
}

TEST(EightBit, EveryInputAndSmallSumIsExact) {
  // The checker relies on exact inputs: collbench's inputs are integers in [-4, 4].
  for (DType type : {DType::kFloat8E4M3, DType::kFloat8E5M2}) {
    for (int value = -8; value <= 8; ++value) {
      unsigned char byte = 0;
      store_element(type, &byte, 0, value);
      EXPECT_EQ(load_element(type, &byte, 0), value) << to_string(type);
    }
  }
}

TEST(Values, InputsAreSmallIntegersThatVary) {
  for (DType type : all_dtypes()) {
    const ValueSpec spec{type, ReduceOp::kSum, 4, 1};
    std::vector<double> seen;
    for (std::uint64_t i = 0; i < 64; ++i) {
      const double v = input_value(spec, 2, i);
      EXPECT_EQ(v, std::floor(v));
      EXPECT_LE(std::fabs(v), 8);
      if (!dtype_info(type).is_signed) EXPECT_GE(v, 0);
      seen.push_back(v);
    }
    std::sort(seen.begin(), seen.end());
    EXPECT_GT(std::unique(seen.begin(), seen.end()) - seen.begin(), 4) << "inputs must not be constant";
  }
  int differing = 0;
  for (std::uint64_t i = 0; i < 64; ++i) {
    differing += input_value({DType::kFloat32, ReduceOp::kSum, 4, 1}, 0, i) !=
                 input_value({DType::kFloat32, ReduceOp::kSum, 4, 2}, 0, i);
  }
  EXPECT_GT(differing, 32) << "the seed changes the inputs";
}

TEST(Values, ReducedValueMatchesAFoldOverRanks) {
  for (int ranks : {1, 2, 3, 7}) {
    for (ReduceOp op : all_reduce_ops()) {
      const ValueSpec spec{DType::kInt64, op, ranks, 5};
      for (std::uint64_t i = 0; i < 50; ++i) {
        double expected = input_value(spec, 0, i);
        for (int r = 1; r < ranks; ++r) {
          const double v = input_value(spec, r, i);
          if (op == ReduceOp::kSum || op == ReduceOp::kAvg) expected += v;
          if (op == ReduceOp::kProd) expected *= v;
          if (op == ReduceOp::kMin) expected = std::min(expected, v);
          if (op == ReduceOp::kMax) expected = std::max(expected, v);
        }
        if (op == ReduceOp::kAvg) expected = std::trunc(expected / ranks);
        EXPECT_EQ(reduced_value(spec, i), expected) << "ranks " << ranks << " op " << to_string(op) << " i " << i;
      }
    }
  }
}

TEST(Values, ProductsStayExactForManyRanks) {
  const ValueSpec spec{DType::kBfloat16, ReduceOp::kProd, 512, 1};
  for (std::uint64_t i = 0; i < 200; ++i) EXPECT_LE(std::fabs(reduced_value(spec, i)), 64.0);
}

TEST(Values, IntegerSumsWrapLikeTheDtype) {
  // 40 ranks of int8 can exceed 127: the expectation wraps as two's complement arithmetic does.
  const ValueSpec spec{DType::kUint8, ReduceOp::kSum, 40, 3};
  for (std::uint64_t i = 0; i < 100; ++i) {
    long total = 0;
    for (int r = 0; r < 40; ++r) total += static_cast<long>(input_value(spec, r, i));
    EXPECT_EQ(reduced_value(spec, i), static_cast<double>(total % 256));
  }
}

TEST(Values, ToleranceIsZeroForIntegersAndExactOps) {
  EXPECT_EQ(reduction_tolerance({DType::kInt32, ReduceOp::kSum, 8, 1}, 3), 0.0);
  EXPECT_EQ(reduction_tolerance({DType::kFloat16, ReduceOp::kMax, 8, 1}, 3), 0.0);
  EXPECT_GT(reduction_tolerance({DType::kBfloat16, ReduceOp::kSum, 8, 1}, 3) +
                reduction_tolerance({DType::kBfloat16, ReduceOp::kSum, 8, 1}, 4),
            0.0);
}

TEST(Values, FillWritesWhatInputValueSays) {
  for (DType type : all_dtypes()) {
    const ValueSpec spec{type, ReduceOp::kMin, 3, 9};
    std::vector<unsigned char> buffer(64 * 8);
    fill_inputs(spec, 1, buffer.data(), 64);
    for (std::size_t i = 0; i < 64; ++i) EXPECT_EQ(load_element(type, buffer.data(), i), input_value(spec, 1, i));
  }
}

}  // namespace
}  // namespace collbench

namespace collbench {
namespace {

TEST(FillInputs, WritesExactlyTheBytesOfEachInputValue) {
  // fill_inputs copies a pre-encoded value per element; the checks compute with input_value, so
  // the two must agree byte for byte in every dtype, op, rank count, rank, seed and offset.
  for (DType dtype : all_dtypes()) {
    const std::size_t size = dtype_info(dtype).size_bytes;
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax, ReduceOp::kAvg}) {
      for (int ranks : {1, 2, 7, 13}) {
        for (std::uint64_t seed : {1ull, 987654321ull}) {
          const ValueSpec spec{dtype, op, ranks, seed};
          for (int rank : {0, ranks - 1}) {
            const std::size_t count = 3001;
            const std::uint64_t first = seed == 1 ? 0 : (1ull << 33) + 5;
            std::vector<unsigned char> filled(count * size), expected(count * size);
            fill_inputs(spec, rank, filled.data(), count, first);
            for (std::size_t i = 0; i < count; ++i) store_element(dtype, expected.data(), i, input_value(spec, rank, first + i));
            ASSERT_EQ(filled, expected) << to_string(dtype) << " " << to_string(op) << " ranks " << ranks << " rank " << rank;
          }
        }
      }
    }
  }
}

TEST(FillInputs, TheGpuKernelsFormulaWritesTheHostsBytes) {
  // cuda/input_fill.cu writes element i as the first size bytes of
  // encode_choices(spec).bytes[input_choice(input_pattern(spec), rank, first + i)]; no GPU runs here,
  // so this pins that formula on the host against the fill the checks were written for.
  for (DType dtype : all_dtypes()) {
    const std::size_t size = dtype_info(dtype).size_bytes;
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kAvg}) {
      for (int ranks : {1, 8, 13}) {
        const ValueSpec spec{dtype, op, ranks, 77};
        const InputPattern pattern = input_pattern(spec);
        const EncodedChoices encoded = encode_choices(spec);
        for (int rank : {0, ranks - 1}) {
          const std::size_t count = 2000;
          const std::uint64_t first = (1ull << 32) + 11;
          std::vector<unsigned char> filled(count * size), formula(count * size);
          fill_inputs(spec, rank, filled.data(), count, first);
          for (std::size_t i = 0; i < count; ++i) {
            const int choice = input_choice(pattern, rank, first + i);
            ASSERT_GE(choice, 0);
            ASSERT_LT(choice, kInputChoices);
            std::memcpy(formula.data() + i * size, encoded.bytes[choice], size);
          }
          ASSERT_EQ(formula, filled) << to_string(dtype) << " " << to_string(op) << " ranks " << ranks << " rank " << rank;
        }
      }
    }
  }
}

TEST(ValueModel, ItsInputsAreInputValuesInEveryDtypeAndOp) {
  // The checks read inputs from the model's table of choice values; the fills and the one-element
  // calls compute them: the two must agree everywhere, or a check blames a right output.
  for (DType dtype : all_dtypes()) {
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMax}) {
      const ValueSpec spec{dtype, op, 5, 21};
      const ValueModel model(spec);
      for (int rank = 0; rank < 5; ++rank) {
        for (std::uint64_t i = 0; i < 500; ++i) ASSERT_EQ(model.input(rank, i), input_value(spec, rank, i)) << to_string(dtype);
      }
    }
  }
}

TEST(Splitmix64, IsTheReferenceStreamSoEveryRankDrawsTheSame) {
  // The published splitmix64 outputs for seed 0: the traffic patterns and pt2pt's pair draws must
  // be this stream on every platform, or the ranks of a mixed job would disagree.
  std::uint64_t state = 0;
  EXPECT_EQ(splitmix64(state), 0xe220a8397b1dcdafull);
  EXPECT_EQ(splitmix64(state), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(splitmix64(state), 0x06c45d188009454full);
}

}  // namespace
}  // namespace collbench
