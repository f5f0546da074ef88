#include "workloads/replay/report/trace_readers.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "core/error.h"
#include "core/input_file.h"
#include "core/printable.h"

namespace collbench::replay {

std::optional<TraceFormat> parse_trace_format(std::string_view text) {
  if (text == "auto") return TraceFormat::kAuto;
  if (text == "nccl-log") return TraceFormat::kNcclLog;
  if (text == "kineto") return TraceFormat::kKineto;
  if (text == "execution-trace") return TraceFormat::kExecutionTrace;
  return std::nullopt;
}

TraceFormat trace_format_flag(const std::string& value, const std::string& flag) {
  const auto parsed = parse_trace_format(value);
  if (!parsed) throw UsageError("unknown trace format '" + value + "' for " + flag + " (use auto, nccl-log, kineto or execution-trace)");
  return *parsed;
}

TraceFormat detect_trace_format(const TraceText& file) {
  const std::string_view text = file.text;
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return TraceFormat::kNcclLog;
  // The top-level key comes early in both torch formats; a bounded look keeps this cheap.
  const std::string_view start = text.substr(first, 1 << 16);
  const auto events = start.find("\"traceEvents\"");
  const auto nodes = start.find("\"nodes\"");
  if (events != std::string_view::npos && (nodes == std::string_view::npos || events < nodes)) return TraceFormat::kKineto;
  if (nodes != std::string_view::npos) return TraceFormat::kExecutionTrace;
  // A Kineto trace may put "traceEvents" after a long header; look through the whole text once.
  return text.find("\"traceEvents\"") != std::string_view::npos ? TraceFormat::kKineto : TraceFormat::kExecutionTrace;
}

Trace read_trace(const std::vector<std::string>& paths, TraceFormat format) {
  if (paths.empty()) throw UsageError("no trace file given");
  std::vector<TraceText> files;
  for (const auto& path : paths) {
    files.push_back({path, read_input_file(path, {"trace", kMaxTraceFileBytes, kMaxTraceLineBytes})});
    const TraceFormat detected = detect_trace_format(files.back());
    if (format == TraceFormat::kAuto) format = detected;
    if (detected != format)
      throw UsageError(printable(path) + ": not the same trace format as the other files of the set");
  }
  switch (format) {
    case TraceFormat::kNcclLog: return read_nccl_log(files);
    case TraceFormat::kKineto: return read_kineto_trace(files);
    case TraceFormat::kExecutionTrace: return read_execution_trace(files);
    case TraceFormat::kAuto: break;
  }
  throw UsageError("no trace format");
}

namespace detail {

std::uint64_t parse_count(std::string_view text, std::size_t element_bytes, const std::string& where) {
  std::uint64_t count = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (error == std::errc::result_out_of_range)
    throw UsageError(where + ": count " + printable(std::string(text)) + " does not fit in 64 bits");
  if (error != std::errc() || end != text.data() + text.size() || text.empty())
    throw UsageError(where + ": count '" + printable(std::string(text)) + "' is not a whole number");
  if (element_bytes > 0 && count > std::numeric_limits<std::uint64_t>::max() / element_bytes)
    throw UsageError(where + ": count " + std::to_string(count) + " of " + std::to_string(element_bytes) +
                     "-byte elements overflows 64-bit bytes");
  return count;
}

std::size_t group_index(Trace& trace, const std::vector<int>& ranks, const std::string& name) {
  for (std::size_t index = 0; index < trace.groups.size(); ++index)
    if (trace.groups[index].ranks == ranks && trace.groups[index].name == name) return index;
  trace.groups.push_back({ranks, name});
  return trace.groups.size() - 1;
}

}  // namespace detail
}  // namespace collbench::replay
