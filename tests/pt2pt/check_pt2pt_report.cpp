// Checks a pt2pt_perf report: the envelope, every row's figures against its own time (closed
// forms: bytes x messages / time), the checks, and for --matrix the matrices, the hosts and the
// verdict recomputed from the matrix (every flagged link above factor x its class's median, every
// other one not); for a fan (--mode fan-in|fan-out) its root and peers, the bytes in closed form
// (K x window x size x iterations), each peer's share from its own time and their spread.
// usage: check_pt2pt_report REPORT --world-size N --mode M --rows N --wrong zero|positive
//                           [--matrix] [--slow none|some] [--expect-slow A-B,C-D,...]
//                           [--expect-slowest A-B,C-D,...] [--hosts N] [--root R] [--senders K]
//   --expect-slow: at every size exactly these ordered links are flagged; --hosts: distinct hosts;
//   --expect-slowest: at every size these ordered links are the slowest (as many as listed), and
//                     every flagged link is one of them: the slow host found whatever the verdict's
//                     margin over the median (half the links of a 4-host star touch the slow host,
//                     so one fast link slowed by load moves the median up to the slow ones);
//   --root, --senders: a fan's root (default 0) and peer count (default every other rank).
// Prints one line per failure; exit 1 on any.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  std::printf("FAIL: %s\n", what.c_str());
  ++failures;
}

bool close(double a, double b) { return std::fabs(a - b) <= 1e-6 * std::fabs(b) + 1e-12; }

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t m = values.size() / 2;
  return values.size() % 2 ? values[m] : (values[m - 1] + values[m]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: check_pt2pt_report REPORT --world-size N --mode M --rows N --wrong zero|positive [--matrix] [--slow none|some]\n");
    return 2;
  }
  int world_size = -1, rows = -1;
  std::string mode = "latency", wrong = "zero", slow;
  bool matrix = false;
  std::string expect_slow, expect_slowest;
  int distinct_hosts = -1;
  int fan_root = 0, fan_peers = -1;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--world-size" && i + 1 < argc) world_size = std::stoi(argv[++i]);
    else if (arg == "--rows" && i + 1 < argc) rows = std::stoi(argv[++i]);
    else if (arg == "--mode" && i + 1 < argc) mode = argv[++i];
    else if (arg == "--wrong" && i + 1 < argc) wrong = argv[++i];
    else if (arg == "--slow" && i + 1 < argc) slow = argv[++i];
    else if (arg == "--matrix") matrix = true;
    else if (arg == "--expect-slow" && i + 1 < argc) expect_slow = argv[++i];
    else if (arg == "--expect-slowest" && i + 1 < argc) expect_slowest = argv[++i];
    else if (arg == "--hosts" && i + 1 < argc) distinct_hosts = std::stoi(argv[++i]);
    else if (arg == "--root" && i + 1 < argc) fan_root = std::stoi(argv[++i]);
    else if (arg == "--senders" && i + 1 < argc) fan_peers = std::stoi(argv[++i]);
    else {
      std::fprintf(stderr, "check_pt2pt_report: unknown argument %s\n", arg.c_str());
      return 2;
    }
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::printf("FAIL: cannot open %s\n", argv[1]);
    return 1;
  }
  nlohmann::json report;
  try {
    report = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    std::printf("FAIL: %s is not JSON: %s\n", argv[1], e.what());
    return 1;
  }
  expect(report.value("benchmark", "") == "pt2pt", "benchmark is pt2pt");
  expect(report.value("status", "") == "complete", "status is complete");
  expect(report["context"]["world_size"] == world_size, "world_size is " + std::to_string(world_size));
  const auto& results = report["results"];
  expect(results.is_array() && static_cast<int>(results.size()) == rows,
         "rows: " + std::to_string(results.size()) + ", want " + std::to_string(rows));
  const bool fan = mode == "fan-in" || mode == "fan-out";
  if (fan_peers < 0) fan_peers = world_size - 1;
  std::vector<int> expected_peers;  // the first K ranks other than the root, in rank order
  for (int rank = 0; rank < world_size && static_cast<int>(expected_peers.size()) < fan_peers; ++rank) {
    if (rank != fan_root) expected_peers.push_back(rank);
  }
  std::int64_t wrong_total = 0;
  for (const auto& row : results) {
    const std::string where = "row " + row.value("link", "?") + " at " + std::to_string(row.value("bytes", 0ull)) + " B: ";
    expect(row["kind"] == "pt2pt" && row["mode"] == mode, where + "kind pt2pt, mode " + mode);
    expect(row["matrix"] == matrix, where + "matrix flag");
    const double mean = row["time_us"]["mean"].get<double>();
    expect(mean > 0 && row["time_us"]["min"].get<double>() > 0 && row["time_us"]["min"] <= row["time_us"]["max"], where + "positive times");
    const double window = row["window"].get<double>(), pairs = row["pairs"].get<double>();
    const double messages = window * pairs * (mode == "bibw" ? 2 : 1);
    expect(close(row["gbps"].get<double>(), row["bytes"].get<double>() * messages / (mean * 1e3)), where + "gbps = bytes x messages / time");
    expect(close(row["messages_per_s"].get<double>(), messages * 1e6 / mean), where + "messages/s = messages / time");
    expect(mode == "latency" ? (row["latency_us"].is_number() && close(row["latency_us"].get<double>(), mean)) : row["latency_us"].is_null(),
           where + "latency_us is the mean time in latency mode only");
    expect(mode == "latency" ? row["window"] == 1 : row["window"].get<int>() >= 1, where + "window");
    expect(mode == "mbw_mr" ? pairs == world_size / 2 : pairs == (fan ? fan_peers : 1), where + "pairs");
    expect(row.contains("fan") == fan, where + "a fan object exactly in a fan's rows");
    if (fan && row["fan"].is_object()) {
      const auto& f = row["fan"];
      const double iterations = row["iterations"].get<double>(), bytes = row["bytes"].get<double>();
      expect(f["pattern"] == mode && f["root"] == fan_root, where + "fan pattern and root");
      expect(f["peers"].get<std::vector<int>>() == expected_peers, where + "fan peers: the first K ranks other than the root");
      expect(f["peer_hosts"].size() == expected_peers.size() && f["root_host"].is_string(), where + "a host for the root and every peer");
      // Closed forms: every peer moves window x size per iteration; the root all K of them.
      expect(close(f["peer_bytes"].get<double>(), window * bytes * iterations), where + "peer bytes = window x size x iterations");
      expect(close(f["total_bytes"].get<double>(), fan_peers * window * bytes * iterations),
             where + "root's bytes = K x window x size x iterations");
      expect(close(f["elapsed_us"].get<double>(), mean * iterations), where + "root's elapsed = its mean time x iterations");
      expect(close(f["root_gbps"].get<double>(), f["total_bytes"].get<double>() / (f["elapsed_us"].get<double>() * 1e3)) &&
             close(f["root_gbps"].get<double>(), row["gbps"].get<double>()),
             where + "root's GB/s = its bytes / its elapsed = the row's gbps");
      std::vector<double> shares;
      for (std::size_t k = 0; k < f["peer_gbps"].size(); ++k) {
        const double elapsed = f["peer_elapsed_us"][k].get<double>();
        expect(elapsed > 0, where + "every peer timed its own iterations");
        shares.push_back(f["peer_gbps"][k].get<double>());
        expect(close(shares.back(), f["peer_bytes"].get<double>() / (elapsed * 1e3)), where + "a peer's share = its bytes / its elapsed");
      }
      expect(shares.size() == expected_peers.size(), where + "a share per peer");
      if (!shares.empty()) {
        expect(f["share_min_gbps"] == *std::min_element(shares.begin(), shares.end()) &&
               f["share_max_gbps"] == *std::max_element(shares.begin(), shares.end()) &&
               close(f["share_median_gbps"].get<double>(), median(shares)),
               where + "share min/median/max of the peers' shares");
      }
    }
    if (row["wrong"].is_number()) wrong_total += row["wrong"].get<std::int64_t>();
    else expect(false, where + "no check ran");
  }
  expect(wrong == "zero" ? wrong_total == 0 : wrong_total > 0, "wrong total " + std::to_string(wrong_total) + " (want " + wrong + ")");

  if (matrix) {
    const auto& link_matrix = report["link_matrix"];
    expect(link_matrix.is_object(), "link_matrix present");
    if (!link_matrix.is_object()) return 1;
    const auto hosts = link_matrix["hosts"].get<std::vector<std::string>>();
    expect(static_cast<int>(hosts.size()) == world_size, "a host for every rank");
    if (distinct_hosts >= 0) {
      expect(static_cast<int>(std::set<std::string>(hosts.begin(), hosts.end()).size()) == distinct_hosts,
             std::to_string(distinct_hosts) + " distinct hosts");
    }
    const double factor = link_matrix["slow_link_factor"].get<double>();
    std::size_t flagged_total = 0, measured_total = 0;
    for (const auto& size : link_matrix["sizes"]) {
      const auto bytes = size["bytes"].get<std::uint64_t>();
      const auto& time = size["time_us"];
      expect(static_cast<int>(time.size()) == world_size, "a matrix row per rank");
      std::map<std::string, std::vector<double>> by_class;
      for (int src = 0; src < world_size; ++src) {
        expect(time[src][src].is_null(), "no link from a rank to itself");
        for (int dst = 0; dst < world_size; ++dst) {
          if (time[src][dst].is_null()) continue;
          ++measured_total;
          by_class[hosts[src] == hosts[dst] ? "intra_host" : "inter_host"].push_back(time[src][dst].get<double>());
          bool row_found = false;
          for (const auto& row : results) {
            if (row["src_rank"] == src && row["dst_rank"] == dst && row["bytes"] == bytes) row_found = true;
          }
          expect(row_found, "a row for every measured link");
        }
      }
      for (const auto& [link_class, times] : by_class) {
        expect(size[link_class].is_object() && size[link_class]["links"] == times.size(), link_class + " summarized");
        expect(close(size[link_class]["median_time_us"].get<double>(), median(times)), link_class + " median");
      }
      for (const char* link_class : {"intra_host", "inter_host"}) {
        if (!by_class.count(link_class)) expect(size[link_class].is_null(), std::string(link_class) + " null without links");
      }
      // The verdict again from the matrix.
      std::size_t expected = 0;
      for (int src = 0; src < world_size; ++src) {
        for (int dst = 0; dst < world_size; ++dst) {
          if (time[src][dst].is_null()) continue;
          const std::string link_class = hosts[src] == hosts[dst] ? "intra_host" : "inter_host";
          const bool is_slow = time[src][dst].get<double>() > factor * median(by_class[link_class]);
          bool listed = false;
          for (const auto& flagged : size["slow_links"]) {
            if (flagged["src_rank"] == src && flagged["dst_rank"] == dst) {
              listed = true;
              expect(flagged["src_host"] == hosts[src] && flagged["dst_host"] == hosts[dst], "a slow link names both hosts");
            }
          }
          expect(listed == is_slow, "link " + std::to_string(src) + "->" + std::to_string(dst) + " flagged iff slower than the factor");
          expected += is_slow;
        }
      }
      expect(size["slow_links"].size() == expected, "slow links of a size");
      if (!expect_slow.empty()) {
        std::string flagged;
        std::vector<std::string> links;
        for (const auto& link : size["slow_links"]) {
          links.push_back(std::to_string(link["src_rank"].get<int>()) + "-" + std::to_string(link["dst_rank"].get<int>()));
        }
        std::sort(links.begin(), links.end());
        for (const auto& link : links) flagged += (flagged.empty() ? "" : ",") + link;
        expect(flagged == expect_slow, "at " + std::to_string(bytes) + " B flagged [" + flagged + "], want [" + expect_slow + "]");
      }
      if (!expect_slowest.empty()) {
        std::vector<std::pair<double, std::string>> links;  // time, "src-dst"
        for (int src = 0; src < world_size; ++src) {
          for (int dst = 0; dst < world_size; ++dst) {
            if (!time[src][dst].is_null()) links.emplace_back(time[src][dst].get<double>(), std::to_string(src) + "-" + std::to_string(dst));
          }
        }
        std::sort(links.rbegin(), links.rend());
        const std::size_t count = static_cast<std::size_t>(std::count(expect_slowest.begin(), expect_slowest.end(), ',') + 1);
        std::vector<std::string> slowest;
        for (std::size_t i = 0; i < std::min(count, links.size()); ++i) slowest.push_back(links[i].second);
        std::sort(slowest.begin(), slowest.end());
        std::string named;
        for (const auto& link : slowest) named += (named.empty() ? "" : ",") + link;
        expect(named == expect_slowest, "at " + std::to_string(bytes) + " B the slowest links are [" + named + "], want [" + expect_slowest + "]");
        for (const auto& link : size["slow_links"]) {
          const std::string name = std::to_string(link["src_rank"].get<int>()) + "-" + std::to_string(link["dst_rank"].get<int>());
          expect(std::count(slowest.begin(), slowest.end(), name) == 1, "at " + std::to_string(bytes) + " B fast link " + name + " flagged");
        }
      }
      flagged_total += expected;
    }
    expect(link_matrix["slow_links"].size() == flagged_total, "every slow link in the list");
    std::set<std::string> measured_rows;  // -N repeats a link's row once per cycle
    for (const auto& row : results) {
      measured_rows.insert(row["src_rank"].dump() + ">" + row["dst_rank"].dump() + "@" + row["bytes"].dump());
    }
    expect(measured_total == measured_rows.size(), "a matrix cell for every measured link and size");
    if (slow == "none") expect(flagged_total == 0, "no slow link");
    if (slow == "some") expect(flagged_total > 0, "a slow link");
  } else {
    expect(!report.contains("link_matrix"), "no link matrix without --matrix");
  }
  return failures == 0 ? 0 : 1;
}
