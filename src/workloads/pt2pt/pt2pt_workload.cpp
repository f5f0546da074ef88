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
#include "workloads/pt2pt/fan_figures.h"
#include "workloads/pt2pt/link_matrix.h"
#include "workloads/pt2pt/pair_schedule.h"
#include "workloads/pt2pt/pt2pt_options.h"
#include "workloads/pt2pt/report/pt2pt_rows.h"

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

std::string link_text(Mode mode, const std::vector<LinkPair>& pairs) {
  const std::string peers = std::to_string(pairs.size());
  if (mode == Mode::kFanIn) return peers + " senders->" + std::to_string(pairs.front().dst);
  if (mode == Mode::kFanOut) return std::to_string(pairs.front().src) + "->" + peers + " receivers";
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
    case Mode::kFanIn:
      return "one barrier, then each iteration timed on the receiver: " + std::to_string(window) +
             " messages from every sender at once, then a 1-byte acknowledgement to each; time per iteration "
             "(osu_bw_fan_in); each sender's share from its own clock over its own iterations";
    case Mode::kFanOut:
      return "one barrier, then each iteration timed on the sender: " + std::to_string(window) +
             " messages to every receiver at once, then a 1-byte acknowledgement from each; time per iteration "
             "(osu_bw_fan_out); each receiver's share from its own clock over its own iterations";
  }
  return "";
}

// K: the fan's peers, --senders or every rank but the root.
int fan_peer_count(const Pt2ptOptions& options, int world_size) {
  return options.fan_peers > 0 ? options.fan_peers : world_size - 1;
}

MemoryNeed memory_need(const Pt2ptOptions& options, int world_size) {
  // A send and a receive buffer of the largest message; the checks' staging beside them. A GPU
  // backend's buffers are on the device.
  const auto sizes = options.requested_sizes();
  const std::uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
  const std::uint64_t staging = std::min<std::uint64_t>(largest, kStagingBytes);
  if (options.backend == "nccl") return {staging};
  // A fan-in root receives every sender's messages apart: one receive buffer per sender.
  const std::uint64_t buffers = 1 + (options.mode == Mode::kFanIn ? static_cast<std::uint64_t>(fan_peer_count(options, world_size)) : 1);
  return {largest > (UINT64_MAX - staging) / buffers ? UINT64_MAX : buffers * largest + staging, "the largest message needs",
          "lower -e or use fewer ranks per host"};
}

struct Pt2ptCase {
  std::uint64_t bytes = 0;
  std::vector<LinkPair> pairs;  // one, mbw_mr's N/2, or a fan's K links
};

// A place in this rank's receive buffer and the rank whose bytes arrive there.
struct ReceiveRegion {
  std::size_t offset = 0;
  int sender = 0;
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
  std::vector<ReceiveRegion> receive_regions(const Part& part) const;
  nlohmann::json make_row(const Pt2ptCase& one_case, report::Measurement measured, const LoopResult& timed);
  nlohmann::json fan_json(const Pt2ptCase& one_case, const std::vector<double>& elapsed_by_rank, std::size_t iterations) const;
  nlohmann::json link_matrix_json() const;

  const Pt2ptOptions& options_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Buffer> send_, recv_, ack_;  // released before the backend that made them
  std::size_t recv_slice_ = 0;  // a fan-in root's receive buffer per sender (the largest message); 0 elsewhere
  std::vector<std::string> hosts_;  // every rank's host, in rank order
  std::vector<unsigned char> staging_;
  std::map<std::uint64_t, std::map<std::pair<int, int>, LinkSamples>> matrix_;  // rank 0, --matrix
};

Pt2ptWorkload::Pt2ptWorkload(RunContext& run, const Pt2ptOptions& options)
    : WorkloadOver(run.world, options, report::kPointToPointRows), options_(options) {
  World& world = run.world;
  hosts_ = world.gather_strings(world.host());
  backend_ = make_run_backend(world, options_);
  report::Context context = backend_context(run, *backend_, options_, options_as_json(options_));

  const std::vector<std::uint64_t> sizes = options_.requested_sizes();
  const std::uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
  // One send and one receive buffer for every size and every message of a window (OSU's single
  // buffer), filled before anything is timed: never zeros, never untouched pages.
  const int ranks = world.size();
  // A fan's root takes K acknowledgements at once, one byte each at its own offset; a fan-in root
  // receives each sender's messages into its own slice of the receive buffer.
  const std::size_t fan_peers = is_fan(options_.mode) ? static_cast<std::size_t>(fan_peer_count(options_, ranks)) : 1;
  const bool fan_in_root = options_.mode == Mode::kFanIn && world.rank() == options_.fan_root;
  if (fan_in_root) recv_slice_ = static_cast<std::size_t>(largest);
  const std::uint64_t recv_bytes = fan_in_root ? largest * fan_peers : largest;
  const std::size_t ack_size = std::max(kAckBytes, fan_peers);
  send_ = backend_->allocate(largest);
  recv_ = backend_->allocate(recv_bytes);
  ack_ = backend_->allocate(ack_size);
  staging_.resize(static_cast<std::size_t>(std::min<std::uint64_t>(largest, kStagingBytes)));
  for (std::size_t first = 0; first < recv_bytes; first += staging_.size()) {
    const std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(staging_.size(), recv_bytes - first));
    for (std::size_t i = 0; i < count; ++i) staging_[i] = pattern_byte(world.rank(), -1, first + i);
    if (first < largest) send_->copy_from_host(staging_.data(), first, static_cast<std::size_t>(std::min<std::uint64_t>(count, largest - first)));
    for (std::size_t i = 0; i < count; ++i) staging_[i] = static_cast<unsigned char>(~staging_[i]);
    recv_->copy_from_host(staging_.data(), first, count);
  }
  const std::vector<unsigned char> ack_bytes(ack_size, 1);
  ack_->copy_from_host(ack_bytes.data(), 0, ack_size);

  std::vector<std::vector<LinkPair>> schedules;
  if (options_.matrix) {
    for (const LinkPair& pair : matrix_pairs(ranks, options_.sample_peers, options_.seed)) schedules.push_back({pair});
  } else if (options_.mode == Mode::kMultiPair) {
    schedules.push_back(multi_pairs(ranks));
  } else if (is_fan(options_.mode)) {
    schedules.push_back(fan_pairs(options_.mode, ranks, options_.fan_root, options_.fan_peers));
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
  } else if (is_fan(options_.mode)) {
    const std::string peers = std::to_string(fan_peer_count(options_, ranks));
    what = options_.mode == Mode::kFanIn ? peers + " senders to rank " + std::to_string(options_.fan_root) + " at once"
                                         : "rank " + std::to_string(options_.fan_root) + " to " + peers + " receivers at once";
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
  const std::vector<ReceiveRegion> regions = receives ? receive_regions(part) : std::vector<ReceiveRegion>{};
  RowCheck check;
  check.prepare = [this, bytes, part, regions](int c) {
    if (part.role == Role::kIdle) return;
    for (std::size_t first = 0; first < bytes; first += staging_.size()) {
      const std::size_t count = std::min(staging_.size(), bytes - first);
      for (std::size_t i = 0; i < count; ++i) staging_[i] = pattern_byte(world_.rank(), c, first + i);
      send_->copy_from_host(staging_.data(), first, count);
      for (const ReceiveRegion& region : regions) {
        for (std::size_t i = 0; i < count; ++i) staging_[i] = static_cast<unsigned char>(~pattern_byte(region.sender, c, first + i));
        recv_->copy_from_host(staging_.data(), region.offset + first, count);
      }
    }
  };
  check.count_wrong = [this, bytes, regions, corrupt](int c) -> std::int64_t {
    std::int64_t wrong = 0;
    bool corrupt_next = corrupt;
    for (const ReceiveRegion& region : regions) {
      for (std::size_t first = 0; first < bytes; first += staging_.size()) {
        const std::size_t count = std::min(staging_.size(), bytes - first);
        recv_->copy_to_host(staging_.data(), region.offset + first, count);
        if (corrupt_next) {
          staging_[0] = static_cast<unsigned char>(~staging_[0]);
          corrupt_next = false;
        }
        for (std::size_t i = 0; i < count; ++i) wrong += staging_[i] != pattern_byte(region.sender, c, first + i) ? 1 : 0;
      }
    }
    return wrong;
  };
  return check;
}

// Where this receiving rank's bytes arrive: from its one peer at the start of the buffer, or, on
// a fan-in root, from each sender into that sender's own slice.
std::vector<ReceiveRegion> Pt2ptWorkload::receive_regions(const Part& part) const {
  if (part.fan_peers.empty()) return {{0, part.peer}};
  std::vector<ReceiveRegion> regions;
  for (std::size_t k = 0; k < part.fan_peers.size(); ++k) regions.push_back({k * recv_slice_, part.fan_peers[k]});
  return regions;
}

CasePlan Pt2ptWorkload::prepare(std::size_t index) {
  const Pt2ptCase& one_case = cases_[index];
  // A fan posts to or from its K peers in one exchange; the other modes have one peer a rank.
  const std::size_t peers_at_once = is_fan(options_.mode) ? one_case.pairs.size() : 1;
  const std::string reason = backend_->point_to_point_unsupported(static_cast<std::size_t>(one_case.bytes), peers_at_once);
  const std::string what = "pt2pt " + to_string(options_.mode) + " " + link_text(options_.mode, one_case.pairs) + " at " +
                           std::to_string(one_case.bytes) + " B";
  if (!reason.empty()) return CasePlan::skip_what(what, reason);

  const Part part = part_of(world_.rank(), one_case.pairs);
  // Built once per case, so an iteration only walks them: no allocation inside the timed loop.
  auto steps = std::make_shared<const std::vector<std::vector<Transfer>>>(
      iteration_steps(options_.mode, part, options_.window, static_cast<std::size_t>(one_case.bytes),
                      {send_.get(), recv_.get(), ack_.get(), recv_slice_}));
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
// sender's time; a fan's root), their mean per iteration, and the row's figures from it; for a
// fan, every rank's own elapsed time too, for the peers' shares.
nlohmann::json Pt2ptWorkload::make_row(const Pt2ptCase& one_case, report::Measurement measured, const LoopResult& timed) {
  const int rank = world_.rank();
  const bool measuring = times_the_row(options_.mode, rank, one_case.pairs);
  std::vector<double> samples = measuring ? timed.mine_us : std::vector<double>(timed.mine_us.size(), 0.0);
  world_.combine(samples, Combine::kSum);
  const bool fan = is_fan(options_.mode);
  const double pairs = static_cast<double>(one_case.pairs.size());
  const double timers = fan ? 1.0 : pairs;  // a fan has one clock, its root's
  const bool latency = options_.mode == Mode::kLatency;
  for (double& sample : samples) sample = sample / timers / (latency ? 2.0 : 1.0);
  std::vector<double> elapsed_by_rank;  // each rank's timed iterations on its own clock, summed
  if (fan) {
    elapsed_by_rank.assign(static_cast<std::size_t>(world_.size()), 0.0);
    for (double sample : timed.mine_us) elapsed_by_rank[static_cast<std::size_t>(rank)] += sample;
    world_.combine(elapsed_by_rank, Combine::kSum);
  }
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
                        {"link", link_text(options_.mode, one_case.pairs)},
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
  if (fan) row["fan"] = fan_json(one_case, elapsed_by_rank, samples.size());
  if (options_.matrix) {
    LinkSamples& kept = matrix_[one_case.bytes][{first.src, first.dst}];
    kept.time_us.push_back(time.mean);
    kept.gbps.push_back(gbps);
  }
  return report::row_json(report::kPointToPointRows, std::move(row), measured);
}

// Rank 0: a fan row's own fields. The root's bytes over the root's elapsed time is the row's gbps;
// each peer's share is its own bytes over its own elapsed time, with their spread.
nlohmann::json Pt2ptWorkload::fan_json(const Pt2ptCase& one_case, const std::vector<double>& elapsed_by_rank, std::size_t iterations) const {
  const bool fan_in = options_.mode == Mode::kFanIn;
  const int root = fan_in ? one_case.pairs.front().dst : one_case.pairs.front().src;
  std::vector<int> peers;
  std::vector<std::string> peer_hosts;
  std::vector<double> peer_elapsed;
  for (const LinkPair& pair : one_case.pairs) {
    const int peer = fan_in ? pair.src : pair.dst;
    peers.push_back(peer);
    peer_hosts.push_back(hosts_[static_cast<std::size_t>(peer)]);
    peer_elapsed.push_back(elapsed_by_rank[static_cast<std::size_t>(peer)]);
  }
  const double root_elapsed = elapsed_by_rank[static_cast<std::size_t>(root)];
  const FanFigures figures = fan_figures(one_case.bytes, options_.window, iterations, root_elapsed, peer_elapsed);
  return {{"pattern", to_string(options_.mode)},
          {"root", root},
          {"root_host", hosts_[static_cast<std::size_t>(root)]},
          {"peers", peers},
          {"peer_hosts", peer_hosts},
          {"total_bytes", figures.total_bytes},
          {"elapsed_us", root_elapsed},
          {"root_gbps", figures.root_gbps},
          {"peer_bytes", figures.peer_bytes},
          {"peer_elapsed_us", peer_elapsed},
          {"peer_gbps", figures.peer_gbps},
          {"share_min_gbps", figures.share_min_gbps},
          {"share_median_gbps", figures.share_median_gbps},
          {"share_max_gbps", figures.share_max_gbps}};
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
    program.memory_need = [options](int world_size) { return memory_need(*options, world_size); };
    return program;
  });
}

}  // namespace collbench::pt2pt
