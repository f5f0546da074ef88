// Pure logic of the compute benchmarks: options, GEMM inputs and checks, rank spreads and advice,
// the OpenBLAS core warning, GPU peaks.
#include <gtest/gtest.h>

#include <cmath>

#include "engines/gemm_check.h"
#include "engines/gpu_peaks.h"
#include "engines/host_info.h"
#include "engines/openblas_info.h"
#include "workloads/compute/rank_gather.h"
#include "workloads/envcheck/envcheck_options.h"
#include "workloads/envcheck/rank_speeds.h"
#include "workloads/matmul/matmul_options.h"
#include "workloads/membw/membw_options.h"
#include "core/error.h"
#include "core/stats.h"

using namespace collbench::compute;

TEST(ComputeOptions, MatmulSweepAndShapes) {
  const auto sweep = parse_matmul_options({"-b", "256", "-e", "1K", "-f", "2"});
  ASSERT_EQ(sweep.gemm_shapes().size(), 3u);
  EXPECT_EQ(sweep.gemm_shapes()[2].k, 1024);
  const auto shapes = parse_matmul_options({"--shapes", "64x32x16,8x8x8", "-d", "float64,bf16"});
  ASSERT_EQ(shapes.gemm_shapes().size(), 2u);
  EXPECT_EQ(shapes.gemm_shapes()[0].m, 64);
  EXPECT_EQ(shapes.gemm_shapes()[0].n, 32);
  EXPECT_EQ(shapes.gemm_shapes()[0].k, 16);
  EXPECT_EQ(shapes.gemm_types[1], GemmType::kBfloat16);
}

TEST(ComputeOptions, BadFlagsAreUsageErrors) {
  using collbench::UsageError;
  EXPECT_THROW(parse_matmul_options({"--shapes", "64x32"}), UsageError);
  EXPECT_THROW(parse_matmul_options({"-d", "int8"}), UsageError);
  EXPECT_THROW(parse_matmul_options({"--slow-factor", "2"}), UsageError);  // envcheck only
  EXPECT_THROW(parse_membw_options({"-k", "quad"}), UsageError);
  EXPECT_THROW(parse_membw_options({"--sizes", "4"}), UsageError);
  EXPECT_THROW(parse_envcheck_options({"--slow-factor", "1"}), UsageError);
  EXPECT_THROW(parse_envcheck_options({"-b", "8"}), UsageError);
  EXPECT_EQ(parse_envcheck_options({"--slow-factor", "2.5"}).slow_factor, 2.5);
}

TEST(GemmCheck, InputsAreNonZeroAndRepresentable) {
  for (std::uint64_t i = 0; i < 10000; ++i) {
    const double value = gemm_input(GemmType::kFp8, 3, Matrix::kA, i);
    EXPECT_NE(value, 0.0);
    EXPECT_LE(std::fabs(value), 1.0);
    EXPECT_EQ(round_to_e4m3(value), value);
    const double single = gemm_input(GemmType::kFloat32, 3, Matrix::kB, i);
    EXPECT_EQ(static_cast<double>(static_cast<float>(single)), single);
  }
}

TEST(GemmCheck, E4M3Rounding) {
  EXPECT_EQ(round_to_e4m3(1.0), 1.0);
  EXPECT_EQ(round_to_e4m3(1.0625), 1.0);     // halfway between 1 and 1.125: ties to even
  EXPECT_EQ(round_to_e4m3(1.07), 1.125);
  EXPECT_EQ(round_to_e4m3(1000.0), 448.0);   // saturates
  EXPECT_EQ(round_to_e4m3(-0.3), -0.3125);
}

TEST(GemmCheck, SampleIncludesFirstEntryAndIsDistinct) {
  const auto entries = sample_entries({100, 50, 10}, 7, 256);
  ASSERT_EQ(entries.size(), 256u);
  EXPECT_EQ(entries[0].row, 0);
  EXPECT_EQ(entries[0].column, 0);
  EXPECT_EQ(sample_entries({2, 2, 2}, 1, 256).size(), 4u);
}

TEST(GemmCheck, OneWrongEntryExceedsTheBound) {
  const GemmShape shape{64, 64, 2048};
  const auto entries = sample_entries(shape, 1, 256);
  std::vector<double> reference, actual;
  for (const auto& entry : entries) reference.push_back(reference_entry(GemmType::kFloat32, 1, shape, entry));
  actual = reference;
  for (auto& value : actual) value = static_cast<float>(value);  // float32 output rounding only
  EXPECT_LE(relative_error(actual, reference), relative_error_bound(GemmType::kFloat32, shape.k));
  actual[0] = -actual[0] + 1000.0;  // what --inject-corrupt-output does
  EXPECT_GT(relative_error(actual, reference), relative_error_bound(GemmType::kBfloat16, shape.k));
  actual[0] = std::nan("");
  EXPECT_TRUE(std::isinf(relative_error(actual, reference)));
}

TEST(RankSpeeds, SpreadAndSlowRanks) {
  const Spread spread = spread_of({100, 50, 98});
  EXPECT_EQ(spread.fastest_rank, 0);
  EXPECT_EQ(spread.slowest_rank, 1);
  EXPECT_DOUBLE_EQ(spread.ratio, 2.0);
  const auto relative = relative_speeds({{100, 50, 98}, {10, 10, 5}});
  EXPECT_DOUBLE_EQ(relative[0], 1.0);
  EXPECT_DOUBLE_EQ(relative[1], 0.5);
  EXPECT_DOUBLE_EQ(relative[2], 0.5);  // the worse of its two metrics
  EXPECT_EQ(slow_ranks(relative, 1.5), (std::vector<int>{1, 2}));
  EXPECT_TRUE(slow_ranks({1.0, 0.9, 0.7}, 1.5).empty());
}

TEST(RankSpeeds, Recommendation) {
  EXPECT_EQ(recommend({1.0, 0.9}, 1.5).advice, Advice::kKeep);
  const auto rebalance = recommend({1.0, 0.6}, 1.5);
  EXPECT_EQ(rebalance.advice, Advice::kRebalance);
  EXPECT_NEAR(rebalance.weights[0], 1.0 / 1.6, 1e-12);
  EXPECT_NEAR(rebalance.weights[1], 0.6 / 1.6, 1e-12);
  const auto exclude = recommend({1.0, 0.4, 0.95}, 1.5);
  EXPECT_EQ(exclude.advice, Advice::kExclude);
  EXPECT_EQ(exclude.exclude, (std::vector<int>{1}));
  EXPECT_DOUBLE_EQ(collbench::median_of({5, 1, 3}), 3);
  EXPECT_DOUBLE_EQ(collbench::median_of({4, 1, 3, 2}), 2.5);
}

TEST(OpenBlas, WarnsWhenTheCoreIsBelowTheCpu) {
  EXPECT_EQ(vector_level_of_core("Prescott"), VectorLevel::kSse);
  EXPECT_EQ(vector_level_of_core("SkylakeX"), VectorLevel::kAvx512);
  const std::string warning = core_warning("Prescott", VectorLevel::kAvx512);
  EXPECT_NE(warning.find("OPENBLAS_CORETYPE=SkylakeX"), std::string::npos);
  EXPECT_TRUE(core_warning("SkylakeX", VectorLevel::kAvx512).empty());
  EXPECT_TRUE(core_warning("Haswell", VectorLevel::kAvx2).empty());
  EXPECT_EQ(recommended_coretype(VectorLevel::kAvx2), "Haswell");
}

TEST(Peaks, CpuEstimateAndGpuTable) {
  EXPECT_EQ(flops_per_cycle_estimate(VectorLevel::kAvx512, 32), 64);
  EXPECT_EQ(flops_per_cycle_estimate(VectorLevel::kAvx2, 64), 16);
  HostInfo host;
  host.clock_ghz = 2.0;
  host.vector_level = VectorLevel::kAvx512;
  EXPECT_NEAR(*cpu_peak_tflops_estimate(host, 2, 32), 0.256, 1e-12);
  EXPECT_NEAR(*gpu_peak_tflops("NVIDIA H100 80GB HBM3", GemmType::kBfloat16), 989.4, 1e-9);
  EXPECT_NEAR(*gpu_peak_tflops("NVIDIA H100 PCIe", GemmType::kFloat16), 756.5, 1e-9);
  EXPECT_FALSE(gpu_peak_tflops("NVIDIA A100-SXM4-80GB", GemmType::kFp8).has_value());
  EXPECT_FALSE(gpu_peak_tflops("Some Future GPU", GemmType::kFloat32).has_value());
}
