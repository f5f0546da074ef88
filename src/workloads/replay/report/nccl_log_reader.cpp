// NCCL's own log, as NCCL 2.4 to 2.29 print it (src/enqueue.cc's INFO(NCCL_COLL, ...) line, the
// same fields since 2.4; %zi became %zu in 2.23), with the communicators from NCCL_INIT's lines:
//   [TIMESTAMP] host:pid:tid [dev] NCCL INFO AllReduce: opCount 1a sendbuff 0x.. recvbuff 0x..
//       count 64 datatype 7 op 0 root 0 comm 0x7f.. [nranks=2] stream 0x..
//   host:pid:tid [dev] NCCL INFO comm 0x7f.. rank 0 nranks 2 cudaDev 0 ... [commId 0x..] - Init COMPLETE
// (2.21 and later put "ncclCommInitRank " or "ncclCommSplit " before "comm"; 2.18 added commId,
// the one name all ranks of a communicator share; the timestamp is there only where
// NCCL_DEBUG_TIMESTAMP_LEVELS includes INFO, NCCL 2.26 and later.) A rank is one (process, device):
// several GPUs in one process are several ranks.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include "core/error.h"
#include "core/input_file.h"
#include "core/printable.h"
#include "workloads/replay/report/trace_readers.h"

namespace collbench::replay {
namespace {

// One communicator as one rank's log names it (a comm pointer is reused after ncclCommDestroy:
// a later init line at the same address starts a new one).
struct LoggedComm {
  std::string actor;  // the rank that holds it: "host:pid[dev]"
  int rank = -1;
  int nranks = 0;
  std::string comm_id;  // NCCL 2.18+: the same on every rank of the communicator
  std::string pointer;
  std::size_t ordinal = 0;  // how many comms of this size the actor made before it (logs before 2.18)
};

struct LoggedCall {
  std::size_t comm;  // index into the comms
  TraceCall call;    // root still the rank inside the comm
};

std::vector<std::string_view> split_spaces(std::string_view text) {
  std::vector<std::string_view> tokens;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto start = text.find_first_not_of(' ', at);
    if (start == std::string_view::npos) break;
    const auto end = std::min(text.find(' ', start), text.size());
    tokens.push_back(text.substr(start, end - start));
    at = end;
  }
  return tokens;
}

bool parse_int(std::string_view text, long long& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  const std::string copy(text);
  errno = 0;
  value = std::strtoll(copy.c_str(), &end, 10);
  return errno == 0 && end == copy.c_str() + copy.size();
}

// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
long long days_from_civil(long long year, unsigned month, unsigned day) {
  year -= month <= 2;
  const long long era = (year >= 0 ? year : year - 399) / 400;
  const unsigned year_of_era = static_cast<unsigned>(year - era * 400);
  const unsigned day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + static_cast<long long>(day_of_era) - 719468;
}

// NCCL's default timestamp "[2025-03-01 12:00:00.123456] " (NCCL_DEBUG_TIMESTAMP_FORMAT with %Nf),
// anywhere in the prefix: microseconds since the epoch of the local clock it was printed with.
std::optional<double> timestamp_us(std::string_view prefix) {
  for (std::size_t at = prefix.find('['); at != std::string_view::npos; at = prefix.find('[', at + 1)) {
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, consumed = 0;
    double second = 0;
    const std::string candidate(prefix.substr(at + 1, 40));
    if (std::sscanf(candidate.c_str(), "%4d-%2d-%2d %2d:%2d:%lf%n", &year, &month, &day, &hour, &minute, &second,
                    &consumed) == 6 && month >= 1 && month <= 12 && day >= 1 && day <= 31) {
      const double seconds = static_cast<double>(days_from_civil(year, month, day)) * 86400.0 + hour * 3600.0 +
                             minute * 60.0 + second;
      return seconds * 1e6;
    }
  }
  return std::nullopt;
}

std::optional<TraceCollective> nccl_collective(std::string_view name) {
  if (name == "AllReduce") return TraceCollective::kAllReduce;
  if (name == "Broadcast" || name == "Bcast") return TraceCollective::kBroadcast;
  if (name == "Reduce") return TraceCollective::kReduce;
  if (name == "AllGather") return TraceCollective::kAllGather;
  if (name == "ReduceScatter") return TraceCollective::kReduceScatter;
  if (name == "AlltoAll") return TraceCollective::kAllToAll;
  if (name == "Gather") return TraceCollective::kGather;
  if (name == "Scatter") return TraceCollective::kScatter;
  if (name == "Send") return TraceCollective::kSend;
  if (name == "Recv") return TraceCollective::kRecv;
  return std::nullopt;
}

// ncclDataType_t's values (nccl.h: unchanged since 2.0, bfloat16 since 2.10, fp8 since 2.24).
std::optional<DType> nccl_dtype(long long value) {
  static const DType types[] = {DType::kInt8,    DType::kUint8,   DType::kInt32,    DType::kUint32,
                                DType::kInt64,   DType::kUint64,  DType::kFloat16,  DType::kFloat32,
                                DType::kFloat64, DType::kBfloat16, DType::kFloat8E4M3, DType::kFloat8E5M2};
  if (value < 0 || value >= static_cast<long long>(std::size(types))) return std::nullopt;
  return types[value];
}

// ncclRedOp_t's built-in values; 5 and up are ncclRedOpCreatePreMulSum's, which collbench does not run.
std::optional<ReduceOp> nccl_op(long long value) {
  switch (value) {
    case 0: return ReduceOp::kSum;
    case 1: return ReduceOp::kProd;
    case 2: return ReduceOp::kMax;
    case 3: return ReduceOp::kMin;
    case 4: return ReduceOp::kAvg;
    default: return std::nullopt;
  }
}

class NcclLogReader {
 public:
  void read(const TraceText& file, std::size_t file_index) {
    std::size_t line_number = 0;
    std::size_t at = 0;
    while (at < file.text.size()) {
      const auto end = std::min(file.text.find('\n', at), file.text.size());
      std::string_view line(file.text.data() + at, end - at);
      at = end + 1;
      ++line_number;
      // Most lines of a log are neither communicators nor calls: skip them before anything is made.
      if (line.find("NCCL INFO ") == std::string_view::npos && line.find(": opCount ") == std::string_view::npos &&
          line.size() <= kMaxNcclLineBytes)
        continue;
      const std::string where = printable(file.name) + ":" + std::to_string(line_number);
      if (line.size() > kMaxNcclLineBytes)
        throw UsageError(where + ": line longer than " + describe_cap(kMaxNcclLineBytes) + " (not an NCCL log?)");
      NcclLogLine parsed = parse_nccl_log_line(line, where);
      // A log cut to "[dev] NCCL INFO" names no process: each file is then one process.
      if (parsed.process.empty()) parsed.process = "file " + std::to_string(file_index);
      switch (parsed.kind) {
        case NcclLogLine::Kind::kOther: break;
        case NcclLogLine::Kind::kCommunicator: add_comm(parsed); break;
        case NcclLogLine::Kind::kCall: add_call(parsed, where); break;
        case NcclLogLine::Kind::kCallCut: {
          const auto dtype = nccl_dtype(parsed.datatype);
          const std::uint64_t count = detail::parse_count(parsed.count, dtype ? dtype_info(*dtype).size_bytes : 1, where);
          count_skipped(skipped_, printable(parsed.name) + " (line without its rank: interleaved log)",
                        count * (dtype ? dtype_info(*dtype).size_bytes : 1));
          break;
        }
      }
    }
  }

  Trace finish() {  // once, after every file: the calls move into the trace
    if (comms_.empty() && calls_.empty())
      throw UsageError(files_ + ": no NCCL communicator or collective lines (record with NCCL_DEBUG=INFO "
                                "NCCL_DEBUG_SUBSYS=INIT,COLL)");
    Trace trace;
    trace.format = "nccl-log";
    trace.skipped = std::move(skipped_.skipped);
    for (const auto& comm : comms_) trace.world_size = std::max(trace.world_size, comm.nranks);
    // Each rank's global rank: its rank in the first communicator it made that spans the world.
    std::map<std::string, int> world_rank;
    std::map<int, std::string> actor_of_rank;
    for (const auto& comm : comms_) {
      if (comm.nranks != trace.world_size || world_rank.count(comm.actor)) continue;
      if (actor_of_rank.count(comm.rank))
        throw UsageError(files_ + ": two processes are rank " + std::to_string(comm.rank) + " of " +
                         std::to_string(comm.nranks) + ": " + printable(actor_of_rank[comm.rank]) + " and " +
                         printable(comm.actor) + " (logs of different jobs?)");
      world_rank[comm.actor] = comm.rank;
      actor_of_rank[comm.rank] = comm.actor;
    }
    // The communicators' members: by commId, or (before NCCL 2.18) by size and order of creation.
    std::map<std::string, std::vector<std::string>> members;
    for (const auto& comm : comms_) {
      if (!world_rank.count(comm.actor))
        throw UsageError(files_ + ": " + printable(comm.actor) + " has no communicator of all " +
                         std::to_string(trace.world_size) + " ranks, so its global rank is unknown");
      auto& ranks = members[identity(comm)];
      ranks.resize(static_cast<std::size_t>(comm.nranks));
      auto& member = ranks[static_cast<std::size_t>(comm.rank)];
      if (!member.empty() && member != comm.actor)
        throw UsageError(files_ + ": " + printable(identity(comm)) + " has two ranks " + std::to_string(comm.rank) +
                         " (" + printable(member) + ", " + printable(comm.actor) + ")");
      member = comm.actor;
    }
    for (const auto& [actor, rank] : world_rank) trace.sequences[rank];
    std::vector<std::optional<std::size_t>> group_of_comm(comms_.size());
    for (auto& logged : calls_) {
      const LoggedComm& comm = comms_[logged.comm];
      // Each communicator's group once, not once a call: a log holds millions of calls on a few.
      if (!group_of_comm[logged.comm]) {
        const auto& actors = members[identity(comm)];
        std::vector<int> ranks;
        for (std::size_t index = 0; index < actors.size(); ++index) {
          if (actors[index].empty())
            throw UsageError(logged.call.source + ": " + printable(identity(comm)) + " of " +
                             std::to_string(comm.nranks) + " ranks: rank " + std::to_string(index) +
                             "'s log is missing (give every rank's log)");
          ranks.push_back(world_rank.at(actors[index]));
        }
        group_of_comm[logged.comm] = detail::group_index(trace, ranks, identity(comm));
      }
      TraceCall call = std::move(logged.call);
      call.group = *group_of_comm[logged.comm];
      const auto& ranks = trace.groups[call.group].ranks;
      call.root = (has_root(call.collective) || is_point_to_point(call.collective)) ? ranks[static_cast<std::size_t>(call.root)] : -1;
      trace.sequences[world_rank.at(comm.actor)].push_back(std::move(call));
    }
    return trace;
  }

  void name_files(const std::vector<TraceText>& files) {
    files_ = printable(files.at(0).name);
    if (files.size() > 1) files_ += " (and " + std::to_string(files.size() - 1) + " more)";
  }

 private:
  static std::string identity(const LoggedComm& comm) {
    if (comm.comm_id.empty()) return "communicator " + std::to_string(comm.ordinal + 1) + " of " + std::to_string(comm.nranks) + " ranks";
    return comm.comm_id.rfind("split ", 0) == 0 ? comm.comm_id : "commId " + comm.comm_id;
  }

  void add_comm(const NcclLogLine& line) {
    const std::string actor = line.process + line.device;
    const std::string key = line.process + " " + line.comm;
    if (const auto known = current_.find(key); known != current_.end()) {
      LoggedComm& same = comms_[known->second];
      if (same.rank == line.rank && same.nranks == line.nranks && same.actor == actor &&
          (line.comm_id.empty() || same.comm_id.empty() || line.comm_id == same.comm_id)) {
        if (!line.comm_id.empty()) same.comm_id = line.comm_id;
        return;  // a second line about the same communicator
      }
    }
    // A split without a commId (NCCL 2.28's ncclCommSplit line) is named by its parent, the split
    // count and its color: the same on every member, different for each group of one split.
    std::string comm_id = line.comm_id;
    if (comm_id.empty() && !line.parent.empty() && !line.color.empty()) {
      if (const auto parent = current_.find(line.process + " " + line.parent); parent != current_.end())
        comm_id = "split " + line.split_count + " color " + line.color + " of " + identity(comms_[parent->second]);
    }
    const std::size_t ordinal = made_[actor + " " + std::to_string(line.nranks)]++;
    current_[key] = comms_.size();
    comms_.push_back({actor, line.rank, line.nranks, comm_id, line.comm, ordinal});
  }

  void add_call(const NcclLogLine& line, const std::string& where) {
    const auto dtype = nccl_dtype(line.datatype);
    if (!dtype) throw UsageError(where + ": datatype " + std::to_string(line.datatype) + " is not one of NCCL's");
    const std::uint64_t count = detail::parse_count(line.count, dtype_info(*dtype).size_bytes, where);
    const auto known = current_.find(line.process + " " + line.comm);
    if (known == current_.end())
      throw UsageError(where + ": comm " + printable(line.comm) + " has no 'comm ... rank ... nranks' line before it "
                               "(record with NCCL_DEBUG_SUBSYS=INIT,COLL)");
    if (line.root < 0 || line.root >= comms_[known->second].nranks)
      throw UsageError(where + ": root " + std::to_string(line.root) + " is outside the communicator's " +
                       std::to_string(comms_[known->second].nranks) + " ranks");
    const std::string name = printable(line.name);
    const auto collective = nccl_collective(line.name);
    const auto reduce_op = nccl_op(line.op);
    const std::uint64_t bytes = count * dtype_info(*dtype).size_bytes;
    if (!collective) return count_skipped(skipped_, name + " (not a call collbench replays)", bytes);
    if (reduces(*collective) && !reduce_op)
      return count_skipped(skipped_, name + " (custom reduction op " + std::to_string(line.op) + ")", bytes);
    TraceCall call;
    call.collective = *collective;
    call.count = count;
    call.dtype = *dtype;
    call.op = reduce_op.value_or(ReduceOp::kSum);
    call.root = static_cast<int>(line.root);
    call.start_us = line.start_us;
    call.source = where;
    calls_.push_back({known->second, std::move(call)});
  }

  std::vector<LoggedComm> comms_;
  std::map<std::string, std::size_t> current_;  // "process pointer" -> the comm it names now
  std::map<std::string, std::size_t> made_;     // "actor nranks" -> comms of that size made so far
  std::vector<LoggedCall> calls_;
  Trace skipped_;  // only its skipped tally
  std::string files_;
};

}  // namespace

NcclLogLine parse_nccl_log_line(std::string_view line, const std::string& where) {
  NcclLogLine parsed;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  // The last "NCCL INFO " starts the message: two ranks' lines written into one file can interleave.
  const auto info = line.rfind("NCCL INFO ");
  const std::string_view prefix = info == std::string_view::npos ? std::string_view() : line.substr(0, info);
  const std::string_view rest = info == std::string_view::npos ? line : line.substr(info + 10);
  const auto opcount = rest.find(": opCount ");
  if (info == std::string_view::npos && opcount == std::string_view::npos) return parsed;
  // The rank: "host:pid:tid [dev]" right before "NCCL INFO".
  const auto tokens = split_spaces(prefix);
  parsed.device = "[0]";
  if (!tokens.empty() && tokens.back().size() >= 3 && tokens.back().front() == '[' && tokens.back().back() == ']') {
    parsed.device = std::string(tokens.back());
    if (tokens.size() >= 2) {
      const std::string_view host_pid_tid = tokens[tokens.size() - 2];
      const auto last_colon = host_pid_tid.rfind(':');
      if (last_colon != std::string_view::npos && host_pid_tid.find(':') != last_colon)
        parsed.process = std::string(host_pid_tid.substr(0, last_colon));
    }
  }
  parsed.start_us = timestamp_us(prefix);
  const auto fields = split_spaces(rest);
  if (opcount != std::string_view::npos) {
    parsed.kind = info == std::string_view::npos ? NcclLogLine::Kind::kCallCut : NcclLogLine::Kind::kCall;
    // The name, without what some launchers put before it ("[2] AllReduce").
    std::string_view name = rest.substr(0, opcount);
    if (const auto space = name.rfind(' '); space != std::string_view::npos) name = name.substr(space + 1);
    parsed.name = std::string(name);
    // The value after a key's first appearance (a line has some twenty fields: a scan beats a map).
    const auto field = [&](std::string_view key) -> std::string_view {
      for (std::size_t index = 0; index + 1 < fields.size(); ++index)
        if (fields[index] == key) return fields[index + 1];
      throw UsageError(where + ": NCCL call line without '" + std::string(key) + "'");
    };
    if (!parse_int(field("datatype"), parsed.datatype) || !parse_int(field("op"), parsed.op) ||
        !parse_int(field("root"), parsed.root))
      throw UsageError(where + ": NCCL call line with datatype, op or root not a number");
    parsed.count = std::string(field("count"));
    parsed.comm = std::string(field("comm"));
    return parsed;
  }
  // "[ncclCommInitRank ]comm 0x.. rank R nranks N ... [commId 0x..]": a communicator made.
  for (std::size_t index = 0; index + 5 < fields.size(); ++index) {
    if (fields[index] != "comm" || fields[index + 2] != "rank" || fields[index + 4] != "nranks") continue;
    long long rank = 0, nranks = 0;
    if (!parse_int(fields[index + 3], rank) || !parse_int(fields[index + 5], nranks) || nranks < 1 ||
        nranks > (1 << 24) || rank < 0 || rank >= nranks)
      throw UsageError(where + ": communicator line with rank '" + printable(std::string(fields[index + 3])) +
                       "' of nranks '" + printable(std::string(fields[index + 5])) + "'");
    parsed.kind = NcclLogLine::Kind::kCommunicator;
    parsed.comm = std::string(fields[index + 1]);
    parsed.rank = static_cast<int>(rank);
    parsed.nranks = static_cast<int>(nranks);
    for (std::size_t key = index + 6; key + 1 < fields.size(); ++key) {
      if (fields[key] == "commId") parsed.comm_id = std::string(fields[key + 1]);
      if (fields[key] == "parent") parsed.parent = std::string(fields[key + 1]);
      if (fields[key] == "color") parsed.color = std::string(fields[key + 1]);
      if (fields[key] == "splitCount") parsed.split_count = std::string(fields[key + 1]);
    }
    break;
  }
  return parsed;
}

Trace read_nccl_log(const std::vector<TraceText>& files) {
  NcclLogReader reader;
  reader.name_files(files);
  for (std::size_t index = 0; index < files.size(); ++index) reader.read(files[index], index);
  return reader.finish();
}

}  // namespace collbench::replay
