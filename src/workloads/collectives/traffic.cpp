#include "workloads/collectives/traffic.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <sstream>

#include "core/error.h"
#include "core/flag_values.h"
#include "core/printable.h"
#include "core/values.h"

namespace collbench {
namespace {

constexpr std::uint64_t kBlockAlignment = 16;  // nccl-tests aligns each peer's block to 16 bytes

// One field of the matrix file, quoted for a message (file text is never printed raw).
std::string quoted(const std::string& field) {
  const std::string shown = field.size() > 40 ? field.substr(0, 40) + "..." : field;
  return "'" + printable(shown) + "'";
}

}  // namespace

std::string TrafficSpec::text() const {
  switch (pattern) {
    case TrafficPattern::kUniform: return "uniform";
    case TrafficPattern::kZipf: return "zipf:" + formatted("%g", zipf_exponent);
    case TrafficPattern::kHotspot: return "hotspot:" + std::to_string(hot_ranks);
    case TrafficPattern::kMatrix: return "matrix";
  }
  return "";
}

TrafficSpec parse_traffic_pattern(const std::string& value, const std::string& flag) {
  TrafficSpec spec;
  const auto colon = value.find(':');
  const std::string name = value.substr(0, colon);
  const std::string parameter = colon == std::string::npos ? "" : value.substr(colon + 1);
  if (name == "uniform" && colon == std::string::npos) return spec;
  if (name == "zipf" && colon != std::string::npos) {
    spec.pattern = TrafficPattern::kZipf;
    spec.zipf_exponent = parse_real(parameter, flag + " zipf", 0.0, 100.0);
    return spec;
  }
  if (name == "hotspot" && colon != std::string::npos) {
    spec.pattern = TrafficPattern::kHotspot;
    spec.hot_ranks = static_cast<int>(parse_integer(parameter, flag + " hotspot", 1, std::numeric_limits<int>::max()));
    return spec;
  }
  throw UsageError("unknown traffic pattern '" + value + "' for " + flag +
                   " (use uniform, zipf:S with S >= 0, or hotspot:K with K >= 1 hot ranks)");
}

ByteMatrix parse_byte_matrix(const std::string& text, const std::string& source, int world_size) {
  const std::string where = printable(source);
  std::vector<std::vector<std::uint64_t>> rows;
  std::istringstream lines(text);
  std::string line;
  for (int line_number = 1; std::getline(lines, line); ++line_number) {
    if (const auto comment = line.find('#'); comment != std::string::npos) line.erase(comment);
    for (char& c : line) {
      if (c == ',' || c == '\t' || c == '\r') c = ' ';
    }
    std::istringstream fields(line);
    std::vector<std::uint64_t> row;
    for (std::string field; fields >> field;) {
      const std::string at = where + " line " + std::to_string(line_number) + ", column " + std::to_string(row.size() + 1);
      if (field[0] == '-' && field.size() > 1 && std::isdigit(static_cast<unsigned char>(field[1]))) {
        throw UsageError(at + ": " + quoted(field) + " is negative; a matrix holds the bytes each rank sends (>= 0)");
      }
      const bool digits = std::all_of(field.begin(), field.end(), [](char c) { return c >= '0' && c <= '9'; });
      errno = 0;
      const unsigned long long value = digits ? std::strtoull(field.c_str(), nullptr, 10) : 0;
      if (!digits || errno == ERANGE) {
        throw UsageError(at + ": " + quoted(field) + " is not a whole number of bytes");
      }
      if (rows.size() >= static_cast<std::size_t>(world_size) || row.size() >= static_cast<std::size_t>(world_size)) {
        const bool extra_row = rows.size() >= static_cast<std::size_t>(world_size);
        throw UsageError(at + ": " + (extra_row ? "row " + std::to_string(rows.size() + 1) + " is a sender"
                                                : "column " + std::to_string(row.size() + 1) + " is a receiver") +
                         " (rank " + std::to_string(extra_row ? rows.size() : row.size()) + ") outside the world of " +
                         std::to_string(world_size) + " rank(s); the matrix must be " + std::to_string(world_size) + " x " +
                         std::to_string(world_size));
      }
      row.push_back(value);
    }
    if (row.empty()) continue;
    if (row.size() != static_cast<std::size_t>(world_size)) {
      throw UsageError(where + " line " + std::to_string(line_number) + ": " + std::to_string(row.size()) +
                       " value(s), but the world has " + std::to_string(world_size) +
                       " rank(s): each row lists the bytes its sender sends to every rank");
    }
    rows.push_back(std::move(row));
  }
  if (rows.size() != static_cast<std::size_t>(world_size)) {
    throw UsageError(where + ": " + std::to_string(rows.size()) + " row(s), but the world has " + std::to_string(world_size) +
                     " rank(s): the matrix must be " + std::to_string(world_size) + " x " + std::to_string(world_size) +
                     ", one row per sender");
  }
  ByteMatrix matrix;
  matrix.ranks = world_size;
  for (const auto& row : rows) matrix.bytes.insert(matrix.bytes.end(), row.begin(), row.end());
  return matrix;
}

TrafficMatrix::TrafficMatrix(int ranks, std::vector<std::size_t> pair_elements)
    : ranks_(ranks), elements_(std::move(pair_elements)) {
  const auto n = static_cast<std::size_t>(ranks_);
  if (ranks_ < 1 || elements_.size() != n * n) {
    throw Error("internal error: a traffic matrix of " + std::to_string(elements_.size()) + " entries for " +
                std::to_string(ranks_) + " rank(s)");
  }
  // Prefix sums, so that the check's per-element lookup is a binary search, not a walk over ranks.
  send_offsets_.assign(n * n + n, 0);
  receive_offsets_.assign(n * n + n, 0);
  for (int from = 0; from < ranks_; ++from) {
    for (int to = 0; to < ranks_; ++to) {
      send_offsets_[static_cast<std::size_t>(from) * (n + 1) + to + 1] =
          send_offsets_[static_cast<std::size_t>(from) * (n + 1) + to] + elements(from, to);
      receive_offsets_[static_cast<std::size_t>(to) * (n + 1) + from + 1] =
          receive_offsets_[static_cast<std::size_t>(to) * (n + 1) + from] + elements(from, to);
    }
  }
}

std::size_t TrafficMatrix::sent_by(int rank) const { return send_offset(rank, ranks_); }

std::size_t TrafficMatrix::received_by(int rank) const { return receive_offset(rank, ranks_); }

std::size_t TrafficMatrix::send_offset(int from, int to) const {
  return send_offsets_[static_cast<std::size_t>(from) * (static_cast<std::size_t>(ranks_) + 1) + to];
}

std::size_t TrafficMatrix::receive_offset(int to, int from) const {
  return receive_offsets_[static_cast<std::size_t>(to) * (static_cast<std::size_t>(ranks_) + 1) + from];
}

std::size_t TrafficMatrix::busiest_elements() const {
  std::size_t busiest = 0;
  for (int rank = 0; rank < ranks_; ++rank) busiest = std::max({busiest, sent_by(rank), received_by(rank)});
  return busiest;
}

TrafficMatrix::Source TrafficMatrix::source_of(int to, std::size_t index) const {
  if (index >= received_by(to)) {
    throw Error("internal error: element " + std::to_string(index) + " is past rank " + std::to_string(to) +
                "'s received elements");
  }
  // The last sender whose block starts at or before `index` (empty blocks share their start).
  const auto first = receive_offsets_.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(to) * (ranks_ + 1));
  const auto after = std::upper_bound(first, first + ranks_, index);
  const int from = static_cast<int>(after - first) - 1;
  return {from, send_offset(from, to) + (index - receive_offset(to, from))};
}

std::vector<int> seeded_rank_order(int ranks, std::uint64_t seed) {
  std::vector<int> order(static_cast<std::size_t>(ranks));
  std::iota(order.begin(), order.end(), 0);
  std::uint64_t state = seed;
  for (int last = ranks - 1; last > 0; --last) {
    const auto pick = static_cast<int>(splitmix64(state) % static_cast<std::uint64_t>(last + 1));
    std::swap(order[static_cast<std::size_t>(last)], order[static_cast<std::size_t>(pick)]);
  }
  return order;
}

std::vector<double> receiver_shares(const TrafficSpec& spec, int ranks, std::uint64_t seed) {
  const auto n = static_cast<std::size_t>(ranks);
  std::vector<double> shares(n, 1.0 / ranks);
  if (spec.pattern == TrafficPattern::kZipf) {
    const std::vector<int> order = seeded_rank_order(ranks, seed);
    double total = 0;
    for (std::size_t place = 0; place < n; ++place) {
      const double weight = 1.0 / std::pow(static_cast<double>(place + 1), spec.zipf_exponent);
      shares[static_cast<std::size_t>(order[place])] = weight;
      total += weight;
    }
    for (double& share : shares) share /= total;
  } else if (spec.pattern == TrafficPattern::kHotspot) {
    const std::vector<int> order = seeded_rank_order(ranks, seed);
    const int hot = std::min(spec.hot_ranks, ranks);
    for (double& share : shares) share = 0.5 / ranks;
    for (int place = 0; place < hot; ++place) shares[static_cast<std::size_t>(order[static_cast<std::size_t>(place)])] += 0.5 / hot;
  }
  return shares;
}

TrafficMatrix generate_traffic(const TrafficSpec& spec, std::uint64_t total_bytes_per_rank, int ranks,
                               std::size_t element_bytes, std::uint64_t seed) {
  const std::vector<double> shares = receiver_shares(spec, ranks, seed);
  const auto build = [&](std::uint64_t total) {
    std::vector<std::size_t> elements;
    elements.reserve(static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ranks));
    for (int from = 0; from < ranks; ++from) {
      for (int to = 0; to < ranks; ++to) {
        const auto bytes = static_cast<std::uint64_t>(std::floor(static_cast<double>(total) * shares[static_cast<std::size_t>(to)]));
        elements.push_back(static_cast<std::size_t>((bytes / kBlockAlignment * kBlockAlignment) / element_bytes));
      }
    }
    return TrafficMatrix(ranks, std::move(elements));
  };
  TrafficMatrix traffic = build(total_bytes_per_rank);
  if (traffic.busiest_elements() == 0) traffic = build(kBlockAlignment * static_cast<std::uint64_t>(ranks));
  return traffic;
}

TrafficMatrix traffic_from_bytes(const ByteMatrix& matrix, std::size_t element_bytes) {
  std::vector<std::size_t> elements;
  elements.reserve(matrix.bytes.size());
  for (std::uint64_t bytes : matrix.bytes) elements.push_back(static_cast<std::size_t>(bytes / element_bytes));
  return TrafficMatrix(matrix.ranks, std::move(elements));
}

double alltoallv_bus_bandwidth_gbps(std::uint64_t busiest_bytes, double time_us, int ranks) {
  const double algorithm_bandwidth = static_cast<double>(busiest_bytes) / (time_us * 1e3);
  return algorithm_bandwidth * static_cast<double>(ranks - 1) / ranks;
}

}  // namespace collbench
