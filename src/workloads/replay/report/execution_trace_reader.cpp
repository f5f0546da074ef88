// PyTorch's execution trace: the Chakra host ET JSON of torch.profiler.ExecutionTraceObserver
// (schema "1.1.1-chakra.0.0.4" and alike), one file per rank. Its "nodes" are the operators run;
// each "c10d::..." node is a call, with its "inputs" (values, shapes, types), in the order of the
// nodes' ids. The "## process_group:init ##" node lists the process groups (the default group's
// group_size is the world). The file does not say its rank: it is taken from the file's name
// ("...rank<N>...", "rank-<N>", as PARAM names them), or is 0 in a world of one. The trace has no
// times: no gaps, no durations.
#include <algorithm>
#include <regex>

#include "core/error.h"
#include "core/printable.h"
#include "workloads/replay/report/torch_trace_common.h"

namespace collbench::replay {
namespace {

std::string text_of(const nlohmann::json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

std::optional<int> rank_in_name(const std::string& path) {
  const std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  static const std::regex pattern("rank[-_.]?([0-9]{1,7})", std::regex::icase);
  std::smatch match;
  if (!std::regex_search(base, match, pattern)) return std::nullopt;
  return std::stoi(match[1].str());
}

}  // namespace

Trace read_execution_trace(const std::vector<TraceText>& files) {
  Trace trace;
  trace.format = "execution-trace";
  for (const auto& file : files) {
    const std::string name = printable(file.name);
    const nlohmann::json document = detail::parse_json_trace(file, "execution trace");
    const auto nodes = document.is_object() ? document.find("nodes") : document.end();
    if (!document.is_object() || nodes == document.end() || !nodes->is_array())
      throw UsageError(name + ": no \"nodes\" list (not an execution trace)");
    // The process groups, from the init node's one input: a JSON text of [{pg_name, group_size, ranks}, ...].
    detail::ProcessGroups groups;
    int world = 0;
    std::string default_group = "0";
    std::vector<std::pair<long long, std::size_t>> calls;  // (id, index)
    for (std::size_t index = 0; index < nodes->size(); ++index) {
      const nlohmann::json& node = (*nodes)[index];
      if (!node.is_object()) throw UsageError(name + ": nodes[" + std::to_string(index) + "] is not an object");
      const std::string node_name = node.contains("name") ? text_of(node["name"]) : "";
      if (node_name == "## process_group:init ##") {
        const std::string where = name + ": nodes[" + std::to_string(index) + "].inputs.values[0]";
        nlohmann::json config;
        try {
          config = nlohmann::json::parse(text_of(node.at("inputs").at("values").at(0)));
        } catch (const nlohmann::json::exception&) {
          throw UsageError(where + ": not the process groups' JSON list");
        }
        if (!config.is_array() || config.empty()) throw UsageError(where + ": no process group");
        groups.count = config.size();
        const auto& first = config.front();
        if (!first.is_object() || !first.contains("group_size") || !first["group_size"].is_number_integer() ||
            first["group_size"].get<long long>() < 1 || first["group_size"].get<long long>() > (1 << 24))
          throw UsageError(where + ": the default group has no group_size");
        world = static_cast<int>(first["group_size"].get<long long>());
        if (first.contains("pg_name")) default_group = text_of(first["pg_name"]);
      } else if (node_name.rfind("c10d::", 0) == 0) {
        const auto id = node.find("id");
        if (id == node.end() || !id->is_number_integer())
          throw UsageError(name + ": nodes[" + std::to_string(index) + "] has no numeric \"id\"");
        calls.emplace_back(id->get<long long>(), index);
      }
    }
    if (world == 0)
      throw UsageError(name + ": no \"## process_group:init ##\" node (record after torch.distributed.init_process_group)");
    const auto named_rank = rank_in_name(file.name);
    if (!named_rank && (world > 1 || files.size() > 1))
      throw UsageError(name + ": cannot tell which rank the file is: name it with rank<N> (e.g. job.rank0.et.json)");
    const int rank = named_rank.value_or(0);
    detail::claim_rank(trace, rank, world, name + " (rank from the file name)");
    std::sort(calls.begin(), calls.end());
    for (const auto& [id, index] : calls) {
      const nlohmann::json& node = (*nodes)[index];
      detail::C10dCall call;
      call.where = name + ": nodes[" + std::to_string(index) + "] (id " + std::to_string(id) + ")";
      call.op = text_of(node["name"]);
      call.group_name = default_group;
      const auto inputs = node.find("inputs");
      if (inputs != node.end() && inputs->is_object()) {
        const auto values = inputs->find("values");
        const auto shapes = inputs->find("shapes");
        const auto types = inputs->find("types");
        const std::size_t count = values != inputs->end() && values->is_array() ? values->size() : 0;
        for (std::size_t argument = 0; argument < count; ++argument) {
          detail::C10dArgument recorded;
          const nlohmann::json& value = (*values)[argument];
          if (value.is_number_integer() || value.is_boolean()) recorded.value = value.dump();
          if (shapes != inputs->end() && shapes->is_array() && argument < shapes->size()) recorded.shape = (*shapes)[argument];
          if (types != inputs->end() && types->is_array() && argument < types->size()) recorded.type = text_of((*types)[argument]);
          call.arguments.push_back(std::move(recorded));
        }
      }
      detail::add_c10d_call(trace, rank, call, groups);
    }
  }
  return trace;
}

}  // namespace collbench::replay
