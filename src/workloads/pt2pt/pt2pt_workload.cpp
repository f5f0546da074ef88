#include "workloads/pt2pt/pt2pt_workload.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "backends/registry.h"
#include "core/error.h"
#include "core/printable.h"
#include "core/stats.h"
#include "harness/backend_choice.h"
#include "harness/driver.h"
#include "harness/program_shell.h"
#include "report/report_json.h"
#include "report/table.h"
#include "workloads/pt2pt/link_matrix.h"
#include "workloads/pt2pt/pair_schedule.h"
#include "workloads/pt2pt/pt2pt_options.h"

namespace collbench::pt2pt {
namespace {

// Host staging for the checks, a piece at a time: messages may be far larger.
constexpr std::size_t kStagingBytes = 4u << 20;
// The byte `index` of the message `sender` sends in check `check` (timing uses check -1): a
// pattern no other sender or check repeats at most indices, so a message from the wrong peer or a
// stale one is counted; the receive buffer is poisoned with its complement, so every byte that
// did not arrive is counted too.
unsigned char pattern_byte(int sender, int check, std::size_t index) {
  return static_cast<unsigned char>((index * 131u + static_cast<std::size_t>(sender) * 31u +
                                     static_cast<std::size_t>(check + 1) * 7u + 1u) & 0xffu);
}

std::string link_text(const std::vector<LinkPair>& pairs) {
  if (pairs.size() == 1) return std::to_string(pairs.front().src) + "->" + std::to_string(pairs.front().dst);
  return std::to_string(pairs.size()) + " pairs (i->i+" + std::to_string(pairs.size()) + ")";
}

// The timing text a row carries, for its mode.
std::string timing_text(Mode mode, int window) {
  switch (mode) {
    case Mode::kLatency:
      return "one barrier, then each ping-pong timed alone on the first rank of the pair (host clock or device "
             "events), no barrier between iterations; time = half the round trip (osu_latency)";
    case Mode::kBandwidth:
      return "one barrier, then each iteration timed on the sender: " + std::to_string(window) +
             " non-blocking sends and a 4-byte acknowledgement; time per iteration (osu_bw)";
    case Mode::kBidirectional:
      return "one barrier, then each iteration timed on the first rank: " + std::to_string(window) +
             " messages each way at once; time per iteration (osu_bibw)";
    case Mode::kMultiPair:
      return "a barrier before each iteration; each sender times " + std::to_string(window) +
             " non-blocking sends and a 1-byte acknowledgement; time per iteration, mean over the senders (osu_mbw_mr)";
  }
  return "";
}

MemoryNeed memory_need(const Pt2ptOptions& options) {
  // A send and a receive buffer of the largest message; the checks' staging beside them. A GPU
  // backend's buffers are on the device.
  const auto sizes = options.requested_sizes();
  const std::uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
  const std::uint64_t staging = std::min<std::uint64_t>(largest, kStagingBytes);
  if (options.backend == "nccl") return {staging};
  return {largest > (UINT64_MAX - staging) / 2 ? UINT64_MAX : 2 * largest + staging, "the largest message needs",
          "lower -e or use fewer ranks per host"};
}

struct Pt2ptCase {
  std::uint64_t bytes = 0;
  std::vector<LinkPair> pairs;  // one, or mbw_mr's N/2
};

// One run of pt2pt_perf: the backend, its buffers and the cases.
class Pt2ptWorkload final : public WorkloadOver<Pt2ptCase> {
 public:
  Pt2ptWorkload(RunContext& run, const Pt2ptOptions& options);

 private:
  // What rank 0 keeps of each matrix measurement: (bytes, src, dst) -> time and bandwidth per cycle.
  struct LinkSamples {
    std::vector<double> time_us, gbps;
  };

  std::string header(const nlohmann::json& report) const override;
  // Each case takes OSU's counts for its size; a row's time is not an estimator over all ranks but
  // the measuring ranks' own samples (make_row), as OSU reports the sender's time.
  CasePlan prepare(std::size_t index) override;
  // OSU warms up each size alone; the run's warm-up at the largest and smallest message as well
  // makes the first rows of a sweep that starts large no colder than the rest.
  std::optional<double> warmup_size(std::size_t index) const override { return static_cast<double>(cases_[index].bytes); }
  int finish(RunContext& run, nlohmann::json& report, std::int64_t wrong_total) override;
  std::string footer(const nlohmann::json& report, std::int64_t wrong_total, const std::string& report_path) const override;

  RowCheck make_check(const Pt2ptCase& one_case, const Part& part);
  nlohmann::json make_row(const Pt2ptCase& one_case, report::Measurement measured, const LoopResult& timed);
  nlohmann::json link_matrix_json() const;

  const Pt2ptOptions& options_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Buffer> send_, recv_, ack_;  // released before the backend that made them
  std::vector<std::string> hosts_;  // every rank's host, in rank order
  std::vector<unsigned char> staging_;
  std::map<std::uint64_t, std::map<std::pair<int, int>, LinkSamples>> matrix_;  // rank 0, --matrix
};

Pt2ptWorkload::Pt2ptWorkload(RunContext& run, const Pt2ptOptions& options)
    : WorkloadOver(run.world, options, report::RowKind::kPointToPoint), options_(options) {
  World& world = run.world;
  hosts_ = world.gather_strings(world.host());
  backend_ = make_run_backend(world, options_);
  report::Context context = backend_context(run, *backend_, options_, options_as_json(options_));

  const std::vector<std::uint64_t> sizes = options_.requested_sizes();
  const std::uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
  // One send and one receive buffer for every size and every message of a window (OSU's single
  // buffer), filled before anything is timed: never zeros, never untouched pages.
  send_ = backend_->allocate(largest);
  recv_ = backend_->allocate(largest);
  ack_ = backend_->allocate(kAckBytes);
  staging_.resize(static_cast<std::size_t>(std::min<std::uint64_t>(largest, kStagingBytes)));
  for (std::size_t first = 0; first < largest; first += staging_.size()) {
    const std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(staging_.size(), largest - first));
    for (std::size_t i = 0; i < count; ++i) staging_[i] = pattern_byte(world.rank(), -1, first + i);
    send_->copy_from_host(staging_.data(), first, count);
    for (std::size_t i = 0; i < count; ++i) staging_[i] = static_cast<unsigned char>(~staging_[i]);
    recv_->copy_from_host(staging_.data(), first, count);
  }
  const unsigned char ack_bytes[kAckBytes] = {1, 2, 3, 4};
  ack_->copy_from_host(ack_bytes, 0, kAckBytes);

  const int ranks = world.size();
  std::vector<std::vector<LinkPair>> schedules;
  if (options_.matrix) {
    for (const LinkPair& pair : matrix_pairs(ranks, options_.sample_peers, options_.seed)) schedules.push_back({pair});
  } else if (options_.mode == Mode::kMultiPair) {
    schedules.push_back(multi_pairs(ranks));
  } else {
    schedules.push_back({{options_.pair_src, options_.pair_dst}});
  }
  for (std::uint64_t bytes : sizes) {
    for (const auto& pairs : schedules) cases_.push_back({bytes, pairs});
  }

  nlohmann::json& report = report_without_rows_ = report::envelope_json("pt2pt", context);
  report["skipped"] = nlohmann::json::array();
}

std::string Pt2ptWorkload::header(const nlohmann::json& report) const {
  const int ranks = report["context"]["world_size"].get<int>();
  std::string what;
  if (options_.matrix) {
    what = "link matrix, " + std::string(options_.sample_peers > 0 ? std::to_string(options_.sample_peers) + " sampled peers per rank"
                                                                   : "every ordered pair") +
           " one at a time, " + to_string(options_.mode) + " per pair";
  } else if (options_.mode == Mode::kMultiPair) {
    what = std::to_string(ranks / 2) + " pairs at once (rank i with i+" + std::to_string(ranks / 2) + ")";
  } else {
    what = "ranks " + std::to_string(options_.pair_src) + " and " + std::to_string(options_.pair_dst) + " of " +
           std::to_string(ranks) + " (the others wait)";
  }
  return formatted("# pt2pt_perf --mode %s: %s; backend %s\n", to_string(options_.mode).c_str(), what.c_str(),
                   printable(options_.backend).c_str()) +
         formatted("# iterations: %s; window %d; time (us) per %s\n",
                   options_.iterations_given ? std::to_string(options_.iterations).c_str() : "OSU's per size",
                   options_.mode == Mode::kLatency ? 1 : options_.window,
                   options_.mode == Mode::kLatency ? "message (half the round trip)" : "iteration (window and acknowledgement)");
}

// -c: the senders' buffers refilled with the check's pattern and the receivers' poisoned with its
// complement; after one iteration every received byte is compared. With --inject-corrupt-output
// the highest rank that receives data corrupts one byte of what it read.
RowCheck Pt2ptWorkload::make_check(const Pt2ptCase& one_case, const Part& part) {
  const std::size_t bytes = static_cast<std::size_t>(one_case.bytes);
  const int rank = world_.rank();
  const bool receives = receives_data(options_.mode, rank, one_case.pairs);
  int last_receiver = -1;
  for (int each = 0; each < world_.size(); ++each) {
    if (receives_data(options_.mode, each, one_case.pairs)) last_receiver = each;
  }
  const bool corrupt = options_.inject_corrupt_output && rank == last_receiver;
  RowCheck check;
  check.prepare = [this, bytes, part, receives](int c) {
    if (part.role == Role::kIdle) return;
    for (std::size_t first = 0; first < bytes; first += staging_.size()) {
      const std::size_t count = std::min(staging_.size(), bytes - first);
      for (std::size_t i = 0; i < count; ++i) staging_[i] = pattern_byte(world_.rank(), c, first + i);
      send_->copy_from_host(staging_.data(), first, count);
      if (!receives) continue;
      for (std::size_t i = 0; i < count; ++i) staging_[i] = static_cast<unsigned char>(~pattern_byte(part.peer, c, first + i));
      recv_->copy_from_host(staging_.data(), first, count);
    }
  };
  check.count_wrong = [this, bytes, part, receives, corrupt](int c) -> std::int64_t {
    if (!receives) return 0;
    std::int64_t wrong = 0;
    bool corrupt_next = corrupt;
    for (std::size_t first = 0; first < bytes; first += staging_.size()) {
      const std::size_t count = std::min(staging_.size(), bytes - first);
      recv_->copy_to_host(staging_.data(), first, count);
      if (corrupt_next) {
        staging_[0] = static_cast<unsigned char>(~staging_[0]);
        corrupt_next = false;
      }
      for (std::size_t i = 0; i < count; ++i) wrong += staging_[i] != pattern_byte(part.peer, c, first + i) ? 1 : 0;
    }
    return wrong;
  };
  return check;
}

CasePlan Pt2ptWorkload::prepare(std::size_t index) {
  const Pt2ptCase& one_case = cases_[index];
  const std::string reason = backend_->point_to_point_unsupported(static_cast<std::size_t>(one_case.bytes));
  const std::string what = "pt2pt " + to_string(options_.mode) + " " + link_text(one_case.pairs) + " at " +
                           std::to_string(one_case.bytes) + " B";
  if (!reason.empty()) return CasePlan::skip_what(what, reason);

  const Part part = part_of(world_.rank(), one_case.pairs);
  // Built once per case, so an iteration only walks them: no allocation inside the timed loop.
  auto steps = std::make_shared<const std::vector<std::vector<Transfer>>>(
      iteration_steps(options_.mode, part, options_.window, static_cast<std::size_t>(one_case.bytes), {send_.get(), recv_.get(), ack_.get()}));
  const PointToPointEntry& entry = backend_->support().point_to_point;
  auto issue = [steps, &entry] {
    for (const std::vector<Transfer>& step : *steps) entry.exchange(step);
  };
  const bool every_iteration_alone = options_.mode == Mode::kMultiPair;
  PreparedCase prepared;
  prepared.step = what;
  prepared.operation = std::make_unique<PairOperation>(backend_->make_operation(issue, 1),
                                                       every_iteration_alone ? TimingSchedule::kBarrierEachIteration
                                                                             : TimingSchedule::kBatch);
  if (options_.check_iterations > 0) prepared.check = make_check(one_case, part);
  LoopSettings settings = loop_settings();
  const IterationCounts counts = iteration_counts(options_, one_case.bytes);
  settings.iterations = counts.iterations;
  settings.warmup_iterations = counts.warmup;
  settings.per_iteration_marks = !every_iteration_alone;
  prepared.settings = settings;
  prepared.row = [this, index](LoopResult& timed, report::Measurement measured) { return make_row(cases_[index], std::move(measured), timed); };
  return CasePlan::run(std::move(prepared));
}

// Every rank: the measuring ranks' samples (the first rank of each pair, as OSU reports the
// sender's time), their mean per iteration, and the row's figures from it.
nlohmann::json Pt2ptWorkload::make_row(const Pt2ptCase& one_case, report::Measurement measured, const LoopResult& timed) {
  const int rank = world_.rank();
  const bool measuring = std::any_of(one_case.pairs.begin(), one_case.pairs.end(), [rank](const LinkPair& p) { return p.src == rank; });
  std::vector<double> samples = measuring ? timed.mine_us : std::vector<double>(timed.mine_us.size(), 0.0);
  world_.combine(samples, Combine::kSum);
  const double pairs = static_cast<double>(one_case.pairs.size());
  const bool latency = options_.mode == Mode::kLatency;
  for (double& sample : samples) sample = sample / pairs / (latency ? 2.0 : 1.0);
  if (rank != 0) return nlohmann::json();

  const TimeStats time = summarize_samples(samples);
  // The row's time is the measuring ranks' own, as OSU reports the sender's: no combination over ranks.
  measured.time_us = time;
  measured.time_aggregation.clear();
  measured.time_over_ranks_us.reset();
  measured.timing = timing_text(options_.mode, options_.window) + run_warmup_timing();
  if (!measured.samples_us.empty()) measured.samples_us = samples;
  const double window = latency ? 1.0 : static_cast<double>(options_.window);
  const double directions = options_.mode == Mode::kBidirectional ? 2.0 : 1.0;
  const double messages = window * directions * pairs;  // per time unit of the row
  const double bytes = static_cast<double>(one_case.bytes) * messages;
  const double gbps = time.mean > 0 ? bytes / (time.mean * 1e3) : 0.0;
  const double messages_per_s = time.mean > 0 ? messages * 1e6 / time.mean : 0.0;
  const bool single = one_case.pairs.size() == 1;
  const LinkPair& first = one_case.pairs.front();
  const std::string& src_host = hosts_[static_cast<std::size_t>(first.src)];
  const std::string& dst_host = hosts_[static_cast<std::size_t>(first.dst)];
  nlohmann::json row = {{"mode", to_string(options_.mode)},
                        {"backend", backend_->name()},
                        {"link", link_text(one_case.pairs)},
                        {"matrix", options_.matrix},
                        {"pairs", one_case.pairs.size()},
                        {"src_rank", single ? nlohmann::json(first.src) : nlohmann::json(nullptr)},
                        {"dst_rank", single ? nlohmann::json(first.dst) : nlohmann::json(nullptr)},
                        {"src_host", single ? nlohmann::json(src_host) : nlohmann::json(nullptr)},
                        {"dst_host", single ? nlohmann::json(dst_host) : nlohmann::json(nullptr)},
                        {"same_host", single ? nlohmann::json(src_host == dst_host) : nlohmann::json(nullptr)},
                        {"bytes", one_case.bytes},
                        {"window", latency ? 1 : options_.window},
                        {"latency_us", latency ? nlohmann::json(time.mean) : nlohmann::json(nullptr)},
                        {"gbps", gbps},
                        {"messages_per_s", messages_per_s}};
  if (options_.matrix) {
    LinkSamples& kept = matrix_[one_case.bytes][{first.src, first.dst}];
    kept.time_us.push_back(time.mean);
    kept.gbps.push_back(gbps);
  }
  return report::row_json(report::RowKind::kPointToPoint, std::move(row), measured);
}

// Rank 0: the matrices per size (rows: the rank that starts; columns: its peer; null where not
// measured), the links' classes summarized apart, and the slow links.
nlohmann::json Pt2ptWorkload::link_matrix_json() const {
  const std::size_t ranks = hosts_.size();
  nlohmann::json sizes = nlohmann::json::array();
  nlohmann::json slow_json = nlohmann::json::array();
  for (const auto& [bytes, links] : matrix_) {
    std::vector<std::vector<nlohmann::json>> time(ranks, std::vector<nlohmann::json>(ranks)), rate = time;
    std::vector<MeasuredLink> measured;
    for (const auto& [pair, kept] : links) {
      const double median_time = median_of(kept.time_us), median_rate = median_of(kept.gbps);
      time[static_cast<std::size_t>(pair.first)][static_cast<std::size_t>(pair.second)] = median_time;
      rate[static_cast<std::size_t>(pair.first)][static_cast<std::size_t>(pair.second)] = median_rate;
      measured.push_back({pair.first, pair.second, median_time, median_rate});
    }
    const SizeVerdict verdict = judge_links(measured, hosts_, options_.slow_link_factor);
    nlohmann::json flagged = nlohmann::json::array();
    for (const SlowLink& link : verdict.slow) {
      flagged.push_back(to_json(link, bytes));
      slow_json.push_back(to_json(link, bytes));
    }
    sizes.push_back({{"bytes", bytes},
                     {"time_us", time},
                     {"gbps", rate},
                     {"intra_host", verdict.intra_host ? to_json(*verdict.intra_host) : nlohmann::json(nullptr)},
                     {"inter_host", verdict.inter_host ? to_json(*verdict.inter_host) : nlohmann::json(nullptr)},
                     {"slow_links", flagged}});
  }
  return {{"mode", to_string(options_.mode)},
          {"ranks", ranks},
          {"hosts", hosts_},
          {"sample_peers", options_.sample_peers == 0 ? nlohmann::json("all") : nlohmann::json(options_.sample_peers)},
          {"seed", options_.seed},
          {"slow_link_factor", options_.slow_link_factor},
          {"compared_with", "the median link of the same class (intra_host or inter_host) at the same size"},
          {"sizes", sizes},
          {"slow_links", slow_json}};
}

int Pt2ptWorkload::finish(RunContext& run, nlohmann::json& report, std::int64_t) {
  if (!options_.matrix) return 0;
  World& world = run.world;
  int exit_code = 0;
  if (world.rank() == 0) {
    report["link_matrix"] = link_matrix_json();
    report["summary"]["slow_links"] = report["link_matrix"]["slow_links"].size();
    exit_code = report["link_matrix"]["slow_links"].empty() ? 0 : static_cast<int>(ExitCode::kWrongResults);
  }
  // Rank 0's verdict, as envcheck sends its slow-rank verdict: every rank exits the same way.
  const std::string decided = world.broadcast_string(std::to_string(exit_code));
  if (decided.size() != 1 || decided[0] < '0' || decided[0] > '4') throw Error("rank 0's exit code arrived malformed");
  return decided[0] - '0';
}

std::string Pt2ptWorkload::footer(const nlohmann::json& report, std::int64_t, const std::string& report_path) const {
  std::string text;
  if (options_.matrix) {
    for (const auto& size : report["link_matrix"]["sizes"]) {
      text += formatted("# link matrix at %s: time (us) per message, row = first rank, column = peer\n",
                        format_size(size["bytes"].get<std::uint64_t>()).c_str()) +
              report::matrix_text(size["time_us"]);
      for (const char* link_class : {"intra_host", "inter_host"}) {
        const auto& summary = size[link_class];
        if (summary.is_null()) continue;
        text += formatted("#  %s: %d links, median %.2f us (%.4f GB/s), min %.2f, max %.2f\n", link_class, summary["links"].get<int>(),
                          summary["median_time_us"].get<double>(), summary["median_gbps"].get<double>(),
                          summary["min_time_us"].get<double>(), summary["max_time_us"].get<double>());
      }
    }
    const auto& slow = report["link_matrix"]["slow_links"];
    text += formatted("# slow links (slower than %g x the median link of their class):%s\n", options_.slow_link_factor,
                      slow.empty() ? " none" : "");
    for (const auto& link : slow) {
      text += formatted("#  %d (%s) -> %d (%s): %.2f us, %.2f x the %s median %.2f us\n", link["src_rank"].get<int>(),
                        printable(link["src_host"].get<std::string>()).c_str(), link["dst_rank"].get<int>(),
                        printable(link["dst_host"].get<std::string>()).c_str(), link["time_us"].get<double>(),
                        link["ratio"].get<double>(), link["class"].get<std::string>().c_str(), link["median_time_us"].get<double>());
    }
  }
  return text + report_line(printable(report_path));
}

}  // namespace

int run_pt2pt_perf(int argc, char** argv) {
  return run_program("pt2pt_perf", argc, argv, [](const std::vector<std::string>& args) {
    // Mutable: the world's checks settle the backend's name before the run starts.
    const auto options = std::make_shared<Pt2ptOptions>(parse_options(args));
    ProgramSpec program = program_spec_of<Pt2ptWorkload>(options, *options);
    program.help = usage_text;
    program.build_features = describe_backends;
    program.check_for_world = [options](World& world) {
      check_against_world(*options, world.size());
      return settle_backend(world, options->backend);
    };
    program.memory_need = [options](int) { return memory_need(*options); };
    return program;
  });
}

}  // namespace collbench::pt2pt
