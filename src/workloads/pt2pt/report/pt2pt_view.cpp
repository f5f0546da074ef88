#include "workloads/pt2pt/report/pt2pt_view.h"

#include <algorithm>
#include <cmath>

#include "report/json_reader.h"
#include "workloads/pt2pt/report/pt2pt_rows.h"

namespace collbench::report {

using nlohmann::json;

namespace {

// A pt2pt report's link matrix: every size's matrices square over the ranks, cells numbers or null.
LinkMatrix link_matrix_from_json(const Reader& reader, const json& object) {
  LinkMatrix matrix;
  const json& hosts = reader.field(object, "hosts");
  if (!hosts.is_array() || hosts.empty()) reader.fail(".hosts", "expected a non-empty array");
  for (const auto& host : hosts) {
    if (!host.is_string()) reader.fail(".hosts", "expected strings");
    matrix.hosts.push_back(host.get<std::string>());
  }
  matrix.ranks = static_cast<int>(matrix.hosts.size());
  const json& sizes = reader.field(object, "sizes");
  if (!sizes.is_array()) reader.fail(".sizes", "expected an array");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const Reader size_reader = reader.at(".sizes[" + std::to_string(i) + "]");
    LinkMatrixSize size;
    size.bytes = static_cast<std::uint64_t>(size_reader.integer(sizes[i], "bytes"));
    for (const char* key : {"time_us", "gbps"}) {
      const json& rows = size_reader.field(sizes[i], key);
      if (!rows.is_array() || rows.size() != matrix.hosts.size()) size_reader.fail(std::string(".") + key, "expected a row per rank");
      auto& cells = std::string(key) == "time_us" ? size.time_us : size.gbps;
      for (const auto& row : rows) {
        if (!row.is_array() || row.size() != matrix.hosts.size()) size_reader.fail(std::string(".") + key, "expected a column per rank");
        std::vector<std::optional<double>> line;
        for (const auto& cell : row) {
          if (cell.is_null()) line.emplace_back();
          else if (cell.is_number() && std::isfinite(cell.get<double>()) && cell.get<double>() >= 0) line.emplace_back(cell.get<double>());
          else size_reader.fail(std::string(".") + key, "expected non-negative numbers or null");
        }
        cells.push_back(std::move(line));
      }
    }
    matrix.sizes.push_back(std::move(size));
  }
  return matrix;
}

FanShares fan_from_json(const Reader& reader, const json& object) {
  FanShares fan;
  fan.pattern = reader.string(object, "pattern");
  if (fan.pattern != "fan-in" && fan.pattern != "fan-out") reader.fail(".pattern", "expected fan-in or fan-out");
  fan.root = static_cast<int>(reader.unsigned_integer(object, "root"));
  fan.root_host = reader.string(object, "root_host");
  const json& peers = reader.field(object, "peers");
  const json& hosts = reader.field(object, "peer_hosts");
  const json& shares = reader.field(object, "peer_gbps");
  if (!peers.is_array() || peers.empty()) reader.fail(".peers", "expected a non-empty array");
  if (!hosts.is_array() || hosts.size() != peers.size()) reader.fail(".peer_hosts", "expected a host per peer");
  if (!shares.is_array() || shares.size() != peers.size()) reader.fail(".peer_gbps", "expected a share per peer");
  for (std::size_t k = 0; k < peers.size(); ++k) {
    const std::string at = "[" + std::to_string(k) + "]";
    if (!peers[k].is_number_unsigned() || peers[k].get<int>() == fan.root) reader.fail(".peers" + at, "expected a rank other than the root");
    if (!hosts[k].is_string()) reader.fail(".peer_hosts" + at, "expected a string");
    if (!shares[k].is_number() || !std::isfinite(shares[k].get<double>()) || shares[k].get<double>() < 0) {
      reader.fail(".peer_gbps" + at, "expected a non-negative number");
    }
    fan.peers.push_back(peers[k].get<int>());
    fan.peer_hosts.push_back(hosts[k].get<std::string>());
    fan.peer_gbps.push_back(shares[k].get<double>());
  }
  fan.share_min_gbps = reader.non_negative(object, "share_min_gbps");
  fan.share_median_gbps = reader.non_negative(object, "share_median_gbps");
  fan.share_max_gbps = reader.non_negative(object, "share_max_gbps");
  const auto [lowest, highest] = std::minmax_element(fan.peer_gbps.begin(), fan.peer_gbps.end());
  if (fan.share_min_gbps != *lowest || fan.share_max_gbps != *highest) {
    reader.fail(".share_min_gbps", "the spread disagrees with peer_gbps' smallest and largest");
  }
  if (fan.share_median_gbps < fan.share_min_gbps || fan.share_median_gbps > fan.share_max_gbps) {
    reader.fail(".share_median_gbps", "outside share_min_gbps..share_max_gbps");
  }
  return fan;
}

}  // namespace

std::optional<FanShares> fan_of(const Row& row) {
  const auto it = row.fields.find("fan");
  if (row.kind != kPointToPointRows || it == row.fields.end() || it->is_null()) return std::nullopt;
  return fan_from_json(Reader("row.fan"), *it);
}

void check_pt2pt_fields(const Report& report) {
  link_matrix_of(report);
  for (const Row& row : report.rows) fan_of(row);
}

std::optional<LinkMatrix> link_matrix_of(const Report& report) {
  const auto it = report.kind_fields.find("link_matrix");
  if (report.kind != kPointToPointRows || it == report.kind_fields.end() || it->is_null()) return std::nullopt;
  return link_matrix_from_json(Reader("report.link_matrix"), *it);
}

}  // namespace collbench::report
