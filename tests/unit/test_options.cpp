#include <gtest/gtest.h>

#include "core/error.h"
#include "workloads/collectives/collective_options.h"

namespace collbench {
namespace {

CollectiveOptions parse(std::vector<std::string> args) { return parse_options(args); }

TEST(Options, DefaultsFollowNcclTests) {
  const CollectiveOptions options = parse({});
  EXPECT_EQ(options.requested_sizes(), (std::vector<std::uint64_t>{32u << 20}));
  EXPECT_EQ(options.iterations, 20);
  EXPECT_EQ(options.warmup_iterations, 5);
  EXPECT_EQ(options.check_iterations, 1);
  EXPECT_EQ(options.dtypes, std::vector<DType>{DType::kFloat32});
  EXPECT_EQ(options.ops, std::vector<ReduceOp>{ReduceOp::kSum});
  EXPECT_EQ(options.root, 0);
  EXPECT_EQ(options.aggregation, TimeAggregation::kMean);
  EXPECT_EQ(options.placements().size(), 2u);
}

TEST(Options, ShortLongAndInlineForms) {
  const CollectiveOptions a = parse({"-b", "8", "-e", "1M", "-f", "2", "-n", "7", "-w", "0", "-c", "3", "-a", "1"});
  const CollectiveOptions b = parse({"--minbytes=8", "--maxbytes", "1M", "--stepfactor=2", "--iters", "7", "--warmup_iters=0",
                           "--check", "3", "--average", "1"});
  const CollectiveOptions c = parse({"-b8", "-e1M", "-f2", "-n7", "-w0", "-c3", "-a1"});
  for (const CollectiveOptions* o : {&a, &b, &c}) {
    EXPECT_EQ(o->requested_sizes().front(), 8u);
    EXPECT_EQ(o->requested_sizes().back(), 1u << 20);
    EXPECT_EQ(o->iterations, 7);
    EXPECT_EQ(o->warmup_iterations, 0);
    EXPECT_EQ(o->check_iterations, 3);
    EXPECT_EQ(o->aggregation, TimeAggregation::kMean);
  }
}

TEST(Options, DtypeListsAliasesAndAll) {
  EXPECT_EQ(parse({"-d", "half,float,double"}).dtypes,
            (std::vector<DType>{DType::kFloat16, DType::kFloat32, DType::kFloat64}));
  EXPECT_EQ(parse({"-d", "all"}).dtypes.size(), 12u);
  EXPECT_EQ(parse({"-o", "all"}).ops.size(), 5u);
  EXPECT_EQ(parse({"-o", "max,avg"}).ops, (std::vector<ReduceOp>{ReduceOp::kMax, ReduceOp::kAvg}));
  EXPECT_EQ(parse({"--datatype", "bfloat16"}).dtypes, std::vector<DType>{DType::kBfloat16});
}

TEST(Options, RootsTagsPlacementSizes) {
  EXPECT_EQ(parse({"-r", "-1"}).root, kEveryRoot);
  EXPECT_EQ(parse({"-r", "all"}).root, kEveryRoot);
  EXPECT_EQ(parse({"-r", "3"}).root, 3);
  const CollectiveOptions tagged = parse({"--tag", "run=a", "--tag", "host.kind=cpu"});
  EXPECT_EQ(tagged.tags.at("run"), "a");
  EXPECT_EQ(tagged.tags.at("host.kind"), "cpu");
  EXPECT_EQ(parse({"--placement", "in"}).placements(), std::vector<Placement>{Placement::kInPlace});
  EXPECT_EQ(parse({"--sizes", "8,64K,1M"}).requested_sizes(), (std::vector<std::uint64_t>{8, 65536, 1048576}));
  EXPECT_EQ(parse({"-i", "1K", "-b", "1K", "-e", "4K"}).requested_sizes().size(), 4u);
}

TEST(Options, BadInputIsAUsageError) {
  const std::vector<std::vector<std::string>> bad = {
      {"-q"},
      {"--nonsense"},
      {"-b"},
      {"-b", "lots"},
      {"-b", "1M", "-e", "8"},
      {"-n", "0"},
      {"-n", "ten"},
      {"-n", "99999999999999999999"},
      {"-w", "-1"},
      {"-c", "-2"},
      {"-d", "float128"},
      {"-d", "float32,"},
      {"-o", "xor"},
      {"-r", "-2"},
      {"-r", "root"},
      {"-a", "4"},
      {"-N", "0"},
      {"-f", "1"},
      {"-f", "0.5"},
      {"-f", "nan"},
      {"-i", "1K", "-f", "2"},
      {"--sizes", "8,64K", "-b", "8"},
      {"--sizes", ""},
      {"--sizes", "0"},
      {"--placement", "sideways"},
      {"--tag", "novalue"},
      {"--tag", "=x"},
      {"--samples=yes"},
      {"-T", "-1"},
      {"-J", ""},
      {"-g", "0"},
      {"stray"},
      {"-e", "0", "-b", "0"},
  };
  for (const auto& args : bad) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    EXPECT_THROW(parse(args), UsageError) << joined;
  }
}

TEST(Options, UsageMentionsUnitsAndExitCodes) {
  const std::string text = usage_text("all_reduce_perf");
  EXPECT_NE(text.find("1024-based"), std::string::npos);
  EXPECT_NE(text.find("1e9"), std::string::npos);
  EXPECT_NE(text.find("Exit codes"), std::string::npos);
}

}  // namespace
}  // namespace collbench
