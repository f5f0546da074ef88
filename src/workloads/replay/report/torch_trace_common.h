// What the two PyTorch readers share (kineto_reader.cpp, execution_trace_reader.cpp): the JSON
// parse with a one-line error, and one c10d operator call (torch/csrc/distributed/c10d/Ops.cpp:
// c10d::allreduce_, c10d::_allgather_base_, c10d::send, ...) into a TraceCall or a skipped entry.
// The c10d operators are what every backend's calls go through (gloo, NCCL, MPI), so both torch
// formats are read from them: their arguments' shapes, types and scalar values as torch records
// them (the profiler with record_shapes=True, the execution trace always).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workloads/replay/report/trace_readers.h"

namespace collbench::replay::detail {

// The document, or UsageError "FILE: not a ... JSON file (at byte N...)" (a truncated file is one).
nlohmann::json parse_json_trace(const TraceText& file, const char* format_name);

// One argument of a c10d operator as recorded: its shape (a tensor's dims, a list's dims per
// tensor, [] for a scalar), its type text ("float", "Tensor(float)", "GenericList[Tensor(float)]",
// "TensorList", "Scalar", "Int") and, for a scalar, its value as text.
struct C10dArgument {
  nlohmann::json shape;
  std::string type;
  std::string value;
};

struct C10dCall {
  std::string op;  // "c10d::allreduce_"
  std::vector<C10dArgument> arguments;
  std::string dtype;  // the elements' type where the arguments do not say it (a tensor list in Kineto)
  std::optional<std::vector<int>> group_ranks;  // global ranks, where the trace names the call's group
  std::string group_name;
  std::optional<double> start_us, duration_us;
  std::string where;  // "FILE: traceEvents[12]", "FILE: nodes[40] (id 234)"
};

// The process groups a trace names (Kineto's distributedInfo.pg_config, the execution trace's
// "## process_group:init ##" node): how many; a call without its own group is the world's when
// there is one group, and skipped (with its bytes) when there are several.
struct ProcessGroups {
  std::size_t count = 0;
};

// Records that file `name` holds rank `rank` of `world`: UsageError where the rank is outside the
// world, the world differs from the other files' or another file holds the rank already.
void claim_rank(Trace& trace, int rank, int world, const std::string& name);

// Appends the call to `rank`'s sequence in `trace` (whose world_size is set), or counts it as
// skipped with its bytes.
void add_c10d_call(Trace& trace, int rank, const C10dCall& call, const ProcessGroups& groups);

// The element type of a type text ("float", "Tensor(c10::BFloat16)", "GenericList[Tensor(float)]",
// Kineto's record_param_comms "Float"); nullopt for "TensorList" and unknown types.
std::optional<DType> torch_element_type(std::string type);

// "[0, 1, 2]" or a JSON array of ranks; UsageError naming `where` otherwise.
std::vector<int> parse_rank_list(const nlohmann::json& value, const std::string& where);

}  // namespace collbench::replay::detail
