// ddp_step_perf's pure logic: DDP's bucket assignment, the presets against their published
// parameter counts and shapes, the compute plan (GEMM shapes per layer, FLOPs, tiles), model and
// profile files, closed-form gradients, batches, options, exposed communication against the
// compute alone, --comm-cores' split, and the summarizer's reading of ddp_step rows (scaling by
// samples/s, the best-setting line, reports from before schema 2.4).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>

#include "core/error.h"
#include "core/process_threads.h"
#include "workloads/ddp/buckets.h"
#include "workloads/ddp/compute_profile.h"
#include "workloads/ddp/core_split.h"
#include "workloads/ddp/ddp_options.h"
#include "workloads/ddp/exposure.h"
#include "workloads/ddp/gradients.h"
#include "workloads/ddp/layer_gemm.h"
#include "workloads/ddp/model.h"
#include "report/report_json.h"
#include "summarize/tables/scaling.h"
#include "summarize/tables/speedup.h"
#include "workloads/ddp/report/ddp_step_rows.h"
#include "workloads/ddp/report/ddp_step_view.h"

namespace collbench::ddp {
namespace {

// The presets, from their data files (src/workloads/ddp/presets/*.csv) as the program embeds them.
Model linear_1024() { return load_model("linear-1024"); }
Model resnet50() { return load_model("resnet50"); }
Model bert_large() { return load_model("bert-large"); }
Model gpt2_small() { return load_model("gpt2-small"); }

std::vector<ParameterTensor> tensors_of(const std::vector<std::uint64_t>& elements) {
  std::vector<ParameterTensor> tensors;
  for (std::size_t i = 0; i < elements.size(); ++i) tensors.push_back({"t" + std::to_string(i), elements[i], -1});
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
  // 4.09 GMACs per 224x224 image (torchvision) = 8.2 GFLOPs, all in convolutions and fc.
  const Model model = resnet50();
  EXPECT_NEAR(model.forward_flops_per_sample(), 2 * 4.09e9, 0.01 * 2 * 4.09e9);
  EXPECT_EQ(model.tensors.size(), 161u);  // len(list(torchvision.models.resnet50().parameters()))
  EXPECT_EQ(model.tensors.front().name, "conv1.weight");
  EXPECT_EQ(model.tensors.back().name, "fc.bias");
  // Backward is both gradients of every layer but the first: conv1 computes no input gradient.
  const double conv1_forward = 2.0 * 112 * 112 * 64 * (3 * 7 * 7);
  EXPECT_DOUBLE_EQ(model.layers.front().forward.flops_per_sample(), conv1_forward);
  EXPECT_DOUBLE_EQ(model.backward_flops_per_sample(), 2 * model.forward_flops_per_sample() - conv1_forward);
}

TEST(DdpPresets, TransformerFlopsFollowTheSixNRule) {
  // Forward ~ 2 x (non-embedding parameters) x tokens, plus attention; BERT-large at 128 tokens.
  const Model bert = bert_large();
  const double non_embedding = static_cast<double>(bert.parameter_count()) - (30522.0 + 512 + 2) * 1024;
  EXPECT_NEAR(bert.forward_flops_per_sample(), 2 * non_embedding * 128, 0.1 * 2 * non_embedding * 128);
  // GPT-2 small at 1024 tokens, in multiply-adds per token: the blocks' dense layers (12 d^2 per
  // layer), attention (scores and context: 2 S d per layer) and the tied LM head (d V).
  const Model gpt2 = gpt2_small();
  const double blocks = 12.0 * (4 * 768 * 768 + 8 * 768 * 768), attention = 12.0 * 2 * 1024 * 768, head = 768.0 * 50257;
  EXPECT_NEAR(gpt2.forward_flops_per_sample(), 2 * (blocks + attention + head) * 1024, 1e-9 * gpt2.forward_flops_per_sample());
  EXPECT_GE(gpt2.find_layer("lm_head"), 0);
  EXPECT_TRUE(gpt2.layers[static_cast<std::size_t>(gpt2.find_layer("lm_head"))].tensors.empty());  // tied to wte
}

TEST(DdpPresets, LoadModelKnowsThePresetsAndRefusesUnknownNames) {
  EXPECT_EQ(preset_names(), (std::vector<std::string>{"linear-1024", "resnet50", "bert-large", "gpt2-small"}));
  for (const auto& name : preset_names()) EXPECT_EQ(load_model(name).name, name);
  EXPECT_THROW(load_model("resnet51"), UsageError);
  EXPECT_THROW(load_model("/nonexistent/model.json"), UsageError);
}

// ===== GEMM shapes and the compute plan =======================================================

Model small_model() { return load_model(COLLBENCH_DDP_TEST_DATA "/small_model.csv"); }

Gemm gemm(std::uint64_t m, std::uint64_t n, std::uint64_t k, std::uint64_t count = 1) { return {m, n, k, count}; }

void expect_gemm(const Gemm& actual, const Gemm& expected, const std::string& what) {
  EXPECT_EQ(actual.m, expected.m) << what;
  EXPECT_EQ(actual.n, expected.n) << what;
  EXPECT_EQ(actual.k, expected.k) << what;
  EXPECT_EQ(actual.count, expected.count) << what;
}

TEST(DdpComputePlan, SmallModelInClosedForm) {
  // tests/ddp/data/small_model.csv at batch 3: 4 tokens per sample, so M = 12 rows.
  const Model model = small_model();
  ASSERT_EQ(model.layers.size(), 5u);
  const ComputePlan plan = plan_compute(model, 3, 1.0);
  ASSERT_EQ(plan.layers.size(), 5u);
  const LayerWork& embedding = plan.layers[0];
  EXPECT_TRUE(embedding.forward.empty() && embedding.input_grad.empty() && embedding.weight_grad.empty());
  EXPECT_DOUBLE_EQ(embedding.forward_bytes, 3 * 8192.0);
  EXPECT_DOUBLE_EQ(embedding.backward_bytes, 3 * 12288.0 + 1228800);  // per sample, plus the zeroed gradient
  expect_gemm(plan.layers[1].forward, gemm(12, 256, 256), "block.0 forward");
  expect_gemm(plan.layers[1].input_grad, gemm(12, 256, 256), "block.0 input gradient");
  expect_gemm(plan.layers[1].weight_grad, gemm(256, 256, 12), "block.0 weight gradient");
  expect_gemm(plan.layers[2].forward, gemm(4, 4, 64, 12), "attention forward: one per sample and head");
  expect_gemm(plan.layers[2].input_grad, gemm(4, 64, 4, 12), "attention first operand's gradient");
  expect_gemm(plan.layers[2].weight_grad, gemm(4, 64, 4, 12), "attention second operand's gradient");
  expect_gemm(plan.layers[3].forward, gemm(12, 1600, 256), "block.1 forward");
  expect_gemm(plan.layers[3].input_grad, gemm(12, 256, 1600), "block.1 input gradient");
  expect_gemm(plan.layers[3].weight_grad, gemm(1600, 256, 12), "block.1 weight gradient");
  expect_gemm(plan.layers[4].forward, gemm(3, 16, 1600), "head forward");
  expect_gemm(plan.layers[4].input_grad, gemm(3, 1600, 16), "head input gradient");
  expect_gemm(plan.layers[4].weight_grad, gemm(16, 1600, 3), "head weight gradient");
  const double forward = 2.0 * (12 * 256 * 256 + 12 * 4 * 4 * 64 + 12 * 1600 * 256 + 3 * 16 * 1600);
  EXPECT_DOUBLE_EQ(plan.forward_flops(), forward);
  EXPECT_DOUBLE_EQ(plan.backward_flops(), 2 * forward);  // layer 0 has no GEMM here, so nothing is left out
  EXPECT_DOUBLE_EQ(model.forward_flops_per_sample() * 3, forward);
}

TEST(DdpComputePlan, LayerZeroComputesNoInputGradient) {
  const Model model = parse_model_csv(
      "layer,params,forward,input_grad,weight_grad,forward_bytes,backward_bytes\n"
      "first,first.weight:64,B*2x8x8,B*2x8x8,8x8xB*2,0,0\n"
      "second,second.weight:64,B*2x8x8,B*2x8x8,8x8xB*2,0,0\n",
      "two.csv");
  const ComputePlan plan = plan_compute(model, 5, 1.0);
  EXPECT_FALSE(plan.layers[0].forward.empty());
  EXPECT_TRUE(plan.layers[0].input_grad.empty());   // written in the file, not run
  EXPECT_FALSE(plan.layers[0].weight_grad.empty());
  EXPECT_FALSE(plan.layers[1].input_grad.empty());
  EXPECT_DOUBLE_EQ(plan.forward_flops(), 2 * 2.0 * 10 * 8 * 8);
  EXPECT_DOUBLE_EQ(plan.backward_flops(), 3 * 2.0 * 10 * 8 * 8);
  EXPECT_DOUBLE_EQ(model.backward_flops_per_sample() * 5, plan.backward_flops());
}

TEST(DdpComputePlan, ConvolutionsAreImplicitGemms) {
  // layer2.0.conv2: 3x3, 128 -> 128 channels, stride 2 (v1.5), 56x56 -> 28x28. Forward
  // M = batch x 28 x 28, N = C_out = 128, K = C_in x 3 x 3 = 1152; the gradients are its transposes.
  const Model model = resnet50();
  const int index = model.find_layer("layer2.0.conv2");
  ASSERT_GE(index, 0);
  const Layer& conv = model.layers[static_cast<std::size_t>(index)];
  ASSERT_EQ(conv.tensors.size(), 1u);
  EXPECT_EQ(model.tensors[static_cast<std::size_t>(conv.tensors[0])].elements, 128u * 128 * 9);
  const LayerWork work = plan_compute(model, 8, 1.0).layers[static_cast<std::size_t>(index)];
  expect_gemm(work.forward, gemm(8 * 784, 128, 1152), "forward");
  expect_gemm(work.input_grad, gemm(8 * 784, 1152, 128), "input gradient");
  expect_gemm(work.weight_grad, gemm(128, 1152, 8 * 784), "weight gradient");
  // The stem: 7x7/2, 3 -> 64 channels, 224 -> 112.
  expect_gemm(plan_compute(model, 2, 1.0).layers[0].forward, gemm(2 * 12544, 64, 147), "conv1 forward");
  // Batch norm is elementwise only: bytes, no GEMM.
  const LayerWork bn = plan_compute(model, 1, 1.0).layers[1];
  EXPECT_TRUE(bn.forward.empty());
  EXPECT_GT(bn.forward_bytes, 0);
}

TEST(DdpComputePlan, ComputeScaleShrinksTheBatchFactorOnly) {
  const Model model = small_model();
  const ComputePlan plan = plan_compute(model, 100, 0.01);  // one sample's worth
  expect_gemm(plan.layers[1].forward, gemm(4, 256, 256), "block.0 at one sample");
  expect_gemm(plan.layers[2].forward, gemm(4, 4, 64, 4), "attention at one sample");
  EXPECT_DOUBLE_EQ(plan.layers[0].backward_bytes, (100 * 12288.0 + 1228800) * 0.01);
  // Never below one row: a tiny scale still runs every GEMM.
  expect_gemm(plan_compute(model, 1, 1e-6).layers[4].forward, gemm(1, 16, 1600), "head at a tiny scale");
}

TEST(DdpComputePlan, ShapeTextRoundTripsAndBadShapesAreUsageErrors) {
  const GemmShape conv = parse_gemm_shape("B*12544x64x147", "f");
  EXPECT_EQ(conv.m, 12544u);
  EXPECT_EQ(conv.batch_axis, BatchAxis::kM);
  EXPECT_EQ(conv.text(), "B*12544x64x147");
  const GemmShape heads = parse_gemm_shape("128x128x64xB*16", "f");
  EXPECT_EQ(heads.batch_axis, BatchAxis::kCount);
  EXPECT_EQ(heads.count, 16u);
  EXPECT_EQ(heads.text(), "128x128x64xB*16");
  EXPECT_EQ(parse_gemm_shape("64x147xB", "f").text(), "64x147xB*1");
  EXPECT_TRUE(parse_gemm_shape("", "f").empty());
  for (const char* bad : {"4x4", "1x2x3", "B*1xB*2x3", "0x1xB", "1x2x3x4x5", "Bx-1x3", "B*x2x3"}) {
    EXPECT_THROW(parse_gemm_shape(bad, "f"), UsageError) << bad;
  }
  const ScaledBytes bytes = parse_scaled_bytes("B*100+4096", "b");
  EXPECT_DOUBLE_EQ(bytes.per_sample, 100);
  EXPECT_DOUBLE_EQ(bytes.fixed, 4096);
  EXPECT_DOUBLE_EQ(bytes.at(3), 4396);
  EXPECT_THROW(parse_scaled_bytes("B*inf", "b"), UsageError);
  EXPECT_THROW(parse_scaled_bytes("-5", "b"), UsageError);
}

TEST(DdpComputePlan, HugeGemmsAreRefusedNotShrunk) {
  const Model model = load_model(COLLBENCH_DDP_TEST_DATA "/huge_flops_model.csv");
  EXPECT_THROW(plan_compute(model, 2, 1.0), UsageError);
}

TEST(DdpGemmTiles, TilesKeepTheFlopsAndFitTheScratch) {
  // A thin layer (batch x 2048 x 2048) stays one GEMM of its own shape.
  const auto thin = tile_gemm(gemm(32, 2048, 2048));
  ASSERT_EQ(thin.size(), 1u);
  EXPECT_EQ(thin[0].m, 32u);
  EXPECT_EQ(thin[0].repeats, 1u);
  // GPT-2's LM head at batch 8, ResNet's conv1 weight gradient, attention: tiles, exact FLOPs.
  for (const Gemm& big : {gemm(8192, 50257, 768), gemm(64, 147, 32 * 12544), gemm(1024, 1024, 64, 96), gemm(3, 5, 7)}) {
    double flops = 0;
    for (const GemmTile& tile : tile_gemm(big)) {
      EXPECT_LE(tile.m * tile.k, kMaxOperandElements);
      EXPECT_LE(tile.k * tile.n, kMaxOperandElements);
      EXPECT_LE(tile.m * tile.n, kMaxOperandElements);
      flops += 2.0 * static_cast<double>(tile.m) * static_cast<double>(tile.n) * static_cast<double>(tile.k) * static_cast<double>(tile.repeats);
    }
    EXPECT_DOUBLE_EQ(flops, big.flops()) << big.m << "x" << big.n << "x" << big.k;
  }
  EXPECT_TRUE(tile_gemm(Gemm{}).empty());
}

// ===== Model files ===========================================================================

TEST(DdpModelFiles, JsonAndCsvGiveTheSameModel) {
  const Model json = parse_model_json(
      R"({"name": "m", "layers": [{"name": "fc", "params": [{"name": "fc.weight", "elements": 6}, {"name": "fc.bias", "elements": 2}],
          "forward": "B*1x2x3", "input_grad": "B*1x3x2", "weight_grad": "2x3xB*1", "forward_bytes": "B*8", "backward_bytes": "B*8+24"}]})",
      "m.json");
  const Model csv = parse_model_csv("layer,params,forward,input_grad,weight_grad,forward_bytes,backward_bytes\n# comment\n"
                                    "fc,fc.weight:6;fc.bias:2,B*1x2x3,B*1x3x2,2x3xB*1,B*8,B*8+24\n",
                                    "m.csv");
  for (const Model* model : {&json, &csv}) {
    ASSERT_EQ(model->layers.size(), 1u);
    ASSERT_EQ(model->tensors.size(), 2u);
    EXPECT_EQ(model->parameter_count(), 8u);
    EXPECT_EQ(model->tensors[1].name, "fc.bias");
    EXPECT_EQ(model->tensors[1].layer, 0);
    EXPECT_EQ(model->layers[0].weight_grad.text(), "2x3xB*1");
    EXPECT_DOUBLE_EQ(model->layers[0].backward_bytes.fixed, 24);
    EXPECT_DOUBLE_EQ(model->forward_flops_per_sample(), 12);
  }
}

TEST(DdpModelFiles, BadFilesAreUsageErrors) {
  const std::string header = "layer,params,forward,input_grad,weight_grad,forward_bytes,backward_bytes\n";
  EXPECT_THROW(parse_model_json("{not json", "x.json"), UsageError);
  EXPECT_THROW(parse_model_json(R"({"layers": []})", "x.json"), UsageError);
  EXPECT_THROW(parse_model_json(R"({"layers": [{"name": "a", "params": [{"name": "w", "elements": 0}]}]})", "x.json"), UsageError);
  EXPECT_THROW(parse_model_csv("", "x.csv"), UsageError);
  EXPECT_THROW(parse_model_csv(header + "fc,fc.weight:4,B*1x2x2\n", "x.csv"), UsageError);           // too few fields
  EXPECT_THROW(parse_model_csv(header + "fc,fc.weight:four,,,,0,0\n", "x.csv"), UsageError);        // bad count
  EXPECT_THROW(parse_model_csv(header + "fc,,B*1x2x2,,,0,0\n", "x.csv"), UsageError);               // no parameters at all
  EXPECT_THROW(parse_model_csv(header + "fc,w:4,,,,0,0\nfc,v:4,,,,0,0\n", "x.csv"), UsageError);    // a layer twice
  EXPECT_THROW(parse_model_csv(header + "a,w:4,,,,0,0\nb,w:4,,,,0,0\n", "x.csv"), UsageError);      // a tensor twice
  EXPECT_THROW(parse_model_csv(header + "fc,w:4,2x2x2,,,0,0\n", "x.csv"), UsageError);              // no batch factor
  EXPECT_THROW(load_model(COLLBENCH_DDP_TEST_DATA "/old_format_model.csv"), UsageError);
  EXPECT_THROW(load_model(COLLBENCH_DDP_TEST_DATA "/infinite_bytes_model.csv"), UsageError);
  try {
    parse_model_csv(header + "a\x1b[31m,w:4,,,,0,0\na\x1b[31m,v:4,,,,0,0\n", "x.csv");
    FAIL() << "a repeated layer was accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find('\x1b'), std::string::npos) << "file text reached the message unescaped";
  }
}

// ===== Compute profiles ======================================================================

TEST(DdpComputeProfile, ReadsLayerTimesByName) {
  const Model model = small_model();
  const ComputeProfile profile = load_compute_profile(COLLBENCH_DDP_TEST_DATA "/small_profile.csv", model);
  EXPECT_EQ(profile.layers_timed, 4);
  EXPECT_EQ(profile.forward_us, (std::vector<double>{50, 200, 30, 800, 0}));   // head has no line
  EXPECT_EQ(profile.backward_us, (std::vector<double>{120, 400, 60, 1600, 0}));
}

TEST(DdpComputeProfile, BadProfilesAreUsageErrorsWithPrintableText) {
  const Model model = small_model();
  for (const char* file : {"profile_repeated_layer.csv", "profile_negative_time.csv", "profile_two_fields.csv", "profile_empty.csv",
                           "profile_escape_in_name.csv", "no_such_profile.csv"}) {
    try {
      load_compute_profile(std::string(COLLBENCH_DDP_TEST_DATA "/") + file, model);
      ADD_FAILURE() << file << " was accepted";
    } catch (const UsageError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("compute profile ", 0), 0u) << message;
      EXPECT_EQ(message.find_first_of("\x1b\x07\n"), std::string::npos) << file << ": " << message;
    }
  }
  EXPECT_THROW(parse_compute_profile_csv("layer,forward_us,backward_us\nblock.0,nan,1\n", "p.csv", model), UsageError);
  EXPECT_THROW(parse_compute_profile_csv("block.0,1,2e12\n", "p.csv", model), UsageError);
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
           {"--backend", "nccl"}, {"--compute-scale", "0"}, {"--memory-gbps", "0"},
           {"--compute-profile", COLLBENCH_DDP_TEST_DATA "/profile_empty.csv"}, {"--batch", "4", "--global-batch", "8"}, {"--rank-weights", "1,0"}}) {
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

// ===== Exposed communication against the compute alone (issue 46) ==============================

TEST(DdpExposure, TheStepAgainstItsComputeAlone) {
  // The issue's row: compute alone 255 ms; under communication the compute took 344 ms and the
  // step 404 ms; its all-reduces alone, one after another, 300 ms. The step paid 404 - 255 = 149 ms
  // for communication (60 inside the step beyond its compute, 89 through the slower compute).
  const Exposure exposure = exposure_against_compute_alone(404e3, 344e3, {255e3, 300e3});
  EXPECT_DOUBLE_EQ(exposure.exposed_us, 149e3);
  ASSERT_TRUE(exposure.compute_slowdown && exposure.hidden_fraction);
  EXPECT_DOUBLE_EQ(*exposure.compute_slowdown, 344.0 / 255.0);
  EXPECT_DOUBLE_EQ(*exposure.hidden_fraction, 1 - 149.0 / 300.0);
}

TEST(DdpExposure, BoundsAndMissingBaselines) {
  // A step below its baseline is noise: nothing exposed, all hidden.
  const Exposure faster = exposure_against_compute_alone(90, 100, {100, 50});
  EXPECT_EQ(faster.exposed_us, 0);
  EXPECT_DOUBLE_EQ(*faster.hidden_fraction, 1);
  // More exposed than the communication alone takes (overlap worse than none): hidden is 0, not negative.
  EXPECT_DOUBLE_EQ(*exposure_against_compute_alone(400, 150, {100, 50}).hidden_fraction, 0);
  // No communication, no compute alone: those figures are undefined, not 0.
  const Exposure nothing = exposure_against_compute_alone(100, 100, {0, 0});
  EXPECT_FALSE(nothing.compute_slowdown);
  EXPECT_FALSE(nothing.hidden_fraction);
  EXPECT_EQ(nothing.exposed_us, 100);
}

TEST(DdpCommCores, TheLastCoresGoToCommunication) {
  const CoreSplit split = split_cores({0, 1, 4, 5}, 1);
  EXPECT_EQ(split.compute, (std::vector<int>{0, 1, 4}));
  EXPECT_EQ(split.communication, (std::vector<int>{5}));
  EXPECT_EQ(split_cores({2, 3}, 1).communication, (std::vector<int>{3}));
  // All the cores, more, or none: refused with one sentence that says how many there are.
  for (const int cores : {2, 3, 0, -1}) {
    try {
      split_cores({2, 3}, cores);
      ADD_FAILURE() << "--comm-cores " << cores << " of 2 accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("a rank may run on 2 core(s)"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
  // The flag itself: a count, 0 by default.
  EXPECT_EQ(parse_ddp_options({}).comm_cores, 0);
  EXPECT_EQ(parse_ddp_options({"--comm-cores", "3"}).comm_cores, 3);
  EXPECT_THROW(parse_ddp_options({"--comm-cores", "-1"}), UsageError);
  EXPECT_THROW(parse_ddp_options({"--comm-cores", "two"}), UsageError);
}

TEST(DdpThreads, CpuListsAsLinuxWritesThem) {
  EXPECT_EQ(cpu_list_text({}), "");
  EXPECT_EQ(cpu_list_text({3}), "3");
  EXPECT_EQ(cpu_list_text({0, 1, 2, 3, 6, 8, 9}), "0-3,6,8-9");
  // This thread, as the census reads it: a name, a CPU it may run on, and the CPU it runs on among them.
  const std::vector<int> allowed = thread_affinity(0);
  ASSERT_FALSE(allowed.empty());
  EXPECT_FALSE(thread_name(this_thread_id()).empty());
  const int cpu = thread_last_cpu(this_thread_id());
  EXPECT_NE(std::find(allowed.begin(), allowed.end(), cpu), allowed.end()) << cpu;
}

// ===== The summarizer on ddp_step rows =========================================================

summarize::LoadedReport ddp_report(int world_size, double bucket_mb, double step_us, int batch) {
  report::Context context;
  context.world_size = world_size;
  nlohmann::json report = report::envelope_json("ddp_step", context);
  report["status"] = "complete";
  report::Measurement measured;
  measured.iterations = 3;
  measured.time_us = {step_us, step_us, step_us, step_us, step_us, step_us, step_us, 0};
  const int global_batch = batch * world_size;
  // The row's keys, figures and table cells as ddp_step_perf writes them, at an idle step's values:
  // whole settings as integers ("25"), figures without communication or compute null.
  const nlohmann::json bucket = std::floor(bucket_mb) == bucket_mb ? nlohmann::json(static_cast<std::int64_t>(bucket_mb)) : nlohmann::json(bucket_mb);
  nlohmann::json fields = {{"model", "m"}, {"backend", "mpi"}, {"device", "cpu"}, {"scaling", "weak"}, {"batch", batch},
                           {"global_batch", global_batch}, {"bucket_mb", bucket}, {"first_bucket_mb", 1}, {"overlap", "on"},
                           {"grad_dtype", "float32"}, {"accumulate", 1}, {"compute_scale", 1}, {"forward_us", 0.0},
                           {"backward_compute_us", 0.0}, {"compute_us", 0.0}, {"comm_us", 0.0}, {"compute_alone_us", 0.0},
                           {"comm_alone_us", 0.0}, {"exposed_us", 0.0}, {"compute_slowdown", nullptr}, {"hidden_fraction", nullptr},
                           {"exposed_inside_step_us", 0.0}, {"hidden_inside_step_fraction", nullptr}, {"comm_compute_ratio", nullptr},
                           {"buckets", 0}, {"allreduce_bytes", 0}, {"samples_per_s", global_batch / (step_us * 1e-6)}};
  report["results"].push_back(report::row_json(report::kDdpStepRows, std::move(fields), measured));
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

// A report made before schema 2.4 (by main at eca9af2): its exposed_comm_us and overlap_fraction
// read as exposed_inside_step_us and hidden_inside_step_fraction, through the kind's reader, the
// figures and the table; the figures it never had (exposed_us, compute alone) read as absent.
TEST(DdpSummarize, AReportBeforeSchema24StillReads) {
  const std::string path = std::string(COLLBENCH_DDP_TEST_DATA) + "/report_schema_2.3.json";
  std::ifstream in(path);
  const nlohmann::json document = nlohmann::json::parse(in);
  ASSERT_EQ(document.at("schema_version"), "2.3");
  const auto rows = report::ddp_rows_from_json(document);
  ASSERT_EQ(rows.size(), 2u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const nlohmann::json& old = document["results"][i];
    EXPECT_EQ(rows[i].exposed_inside_step_us, old["exposed_comm_us"].get<double>());
    ASSERT_TRUE(rows[i].hidden_inside_step_fraction);
    EXPECT_EQ(*rows[i].hidden_inside_step_fraction, old["overlap_fraction"].get<double>());
    EXPECT_EQ(rows[i].exposed_us, 0);
    EXPECT_EQ(rows[i].compute_alone_us, 0);
    EXPECT_FALSE(rows[i].hidden_fraction);
  }
  const report::Report report = report::report_from_json(document);
  const report::RowKindSpec& spec = report::row_kind_spec(report::kDdpStepRows);
  auto figure = [&spec](const report::Row& row, const std::string& name) {
    for (std::size_t f = 0; f < spec.figures.size(); ++f) {
      if (name == spec.figures[f].name) return row.figures.at(f);
    }
    ADD_FAILURE() << "no figure " << name;
    return std::optional<double>();
  };
  auto cell = [&spec](const report::Row& row, const std::string& header) {
    for (std::size_t c = 0; c < spec.table.size(); ++c) {
      if (header == spec.table[c].header) return row.table_cells.at(c);
    }
    ADD_FAILURE() << "no column " << header;
    return nlohmann::json();
  };
  ASSERT_EQ(report.rows.size(), 2u);
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const double old_exposed = document["results"][i]["exposed_comm_us"].get<double>();
    EXPECT_EQ(figure(report.rows[i], "exposed_inside_step_us"), old_exposed);
    EXPECT_FALSE(figure(report.rows[i], "exposed_us"));
    EXPECT_EQ(cell(report.rows[i], "in_step_us"), old_exposed);
    EXPECT_TRUE(cell(report.rows[i], "exposed_us").is_null());
  }
}

}  // namespace
}  // namespace collbench::ddp
