// collbench's NCCL tuner plugin, loaded as NCCL loads it (dlopen of NCCL_TUNER_PLUGIN, the
// versioned symbol, init per communicator, getCollInfo with a cost table), fed the CSV that
// `collbench tune` writes. Each case loads its own copy of the library, as a fresh process would
// (the plugin reads its file once per process).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "summarize/tuning/tune.h"
#include "summarize/tuning/tune_files.h"
#include "tuner_plugin/tuner_abi.h"

namespace collbench {
namespace {

namespace fs = std::filesystem;
using namespace tuner_abi;

constexpr int kAlgorithms = 7, kProtocols = 3;  // NCCL 2.28's table: tree ring collnet_direct collnet_chain nvls nvls_tree pat x ll ll128 simple
constexpr int kAllReduce = 4, kBroadcast = 0;
constexpr int kTree = 0, kRing = 1, kLl = 0, kSimple = 2;

// A cost table as NCCL fills it: a distinct time per entry, and -1 (not runnable here) for nvls.
struct CostTable {
  float cost[kAlgorithms][kProtocols];
  CostTable() {
    for (int a = 0; a < kAlgorithms; ++a) {
      for (int p = 0; p < kProtocols; ++p) cost[a][p] = a == 4 ? -1.0f : 10.0f + static_cast<float>(a * kProtocols + p);
    }
  }
  float** table() { return reinterpret_cast<float**>(cost); }
  bool operator==(const CostTable& other) const { return std::memcmp(cost, other.cost, sizeof cost) == 0; }
};

// The file tune writes for all_reduce at 4 ranks on 1 node: tree/ll measured at 1 KiB-64 KiB (the
// row runs to the byte before the default's 256 KiB; NCCL's own channels), ring/simple/ch4 at
// 1 MiB-16 MiB.
summarize::TuneCandidate nccl_candidate(const std::string& algorithm, const std::string& protocol, int channels) {
  summarize::TuneCandidate candidate;
  candidate.name = algorithm + "/" + protocol;
  candidate.nccl_algorithm = algorithm;
  candidate.nccl_protocol = protocol;
  candidate.nccl_channels = channels;
  return candidate;
}

std::string tune_csv() {
  summarize::TuneDecision decision;
  decision.collective = "all_reduce";
  decision.world_size = 4;
  decision.hosts = 1;
  decision.candidates = {nccl_candidate("tree", "ll", -1), nccl_candidate("ring", "simple", 4)};
  decision.ranges = {{1024, 65536, 0}, {262144, 262144, std::nullopt}, {1048576, 16777216, 1}};
  return summarize::tuning_file_text(decision, summarize::TuneLibrary::kNccl);
}

class LoadedPlugin {
 public:
  // A copy of the plugin under its own name, so that this load is the library's first in the process.
  LoadedPlugin(const std::string& name, const std::string& csv_text) {
    const fs::path dir = fs::path(::testing::TempDir()) / ("tuner_" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    library_ = (dir / "libplugin.so").string();
    fs::copy_file(COLLBENCH_TUNER_PLUGIN, library_);
    csv_ = (dir / "nccl_tuner.conf").string();
    std::ofstream(csv_) << csv_text;
    setenv("NCCL_TUNER_CONFIG_FILE", csv_.c_str(), 1);
    handle_ = dlopen(library_.c_str(), RTLD_NOW | RTLD_LOCAL);  // as NCCL opens NCCL_TUNER_PLUGIN
  }
  ~LoadedPlugin() {
    if (handle_) dlclose(handle_);
  }
  template <typename Tuner>
  const Tuner* symbol(const char* name) const {
    return handle_ ? static_cast<const Tuner*>(dlsym(handle_, name)) : nullptr;
  }
  const std::string& csv() const { return csv_; }

 private:
  std::string library_, csv_;
  void* handle_ = nullptr;
};

struct Call {
  CostTable table;
  int channels = 0;  // as NCCL hands it over: 0, its own
};

Call get(const TunerV5& tuner, void* context, int collective, std::size_t bytes) {
  Call call;
  EXPECT_EQ(tuner.get_coll_info(context, collective, bytes, 1, call.table.table(), kAlgorithms, kProtocols, 0, &call.channels), ncclSuccess);
  return call;
}

TEST(TunerPlugin, ExportsTheInstalledAndNewestAbiAndNamesItself) {
  LoadedPlugin plugin("symbols", tune_csv());
  for (const char* name : {"ncclTunerPlugin_v4", "ncclTunerPlugin_v5", "ncclTunerPlugin_v6"}) {
    ASSERT_NE(plugin.symbol<TunerV4>(name), nullptr) << name << ": " << dlerror();
  }
  EXPECT_STREQ(plugin.symbol<TunerV6>("ncclTunerPlugin_v6")->name, "collbench");
  EXPECT_EQ(plugin.symbol<TunerV6>("ncclTunerPlugin_v6")->get_chunk_size, nullptr);  // NCCL's own chunk size
}

TEST(TunerPlugin, ChangesNothingOutsideTheRowsAndSetsTheRowsChoiceInside) {
  LoadedPlugin plugin("rows", tune_csv());
  const auto* tuner = plugin.symbol<TunerV5>("ncclTunerPlugin_v5");
  ASSERT_NE(tuner, nullptr);
  void* context = nullptr;
  ::testing::internal::CaptureStderr();
  ASSERT_EQ(tuner->init(&context, 42, 4, 1, nullptr, nullptr, nullptr), ncclSuccess);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");  // a good file: nothing said
  ASSERT_NE(context, nullptr);
  const CostTable untouched;
  // Outside every row: below, between and above the ranges, another collective.
  for (std::size_t bytes : {std::size_t{8}, std::size_t{1023}, std::size_t{262144}, std::size_t{1048575}, std::size_t{16777217}}) {
    const Call call = get(*tuner, context, kAllReduce, bytes);
    EXPECT_TRUE(call.table == untouched) << bytes;
    EXPECT_EQ(call.channels, 0) << bytes;
  }
  const Call broadcast = get(*tuner, context, kBroadcast, 4096);
  EXPECT_TRUE(broadcast.table == untouched);
  EXPECT_EQ(broadcast.channels, 0);
  // Inside: the row's algorithm and protocol become the cheapest (0), nothing else changes; tree/ll
  // keeps NCCL's channel count (-1 in the file), ring/simple/ch4 sets exactly 4.
  for (std::size_t bytes : {std::size_t{1024}, std::size_t{4096}, std::size_t{262143}}) {
    Call call = get(*tuner, context, kAllReduce, bytes);
    EXPECT_EQ(call.table.cost[kTree][kLl], 0.0f) << bytes;
    call.table.cost[kTree][kLl] = untouched.cost[kTree][kLl];
    EXPECT_TRUE(call.table == untouched) << bytes;
    EXPECT_EQ(call.channels, 0) << bytes;
  }
  for (std::size_t bytes : {std::size_t{1048576}, std::size_t{16777216}}) {
    Call call = get(*tuner, context, kAllReduce, bytes);
    EXPECT_EQ(call.table.cost[kRing][kSimple], 0.0f) << bytes;
    call.table.cost[kRing][kSimple] = untouched.cost[kRing][kSimple];
    EXPECT_TRUE(call.table == untouched) << bytes;
    EXPECT_EQ(call.channels, 4) << bytes;
  }
  EXPECT_EQ(tuner->finalize(context), ncclSuccess);
  // Another communicator of the process, of 3 ranks (a split) or on 2 nodes: the rows are for 4 on 1.
  for (const auto& [ranks, nodes] : {std::pair<std::size_t, std::size_t>{3, 1}, {4, 2}}) {
    ASSERT_EQ(tuner->init(&context, 43, ranks, nodes, nullptr, nullptr, nullptr), ncclSuccess);
    const Call call = get(*tuner, context, kAllReduce, 4096);
    EXPECT_TRUE(call.table == untouched) << ranks << " ranks on " << nodes;
    EXPECT_EQ(call.channels, 0);
    tuner->finalize(context);
  }
}

TEST(TunerPlugin, APairNcclCannotRunHereKeepsNcclsChoice) {
  LoadedPlugin plugin("unusable", "allreduce,0,1000,nvls,simple,2,-1,-1\n");
  const auto* tuner = plugin.symbol<TunerV5>("ncclTunerPlugin_v5");
  ASSERT_NE(tuner, nullptr);
  void* context = nullptr;
  ASSERT_EQ(tuner->init(&context, 1, 4, 1, nullptr, nullptr, nullptr), ncclSuccess);
  const Call call = get(*tuner, context, kAllReduce, 512);  // nvls is -1 in the table
  EXPECT_TRUE(call.table == CostTable());
  EXPECT_EQ(call.channels, 0);
  tuner->finalize(context);
}

TEST(TunerPlugin, TheV4AbiAppliesTheSameRows) {
  LoadedPlugin plugin("v4", tune_csv());
  const auto* tuner = plugin.symbol<TunerV4>("ncclTunerPlugin_v4");
  ASSERT_NE(tuner, nullptr);
  void* context = nullptr;
  ASSERT_EQ(tuner->init(4, 1, nullptr, &context), ncclSuccess);
  Call call;
  ASSERT_EQ(tuner->get_coll_info(context, kAllReduce, 2097152, 1, call.table.table(), kAlgorithms, kProtocols, 0, &call.channels), ncclSuccess);
  EXPECT_EQ(call.table.cost[kRing][kSimple], 0.0f);
  EXPECT_EQ(call.channels, 4);
  tuner->finalize(context);
}

// A bad file: one line on stderr, escaped, said once however many communicators start, and every
// call left as NCCL gave it.
TEST(TunerPlugin, ABadFileIsSaidOnceAndChangesNothing) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"overlapping", "allreduce,0,4096,tree,ll,-1,-1,-1\nallreduce,1024,8192,ring,simple,-1,-1,-1\n"},
      {"backwards", "allreduce,4096,8,tree,ll,-1,-1,-1\n"},
      {"truncated", "allreduce,0,4096,tr"},
      {"escapes", "all\x1b]0;owned\x07reduce,0,4096,tree,ll,-1,-1,-1\n"},
      {"long_line", std::string(100000, '1') + "\n"},
  };
  for (const auto& [name, text] : bad) {
    LoadedPlugin plugin(name, text);
    const auto* tuner = plugin.symbol<TunerV5>("ncclTunerPlugin_v5");
    ASSERT_NE(tuner, nullptr);
    ::testing::internal::CaptureStderr();
    void* first = nullptr;
    void* second = nullptr;
    ASSERT_EQ(tuner->init(&first, 1, 4, 1, nullptr, nullptr, nullptr), ncclSuccess);
    ASSERT_EQ(tuner->init(&second, 2, 4, 1, nullptr, nullptr, nullptr), ncclSuccess);
    const std::string said = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << name << ": " << said;
    EXPECT_EQ(said.rfind("collbench tuner plugin: ", 0), 0u) << name << ": " << said;
    EXPECT_NE(said.find(plugin.csv()), std::string::npos) << name << ": " << said;
    EXPECT_NE(said.find("leaving NCCL's choices alone"), std::string::npos) << said;
    EXPECT_EQ(said.find('\x1b'), std::string::npos) << name;
    for (void* context : {first, second}) {
      const Call call = get(*tuner, context, kAllReduce, 2048);
      EXPECT_TRUE(call.table == CostTable()) << name;
      EXPECT_EQ(call.channels, 0) << name;
      tuner->finalize(context);
    }
  }
}

TEST(TunerPlugin, AMissingOrEndlessFileChangesNothing) {
  for (const char* path : {"/nonexistent/nccl_tuner.conf", "/dev/zero"}) {
    LoadedPlugin plugin(std::string("missing") + (path[1] == 'd' ? "_zero" : ""), "");
    setenv("NCCL_TUNER_CONFIG_FILE", path, 1);
    const auto* tuner = plugin.symbol<TunerV6>("ncclTunerPlugin_v6");
    ASSERT_NE(tuner, nullptr);
    ::testing::internal::CaptureStderr();
    void* context = nullptr;
    ASSERT_EQ(tuner->init(&context, 1, 4, 1, nullptr, nullptr, nullptr), ncclSuccess);
    const std::string said = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(said.find(path), std::string::npos) << said;
    Call call;
    ASSERT_EQ(tuner->get_coll_info(context, kAllReduce, 2048, 1, call.table.table(), kAlgorithms, kProtocols, 0, &call.channels), ncclSuccess);
    EXPECT_TRUE(call.table == CostTable());
    tuner->finalize(context);
  }
}

}  // namespace
}  // namespace collbench
