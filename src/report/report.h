// The report schema: the one place that says what a collbench report holds.
//
// Units live in key names (bytes, _us, _gbps). Values are typed: numbers are JSON numbers,
// flags JSON booleans; a figure that is not defined (bus bandwidth on one rank, #wrong when no
// check ran) is null, never 0. docs/report-schema.md describes the JSON form.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/stats.h"

namespace collbench::report {

// Major changes break readers; minor versions only add keys. Readers accept any 1.x.
constexpr int kSchemaMajor = 1;
constexpr int kSchemaMinor = 0;
std::string schema_version();

struct RankInfo {
  int rank = 0;
  std::string host;
  int local_rank = 0;
  std::string device;  // "cpu", or the GPU name with its index
  std::int64_t pid = 0;
};

struct Context {
  std::vector<std::string> argv;
  std::string start_time;  // ISO 8601, UTC
  std::string end_time;
  int world_size = 1;
  std::vector<std::string> hosts;  // distinct, in rank order
  std::vector<RankInfo> ranks;
  std::string backend;
  std::map<std::string, std::string> versions;  // collbench, mpi, compiler, ...
  std::map<std::string, std::string> env;       // allow-listed variables only
  nlohmann::json options = nlohmann::json::object();  // every option as the run understood it, typed
  std::map<std::string, std::string> tags;
};

struct ResultRow {
  std::uint64_t bytes = 0;            // the nccl-tests "size" of the row
  std::uint64_t requested_bytes = 0;  // the size asked for, before rounding to whole elements per rank
  std::uint64_t count = 0;            // bytes / element size
  std::string dtype;
  std::string op;                     // "none" for collectives without a reduction
  int root = -1;                      // -1 for collectives without a root
  std::string placement;              // "out" or "in"
  std::string backend;
  std::string algorithm;              // what the backend ran, when it can tell; "default" otherwise
  int cycle = 1;
  int iterations = 0;
  int warmup_iterations = 0;
  std::string time_aggregation;       // how rank times combine per iteration: max, mean, min, rank0
  TimeStats time_us;
  double algbw_gbps = 0;
  double bus_bandwidth_factor = 0;
  std::optional<double> busbw_gbps;   // null on one rank: no data crosses ranks
  int check_iterations = 0;
  std::optional<std::int64_t> wrong;  // null when no check ran (-c 0)
  std::vector<double> samples_us;     // only with --samples
};

// A combination the backend cannot run: reported, never faked.
struct SkippedCase {
  std::string dtype;
  std::string op;
  std::string placement;
  std::string reason;
};

struct Summary {
  std::optional<double> avg_busbw_gbps;  // mean over rows, as nccl-tests' footer
  std::optional<double> max_busbw_gbps;
  std::int64_t wrong_total = 0;
  int rows = 0;
  int rows_checked = 0;
};

struct Report {
  std::string schema_version_text = schema_version();
  std::string benchmark;         // "all_reduce", ...
  std::string status = "partial";  // "complete" once every row is in
  std::string error;             // why a partial run stopped, when it did
  Context context;
  std::vector<ResultRow> results;
  std::vector<SkippedCase> skipped;
  Summary summary;
};

// Recomputes the summary from the rows.
Summary summarize_rows(const std::vector<ResultRow>& rows);

}  // namespace collbench::report
