// The readers of the traces users already have (issue 61), each into one replay::Trace:
//   - NCCL's own log (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL): nccl_log_reader.cpp
//   - PyTorch's profiler trace (Kineto chrome-trace JSON, record_param_comms): kineto_reader.cpp
//   - PyTorch's execution trace (Chakra host ET JSON): execution_trace_reader.cpp
// A job comes as one file per rank or one file for all ranks; either way every file of the set is
// read and the ranks are told apart by what each format records (NCCL: the comm's rank; torch: the
// trace's rank). Bad input throws UsageError with one printable line naming the file and the line
// or JSON key (exit 2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/replay/report/trace.h"

namespace collbench::replay {

enum class TraceFormat { kAuto, kNcclLog, kKineto, kExecutionTrace };
std::optional<TraceFormat> parse_trace_format(std::string_view text);  // auto, nccl-log, kineto, execution-trace
// The value of `flag` (--trace-format, of replay_perf and collbench model predict); UsageError otherwise.
TraceFormat trace_format_flag(const std::string& value, const std::string& flag);

// One file of a trace: its name for messages and its bytes.
struct TraceText {
  std::string name;
  std::string text;
};

// What a file holds, from its first bytes: JSON with "traceEvents" is Kineto, JSON with "nodes"
// an execution trace, anything else NCCL's log.
TraceFormat detect_trace_format(const TraceText& file);

Trace read_nccl_log(const std::vector<TraceText>& files);

// One line of NCCL's log as read, before communicators are matched across ranks (the tests read
// real lines of each NCCL version through it).
struct NcclLogLine {
  enum class Kind {
    kOther,         // not a line collbench reads
    kCommunicator,  // "comm 0x.. rank R nranks N ..." (NCCL_INIT)
    kCall,          // "<Name>: opCount .. count .. datatype .. op .. root .. comm 0x.. [nranks=N] .." (NCCL_COLL)
    kCallCut,       // a call line without its "host:pid:tid [dev] NCCL INFO" (two ranks' lines interleaved)
  };
  Kind kind = Kind::kOther;
  std::string process;  // "host:pid" where the line names it
  std::string device;   // "[3]": the CUDA device of the calling thread
  std::string comm;     // the comm pointer
  int rank = -1, nranks = 0;  // kCommunicator
  std::string comm_id;        // kCommunicator, NCCL 2.18 and later (not on 2.28's ncclCommSplit lines)
  std::string parent;         // kCommunicator of ncclCommSplit: the parent comm pointer, color and split count
  std::string color, split_count;
  std::string name;           // kCall: "AllReduce"
  std::string count;          // kCall: as printed
  long long datatype = 0, op = 0, root = 0;
  std::optional<double> start_us;  // where NCCL printed a timestamp
};
NcclLogLine parse_nccl_log_line(std::string_view line, const std::string& where);
Trace read_kineto_trace(const std::vector<TraceText>& files);
Trace read_execution_trace(const std::vector<TraceText>& files);

// Reads the files (each bounded: an endless input ends at the cap with one line) in `format`,
// detected from the first file where kAuto; all files of a set must be of one format.
Trace read_trace(const std::vector<std::string>& paths, TraceFormat format = TraceFormat::kAuto);

// The caps a trace file is read under: the whole file, and a line (Kineto and the execution
// trace write one event or node a line; /dev/zero, with no newline, stops at the line cap). An NCCL
// log line is held to the smaller kMaxNcclLineBytes.
inline constexpr std::uint64_t kMaxTraceFileBytes = 4ull << 30;
inline constexpr std::uint64_t kMaxTraceLineBytes = 16ull << 20;
inline constexpr std::uint64_t kMaxNcclLineBytes = 64ull << 10;

// Helpers the readers share (trace_readers.cpp).
namespace detail {
// The element count as a decimal text holds it; throws UsageError naming `where` when it is not
// a count or does not fit in 64 bits (nor its bytes, at `element_bytes` each).
std::uint64_t parse_count(std::string_view text, std::size_t element_bytes, const std::string& where);
// The index of the group with exactly these ranks and name, added when new.
std::size_t group_index(Trace& trace, const std::vector<int>& ranks, const std::string& name);
}  // namespace detail

}  // namespace collbench::replay
