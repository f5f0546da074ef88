#include "workloads/replay/report/torch_trace_common.h"

#include <algorithm>
#include <limits>

#include "core/error.h"
#include "core/printable.h"

namespace collbench::replay::detail {

nlohmann::json parse_json_trace(const TraceText& file, const char* format_name) {
  try {
    return nlohmann::json::parse(file.text);
  } catch (const nlohmann::json::parse_error& error) {
    throw UsageError(printable(file.name) + ": not a " + format_name + " JSON file (at byte " +
                     std::to_string(error.byte) + (error.byte >= file.text.size() ? ": it ends early, truncated?" : "") +
                     ")");
  }
}

std::optional<DType> torch_element_type(std::string type) {
  // "GenericList[Tensor(float)]" -> "float"; "Tensor(c10::Half)" -> "c10::Half".
  if (const auto open = type.rfind('('); open != std::string::npos) {
    const auto close = type.find(')', open);
    type = type.substr(open + 1, close == std::string::npos ? std::string::npos : close - open - 1);
  }
  static const std::pair<const char*, DType> kNames[] = {
      {"float", DType::kFloat32},          {"Float", DType::kFloat32},
      {"double", DType::kFloat64},         {"Double", DType::kFloat64},
      {"c10::Half", DType::kFloat16},      {"Half", DType::kFloat16},
      {"c10::BFloat16", DType::kBfloat16}, {"BFloat16", DType::kBfloat16},
      {"signed char", DType::kInt8},       {"Char", DType::kInt8},
      {"unsigned char", DType::kUint8},    {"Byte", DType::kUint8},
      {"int", DType::kInt32},              {"Int", DType::kInt32},
      {"long int", DType::kInt64},         {"long", DType::kInt64},
      {"Long", DType::kInt64},             {"unsigned int", DType::kUint32},
      {"UInt32", DType::kUint32},          {"unsigned long", DType::kUint64},
      {"UInt64", DType::kUint64},          {"c10::Float8_e4m3fn", DType::kFloat8E4M3},
      {"Float8_e4m3fn", DType::kFloat8E4M3}, {"c10::Float8_e5m2", DType::kFloat8E5M2},
      {"Float8_e5m2", DType::kFloat8E5M2},
  };
  for (const auto& [name, dtype] : kNames)
    if (type == name) return dtype;
  return std::nullopt;
}

std::vector<int> parse_rank_list(const nlohmann::json& value, const std::string& where) {
  std::vector<int> ranks;
  const auto add = [&](long long rank) {
    if (rank < 0 || rank > (1 << 24)) throw UsageError(where + ": rank " + std::to_string(rank) + " in the group");
    ranks.push_back(static_cast<int>(rank));
  };
  if (value.is_array()) {
    for (const auto& rank : value) {
      if (!rank.is_number_integer()) throw UsageError(where + ": a group rank that is not a whole number");
      add(rank.get<long long>());
    }
    return ranks;
  }
  if (!value.is_string()) throw UsageError(where + ": group ranks neither a list nor a text");
  // Kineto writes the list as text: "[0, 1, 2]".
  const std::string text = value.get<std::string>();
  for (std::size_t at = 0; at < text.size();) {
    if (text[at] >= '0' && text[at] <= '9') {
      std::size_t end = at;
      while (end < text.size() && text[end] >= '0' && text[end] <= '9' && end - at < 9) ++end;
      add(std::stoll(text.substr(at, end - at)));
      at = end;
    } else if (text[at] == '[' || text[at] == ']' || text[at] == ',' || text[at] == ' ') {
      ++at;
    } else {
      throw UsageError(where + ": group ranks '" + printable(text.substr(0, 80)) + "' are not a list of ranks");
    }
  }
  return ranks;
}

namespace {

// Which argument holds the tensor whose elements are NCCL's count, and which the root or peer.
enum class CountRule { kElements, kElementsPerPeer, kNone };
struct C10dOperator {
  const char* name;
  TraceCollective collective;
  int tensor_argument;
  CountRule count;
  int rank_argument;  // the root or the peer (a rank in the call's group); -1 where none
};
// torch/csrc/distributed/c10d/Ops.cpp's schemas (torch 2.x).
constexpr C10dOperator kOperators[] = {
    {"c10d::allreduce_", TraceCollective::kAllReduce, 0, CountRule::kElements, -1},
    {"c10d::broadcast_", TraceCollective::kBroadcast, 0, CountRule::kElements, 2},
    {"c10d::reduce_", TraceCollective::kReduce, 0, CountRule::kElements, 3},
    {"c10d::allgather_", TraceCollective::kAllGather, 1, CountRule::kElements, -1},
    {"c10d::_allgather_base_", TraceCollective::kAllGather, 1, CountRule::kElements, -1},
    {"c10d::reduce_scatter_", TraceCollective::kReduceScatter, 0, CountRule::kElements, -1},
    {"c10d::_reduce_scatter_base_", TraceCollective::kReduceScatter, 0, CountRule::kElements, -1},
    {"c10d::alltoall_base_", TraceCollective::kAllToAll, 1, CountRule::kElementsPerPeer, -1},
    {"c10d::alltoall_", TraceCollective::kAllToAll, 1, CountRule::kElements, -1},
    {"c10d::gather_", TraceCollective::kGather, 1, CountRule::kElements, 3},
    {"c10d::scatter_", TraceCollective::kScatter, 0, CountRule::kElements, 3},
    {"c10d::send", TraceCollective::kSend, 0, CountRule::kElements, 2},
    {"c10d::recv_", TraceCollective::kRecv, 0, CountRule::kElements, 2},
    {"c10d::barrier", TraceCollective::kBarrier, 0, CountRule::kNone, -1},
};

// The first tensor's element count in a recorded shape: [8, 32] (a tensor), [[8, 32], ...] (a
// list), [[[8, 32]]] (a list of lists); [] is a scalar's or an empty list's: none.
std::optional<std::uint64_t> first_tensor_elements(const nlohmann::json& shape, const std::string& where) {
  if (!shape.is_array() || shape.empty()) return std::nullopt;
  if (shape.front().is_array()) return first_tensor_elements(shape.front(), where);
  std::uint64_t elements = 1;
  for (const auto& dim : shape) {
    if (!dim.is_number_integer() || dim.get<long long>() < 0) throw UsageError(where + ": a tensor dimension that is not a size");
    const auto size = dim.get<std::uint64_t>();
    if (size != 0 && elements > std::numeric_limits<std::uint64_t>::max() / size)
      throw UsageError(where + ": a tensor's element count overflows 64 bits");
    elements *= size;
  }
  return elements;
}

}  // namespace

void claim_rank(Trace& trace, int rank, int world, const std::string& name) {
  if (world < 1 || rank < 0 || rank >= world)
    throw UsageError(name + ": rank " + std::to_string(rank) + " of a world of " + std::to_string(world));
  if (trace.world_size != 0 && trace.world_size != world)
    throw UsageError(name + ": a trace of " + std::to_string(world) + " ranks among files of " + std::to_string(trace.world_size));
  trace.world_size = world;
  if (trace.sequences.count(rank)) throw UsageError(name + ": a second file for rank " + std::to_string(rank));
  trace.sequences[rank];
}

void add_c10d_call(Trace& trace, int rank, const C10dCall& call, const ProcessGroups& groups) {
  const auto known = std::find_if(std::begin(kOperators), std::end(kOperators),
                                  [&](const C10dOperator& entry) { return call.op == entry.name; });
  // The elements and their type: the operator's tensor argument, else the first tensor recorded.
  std::optional<std::uint64_t> elements;
  std::optional<DType> dtype;
  const int tensor = known != std::end(kOperators) ? known->tensor_argument : 0;
  if (tensor < static_cast<int>(call.arguments.size())) {
    elements = first_tensor_elements(call.arguments[static_cast<std::size_t>(tensor)].shape, call.where);
    dtype = torch_element_type(call.arguments[static_cast<std::size_t>(tensor)].type);
  }
  if (!dtype) dtype = torch_element_type(call.dtype);
  const std::size_t element_bytes = dtype ? dtype_info(*dtype).size_bytes : 1;
  if (elements) parse_count(std::to_string(*elements), element_bytes, call.where);  // its bytes fit in 64 bits
  const std::uint64_t bytes = elements.value_or(0) * element_bytes;
  const std::string name = printable(call.op);
  if (known == std::end(kOperators)) return count_skipped(trace, name + " (not a call collbench replays)", bytes);
  if (known->count != CountRule::kNone && (!elements || !dtype))
    return count_skipped(trace, name + " (sizes or dtype not recorded: profile with record_shapes=True)", bytes);
  std::vector<int> group_ranks;
  if (call.group_ranks) {
    group_ranks = *call.group_ranks;
  } else if (groups.count <= 1) {
    for (int member = 0; member < trace.world_size; ++member) group_ranks.push_back(member);
  } else {
    return count_skipped(trace, name + " (process group not recorded; the job has " + std::to_string(groups.count) +
                                    " groups)", bytes);
  }
  for (const int member : group_ranks)
    if (member >= trace.world_size)
      throw UsageError(call.where + ": group names rank " + std::to_string(member) + ", outside the world of " +
                       std::to_string(trace.world_size));
  if (std::find(group_ranks.begin(), group_ranks.end(), rank) == group_ranks.end())
    throw UsageError(call.where + ": rank " + std::to_string(rank) + " is not in the call's group");
  TraceCall replayed;
  replayed.collective = known->collective;
  replayed.dtype = dtype.value_or(DType::kUint8);
  replayed.count = elements.value_or(0);
  if (known->count == CountRule::kElementsPerPeer) {
    // alltoall_base_'s splits (arguments 3 and 4) must be empty or even for a count per peer.
    for (const int split : {3, 4}) {
      if (split >= static_cast<int>(call.arguments.size())) continue;
      const auto& recorded = call.arguments[static_cast<std::size_t>(split)];
      const bool empty = recorded.value.empty() || recorded.value == "[]" || (recorded.shape.is_array() && recorded.shape.empty() && recorded.value.empty());
      if (!empty) return count_skipped(trace, name + " (split sizes)", bytes);
    }
    if (replayed.count % group_ranks.size() != 0) return count_skipped(trace, name + " (uneven splits)", bytes);
    replayed.count /= group_ranks.size();
  }
  if (known->rank_argument >= 0) {
    const auto index = static_cast<std::size_t>(known->rank_argument);
    long long local = -1;
    if (index < call.arguments.size() && !call.arguments[index].value.empty()) {
      try {
        std::size_t used = 0;
        local = std::stoll(call.arguments[index].value, &used);
        if (used != call.arguments[index].value.size()) local = -1;
      } catch (const std::exception&) {
        local = -1;
      }
    }
    if (local < 0) return count_skipped(trace, name + " (root or peer not recorded)", bytes);
    if (local >= static_cast<long long>(group_ranks.size()))
      throw UsageError(call.where + ": root or peer " + std::to_string(local) + " is outside its group of " +
                       std::to_string(group_ranks.size()));
    replayed.root = group_ranks[static_cast<std::size_t>(local)];
  }
  // Neither torch format records the reduction op's value: torch's default, sum, is assumed (docs/replay.md).
  replayed.op = ReduceOp::kSum;
  replayed.start_us = call.start_us;
  replayed.job_duration_us = call.duration_us;
  replayed.source = call.where;
  replayed.group = group_index(trace, group_ranks, "process group " + printable(call.group_name));
  trace.sequences[rank].push_back(std::move(replayed));
}

}  // namespace collbench::replay::detail
