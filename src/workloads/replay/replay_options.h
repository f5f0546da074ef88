// replay_perf's options (issue 61): the trace and its format, the gaps between calls, the backend
// and the shared loop, run and report flags. Pure: no MPI, no backend; unit-tested as parsed.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/flag_groups.h"
#include "workloads/replay/report/trace_readers.h"
#include "workloads/replay/report/trace_scale.h"

namespace collbench::replay {

// --gaps: none replays the calls back to back (a benchmark of the job's communication); trace
// keeps the idle time the job had before each call, so overlap and idle time are the job's.
enum class Gaps { kNone, kTrace };
std::string to_string(Gaps gaps);

struct ReplayOptions : RunFlags, BackendFlags {
  std::vector<std::string> trace_paths;          // --trace, repeatable: one file per rank or one for all
  TraceFormat format = TraceFormat::kAuto;       // --trace-format
  Gaps gaps = Gaps::kNone;
  TraceScale scale;  // --scale, --scale-counts: the trace as a job of another number of ranks (trace_scale.h)
};

// Parses argv (without argv[0]); throws UsageError with one sentence on any bad flag.
ReplayOptions parse_options(const std::vector<std::string>& args);
std::string usage_text();
// context.options: every flag as the run understood it, as its declaration records it.
nlohmann::json options_as_json(const ReplayOptions& options);

}  // namespace collbench::replay
