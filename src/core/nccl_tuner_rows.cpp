#include "core/nccl_tuner_rows.h"

#include <array>

#include "core/error.h"
#include "core/input_file.h"

namespace collbench {
namespace {

// Index = the NCCL number (ncclFunc_t, NCCL_ALGO_*, NCCL_PROTO_*), as the example tuner names them.
constexpr std::array<const char*, 5> kCollectives = {"broadcast", "reduce", "allgather", "reducescatter", "allreduce"};
constexpr std::array<const char*, 7> kAlgorithms = {"tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"};
constexpr std::array<const char*, 3> kProtocols = {"ll", "ll128", "simple"};

template <std::size_t N>
int index_of(const std::array<const char*, N>& names, const std::string& name) {
  for (std::size_t i = 0; i < N; ++i) {
    if (name == names[i]) return static_cast<int>(i);
  }
  return -1;
}

std::uint64_t parse_bytes(const std::string& word, const std::string& where) {
  // 19 digits at most: every such number fits 64 bits.
  if (word.empty() || word.size() > 19 || word.find_first_not_of("0123456789") != std::string::npos) {
    throw UsageError(where + ": '" + word + "' is not a byte count");
  }
  return std::stoull(word);
}

// -1 or a count up to a million: channels, nodes, ranks, pipelined operations, registration.
int parse_count_or_any(const std::string& word, const std::string& what, const std::string& where) {
  if (word == "-1") return -1;
  if (word.empty() || word.size() > 7 || word.find_first_not_of("0123456789") != std::string::npos) {
    throw UsageError(where + ": " + what + " '" + word + "' is not -1 or a count");
  }
  return std::stoi(word);
}

// Two rows can both apply to one call: same collective, overlapping sizes, and each matching
// field either -1 on one side or equal.
bool can_both_apply(const NcclTunerRow& a, const NcclTunerRow& b) {
  const auto meet = [](int x, int y) { return x == -1 || y == -1 || x == y; };
  return a.collective == b.collective && a.min_bytes <= b.max_bytes && b.min_bytes <= a.max_bytes && meet(a.nodes, b.nodes) &&
         meet(a.ranks, b.ranks) && meet(a.pipe_ops, b.pipe_ops) && meet(a.registered, b.registered);
}

std::string range_text(const NcclTunerRow& row) { return std::to_string(row.min_bytes) + "-" + std::to_string(row.max_bytes); }

}  // namespace

int nccl_tuner_collective(const std::string& name) { return index_of(kCollectives, name); }
int nccl_tuner_algorithm(const std::string& name) { return index_of(kAlgorithms, name); }
int nccl_tuner_protocol(const std::string& name) { return index_of(kProtocols, name); }

std::vector<NcclTunerRow> parse_nccl_tuner_rows(const std::string& text, const std::string& path) {
  std::vector<NcclTunerRow> rows;
  for_each_csv_row(text, "collective_type,", [&](int line, const std::vector<std::string>& fields, const std::string&) {
    const std::string where = path + ":" + std::to_string(line);
    if (fields.size() != 8 && fields.size() != 10) {
      throw UsageError(where + ": expected 8 or 10 comma-separated fields (collective,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks[,numPipeOps,regBuff])");
    }
    if (rows.size() == kMostNcclTunerRows) throw UsageError(where + ": more than " + std::to_string(kMostNcclTunerRows) + " rows");
    NcclTunerRow row;
    row.line = line;
    row.collective_name = fields[0];
    row.collective = nccl_tuner_collective(fields[0]);
    if (row.collective < 0) throw UsageError(where + ": '" + fields[0] + "' is not one of broadcast, reduce, allgather, reducescatter, allreduce");
    row.min_bytes = parse_bytes(fields[1], where);
    row.max_bytes = parse_bytes(fields[2], where);
    if (row.max_bytes < row.min_bytes) throw UsageError(where + ": the range " + range_text(row) + " ends before it starts");
    row.algorithm_name = fields[3];
    row.algorithm = nccl_tuner_algorithm(fields[3]);
    if (row.algorithm < 0) throw UsageError(where + ": algorithm '" + fields[3] + "' is not one of tree, ring, collnet_direct, collnet_chain, nvls, nvls_tree, pat");
    row.protocol_name = fields[4];
    row.protocol = nccl_tuner_protocol(fields[4]);
    if (row.protocol < 0) throw UsageError(where + ": protocol '" + fields[4] + "' is not one of ll, ll128, simple");
    row.channels = parse_count_or_any(fields[5], "channels", where);
    if (row.channels == 0) throw UsageError(where + ": channels 0: give -1 (NCCL's own) or a count");
    row.nodes = parse_count_or_any(fields[6], "nNodes", where);
    row.ranks = parse_count_or_any(fields[7], "nRanks", where);
    if (fields.size() == 10) {
      row.pipe_ops = parse_count_or_any(fields[8], "numPipeOps", where);
      row.registered = parse_count_or_any(fields[9], "regBuff", where);
    }
    for (const auto& earlier : rows) {
      if (can_both_apply(earlier, row)) {
        throw UsageError(where + ": " + row.collective_name + " " + range_text(row) + " overlaps " + range_text(earlier) + " at line " +
                         std::to_string(earlier.line));
      }
    }
    rows.push_back(std::move(row));
  });
  return rows;
}

const NcclTunerRow* nccl_tuner_row_for(const std::vector<NcclTunerRow>& rows, int collective, std::uint64_t bytes, int nodes, int ranks,
                                       int pipe_ops, int registered) {
  const auto matches = [](int wanted, int actual) { return wanted == -1 || wanted == actual; };
  for (const auto& row : rows) {
    if (row.collective == collective && row.min_bytes <= bytes && bytes <= row.max_bytes && matches(row.nodes, nodes) &&
        matches(row.ranks, ranks) && matches(row.pipe_ops, pipe_ops) && matches(row.registered, registered)) {
      return &row;
    }
  }
  return nullptr;
}

}  // namespace collbench
