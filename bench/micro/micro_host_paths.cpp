// Google Benchmark micro-benchmarks of the host-side hot spots of a collective run:
//  - the element folds a host reduction does for every dtype (16-bit types through
//    core/host_reduce.h, the kernels of the MPI backend's user-defined ops);
//  - the 16-bit conversions on their own;
//  - the expected-value generators (input_value, reduced_value, fill_inputs);
//  - the checker loop (load the element, compute its expected value and bound, compare).
// Items per second = elements per second.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/dtype.h"
#include "core/host_reduce.h"
#include "core/values.h"

namespace {

using collbench::DType;
using collbench::ReduceOp;

constexpr std::size_t kElements = 1 << 16;

template <typename T>
void fold_native(benchmark::State& state) {
  std::vector<T> in(kElements, T(1)), inout(kElements, T(2));
  for (auto _ : state) {
    for (std::size_t i = 0; i < kElements; ++i) inout[i] = static_cast<T>(inout[i] + in[i]);
    benchmark::DoNotOptimize(inout.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kElements));
}

// The MPI backend's user-defined op for 16-bit floats runs exactly this kernel.
template <collbench::SixteenBitFormat Format>
void fold_sixteen_bit(benchmark::State& state) {
  std::vector<std::uint16_t> in(kElements, collbench::encode_sixteen_bit<Format>(1.0f));
  std::vector<std::uint16_t> inout(kElements, collbench::encode_sixteen_bit<Format>(2.0f));
  for (auto _ : state) {
    collbench::fold_sixteen_bit<Format, ReduceOp::kSum>(in.data(), inout.data(), kElements);
    benchmark::DoNotOptimize(inout.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kElements));
}

void BM_Fold_int8(benchmark::State& s) { fold_native<std::int8_t>(s); }
void BM_Fold_uint8(benchmark::State& s) { fold_native<std::uint8_t>(s); }
void BM_Fold_int32(benchmark::State& s) { fold_native<std::int32_t>(s); }
void BM_Fold_uint32(benchmark::State& s) { fold_native<std::uint32_t>(s); }
void BM_Fold_int64(benchmark::State& s) { fold_native<std::int64_t>(s); }
void BM_Fold_uint64(benchmark::State& s) { fold_native<std::uint64_t>(s); }
void BM_Fold_float32(benchmark::State& s) { fold_native<float>(s); }
void BM_Fold_float64(benchmark::State& s) { fold_native<double>(s); }
void BM_Fold_float16(benchmark::State& s) { fold_sixteen_bit<collbench::SixteenBitFormat::kHalf>(s); }
void BM_Fold_bfloat16(benchmark::State& s) { fold_sixteen_bit<collbench::SixteenBitFormat::kBfloat16>(s); }
BENCHMARK(BM_Fold_int8);
BENCHMARK(BM_Fold_uint8);
BENCHMARK(BM_Fold_int32);
BENCHMARK(BM_Fold_uint32);
BENCHMARK(BM_Fold_int64);
BENCHMARK(BM_Fold_uint64);
BENCHMARK(BM_Fold_float32);
BENCHMARK(BM_Fold_float64);
BENCHMARK(BM_Fold_float16);
BENCHMARK(BM_Fold_bfloat16);

template <std::uint16_t (*Encode)(float)>
void encode(benchmark::State& state) {
  std::vector<float> in(kElements);
  for (std::size_t i = 0; i < kElements; ++i) in[i] = static_cast<float>(i % 977) * 0.37f - 100.0f;
  std::vector<std::uint16_t> out(kElements);
  for (auto _ : state) {
    for (std::size_t i = 0; i < kElements; ++i) out[i] = Encode(in[i]);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kElements));
}

template <float (*Decode)(std::uint16_t)>
void decode(benchmark::State& state) {
  std::vector<std::uint16_t> in(kElements);
  for (std::size_t i = 0; i < kElements; ++i) in[i] = static_cast<std::uint16_t>(i * 7919u);
  std::vector<float> out(kElements);
  for (auto _ : state) {
    for (std::size_t i = 0; i < kElements; ++i) out[i] = Decode(in[i]);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kElements));
}

void BM_FloatToHalf(benchmark::State& s) { encode<collbench::float_to_half_bits>(s); }
void BM_HalfToFloat(benchmark::State& s) { decode<collbench::half_bits_to_float>(s); }
void BM_FloatToBf16(benchmark::State& s) { encode<collbench::float_to_bf16_bits>(s); }
void BM_Bf16ToFloat(benchmark::State& s) { decode<collbench::bf16_bits_to_float>(s); }
BENCHMARK(BM_FloatToHalf);
BENCHMARK(BM_HalfToFloat);
BENCHMARK(BM_FloatToBf16);
BENCHMARK(BM_Bf16ToFloat);

// The generators and the checker, for each dtype (argument = dtype index in all_dtypes()).
DType dtype_argument(const benchmark::State& state) { return collbench::all_dtypes().at(static_cast<std::size_t>(state.range(0))); }

void BM_FillInputs(benchmark::State& state) {
  const collbench::ValueSpec spec{dtype_argument(state), ReduceOp::kSum, 4, 1};
  std::vector<unsigned char> buffer(kElements * collbench::dtype_info(spec.dtype).size_bytes);
  for (auto _ : state) {
    collbench::fill_inputs(spec, 1, buffer.data(), kElements);
    benchmark::DoNotOptimize(buffer.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kElements));
  state.SetLabel(std::string(collbench::to_string(spec.dtype)));
}

void BM_ReducedValue(benchmark::State& state) {
  const collbench::ValueSpec spec{dtype_argument(state), ReduceOp::kSum, 8, 1};
  double sink = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < kElements; ++i) sink += collbench::reduced_value(spec, i);
    benchmark::DoNotOptimize(sink);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kElements));
  state.SetLabel(std::string(collbench::to_string(spec.dtype)) + ", 8 ranks");
}

// The runner's check of an all-reduce output: per element, load, expected, bound, compare.
void BM_CheckerLoop(benchmark::State& state) {
  const collbench::ValueSpec spec{dtype_argument(state), ReduceOp::kSum, 8, 1};
  std::vector<unsigned char> output(kElements * collbench::dtype_info(spec.dtype).size_bytes);
  for (std::size_t i = 0; i < kElements; ++i) collbench::store_element(spec.dtype, output.data(), i, collbench::reduced_value(spec, i));
  std::int64_t wrong = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < kElements; ++i) {
      const double actual = collbench::load_element(spec.dtype, output.data(), i);
      const double expected = collbench::reduced_value(spec, i);
      const double tolerance = collbench::reduction_tolerance(spec, i);
      if (!(std::fabs(actual - expected) <= tolerance)) ++wrong;
    }
    benchmark::DoNotOptimize(wrong);
  }
  if (wrong != 0) state.SkipWithError("the checker found wrong elements in a correct buffer");
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kElements));
  state.SetLabel(std::string(collbench::to_string(spec.dtype)) + ", 8 ranks");
}

void every_dtype(benchmark::internal::Benchmark* benchmark) {
  for (std::size_t i = 0; i < collbench::all_dtypes().size(); ++i) benchmark->Arg(static_cast<std::int64_t>(i));
}
BENCHMARK(BM_FillInputs)->Apply(every_dtype);
BENCHMARK(BM_ReducedValue)->Apply(every_dtype);
BENCHMARK(BM_CheckerLoop)->Apply(every_dtype);

}  // namespace

BENCHMARK_MAIN();
