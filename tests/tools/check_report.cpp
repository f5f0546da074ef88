// Checks a collective report against the contract users and CI rely on (docs/report-schema.md).
// Used by the MPI integration tests; prints every violation and exits 1 when there is any.
//
// usage: check_report REPORT --benchmark NAME --world-size N [--wrong zero|positive|per-row:K]
//                     [--status complete|partial] [--dtypes a,b] [--ops a,b] [--placements out,in]
//                     [--roots every|N] [--samples] [--groups 0,2/1,3]
// --groups: the run's concurrent groups (issue 62), each group's ranks, groups separated by '/':
// every row carries them with their own figures (busbw from the group's size), the headline is
// the slowest group's, and the aggregate adds them up.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report_json.h"

namespace {

using nlohmann::json;

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) out.push_back(item);
  return out;
}

// Written out here, not taken from the library, so a wrong factor there cannot agree with itself.
double expected_factor(const std::string& benchmark, int n) {
  if (benchmark == "all_reduce") return 2.0 * (n - 1) / n;
  if (benchmark == "broadcast" || benchmark == "reduce" || benchmark == "sendrecv") return 1.0;
  return static_cast<double>(n - 1) / n;
}

bool near(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); }

struct Checker {
  std::vector<std::string> problems;
  void expect(bool ok, const std::string& what) {
    if (!ok) problems.push_back(what);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: check_report REPORT --benchmark NAME --world-size N [...]\n");
    return 2;
  }
  const std::string path = argv[1];
  std::string benchmark, wrong = "zero", status = "complete", roots;
  int world_size = -1;
  std::set<std::string> dtypes, ops, placements{"out", "in"};
  bool samples = false;
  std::vector<std::vector<int>> groups;
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (flag == "--benchmark") benchmark = value();
    else if (flag == "--world-size") world_size = std::stoi(value());
    else if (flag == "--wrong") wrong = value();
    else if (flag == "--status") status = value();
    else if (flag == "--dtypes") for (auto& d : split(value())) dtypes.insert(d);
    else if (flag == "--ops") for (auto& o : split(value())) ops.insert(o);
    else if (flag == "--placements") { placements.clear(); for (auto& p : split(value())) placements.insert(p); }
    else if (flag == "--roots") roots = value();
    else if (flag == "--samples") samples = true;
    else if (flag == "--groups") {
      std::stringstream stream(value());
      for (std::string one; std::getline(stream, one, '/');) {
        groups.emplace_back();
        for (const auto& rank : split(one)) groups.back().push_back(std::stoi(rank));
      }
    }
    else { std::fprintf(stderr, "check_report: unknown flag %s\n", flag.c_str()); return 2; }
  }

  json document;
  try {
    std::ifstream in(path);
    document = json::parse(in);
    collbench::report::report_from_json(document);  // the library's own validation must accept it
  } catch (const std::exception& e) {
    std::fprintf(stderr, "check_report: %s: %s\n", path.c_str(), e.what());
    return 1;
  }
  Checker check;
  check.expect(document["schema_version"].get<std::string>().rfind("2.", 0) == 0, "schema_version is 2.x");
  check.expect(document["benchmark"] == benchmark, "benchmark is " + benchmark);
  check.expect(document["status"] == status, "status is " + status);
  const json& context = document["context"];
  for (const char* key : {"argv", "start_time", "end_time", "world_size", "hosts", "ranks", "backend", "versions", "env",
                          "options", "tags"}) {
    check.expect(context.contains(key), std::string("context.") + key + " present");
  }
  check.expect(context["world_size"] == world_size, "context.world_size is " + std::to_string(world_size));
  check.expect(context["ranks"].size() == static_cast<std::size_t>(world_size), "one context.ranks entry per rank");
  for (std::size_t r = 0; r < context["ranks"].size(); ++r) {
    const json& rank = context["ranks"][r];
    check.expect(rank["rank"] == static_cast<int>(r), "ranks in order");
    for (const char* key : {"host", "local_rank", "device"}) check.expect(rank.contains(key), std::string("ranks[].") + key);
  }
  // Under MPI its library; launched without MPI, the Gloo control plane and its store, never both.
  const bool mpi = context["versions"].contains("mpi"), store = context["versions"].contains("control_plane");
  check.expect(context["versions"].contains("collbench") && mpi != store, "versions has collbench and one of mpi, control_plane");
  for (const auto& [name, value] : context["env"].items()) {
    check.expect(name.rfind("NCCL_", 0) == 0 || name.rfind("OMPI_", 0) == 0 || name.rfind("UCX_", 0) == 0 ||
                     name.rfind("CUDA_", 0) == 0 || name.rfind("OPENBLAS_", 0) == 0 || name.rfind("OMP_", 0) == 0 ||
                     name.rfind("GLOO_", 0) == 0 || name.rfind("SLURM_", 0) == 0 || name.rfind("MPICH_", 0) == 0 ||
                     name.rfind("I_MPI_", 0) == 0 || name.rfind("FI_", 0) == 0 || name == "COLLBENCH_SEED" || name == "WORLD_SIZE" ||
                     name == "LOCAL_WORLD_SIZE" || name == "MASTER_ADDR" || name == "MASTER_PORT",
                 "env holds allow-listed variables only, not " + name);
    check.expect(value.is_string(), "env values are strings");
  }
  if (status == "complete") check.expect(context["end_time"].is_string(), "end_time set on a complete run");
  // The machine-state probe around the rows (docs/report-schema.md): on rank 0's host, between two
  // distinct CPUs (none on a one-CPU host), each value a positive ns or null where it could not be
  // made. A run stopped before its first row (a partial report) may not have it yet.
  if (status == "complete") check.expect(context.contains("state_probe") && context["state_probe"].is_object(), "context.state_probe present");
  if (context.contains("state_probe") && context["state_probe"].is_object()) {
    const json& probe = context["state_probe"];
    check.expect(probe.value("host", json()) == context["hosts"][0], "state_probe.host is rank 0's host");
    const json cpus = probe.value("cpus", json());
    check.expect(cpus.is_array() && (cpus.empty() || (cpus.size() == 2 && cpus[0].is_number_integer() && cpus[1].is_number_integer() &&
                                                       cpus[0] != cpus[1])),
                 "state_probe.cpus is two distinct CPUs, or none");
    for (const char* key : {"before_ns", "after_ns"}) {
      check.expect(probe.contains(key) && (probe[key].is_null() || (probe[key].is_number() && probe[key].get<double>() > 0)),
                   std::string("state_probe.") + key + " is a positive number of ns or null");
    }
    // 2.6: one probe between each two cycles, in order; a complete run made them all.
    if (probe.contains("between_cycles_ns")) {
      const json& between = probe["between_cycles_ns"];
      check.expect(between.is_array() && std::all_of(between.begin(), between.end(), [](const json& value) {
                     return value.is_null() || (value.is_number() && value.get<double>() > 0);
                   }),
                   "state_probe.between_cycles_ns is an array of positive numbers of ns or nulls");
      const json cycles = context.value("options", json::object()).value("cycles", json());
      check.expect(!cycles.is_number_integer() || cycles.get<std::int64_t>() <= 64, "state_probe.between_cycles_ns only with 64 cycles or fewer");
      if (status == "complete" && cycles.is_number_integer() && between.is_array()) {
        check.expect(between.size() + 1 == cycles.get<std::size_t>(), "state_probe.between_cycles_ns has one probe between each two of the -N cycles");
      }
    }
  }

  const json& results = document["results"];
  check.expect(results.is_array() && !results.empty(), "results has rows");
  double factor = expected_factor(benchmark, world_size);
  if (!groups.empty()) {
    const json& options = document["context"]["options"];
    check.expect(options.contains("split") || options.contains("groups"), "context.options records the groups' rule");
  }
  std::set<std::string> seen_dtypes, seen_ops, seen_placements;
  std::set<int> seen_roots;
  std::int64_t wrong_total = 0;
  for (const json& row : results) {
    const std::string where = "row " + std::to_string(row["bytes"].get<std::uint64_t>()) + " B " +
                              row["dtype"].get<std::string>() + " " + row["placement"].get<std::string>();
    // alltoallv's rows are their own kind: keyed by the traffic pattern too.
    const std::string kind = benchmark == "alltoallv" ? "alltoallv" : "collective";
    check.expect(row.value("kind", "") == kind, where + ": kind is " + kind);
    if (kind == "alltoallv") {
      // nccl-tests' alltoallv size: the busiest rank's bytes, sent or received.
      const json& traffic = row.value("traffic", json::object());
      check.expect(traffic.is_object() && traffic.contains("max_send_bytes") && traffic.contains("max_receive_bytes") &&
                       row["bytes"].get<std::uint64_t>() == std::max(traffic["max_send_bytes"].get<std::uint64_t>(),
                                                                    traffic["max_receive_bytes"].get<std::uint64_t>()),
                   where + ": bytes is the busiest rank's (traffic.max_send_bytes or max_receive_bytes)");
    }
    for (const char* key : {"bytes", "count", "dtype", "op", "root", "placement", "backend", "algorithm", "iterations",
                            "time_us", "algbw_gbps", "busbw_gbps", "wrong"}) {
      check.expect(row.contains(key), where + ": has " + key);
    }
    if (!groups.empty()) {
      const json& each = row.value("groups", json::array());
      check.expect(each.size() == groups.size(), where + ": one entry per group");
      double slowest = 0, busbw_sum = 0;
      std::uint64_t total = 0, slowest_bytes = 0;
      std::size_t slowest_size = 0;
      for (std::size_t g = 0; g < std::min(each.size(), groups.size()); ++g) {
        const json& group = each[g];
        const std::string at = where + " group " + std::to_string(g);
        check.expect(group["ranks"].get<std::vector<int>>() == groups[g], at + ": its ranks");
        check.expect(group["hosts"].size() == groups[g].size(), at + ": a host per rank");
        const double group_mean = group["time_us"]["mean"], group_algbw = group["algbw_gbps"], group_busbw = group["busbw_gbps"];
        const auto group_bytes = group["bytes"].get<std::uint64_t>();
        check.expect(group_mean > 0 && group_bytes > 0, at + ": positive time and bytes");
        check.expect(near(group_algbw, group_bytes / (group_mean * 1e3)), at + ": algbw = bytes / mean time");
        const int n = static_cast<int>(groups[g].size());
        check.expect(near(group_busbw, n > 1 ? group_algbw * expected_factor(benchmark, n) : 0.0), at + ": busbw = algbw * the factor at the group's size");
        if (group.contains("contention")) {  // --alone
          check.expect(near(group["contention"].get<double>(), group_mean / group["alone_time_us"]["mean"].get<double>()),
                       at + ": contention = time beside the others / time alone");
        }
        total += group_bytes;
        busbw_sum += group_busbw;
        if (group_mean > slowest) {
          slowest = group_mean;
          slowest_bytes = group_bytes;
          slowest_size = groups[g].size();
        }
      }
      const json& aggregate = row.value("aggregate", json::object());
      check.expect(aggregate.value("bytes_total", std::uint64_t{0}) == total, where + ": aggregate.bytes_total adds up the groups'");
      check.expect(near(aggregate.value("time_us", 0.0), slowest), where + ": aggregate.time_us is the slowest group's");
      check.expect(near(aggregate.value("algbw_gbps", 0.0), total / (slowest * 1e3)), where + ": aggregate.algbw_gbps = total bytes / slowest time");
      check.expect(near(aggregate.value("busbw_sum_gbps", 0.0), busbw_sum), where + ": aggregate.busbw_sum_gbps adds up the groups'");
      check.expect(near(row["time_us"]["mean"].get<double>(), slowest) && row["bytes"] == slowest_bytes, where + ": the headline is the slowest group's");
      factor = expected_factor(benchmark, static_cast<int>(slowest_size));
    }
    const double mean = row["time_us"]["mean"];
    const double algbw = row["algbw_gbps"];
    const auto bytes = row["bytes"].get<std::uint64_t>();
    check.expect(bytes > 0 && row["count"].get<std::uint64_t>() > 0, where + ": never an empty row");
    check.expect(mean > 0, where + ": positive mean time");
    check.expect(std::fabs(algbw - bytes / (mean * 1e3)) <= 1e-9 * std::max(1.0, algbw), where + ": algbw = bytes / mean time");
    if (world_size == 1) {
      check.expect(row["busbw_gbps"].is_null(), where + ": busbw is null on one rank");
    } else if (row["busbw_gbps"].is_null()) {
      check.expect(!groups.empty(), where + ": busbw is a number");
    } else {
      const double busbw = row["busbw_gbps"];
      check.expect(std::fabs(busbw - algbw * factor) <= 1e-9 * std::max(1.0, busbw), where + ": busbw = algbw * nccl-tests factor");
    }
    for (const char* key : {"min", "p50", "p95", "p99", "max"}) {
      check.expect(row["time_us"][key].get<double>() >= row["time_us"]["min"].get<double>() &&
                       row["time_us"][key].get<double>() <= row["time_us"]["max"].get<double>(),
                   where + ": time_us." + key + " within [min, max]");
    }
    check.expect(row["wrong"].is_number_integer(), where + ": wrong is a number (checks ran)");
    if (row["wrong"].is_number_integer()) wrong_total += row["wrong"].get<std::int64_t>();
    if (wrong == "zero") check.expect(row["wrong"] == 0, where + ": wrong == 0");
    // per-row:K: exactly K wrong elements in every row (one corrupted element per check iteration).
    if (wrong.rfind("per-row:", 0) == 0) {
      check.expect(row["wrong"] == std::stoll(wrong.substr(8)), where + ": wrong == " + wrong.substr(8));
    }
    if (samples) check.expect(row.contains("samples_us") && row["samples_us"].size() == row["iterations"].get<std::size_t>(), where + ": one sample per iteration");
    seen_dtypes.insert(row["dtype"]);
    seen_ops.insert(row["op"]);
    seen_placements.insert(row["placement"]);
    seen_roots.insert(row["root"].get<int>());
  }
  if (wrong == "positive") check.expect(wrong_total > 0, "the corrupted result was counted as wrong");
  check.expect(document["summary"]["wrong_total"] == wrong_total, "summary.wrong_total adds up the rows");
  if (!dtypes.empty()) check.expect(seen_dtypes == dtypes, "every requested dtype has rows");
  if (!ops.empty()) check.expect(seen_ops == ops, "every requested op has rows");
  check.expect(seen_placements == placements, "every requested placement has rows");
  if (roots == "every") {
    std::size_t smallest = static_cast<std::size_t>(world_size);
    for (const auto& group : groups) smallest = std::min(smallest, group.size());
    check.expect(seen_roots.size() == smallest, "a row for every root");
  } else if (!roots.empty()) {
    check.expect(seen_roots == std::set<int>{std::stoi(roots)}, "rows for root " + roots);
  }
  for (const auto& problem : check.problems) std::fprintf(stderr, "check_report: %s: expected %s\n", path.c_str(), problem.c_str());
  if (check.problems.empty()) std::printf("check_report: %s: %zu rows meet the contract\n", path.c_str(), results.size());
  return check.problems.empty() ? 0 : 1;
}
