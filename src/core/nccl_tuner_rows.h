// The rows of NCCL's example tuner CSV (NVIDIA/nccl plugins/tuner/example, NCCL_TUNER_CONFIG_FILE),
// the file `collbench tune` writes for NCCL and collbench's own tuner plugin reads:
//   collective,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks[,numPipeOps,regBuff]
// both byte bounds inclusive, -1 for "any" in the last four and for "NCCL's own" channel count,
// '#' starting a comment line. In core (and in plain C++ only) because the summarizer and the
// plugin, which NCCL loads into its own process, read it with this one parser.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace collbench {

struct NcclTunerRow {
  int line = 0;              // 1-based, for messages
  int collective = -1;       // NCCL's ncclFunc_t: broadcast 0, reduce 1, allgather 2, reducescatter 3, allreduce 4
  std::uint64_t min_bytes = 0, max_bytes = 0;
  int algorithm = -1;        // NCCL_ALGO_*: tree 0, ring 1, collnet_direct 2, collnet_chain 3, nvls 4, nvls_tree 5, pat 6
  int protocol = -1;         // NCCL_PROTO_*: ll 0, ll128 1, simple 2
  int channels = -1;         // -1: NCCL's own
  int nodes = -1, ranks = -1, pipe_ops = -1, registered = -1;  // -1: any
  std::string collective_name, algorithm_name, protocol_name;  // as written
};

// The rows in file order. Throws UsageError naming path and line for a malformed row, a name NCCL's
// example tuner does not know, a range that ends before it starts, or two rows that overlap (the
// same collective, sizes and matching fields: both ranges named). At most kMostNcclTunerRows rows.
std::vector<NcclTunerRow> parse_nccl_tuner_rows(const std::string& text, const std::string& path);

// The example tuner's names ("allreduce", "ll128", ...): its number, or -1.
int nccl_tuner_collective(const std::string& name);
int nccl_tuner_algorithm(const std::string& name);
int nccl_tuner_protocol(const std::string& name);

// The first row that applies, or nullptr: the collective, nBytes within the range, and the nodes,
// ranks, pipelined operations and registration where the row names them.
const NcclTunerRow* nccl_tuner_row_for(const std::vector<NcclTunerRow>& rows, int collective, std::uint64_t bytes, int nodes, int ranks,
                                       int pipe_ops, int registered);

constexpr std::size_t kMostNcclTunerRows = 4096;

}  // namespace collbench
