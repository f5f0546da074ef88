// Checks a matmul/membw/envcheck report against the contract the tests rely on.
// usage: check_compute_report REPORT --benchmark NAME --world-size N [--wrong zero|positive] [--slow-ranks LIST|none]
#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace {

int failures = 0;

void expect(bool condition, const std::string& what) {
  if (!condition) {
    std::fprintf(stderr, "check_compute_report: %s\n", what.c_str());
    ++failures;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  std::string benchmark, wrong, slow;
  int world_size = 1;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--benchmark") benchmark = value;
    else if (flag == "--world-size") world_size = std::stoi(value);
    else if (flag == "--wrong") wrong = value;
    else if (flag == "--slow-ranks") slow = value;
    else return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "check_compute_report: cannot open %s\n", argv[1]);
    return 1;
  }
  nlohmann::json report;
  try {
    report = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "check_compute_report: not JSON: %s\n", e.what());
    return 1;
  }
  for (const char* key : {"schema_version", "benchmark", "status", "context", "results", "summary"}) {
    expect(report.contains(key), std::string("missing top-level key ") + key);
  }
  if (failures) return 1;
  expect(report["schema_version"].get<std::string>().rfind("2.", 0) == 0, "schema_version is " + report["schema_version"].dump());
  const char* row_kind = benchmark == "envcheck" ? "probe" : benchmark == "matmul" ? "gemm" : "stream";
  for (const auto& row : report["results"]) expect(row.value("kind", "") == row_kind, std::string("a row's kind is not ") + row_kind);
  expect(report["benchmark"] == benchmark, "benchmark is " + report["benchmark"].dump());
  expect(report["status"] == "complete", "status is " + report["status"].dump());
  expect(report["context"]["world_size"] == world_size, "context.world_size is " + report["context"]["world_size"].dump());
  expect(report["context"]["ranks"].size() == static_cast<std::size_t>(world_size), "context.ranks has the wrong length");
  const auto& results = report["results"];
  expect(!results.empty(), "no results");
  if (benchmark == "envcheck") {
    expect(report.contains("slow_ranks") && report["slow_ranks"].is_array(), "slow_ranks missing or not a list");
    expect(results.size() == static_cast<std::size_t>(world_size), "envcheck must report every rank");
    for (std::size_t rank = 0; rank < results.size(); ++rank) {
      const auto& entry = results[rank];
      expect(entry["rank"] == rank, "results out of rank order");
      for (const char* key : {"host", "cpu_model", "online_cores", "memory_bytes", "numa_node", "mpi_version", "gpu", "openblas_corename"}) {
        expect(entry["inventory"].contains(key), "rank " + std::to_string(rank) + " inventory lacks " + key);
      }
      expect(entry["probes"]["gemm_gflops"].get<double>() > 0, "rank " + std::to_string(rank) + " has no GEMM probe figure");
      expect(entry["probes"]["triad_gbps"].get<double>() > 0, "rank " + std::to_string(rank) + " has no triad probe figure");
    }
    expect(report["summary"]["weights"].size() == static_cast<std::size_t>(world_size), "weights must cover every rank");
    if (!slow.empty()) {
      std::string actual;
      for (const auto& rank : report["slow_ranks"]) actual += (actual.empty() ? "" : ",") + std::to_string(rank.get<int>());
      if (actual.empty()) actual = "none";
      expect(actual == slow, "slow_ranks is " + actual + ", expected " + slow);
    }
  } else {
    const char* unit = benchmark == "matmul" ? "tflops" : "gbps";
    long long wrong_total = 0;
    for (const auto& row : results) {
      expect(row["per_rank"].size() == static_cast<std::size_t>(world_size), "a row lacks some rank's figures");
      expect(row.contains("spread") && row["spread"].contains("ratio"), "a row lacks the spread");
      expect(row[unit].get<double>() > 0, std::string("a row has no ") + unit);
      for (const char* key : {"min", "p50", "mean", "p95", "p99", "max", "stdev"}) expect(row["time_us"].contains(key), "time_us lacks a statistic");
      if (row["wrong"].is_number()) wrong_total += row["wrong"].get<long long>();
    }
    expect(report["platform"].size() == static_cast<std::size_t>(world_size), "platform must cover every rank");
    if (wrong == "zero") expect(wrong_total == 0, "wrong results in a correct run");
    if (wrong == "positive") expect(wrong_total > 0, "the corrupted output was not caught");
  }
  return failures ? 1 : 0;
}
