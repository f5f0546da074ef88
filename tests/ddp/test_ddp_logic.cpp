// ddp_step_perf's pure logic: DDP's bucket assignment, the presets against their published
// parameter counts, closed-form gradients, batches, model files, options, and the summarizer's
// reading of ddp_step rows (scaling by samples/s, the best-setting line).
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "core/error.h"
#include "ddp/buckets.h"
#include "ddp/ddp_options.h"
#include "ddp/gradients.h"
#include "ddp/layer_gemm.h"
#include "ddp/model.h"
#include "report/report_json.h"
#include "summarize/scaling.h"
#include "summarize/speedup.h"

namespace collbench::ddp {
namespace {

std::vector<ParameterTensor> tensors_of(const std::vector<std::uint64_t>& elements) {
  std::vector<ParameterTensor> tensors;
  for (std::size_t i = 0; i < elements.size(); ++i) tensors.push_back({"t" + std::to_string(i), elements[i], 0, 0});
  return tensors;
}

std::vector<std::vector<int>> bucket_tensors(const BucketPlan& plan) {
  std::vector<std::vector<int>> out;
  for (const auto& bucket : plan.buckets) out.push_back(bucket.tensors);
  return out;
}

// ===== Buckets: DDP's compute_bucket_assignment_by_size over tensors in ready (reverse) order ===

TEST(DdpBuckets, ReverseOrderFirstBucketCappedThenBucketCap) {
  // 4-byte elements: caps of 100 B (first) and 200 B (later); tensors of 40, 40, 40, 40, 40 B.
  const BucketPlan plan = assign_buckets(tensors_of({10, 10, 10, 10, 10}), 100, 200);
  // Ready order is t4 t3 t2 t1 t0. First bucket closes at 120 B >= 100; the rest (80 B) never reach 200.
  EXPECT_EQ(bucket_tensors(plan), (std::vector<std::vector<int>>{{4, 3, 2}, {1, 0}}));
  EXPECT_EQ(plan.buckets[0].cap_bytes, 100u);
  EXPECT_EQ(plan.buckets[1].cap_bytes, 200u);
}

TEST(DdpBuckets, ABucketClosesAsSoonAsItReachesItsCap) {
  // Exactly at the cap closes (>=): 25 + 25 elements of 4 B = 200 B with a 200 B cap.
  const BucketPlan plan = assign_buckets(tensors_of({25, 25, 25, 25}), 100, 200);
  EXPECT_EQ(bucket_tensors(plan), (std::vector<std::vector<int>>{{3}, {2, 1}, {0}}));
}

TEST(DdpBuckets, ATensorLargerThanTheCapAfterAClosedBucketGetsItsOwn) {
  // t2 (4000 B) arrives when the open bucket is empty (t3 closed the first): a bucket of its own.
  const BucketPlan plan = assign_buckets(tensors_of({10, 10, 1000, 30}), 100, 200);
  EXPECT_EQ(bucket_tensors(plan), (std::vector<std::vector<int>>{{3}, {2}, {1, 0}}));
}

TEST(DdpBuckets, ATensorLargerThanTheCapJoinsAnOpenBucketAndClosesIt) {
  // DDP's rule: t1 (4000 B) lands in the open bucket that holds t2 (40 B), and closes it.
  const BucketPlan plan = assign_buckets(tensors_of({10, 1000, 10, 30}), 100, 200);
  EXPECT_EQ(bucket_tensors(plan), (std::vector<std::vector<int>>{{3}, {2, 1}, {0}}));
}

TEST(DdpBuckets, TheFlatBufferIsLaidOutBucketByBucket) {
  const auto tensors = tensors_of({7, 11, 13, 17});
  const BucketPlan plan = assign_buckets(tensors, 40, 80);
  std::uint64_t offset = 0;
  for (std::size_t b = 0; b < plan.buckets.size(); ++b) {
    EXPECT_EQ(plan.buckets[b].offset, offset);
    for (int t : plan.buckets[b].tensors) {
      EXPECT_EQ(plan.tensor_offset[static_cast<std::size_t>(t)], offset);
      EXPECT_EQ(plan.bucket_of_tensor[static_cast<std::size_t>(t)], static_cast<int>(b));
      offset += tensors[static_cast<std::size_t>(t)].elements;
    }
    std::uint64_t elements = 0;
    for (int t : plan.buckets[b].tensors) elements += tensors[static_cast<std::size_t>(t)].elements;
    EXPECT_EQ(plan.buckets[b].elements, elements);
  }
  EXPECT_EQ(offset, 48u);
}

TEST(DdpBuckets, ResNet50WithDdpDefaults) {
  // 25 MiB buckets, 1 MiB first: fc.bias (4000 B) opens the first bucket and fc.weight (8.2 MB)
  // joins it and closes it; 25.6 M float32 gradients (102 MB) make 5 buckets.
  const Model model = resnet50();
  const BucketPlan plan = assign_buckets(model.tensors, mib_to_bytes(1), mib_to_bytes(25));
  ASSERT_EQ(plan.buckets.size(), 5u);
  const int fc_bias = static_cast<int>(model.tensors.size()) - 1;
  EXPECT_EQ(plan.buckets[0].tensors, (std::vector<int>{fc_bias, fc_bias - 1}));
  EXPECT_EQ(model.tensors[static_cast<std::size_t>(fc_bias - 1)].name, "fc.weight");
  std::uint64_t total = 0;
  for (std::size_t b = 0; b < plan.buckets.size(); ++b) {
    total += plan.buckets[b].elements;
    if (b + 1 < plan.buckets.size()) EXPECT_GE(plan.buckets[b].elements * 4, plan.buckets[b].cap_bytes) << b;
  }
  EXPECT_EQ(total, model.parameter_count());
}

// torch 2.x (distributed.py's bucket_bytes_cap_default): the 1 MiB first bucket only when
// bucket_cap_mb is left at its default; a cap the user passes is the first bucket's cap too.
TEST(DdpBuckets, FirstBucketFollowsTheModelledDdpVersion) {
  EXPECT_DOUBLE_EQ(first_bucket_cap_mb(parse_ddp_options({}), 25), 1);
  EXPECT_DOUBLE_EQ(first_bucket_cap_mb(parse_ddp_options({"--bucket-mb", "25"}), 25), 25);
  EXPECT_DOUBLE_EQ(first_bucket_cap_mb(parse_ddp_options({"--bucket-mb", "1,100"}), 100), 100);
  EXPECT_DOUBLE_EQ(first_bucket_cap_mb(parse_ddp_options({"--bucket-mb", "25", "--ddp-version", "1"}), 25), 1);
  EXPECT_DOUBLE_EQ(first_bucket_cap_mb(parse_ddp_options({"--bucket-mb", "25", "--first-bucket-mb", "4"}), 25), 4);
  EXPECT_THROW(parse_ddp_options({"--ddp-version", "3"}), UsageError);
}

// The count real DDP (torch 2.15, CPU) gave for ResNet-50 with bucket_cap_mb=25 passed explicitly:
// 4 buckets, one fewer than with the default cap, because the first bucket is 25 MiB too.
TEST(DdpBuckets, ResNet50WithAnExplicitCap) {
  const Model model = resnet50();
  const DdpOptions options = parse_ddp_options({"--bucket-mb", "25"});
  const BucketPlan plan = assign_buckets(model.tensors, mib_to_bytes(first_bucket_cap_mb(options, 25)), mib_to_bytes(25));
  EXPECT_EQ(plan.buckets.size(), 4u);
}

TEST(DdpBuckets, MebibytesAsDdpReadsThem) {
  EXPECT_EQ(mib_to_bytes(25), 25u * 1024 * 1024);
  EXPECT_EQ(mib_to_bytes(0.5), 512u * 1024);
}

// ===== Presets against their published totals =================================================

TEST(DdpPresets, ParameterCountsMatchPublishedTotals) {
  // torchvision resnet50: 25,557,032 ("25.6M", He et al. 2016).
  EXPECT_EQ(resnet50().parameter_count(), 25557032u);
  // Hugging Face bert-large-uncased BertModel with pooler: 335,141,888 (Devlin et al. 2019: "340M").
  EXPECT_EQ(bert_large().parameter_count(), 335141888u);
  EXPECT_NEAR(static_cast<double>(bert_large().parameter_count()), 340e6, 0.02 * 340e6);
  // Hugging Face gpt2 GPT2Model: 124,439,808 ("124M"; Radford et al. 2019 wrote 117M).
  EXPECT_EQ(gpt2_small().parameter_count(), 124439808u);
  // torch.nn.Linear(1024, 1): 1024 weights and one bias.
  EXPECT_EQ(linear_1024().parameter_count(), 1025u);
  EXPECT_EQ(linear_1024().tensors.size(), 2u);
}

TEST(DdpPresets, ResNet50ForwardFlopsMatchTheCommonFigure) {
  // 4.09 GMACs per 224x224 image (torchvision) = 8.2 GFLOPs; batch norm adds well under 1%.
  EXPECT_NEAR(resnet50().forward_flops_per_sample(), 2 * 4.09e9, 0.02 * 2 * 4.09e9);
  EXPECT_DOUBLE_EQ(resnet50().backward_flops_per_sample(), 2 * resnet50().forward_flops_per_sample());
  EXPECT_EQ(resnet50().tensors.size(), 161u);  // len(list(torchvision.models.resnet50().parameters()))
}

TEST(DdpPresets, TransformerFlopsFollowTheSixNRule) {
  // Forward ~ 2 x (non-embedding parameters) x tokens, plus attention; BERT-large at 128 tokens.
  const Model bert = bert_large(128);
  const double non_embedding = static_cast<double>(bert.parameter_count()) - (30522.0 + 512 + 2) * 1024;
  EXPECT_NEAR(bert.forward_flops_per_sample(), 2 * non_embedding * 128, 0.1 * 2 * non_embedding * 128);
}

TEST(DdpPresets, LoadModelKnowsThePresetsAndRefusesUnknownNames) {
  for (const auto& name : preset_names()) EXPECT_EQ(load_model(name).name, name);
  EXPECT_THROW(load_model("resnet51"), UsageError);
  EXPECT_THROW(load_model("/nonexistent/model.json"), UsageError);
}

// ===== Model files ===========================================================================

TEST(DdpModelFiles, JsonAndCsvGiveTheSameModel) {
  const Model json = parse_model_json(
      R"({"name": "m", "tensors": [{"name": "w", "elements": 6, "forward_flops": 12}, {"name": "b", "elements": 2, "forward_flops": 0, "backward_flops": 5}]})",
      "m.json");
  const Model csv = parse_model_csv("name,elements,forward_flops,backward_flops\nw,6,12\n# comment\nb,2,0,5\n", "m.csv");
  for (const Model* model : {&json, &csv}) {
    ASSERT_EQ(model->tensors.size(), 2u);
    EXPECT_EQ(model->parameter_count(), 8u);
    EXPECT_DOUBLE_EQ(model->tensors[0].backward_flops_per_sample, 24);  // twice forward by default
    EXPECT_DOUBLE_EQ(model->tensors[1].backward_flops_per_sample, 5);
  }
}

TEST(DdpModelFiles, BadFilesAreUsageErrors) {
  EXPECT_THROW(parse_model_json("{not json", "x.json"), UsageError);
  EXPECT_THROW(parse_model_json(R"({"tensors": []})", "x.json"), UsageError);
  EXPECT_THROW(parse_model_json(R"({"tensors": [{"elements": 0}]})", "x.json"), UsageError);
  EXPECT_THROW(parse_model_json(R"({"tensors": [{"elements": 4, "forward_flops": -1}]})", "x.json"), UsageError);
  EXPECT_THROW(parse_model_csv("w,4\n", "x.csv"), UsageError);
  EXPECT_THROW(parse_model_csv("w,four,1\n", "x.csv"), UsageError);
  EXPECT_THROW(parse_model_csv("", "x.csv"), UsageError);
}

// ===== Closed-form gradients =================================================================

TEST(DdpGradients, ProducedValuesAreTheClosedForm) {
  std::vector<float> gradients(100);
  produce_gradients(gradients.data(), gradients.size(), 3, 1000, 7, false);
  for (std::size_t i = 0; i < gradients.size(); ++i) EXPECT_EQ(gradients[i], gradient_value(3, 1000 + i, 7)) << i;
  produce_gradients(gradients.data(), gradients.size(), 3, 1000, 8, true);
  for (std::size_t i = 0; i < gradients.size(); ++i) {
    EXPECT_EQ(gradients[i], gradient_value(3, 1000 + i, 7) + gradient_value(3, 1000 + i, 8)) << i;
  }
}

TEST(DdpGradients, ExpectedAverageIsTheMeanOverRanksOfTheAccumulatedSums) {
  double sum = 0;
  for (int rank = 0; rank < 3; ++rank) sum += gradient_value(rank, 42, 10) + gradient_value(rank, 42, 11);
  EXPECT_DOUBLE_EQ(expected_average(3, 42, 10, 2), sum / 3);
  // Values are multiples of 1/16 in [-1/2, 1/2] and differ between ranks.
  for (int rank = 0; rank < 4; ++rank) {
    const float value = gradient_value(rank, 5, 0);
    EXPECT_LE(std::fabs(value), 0.5f);
    EXPECT_EQ(value * 16, std::round(value * 16));
  }
  EXPECT_NE(gradient_value(0, 5, 0), gradient_value(1, 5, 0));
}

TEST(DdpGradients, TheBoundCatchesTheSmallestError) {
  // A wrong contribution from one rank moves the average by at least 1/16 / world size.
  for (int ranks = 1; ranks <= 4; ++ranks) {
    for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBfloat16}) {
      EXPECT_LT(gradient_error_bound(dtype, ranks, 1), 1.0 / 16 / ranks) << ranks;
    }
  }
  EXPECT_LT(gradient_error_bound(DType::kFloat32, 4, 8), gradient_error_bound(DType::kFloat16, 4, 8));
  EXPECT_LT(gradient_error_bound(DType::kFloat16, 4, 8), gradient_error_bound(DType::kBfloat16, 4, 8));
}

// ===== GEMM sizing ===========================================================================

TEST(DdpGemm, PlansComeCloseToTheRequestedFlops) {
  for (double flops : {2e3, 1.3e6, 7.7e8, 3.1e10, 5e11}) {
    const GemmPlan plan = plan_gemm(flops);
    EXPECT_NEAR(plan.flops(), flops, 0.05 * flops) << flops;
    EXPECT_LE(plan.side, kMaxGemmSide);
    EXPECT_LE(plan.depth, kMaxGemmDepth);
  }
  EXPECT_EQ(plan_gemm(0).repeats, 0);
}

// ===== Options and batches ===================================================================

TEST(DdpOptionsTest, ListsAndDefaults) {
  const DdpOptions options = parse_ddp_options({"--bucket-mb", "1,5,25", "--overlap", "on,off", "--grad-dtype", "fp16,bf16",
                                                "--accumulate", "1,4", "--model", "resnet50"});
  EXPECT_EQ(options.bucket_mb, (std::vector<double>{1, 5, 25}));
  EXPECT_EQ(options.overlap, (std::vector<Overlap>{Overlap::kOn, Overlap::kOff}));
  EXPECT_EQ(options.grad_dtypes, (std::vector<DType>{DType::kFloat16, DType::kBfloat16}));
  EXPECT_EQ(options.accumulate, (std::vector<int>{1, 4}));
  const DdpOptions defaults = parse_ddp_options({});
  EXPECT_EQ(defaults.bucket_mb, (std::vector<double>{25}));
  EXPECT_DOUBLE_EQ(first_bucket_cap_mb(defaults, 25), 1);
  EXPECT_EQ(defaults.model, "linear-1024");
}

TEST(DdpOptionsTest, BadValuesAreUsageErrors) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--bucket-mb", "0"}, {"--bucket-mb", "-5"}, {"--bucket-mb", "25,"}, {"--bucket-mb", "lots"},
           {"--model", "resnet51"}, {"--grad-dtype", "int8"}, {"--overlap", "maybe"}, {"--accumulate", "0"},
           {"--backend", "nccl"}, {"--compute-scale", "0"}, {"--batch", "4", "--global-batch", "8"}, {"--rank-weights", "1,0"}}) {
    EXPECT_THROW(parse_ddp_options(args), UsageError) << args[0] << " " << args[1];
  }
}

TEST(DdpOptionsTest, RankBatches) {
  DdpOptions options;
  options.batch = 32;
  EXPECT_EQ(rank_batches(options, 3), (std::vector<int>{32, 32, 32}));
  options.global_batch = 10;
  EXPECT_EQ(rank_batches(options, 4), (std::vector<int>{3, 3, 2, 2}));
  options.global_batch = 0;
  options.rank_weights = {1.0, 0.5};  // envcheck's weights: rank 1 runs at half speed
  const auto weighted = rank_batches(options, 2);
  EXPECT_EQ(weighted, (std::vector<int>{43, 21}));
  EXPECT_EQ(std::accumulate(weighted.begin(), weighted.end(), 0), 64);  // the same global batch
  EXPECT_THROW(rank_batches(options, 3), UsageError);
  options.rank_weights = {1000.0, 1.0};
  options.batch = 1;
  EXPECT_THROW(rank_batches(options, 2), UsageError);  // rank 1 would get no sample
}

// ===== The summarizer on ddp_step rows =========================================================

summarize::LoadedReport ddp_report(int world_size, double bucket_mb, double step_us, int batch) {
  report::Context context;
  context.world_size = world_size;
  nlohmann::json report = report::envelope_json("ddp_step", context);
  report["status"] = "complete";
  report::DdpStepRow row;
  row.model = "m";
  row.backend = "mpi";
  row.scaling = "weak";
  row.batch = batch;
  row.global_batch = batch * world_size;
  row.bucket_mb = bucket_mb;
  row.overlap = "on";
  row.grad_dtype = "float32";
  row.iterations = 3;
  row.time_us = {step_us, step_us, step_us, step_us, step_us, step_us, step_us, 0};
  row.samples_per_s = row.global_batch / (step_us * 1e-6);
  report["results"].push_back(report::to_json(row));
  return {"r" + std::to_string(world_size) + "-" + std::to_string(bucket_mb), report::report_from_json(report)};
}

TEST(DdpSummarize, WeakScalingSpeedupIsTheRatioOfSamplesPerSecond) {
  // Per-rank batch fixed; the step grows from 100 to 125 us at 2 ranks: 2 x 100/125 = 1.6x.
  const auto series = summarize::compute_scaling({ddp_report(1, 25, 100, 32), ddp_report(2, 25, 125, 32)});
  ASSERT_EQ(series.size(), 1u);
  ASSERT_EQ(series[0].points.size(), 2u);
  EXPECT_NEAR(series[0].points[1].speedup, 1.6, 1e-9);
  EXPECT_NEAR(series[0].points[1].efficiency, 0.8, 1e-9);
}

TEST(DdpSummarize, SpeedupByBucketSaysTheBestSettingInOneLine) {
  const auto result = summarize::compute_speedup({ddp_report(2, 25, 121, 32), ddp_report(2, 50, 100, 32)}, "bucket_mb", std::nullopt);
  const auto lines = summarize::best_setting_lines(result);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "bucket_mb 50: 1.21x faster than 25 on this machine");
  const auto close = summarize::compute_speedup({ddp_report(2, 25, 101, 32), ddp_report(2, 50, 100, 32)}, "bucket_mb", std::nullopt);
  EXPECT_EQ(summarize::best_setting_lines(close).at(0).rfind("no clear best bucket_mb", 0), 0u);
  const auto slower = summarize::compute_speedup({ddp_report(2, 25, 100, 32), ddp_report(2, 50, 150, 32)}, "bucket_mb", std::nullopt);
  EXPECT_EQ(summarize::best_setting_lines(slower).at(0), "bucket_mb 25 is the fastest on this machine: the next best, 50, is 1.50x slower");
}

TEST(DdpSummarize, SpeedupByAccumulateComparesSamplesPerSecond) {
  // accumulate 4: a step of 4 micro-steps takes 3x as long but trains 4x the samples: 4/3 faster.
  auto one = ddp_report(2, 25, 100, 32), four = ddp_report(2, 25, 300, 32);
  auto& row = four.report.rows.at(0);
  row.keys.at(6).second = "4";  // accumulate
  row.figures.at(0) = 4 * 64 / 300e-6;
  const auto result = summarize::compute_speedup({one, four}, "accumulate", std::nullopt);
  ASSERT_EQ(result.series.size(), 1u);
  EXPECT_NEAR(*result.series[0].geomean[1], 4.0 / 3.0, 1e-9);
  EXPECT_TRUE(result.by_job_throughput);
}

}  // namespace
}  // namespace collbench::ddp
