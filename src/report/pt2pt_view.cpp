#include "report/pt2pt_view.h"

#include <cmath>

#include "report/json_reader.h"

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

}  // namespace

std::optional<LinkMatrix> link_matrix_of(const Report& report) {
  const auto it = report.kind_fields.find("link_matrix");
  if (report.kind != RowKind::kPointToPoint || it == report.kind_fields.end() || it->is_null()) return std::nullopt;
  return link_matrix_from_json(Reader("report.link_matrix"), *it);
}

}  // namespace collbench::report
