#include "workloads/comm_init/comm_init_options.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <sstream>

#include "core/command_line.h"
#include "core/error.h"
#include "core/flag_values.h"

namespace collbench {
namespace {

void declare_options(CLI::App& app, CommInitOptions& o) {
  using Text = const std::string;
  start_section(app, "Communicators");
  auto* comm_sizes = add_value(app, "--comm-sizes", "LIST", "communicator sizes in ranks, e.g. 1,2,3,8: ranks 0..k-1 of the world\n"
            "(default 1, 2, 4 ... and the world size)",
            [&o](Text& v, Text& f) {
              o.comm_sizes.clear();
              for (const auto& item : split_list(v)) o.comm_sizes.push_back(static_cast<int>(parse_integer(item, f, 1, 1 << 24)));
              if (o.comm_sizes.empty()) throw UsageError(f + " expects sizes such as 1,2,4");
            });
  record(app, {comm_sizes}, [&o](nlohmann::json& out) {
    if (!o.comm_sizes.empty()) out["comm_sizes"] = o.comm_sizes;
  });
  add_backend_flags(app, o,
                    "mpi (MPI_Comm_dup, MPI_Comm_split), gloo (a context and its full mesh) or nccl\n"
                    "(ncclCommInitRank, ncclCommSplit, ncclCommShrink, ncclCommInitRankScalable); default as the collectives'");
  start_section(app, "Measurement");
  add_loop_flags(app, o, {"repetitions"});
  add_run_flags(app, o);
  start_section(app, "Report");
  add_report_flags(app, o);
  add_help_flags(app, o);
  app.footer("Each repetition makes a communicator of ranks 0..k-1 and destroys it; rows give min/mean/max over\n"
             "its ranks and repetitions. The job's start-up (process start to the benchmark's first barrier) is a\n"
             "separate figure. Every repetition checks the communicator it made (its size, this rank's place), so\n"
             "-c adds nothing here. Exit codes: 0 ok, 1 runtime error, 2 bad usage, 4 timeout.");
}

}  // namespace

CommInitOptions parse_comm_init_options(const std::vector<std::string>& args) {
  return parse_declared(args, CommInitOptions{}, declare_options);
}

std::string comm_init_usage() {
  return declared_help("[mpirun -np N] comm_init_perf [options]", "", CommInitOptions{}, declare_options);
}

nlohmann::json comm_init_options_json(const CommInitOptions& options) { return recorded_options(options, declare_options); }

std::vector<int> communicator_sizes(const std::vector<int>& requested, int world_size) {
  if (requested.empty()) {
    std::vector<int> sizes;
    for (int size = 1; size < world_size; size *= 2) sizes.push_back(size);
    sizes.push_back(world_size);
    return sizes;
  }
  for (int size : requested) {
    if (size > world_size) {
      throw UsageError("--comm-sizes " + std::to_string(size) + " is larger than the world of " + std::to_string(world_size) +
                       " rank(s) (use 1.." + std::to_string(world_size) + ")");
    }
  }
  return requested;
}

double seconds_since_process_start(const std::string& proc_stat_line, double now_since_boot_s, long ticks_per_second) {
  // The command name (field 2) is in parentheses and may hold blanks: count fields after the last ')'.
  const auto close = proc_stat_line.rfind(')');
  if (close == std::string::npos || ticks_per_second <= 0) throw Error("unexpected /proc stat line: no command name");
  std::istringstream fields(proc_stat_line.substr(close + 1));
  std::string field;
  for (int index = 3; index <= 22; ++index) {  // fields 3 (state) .. 22 (starttime)
    if (!(fields >> field)) throw Error("unexpected /proc stat line: fewer than 22 fields");
  }
  const bool digits = !field.empty() && std::all_of(field.begin(), field.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) throw Error("unexpected /proc stat line: start time '" + field + "'");
  return now_since_boot_s - std::stod(field) / static_cast<double>(ticks_per_second);
}

std::optional<std::pair<std::string, std::string>> communicator_skip(const CommunicatorMethod& method, int size, int world_size) {
  if (!method.unsupported.empty()) return std::make_pair(std::string(method.name), method.unsupported);
  if (size == world_size && !method.whole_world_unsupported.empty()) {
    return std::make_pair(std::string(method.name) + " of " + std::to_string(size) + " rank(s)", method.whole_world_unsupported);
  }
  return std::nullopt;
}

}  // namespace collbench
