// The shared command-line layer (core/command_line.h) and the programs' parsers over it: every
// spelling of a flag means the same, values are read by the same parsers everywhere, and every
// rejection is a one-line UsageError naming the flag.
#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "workloads/envcheck/envcheck_options.h"
#include "workloads/matmul/matmul_options.h"
#include "workloads/membw/membw_options.h"
#include "core/command_line.h"
#include "core/error.h"
#include "workloads/collectives/collective_options.h"
#include "harness/flag_groups.h"
#include "summarize/cli/cli.h"
#include "workloads/comm_init/comm_init_options.h"
#include "workloads/ddp/ddp_options.h"
#include "workloads/pt2pt/pt2pt_options.h"

namespace collbench {
namespace {

struct Parsed {
  std::uint64_t min_bytes = 0;
  int iterations = 0;
  int warmup = 0;
  double factor = 0;
  bool samples = false;
  std::vector<std::string> tags;
};

Parsed parse(const std::vector<std::string>& args) {
  Parsed parsed;
  CommandLine command_line("test [options]", "");
  CLI::App& app = command_line.app();
  add_value(app, "-b,--minbytes", "SIZE", "smallest",
            [&parsed](const std::string& value, const std::string& flag) { parsed.min_bytes = parse_size(value, flag); });
  add_integer(app, "-n,--iters", "iterations", parsed.iterations, 1, 1000);
  add_integer(app, "-w,--warmup_iters,--warmup-iters", "warm-up", parsed.warmup, 0, 1000);
  add_real(app, "-f,--stepfactor", "X", "factor", parsed.factor, 1, 1e6);
  add_flag(app, "--samples", "keep samples", parsed.samples);
  add_value(app, "--tag", "KEY=VALUE", "repeatable", [&parsed](const std::string& value, const std::string&) { parsed.tags.push_back(value); });
  command_line.parse(args);
  return parsed;
}

// The message of the UsageError `args` raise; fails the test when they raise none.
std::string rejection(const std::vector<std::string>& args) {
  try {
    parse(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << ::testing::PrintToString(args);
  return "";
}

TEST(CommandLine, ShortGluedSeparateLongEqualsAndLongSeparateAgree) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"-b8K", "-n7", "-w0", "-f1.5"},
           {"-b", "8K", "-n", "7", "-w", "0", "-f", "1.5"},
           {"--minbytes=8K", "--iters=7", "--warmup_iters=0", "--stepfactor=1.5"},
           {"--minbytes", "8K", "--iters", "7", "--warmup-iters", "0", "--stepfactor", "1.5"}}) {
    const Parsed parsed = parse(args);
    EXPECT_EQ(parsed.min_bytes, 8192u) << ::testing::PrintToString(args);
    EXPECT_EQ(parsed.iterations, 7);
    EXPECT_EQ(parsed.warmup, 0);
    EXPECT_DOUBLE_EQ(parsed.factor, 1.5);
  }
}

TEST(CommandLine, LaterFlagOverridesAndRepeatableOnesAccumulate) {
  const Parsed parsed = parse({"-n", "3", "--iters=5", "--tag", "a=1", "--tag=b=2", "--samples"});
  EXPECT_EQ(parsed.iterations, 5);
  EXPECT_EQ(parsed.tags, (std::vector<std::string>{"a=1", "b=2"}));
  EXPECT_TRUE(parsed.samples);
}

TEST(CommandLine, RejectionsAreOneLineNamingTheFlag) {
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{"-f", "2x"}, "-f/--stepfactor expects a number, got '2x'"},
      {{"--stepfactor=nan"}, "-f/--stepfactor expects a number"},
      {{"-f", "inf"}, "-f/--stepfactor expects a number"},
      {{"-f", "0.5"}, "-f/--stepfactor must be between 1 and 1000000"},
      {{"-n", "1.5"}, "-n/--iters expects an integer, got '1.5'"},
      {{"-n", "0"}, "-n/--iters must be between 1 and 1000"},
      {{"-b", "lots"}, "-b/--minbytes"},
      {{"--minbytes"}, "--minbytes"},
      {{"--frobnicate"}, "unexpected argument: '--frobnicate'"},
      {{"stray", "words"}, "unexpected arguments: 'stray' 'words'"},
      {{""}, "unexpected argument: ''"},
      {{"--samples=yes"}, "--samples takes no value"},
      {{"---b", "8"}, "unexpected arguments: '---b' '8'"},
  };
  for (const auto& c : cases) {
    const std::string message = rejection(c.args);
    EXPECT_NE(message.find(c.expected), std::string::npos) << "'" << message << "' lacks '" << c.expected << "'";
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(CommandLine, HelpComesFromTheDeclarations) {
  CommandLine command_line("test [options]", "what it does");
  bool flag = false;
  start_section(command_line.app(), "Section");
  add_flag(command_line.app(), "-x,--example", "an example flag", flag);
  const std::string help = command_line.help();
  EXPECT_EQ(help.rfind("usage: test [options]\nwhat it does\n", 0), 0u) << help;
  EXPECT_NE(help.find("Section:\n  -x,--example"), std::string::npos) << help;
  EXPECT_NE(help.find("an example flag"), std::string::npos) << help;
}

// A program's options with one flag of each way to declare one, for context.options' tests.
struct Recorded : RunFlags {
  int window = 4;
  double factor = 1.5;
  bool matrix = false;
  std::string model = "small";
  std::vector<DType> dtypes{DType::kFloat32};
  int blocking = 0;
};

void declare_recorded(CLI::App& app, Recorded& o) {
  add_loop_flags(app, o);
  add_run_flags(app, o);
  add_report_flags(app, o);
  add_help_flags(app, o);
  add_integer(app, "-W,--window", "", o.window, 1, 64);
  add_real(app, "--slow-link-factor", "X", "", o.factor, 1, 10);
  add_flag(app, "--matrix", "", o.matrix);
  add_text(app, "--model", "NAME", "", o.model);
  record_names(app, add_value(app, "-d,--dtype", "LIST", "", [&o](const std::string& v, const std::string&) {
                 o.dtypes = {*parse_dtype(v)};
               }), "dtypes", o.dtypes);
  record_unless(app, add_integer(app, "-z,--blocking", "", o.blocking, 0, 3), "blocking", o.blocking, 0);
}

TEST(RecordedOptions, AFlagDeclaredWithItsTargetIsRecordedTypedUnderItsLongName) {
  const Recorded parsed = parse_declared({"-W", "8", "--slow-link-factor", "2.5", "--matrix", "--model", "big", "-d", "int8"},
                                         Recorded{}, declare_recorded);
  const nlohmann::json options = recorded_options(parsed, declare_recorded);
  EXPECT_EQ(options.at("window"), 8);
  EXPECT_TRUE(options.at("window").is_number_integer());
  EXPECT_EQ(options.at("slow_link_factor"), 2.5);
  EXPECT_EQ(options.at("matrix"), true);
  EXPECT_EQ(options.at("model"), "big");
  EXPECT_EQ(options.at("dtypes"), nlohmann::json::array({"int8"}));
  EXPECT_FALSE(options.contains("blocking")) << "recorded only away from its default";
  EXPECT_EQ(recorded_options(parse_declared({"-z", "2"}, Recorded{}, declare_recorded), declare_recorded).at("blocking"), 2);
}

TEST(RecordedOptions, TheSharedGroupsRecordTheirReportNamesAndNotWhereTheReportWent) {
  const Recorded parsed = parse_declared({"-n", "3", "-w", "0", "-c", "2", "-N", "2", "-T", "9", "--samples", "-J", "r.json",
                                          "--tag", "a=b", "--inject-slowdown", "5"},
                                         Recorded{}, declare_recorded);
  const nlohmann::json options = recorded_options(parsed, declare_recorded);
  EXPECT_EQ(options.at("iterations"), 3);
  EXPECT_EQ(options.at("warmup_iterations"), 0);
  EXPECT_EQ(options.at("check_iterations"), 2);
  EXPECT_EQ(options.at("cycles"), 2);
  EXPECT_EQ(options.at("timeout_s"), 9.0);
  EXPECT_EQ(options.at("keep_samples"), true);
  EXPECT_EQ(options.at("inject_slowdown_percent"), 5.0);
  EXPECT_EQ(options.at("inject_slowdown_rank"), -1);
  EXPECT_EQ(options.at("inject_corrupt_output"), false);
  for (const char* absent : {"report", "overwrite", "tag", "help", "version", "bootstrap", "rendezvous"}) {
    EXPECT_FALSE(options.contains(absent)) << absent;
  }
}

TEST(RecordedOptions, AHandlerFlagThatSaysNothingOfTheReportStopsItsProgramsReport) {
  Recorded options;
  const auto forgetful = [](CLI::App& app, Recorded& o) {
    declare_recorded(app, o);
    add_value(app, "--forgotten", "N", "", [](const std::string&, const std::string&) {});
  };
  try {
    recorded_options(options, forgetful);
    FAIL() << "a flag without a record was let through";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("--forgotten"), std::string::npos) << error.what();
  }
}

// Every program's declarations decide for every flag: its report can be made (no flag without a
// record), and what the shared groups record is there.
TEST(RecordedOptions, EveryProgramRecordsEveryFlag) {
  std::vector<nlohmann::json> recorded = {options_as_json(parse_options({})), pt2pt::options_as_json(pt2pt::parse_options({})),
                                          comm_init_options_json(parse_comm_init_options({})), ddp::ddp_options_json(ddp::DdpOptions{})};
  recorded.push_back(recorded_options(compute::parse_matmul_options({}), compute::declare_matmul_options));
  recorded.push_back(recorded_options(compute::parse_membw_options({}), compute::declare_membw_options));
  recorded.push_back(recorded_options(compute::parse_envcheck_options({}), compute::declare_envcheck_options));
  for (const nlohmann::json& options : recorded) {
    for (const char* key : {"iterations", "warmup_iterations", "check_iterations", "cycles", "timeout_s", "keep_samples"}) {
      EXPECT_TRUE(options.contains(key)) << key << " in " << options.dump();
    }
  }
}

TEST(CollectiveOptions, NcclTestsLongNamesAndAliases) {
  const CollectiveOptions options = parse_options({"--minbytes", "8", "--maxbytes=64", "--stepfactor", "2", "--iters", "2", "--warmup_iters", "1",
                                         "--check", "0", "--op", "max", "--datatype", "double", "--root", "1", "--average", "1",
                                         "--run_cycles", "3", "--timeout", "30", "--ngpus", "1", "--blocking", "1", "--cudagraph", "4",
                                         "--output_file", "r.json"});
  EXPECT_EQ(options.requested_sizes(), (std::vector<std::uint64_t>{8, 16, 32, 64}));
  EXPECT_EQ(options.iterations, 2);
  EXPECT_EQ(options.warmup_iterations, 1);
  EXPECT_EQ(options.check_iterations, 0);
  EXPECT_EQ(options.ops, std::vector<ReduceOp>{ReduceOp::kMax});
  EXPECT_EQ(options.dtypes, std::vector<DType>{DType::kFloat64});
  EXPECT_EQ(options.root, 1);
  EXPECT_EQ(options.aggregation, TimeAggregation::kMean);
  EXPECT_EQ(options.cycles, 3);
  EXPECT_DOUBLE_EQ(options.timeout_seconds, 30);
  EXPECT_EQ(options.blocking, 1);
  EXPECT_EQ(options.graph_launches, 4);
  EXPECT_EQ(options.report_path, "r.json");
  for (const char* alias : {"-J", "--report", "--output_json", "--output_file"}) {
    EXPECT_EQ(parse_options({alias, "x.json"}).report_path, "x.json") << alias;
  }
  EXPECT_EQ(parse_options({"--warmup-iters=3"}).warmup_iterations, 3);
  // nccl-tests' measurement flags, long and short.
  const CollectiveOptions parity = parse_options({"-m", "4", "-I", "1", "-C", "1", "-S", "1", "-M", "1", "-u", "3", "-R", "2",
                                        "-z", "3", "--min-busbw", "12.5"});
  EXPECT_EQ(parity.calls_per_iteration, 4);
  EXPECT_TRUE(parity.per_iteration_marks);
  EXPECT_TRUE(parity.report_issue_time);
  EXPECT_TRUE(parity.report_timestamps);
  EXPECT_TRUE(parity.memory_report);
  EXPECT_EQ(parity.unaligned_elements, 3);
  EXPECT_EQ(parity.registration, 2);
  EXPECT_EQ(parity.blocking, 3);
  EXPECT_DOUBLE_EQ(parity.min_busbw_gbps.value_or(0), 12.5);
  EXPECT_EQ(parity.gpu_only_flags_in_use(), (std::vector<std::string>{"-z 3", "-I 1", "-C 1", "-R 2"}));
  EXPECT_TRUE(parse_options({}).gpu_only_flags_in_use().empty());
  EXPECT_TRUE(parse_options({"--nccl-estimate"}).nccl_estimate);
  EXPECT_EQ(parse_options({"--nccl-estimate"}).gpu_only_flags_in_use(), std::vector<std::string>{"--nccl-estimate"});
  EXPECT_EQ(parse_options({}).aggregation, TimeAggregation::kMean);  // nccl-tests' and OSU's default
  EXPECT_THROW(parse_options({"-I", "1", "-G", "2"}), UsageError);
  EXPECT_THROW(parse_options({"-R", "3"}), UsageError);
  EXPECT_THROW(parse_options({"-z", "4"}), UsageError);
  EXPECT_THROW(parse_options({"--min-busbw", "-1"}), UsageError);
  EXPECT_THROW(parse_options({"-m", "0"}), UsageError);
  EXPECT_EQ(parse_options({"--cycles", "2"}).cycles, 2);
  EXPECT_EQ(parse_options({"--dtype", "int8"}).dtypes, std::vector<DType>{DType::kInt8});
}

TEST(CollectiveOptions, HelpNamesEveryLongNameAndTheUnits) {
  const std::string help = usage_text("all_reduce_perf");
  for (const char* name : {"--minbytes", "--maxbytes", "--stepbytes", "--stepfactor", "--iters", "--warmup_iters", "--check", "--op",
                           "--datatype", "--root", "--average", "--run_cycles", "--timeout", "--cudagraph", "--blocking",
                           "--output_file", "--ngpus", "--sizes", "--tag"}) {
    EXPECT_NE(help.find(name), std::string::npos) << name;
  }
  EXPECT_EQ(help.rfind("usage: [mpirun -np N] all_reduce_perf [options]\n", 0), 0u);
}

TEST(EveryParser, TwoXIsNotAFactor) {
  EXPECT_THROW(parse_options({"-f", "2x"}), UsageError);
  EXPECT_THROW(compute::parse_matmul_options({"-f", "2x"}), UsageError);
  EXPECT_THROW(compute::parse_membw_options({"-f", "2x"}), UsageError);
  EXPECT_THROW(compute::parse_envcheck_options({"-f", "2x"}), UsageError);
}

TEST(EveryParser, AdditiveStepWinsOverTheProgramsDefaultFactor) {
  // matmul_perf's default sweep multiplies by 2; -i asks for additive steps instead.
  const auto options = compute::parse_matmul_options({"-b", "256", "-e", "1K", "-i", "256"});
  EXPECT_EQ(options.square_sides(), (std::vector<std::uint64_t>{256, 512, 768, 1024}));
}

int run_collbench(std::vector<std::string> args, std::string& stderr_text) {
  args.insert(args.begin(), "collbench");
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int code = summarize::run_command_line(static_cast<int>(argv.size()), argv.data());
  ::testing::internal::GetCapturedStdout();
  stderr_text = ::testing::internal::GetCapturedStderr();
  return code;
}

TEST(Collbench, BadNumbersAndUnknownOptionsAreOneLineExitTwo) {
  const std::vector<std::vector<std::string>> bad = {
      {"scaling", "--at", "2x", "r.json"},
      {"compare", "a.json", "b.json", "--alpha", "2x"},
      {"compare", "a.json", "b.json", "--min-effect=2x"},
      {"sweep", "--repeat", "2x", "--out", "d", "--", "true"},
      {"sweep", "--timeout", "2x", "--out", "d", "--", "true"},
      {"sweep", "--np", "1,2x", "--out", "d", "--", "true"},
      {"table", "--frobnicate", "r.json"},
      {"table", "--format", "yaml", "r.json"},
      {"plot", "r.json"},  // --out is required
      {"sweep", "--out", "d", "--", "all_reduce_perf", "--output_file", "r.json"},  // the sweep writes the reports
      {"frobnicate"},
      {},
  };
  for (const auto& args : bad) {
    std::string stderr_text;
    EXPECT_EQ(run_collbench(args, stderr_text), 2) << ::testing::PrintToString(args);
    EXPECT_EQ(stderr_text.rfind("collbench: error: ", 0), 0u) << stderr_text;
    EXPECT_EQ(stderr_text.find('\n'), stderr_text.size() - 1) << stderr_text;
  }
}

TEST(Collbench, EveryCommandHasHelpAndFormat) {
  for (const char* command : {"table", "scaling", "speedup", "compare", "plot", "sweep"}) {
    std::vector<std::string> args = {"collbench", command, "--help"};
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    ::testing::internal::CaptureStdout();
    EXPECT_EQ(summarize::run_command_line(static_cast<int>(argv.size()), argv.data()), 0) << command;
    const std::string help = ::testing::internal::GetCapturedStdout();
    EXPECT_EQ(help.rfind(std::string("usage: collbench ") + command, 0), 0u) << help;
    EXPECT_NE(help.find("--format text|markdown|csv|json"), std::string::npos) << help;
  }
}

}  // namespace
}  // namespace collbench
