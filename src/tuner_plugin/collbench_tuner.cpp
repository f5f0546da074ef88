// collbench's NCCL tuner plugin: applies the CSV `collbench tune` writes (NCCL_TUNER_CONFIG_FILE,
// the rows of NVIDIA's example tuner) and nothing else.
//
// - A call no row matches is left as NCCL gave it: the cost table untouched, the channel count 0
//   (NCCL's own). NVIDIA's example plugin instead starts every call with one channel.
// - A row sets what the measurement chose: its algorithm and protocol (that entry of the cost
//   table to 0, so NCCL takes it; left alone where NCCL marks the pair unusable, -1), and a channel
//   count only where the row gives one (channels > 0; -1 leaves NCCL's own). tune measures such a
//   candidate through this plugin, so the count the file gives is the count that was measured.
// - A bad file (missing, malformed, overlapping rows, endless) is said once per process on stderr,
//   and the plugin then changes nothing. Nothing is ever thrown into NCCL: every entry point
//   catches, and returns ncclSuccess so that NCCL's own tuning goes on.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/input_file.h"
#include "core/nccl_tuner_rows.h"
#include "core/printable.h"
#include "tuner_plugin/tuner_abi.h"

namespace collbench::tuner_plugin {
namespace {

using namespace collbench::tuner_abi;

constexpr const char* kPluginName = "collbench";

struct Context {
  std::vector<NcclTunerRow> rows;  // empty: change nothing
  int ranks = 0, nodes = 0;
};

// What the file says, read once per process: NCCL calls init for every communicator, and a bad
// file is said once, not once per communicator. Process-wide by nature (one NCCL_TUNER_CONFIG_FILE
// a process), and written once under call_once.
struct LoadedRows {
  std::vector<NcclTunerRow> rows;
  std::string problem;  // non-empty: why the plugin changes nothing
};

const LoadedRows& loaded_rows() {
  static std::once_flag once;
  static LoadedRows loaded;
  std::call_once(once, [] {
    const char* path = std::getenv("NCCL_TUNER_CONFIG_FILE");
    if (!path || !*path) {
      loaded.problem = "NCCL_TUNER_CONFIG_FILE is not set";
      return;
    }
    try {
      loaded.rows = parse_nccl_tuner_rows(read_input_file(path, {"NCCL tuner file", 1 << 20, 4096}), path);
    } catch (const std::exception& e) {
      loaded.problem = e.what();
    } catch (...) {
      loaded.problem = std::string(path) + ": unreadable";
    }
    if (!loaded.problem.empty()) {
      // One line, escaped: the path and the file's text are the user's, the terminal is theirs too.
      std::fprintf(stderr, "collbench tuner plugin: %s; leaving NCCL's choices alone\n", printable(loaded.problem).c_str());
      std::fflush(stderr);
    }
  });
  return loaded;
}

ncclResult_t make_context(void** context, std::size_t ranks, std::size_t nodes) {
  try {
    auto made = std::make_unique<Context>();
    made->rows = loaded_rows().rows;
    made->ranks = static_cast<int>(ranks);
    made->nodes = static_cast<int>(nodes);
    *context = made.release();
  } catch (...) {
    *context = nullptr;  // no memory: a null context changes nothing
  }
  return ncclSuccess;
}

ncclResult_t init_v4(std::size_t ranks, std::size_t nodes, DebugLogger, void** context) { return make_context(context, ranks, nodes); }

ncclResult_t init_v5(void** context, std::uint64_t, std::size_t ranks, std::size_t nodes, DebugLogger, NvlDomainInfo*, TunerConstants*) {
  return make_context(context, ranks, nodes);
}

ncclResult_t get_coll_info(void* context, CollectiveType collective, std::size_t bytes, int pipelined_operations, float** cost_table,
                           int algorithms, int protocols, int registered_buffers, int* channels) {
  const auto* state = static_cast<const Context*>(context);
  if (!state || !cost_table) return ncclSuccess;
  const NcclTunerRow* row =
      nccl_tuner_row_for(state->rows, collective, bytes, state->nodes, state->ranks, pipelined_operations, registered_buffers);
  if (!row || row->algorithm >= algorithms || row->protocol >= protocols) return ncclSuccess;
  // float[algorithms][protocols] behind NCCL's float**.
  float* entry = reinterpret_cast<float*>(cost_table) + row->algorithm * protocols + row->protocol;
  if (*entry < 0) return ncclSuccess;  // NCCL will not run this pair here: its own choice stands
  *entry = 0.0f;
  if (row->channels > 0 && channels) *channels = row->channels;
  return ncclSuccess;
}

ncclResult_t finalize(void* context) {
  delete static_cast<Context*>(context);
  return ncclSuccess;
}


}  // namespace
}  // namespace collbench::tuner_plugin

// The versioned symbols NCCL looks up (the newest it knows first): 2.30's v6, 2.28-2.29's v5,
// 2.24-2.27's v4. Only these leave the library (the build hides the rest).
extern "C" {
extern __attribute__((visibility("default"))) const collbench::tuner_abi::TunerV6 ncclTunerPlugin_v6 = {
    collbench::tuner_plugin::kPluginName, collbench::tuner_plugin::init_v5, collbench::tuner_plugin::get_coll_info,
    collbench::tuner_plugin::finalize, nullptr};
extern __attribute__((visibility("default"))) const collbench::tuner_abi::TunerV5 ncclTunerPlugin_v5 = {
    collbench::tuner_plugin::kPluginName, collbench::tuner_plugin::init_v5, collbench::tuner_plugin::get_coll_info,
    collbench::tuner_plugin::finalize};
extern __attribute__((visibility("default"))) const collbench::tuner_abi::TunerV4 ncclTunerPlugin_v4 = {
    collbench::tuner_plugin::kPluginName, collbench::tuner_plugin::init_v4, collbench::tuner_plugin::get_coll_info,
    collbench::tuner_plugin::finalize};
}
