// PyTorch's profiler trace: Kineto's chrome-trace JSON (torch.profiler.profile(record_shapes=True)
// ... export_chrome_trace(FILE)), one file per rank. The rank, world and process groups come from
// its "distributedInfo"; each call is one "c10d::..." cpu_op event (its "Input Dims", "Input type"
// and "Concrete Inputs" args), in the order of its "ts". Where the call holds a
// "record_param_comms" event (NCCL's ProcessGroup records one), that names the call's group
// ("Process Group Ranks", "Process Group Name") and dtype. The backend's own events of the calls
// ("gloo:all_reduce", ... on the backend's thread) give the job's duration of each call, paired in
// order, where there is one per call.
#include <algorithm>

#include "core/error.h"
#include "core/printable.h"
#include "workloads/replay/report/torch_trace_common.h"

namespace collbench::replay {
namespace {

const nlohmann::json* member(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto found = object.find(key);
  return found == object.end() ? nullptr : &*found;
}

int rank_count_at(const nlohmann::json& object, const char* key, const std::string& where) {
  const nlohmann::json* value = member(object, key);
  if (value == nullptr) throw UsageError(where + ": no \"" + key + "\"");
  if (!value->is_number_integer() || value->get<long long>() < 0 || value->get<long long>() > (1 << 24))
    throw UsageError(where + ".\"" + key + "\": not a rank or a rank count");
  return static_cast<int>(value->get<long long>());
}

std::string text_of(const nlohmann::json* value) {
  if (value == nullptr || value->is_null()) return "";
  return value->is_string() ? value->get<std::string>() : value->dump();
}

std::optional<double> number_of(const nlohmann::json& event, const char* key) {
  const nlohmann::json* value = member(event, key);
  if (value == nullptr || !value->is_number()) return std::nullopt;
  return value->get<double>();
}

struct Event {
  std::size_t index;
  double ts, dur;
};

}  // namespace

Trace read_kineto_trace(const std::vector<TraceText>& files) {
  Trace trace;
  trace.format = "kineto";
  for (const auto& file : files) {
    const std::string name = printable(file.name);
    const nlohmann::json document = detail::parse_json_trace(file, "Kineto trace");
    const nlohmann::json* info = member(document, "distributedInfo");
    if (info == nullptr)
      throw UsageError(name + ": no \"distributedInfo\" (profile after torch.distributed.init_process_group)");
    const int rank = rank_count_at(*info, "rank", name + ": distributedInfo");
    const int world = rank_count_at(*info, "world_size", name + ": distributedInfo");
    detail::claim_rank(trace, rank, world, name + ": distributedInfo");
    detail::ProcessGroups groups;
    std::string default_group = "0";
    if (const nlohmann::json* config = member(*info, "pg_config"); config != nullptr && config->is_array()) {
      groups.count = config->size();
      if (!config->empty()) default_group = text_of(member(config->front(), "pg_name"));
    }
    const nlohmann::json* events = member(document, "traceEvents");
    if (events == nullptr || !events->is_array()) throw UsageError(name + ": no \"traceEvents\" list");
    std::vector<Event> calls, param_comms, backend;
    for (std::size_t index = 0; index < events->size(); ++index) {
      const nlohmann::json& event = (*events)[index];
      const std::string event_name = text_of(member(event, "name"));
      const bool c10d = event_name.rfind("c10d::", 0) == 0;
      const bool param = event_name == "record_param_comms";
      const bool backend_call = event_name.rfind("gloo:", 0) == 0;
      if (!c10d && !param && !backend_call) continue;
      const auto ts = number_of(event, "ts");
      const auto dur = number_of(event, "dur");
      if (!ts || !dur)
        throw UsageError(name + ": traceEvents[" + std::to_string(index) + "]: " + printable(event_name) +
                         " without a numeric \"ts\" and \"dur\"");
      (c10d ? calls : param ? param_comms : backend).push_back({index, *ts, *dur});
    }
    const auto by_time = [](const Event& a, const Event& b) { return a.ts < b.ts || (a.ts == b.ts && a.index < b.index); };
    std::sort(calls.begin(), calls.end(), by_time);
    std::sort(backend.begin(), backend.end(), by_time);
    const bool paired = !calls.empty() && backend.size() == calls.size();
    for (std::size_t order = 0; order < calls.size(); ++order) {
      const nlohmann::json& event = (*events)[calls[order].index];
      detail::C10dCall call;
      call.where = name + ": traceEvents[" + std::to_string(calls[order].index) + "]";
      call.op = text_of(member(event, "name"));
      call.start_us = calls[order].ts;
      call.group_name = default_group;
      const nlohmann::json* args = member(event, "args");
      const nlohmann::json* dims = args ? member(*args, "Input Dims") : nullptr;
      const nlohmann::json* types = args ? member(*args, "Input type") : nullptr;
      const nlohmann::json* values = args ? member(*args, "Concrete Inputs") : nullptr;
      if (dims != nullptr && dims->is_array()) {
        for (std::size_t argument = 0; argument < dims->size(); ++argument) {
          detail::C10dArgument recorded;
          recorded.shape = (*dims)[argument];
          if (types != nullptr && types->is_array() && argument < types->size()) recorded.type = text_of(&(*types)[argument]);
          if (values != nullptr && values->is_array() && argument < values->size()) recorded.value = text_of(&(*values)[argument]);
          call.arguments.push_back(std::move(recorded));
        }
      }
      if (paired) {
        const nlohmann::json& run = (*events)[backend[order].index];
        call.duration_us = backend[order].dur;
        const nlohmann::json* run_args = member(run, "args");
        const nlohmann::json* run_types = run_args ? member(*run_args, "Input type") : nullptr;
        if (run_types != nullptr && run_types->is_array() && !run_types->empty()) call.dtype = text_of(&run_types->front());
      }
      // NCCL's record_param_comms inside the call: its group and dtype.
      const auto end = calls[order].ts + calls[order].dur;
      for (const Event& inner : param_comms) {
        if (inner.ts < calls[order].ts || inner.ts > end) continue;
        const nlohmann::json* inner_args = member((*events)[inner.index], "args");
        if (inner_args == nullptr) continue;
        const std::string where = name + ": traceEvents[" + std::to_string(inner.index) + "].args";
        if (const nlohmann::json* ranks = member(*inner_args, "Process Group Ranks"))
          call.group_ranks = detail::parse_rank_list(*ranks, where + ".\"Process Group Ranks\"");
        if (const nlohmann::json* group = member(*inner_args, "Process Group Name")) call.group_name = text_of(group);
        if (const nlohmann::json* dtype = member(*inner_args, "dtype")) call.dtype = text_of(dtype);
        break;
      }
      detail::add_c10d_call(trace, rank, call, groups);
    }
  }
  return trace;
}

}  // namespace collbench::replay
