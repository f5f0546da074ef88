#include "workloads/pt2pt/pt2pt_options.h"

#include <CLI/CLI.hpp>

#include <algorithm>

#include "core/command_line.h"
#include "core/error.h"
#include "core/flag_values.h"
#include "core/values.h"

namespace collbench::pt2pt {
namespace {

constexpr std::uint64_t kMatrixSmallBytes = 8;
constexpr std::uint64_t kMatrixLargeBytes = 1u << 20;

bool given(const RunFlags& flags, const std::string& name) {
  return std::any_of(flags.given.begin(), flags.given.end(), [&name](const auto& flag) { return flag.first == name; });
}

// Every flag of pt2pt_perf, once: parse_options, usage_text and options_as_json read these.
void declare_options(CLI::App& app, Pt2ptOptions& o) {
  using Text = const std::string;
  start_section(app, "Sizes (K/M/G 1024-based; bandwidth in GB/s = 1e9 B/s, where OSU prints MB/s = 1e6 B/s)");
  const SweepFlags sweep = add_size_sweep(app, o.sweep, {"SIZE", "smallest message (default 1)", "largest message (default 1M)",
                                                         "additive step", "multiplicative step (default 2); conflicts with -i"});
  auto* sizes = add_size_list(app, sweep, o.explicit_sizes, "explicit sizes, e.g. 8,64K,1M (instead of -b/-e/-i/-f; --matrix default 8,1M)");
  record(app, {sweep.min, sweep.max, sweep.step, sweep.factor, sizes},
         [&o](nlohmann::json& out) { out["sizes_bytes"] = o.requested_sizes(); });
  start_section(app, "What is measured (OSU's point-to-point tests)");
  auto* mode = add_value(app, "--mode", "MODE",
            "latency: ping-pong between the pair, half the round trip (osu_latency; default)\n"
            "bw: a window of non-blocking sends, then a 4-byte acknowledgement (osu_bw)\n"
            "bibw: the window in both directions at once (osu_bibw)\n"
            "mbw_mr: N/2 pairs (rank i with i+N/2) at once: aggregate bandwidth and messages/s (osu_mbw_mr)",
            [&o](Text& v, Text& f) {
              const auto mode = parse_mode(v);
              if (!mode) throw UsageError("unknown mode '" + v + "' for " + f + " (use latency, bw, bibw or mbw_mr)");
              o.mode = *mode;
            });
  record(app, {mode}, [&o](nlohmann::json& out) { out["mode"] = to_string(o.mode); });
  auto* pattern = add_value(app, "--pattern", "PATTERN",
            "fan-in: K senders to one receiver at once, each osu_bw's window (osu_bw_fan_in)\n"
            "fan-out: one sender to K receivers at once (osu_bw_fan_out); instead of --mode",
            [&o](Text& v, Text& f) {
              const auto pattern = parse_pattern(v);
              if (!pattern) throw UsageError("unknown pattern '" + v + "' for " + f + " (use fan-in or fan-out)");
              o.mode = *pattern;
            });
  // Read by handlers, so that a run without --pattern records neither.
  auto* root = add_value(app, "--root", "R", "with --pattern, the one rank: fan-in's receiver, fan-out's sender (default 0)",
                         [&o](Text& v, Text& f) { o.fan_root = static_cast<int>(parse_integer(v, f, 0, 1 << 30)); });
  auto* senders = add_value(app, "--senders", "K", "with --pattern, the ranks at the other end, the first K other than --root\n"
                            "(fan-in's senders, fan-out's receivers; default: every other rank)",
                            [&o](Text& v, Text& f) { o.fan_peers = static_cast<int>(parse_integer(v, f, 1, 1 << 30)); });
  record(app, {pattern, root, senders}, [&o](nlohmann::json& out) {
    if (!is_fan(o.mode)) return;
    out["pattern"] = to_string(o.mode);
    out["root"] = o.fan_root;
    out["senders"] = o.fan_peers == 0 ? nlohmann::json("all") : nlohmann::json(o.fan_peers);
  });
  add_integer(app, "-W,--window", "messages in flight per iteration (and per peer with --pattern) for bw, bibw, mbw_mr\n"
              "and the fans (default 64, OSU's)", o.window, 1, 4096);
  auto* pair = add_value(app, "--pair", "A,B", "the two ranks of latency, bw and bibw (default 0,1; the others wait)", [&o](Text& v, Text& f) {
    const std::vector<std::string> ranks = split_list(v);
    if (ranks.size() != 2) throw UsageError(f + " expects two ranks A,B, got '" + v + "'");
    o.pair_src = static_cast<int>(parse_integer(ranks[0], f, 0, 1 << 30));
    o.pair_dst = static_cast<int>(parse_integer(ranks[1], f, 0, 1 << 30));
    if (o.pair_src == o.pair_dst) throw UsageError(f + " needs two different ranks, got " + v);
  });
  record(app, {pair}, [&o](nlohmann::json& out) {
    if (!o.matrix && o.mode != Mode::kMultiPair && !is_fan(o.mode)) out["pair"] = {o.pair_src, o.pair_dst};
  });
  add_flag(app, "--matrix", "every ordered pair of ranks, one pair at a time, the others waiting: a rank x rank\n"
           "time and bandwidth matrix per size, slow links flagged (exit 3)", o.matrix);
  auto* sample_peers = add_integer(app, "--sample-peers", "with --matrix, N peers per rank drawn with --seed instead of all (default: all)",
              o.sample_peers, 1, 1 << 30);
  auto* slow_link_factor = add_real(app, "--slow-link-factor", "X", "with --matrix, flag a link slower than X times the median link of its class\n"
           "(intra-host or inter-host) at that size (default 1.5)", o.slow_link_factor, 1.0, 1e6);
  record(app, {sample_peers}, [&o](nlohmann::json& out) {
    if (o.matrix) out["sample_peers"] = o.sample_peers == 0 ? nlohmann::json("all") : nlohmann::json(o.sample_peers);
  });
  record(app, {slow_link_factor}, [&o](nlohmann::json& out) {
    if (o.matrix) out["slow_link_factor"] = o.slow_link_factor;
  });
  add_backend_flags(app, o, "mpi, gloo or nccl (default: nccl when built with it and a GPU is visible, else mpi)");
  start_section(app, "Measurement (without -n/-w, OSU's counts per size: see the footer)");
  add_loop_flags(app, o);
  // The shared flags, with this program's defaults said: OSU's counts depend on the size.
  app.get_option("--iters")->description("timed iterations per size (default: OSU's for the mode and size, see below)");
  app.get_option("--warmup_iters")->description("untimed warm-up iterations per size (default: OSU's, see below)");
  // "osu" where OSU's counts per size were left in place.
  record(app, {app.get_option("--iters")}, [&o](nlohmann::json& out) {
    out["iterations"] = o.iterations_given ? nlohmann::json(o.iterations) : nlohmann::json("osu");
  });
  record(app, {app.get_option("--warmup_iters")}, [&o](nlohmann::json& out) {
    out["warmup_iterations"] = o.warmup_given ? nlohmann::json(o.warmup_iterations) : nlohmann::json("osu");
  });
  add_run_flags(app, o);
  add_seed_flag(app, o);
  app.get_option("--seed")->description("seed of --sample-peers' draw (default 1)");
  start_section(app, "Report");
  add_report_flags(app, o);
  add_help_flags(app, o);
  app.footer("OSU's counts (timed + warm-up): latency 10000+100 up to 8 KiB and 1000+10 above; bw, bibw and\n"
             "mbw_mr and the fans 100+10 up to 8 KiB and 20+2 above. -n or -w replaces them for every size, as OSU's -i and -x do.\n"
             "Exit codes: 0 ok, 1 runtime error, 2 bad usage, 3 wrong bytes or a slow link (--matrix), 4 timeout.");
}

// A number in [0, bound) without modulo bias.
std::uint64_t draw_below(std::uint64_t& state, std::uint64_t bound) {
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  for (;;) {
    const std::uint64_t value = splitmix64(state);  // core/values.h: the same draw on every rank
    if (value < limit) return value % bound;
  }
}

}  // namespace

std::string to_string(Mode mode) {
  switch (mode) {
    case Mode::kLatency: return "latency";
    case Mode::kBandwidth: return "bw";
    case Mode::kBidirectional: return "bibw";
    case Mode::kMultiPair: return "mbw_mr";
    case Mode::kFanIn: return "fan-in";
    case Mode::kFanOut: return "fan-out";
  }
  return "latency";
}

std::optional<Mode> parse_mode(const std::string& text) {
  for (Mode mode : {Mode::kLatency, Mode::kBandwidth, Mode::kBidirectional, Mode::kMultiPair}) {
    if (text == to_string(mode)) return mode;
  }
  return std::nullopt;
}

std::optional<Mode> parse_pattern(const std::string& text) {
  for (Mode mode : {Mode::kFanIn, Mode::kFanOut}) {
    if (text == to_string(mode)) return mode;
  }
  return std::nullopt;
}

std::vector<std::uint64_t> Pt2ptOptions::requested_sizes() const {
  if (!explicit_sizes.empty()) return explicit_sizes;
  if (matrix && !sizes_given) return {kMatrixSmallBytes, kMatrixLargeBytes};
  return expand_sweep(sweep);
}

Pt2ptOptions parse_options(const std::vector<std::string>& args) {
  Pt2ptOptions options = parse_declared(args, Pt2ptOptions{}, declare_options);
  options.sizes_given = given(options, "--sizes") || given(options, "--minbytes") || given(options, "--maxbytes") ||
                        given(options, "--stepbytes") || given(options, "--stepfactor");
  options.iterations_given = given(options, "--iters");
  options.warmup_given = given(options, "--warmup_iters");
  if (options.show_help || options.show_version) return options;
  if (options.matrix && options.mode == Mode::kMultiPair) {
    throw UsageError("--matrix measures one pair at a time; --mode mbw_mr runs every pair at once (use latency, bw or bibw)");
  }
  if (given(options, "--sample-peers") && !options.matrix) throw UsageError("--sample-peers needs --matrix");
  if (given(options, "--slow-link-factor") && !options.matrix) throw UsageError("--slow-link-factor needs --matrix");
  if (given(options, "--pair") && (options.matrix || options.mode == Mode::kMultiPair)) {
    throw UsageError("--pair names the one pair of latency, bw and bibw; --matrix and mbw_mr choose their own pairs");
  }
  if (given(options, "--pattern") && given(options, "--mode")) {
    throw UsageError("--pattern runs osu_bw's window from or to K ranks; it replaces --mode");
  }
  if (is_fan(options.mode)) {
    if (options.matrix) throw UsageError("--matrix measures one pair at a time; --pattern runs K links at once");
    if (given(options, "--pair")) throw UsageError("--pair names the one pair of latency, bw and bibw; --pattern takes --root and --senders");
  } else {
    if (given(options, "--root")) throw UsageError("--root needs --pattern fan-in or fan-out");
    if (given(options, "--senders")) throw UsageError("--senders needs --pattern fan-in or fan-out");
  }
  if (options.explicit_sizes.empty()) options.requested_sizes();  // validates the sweep now, on every rank at once
  return options;
}

std::string usage_text() {
  return declared_help("[mpirun -np N] pt2pt_perf [options]",
                       "Point-to-point latency and bandwidth with OSU's semantics (--mode), or the link matrix\n"
                       "(--matrix). Times in microseconds; GB/s = 1e9 bytes/s of message payload.",
                       Pt2ptOptions{}, declare_options);
}

nlohmann::json options_as_json(const Pt2ptOptions& options) { return recorded_options(options, declare_options); }

IterationCounts osu_iteration_counts(Mode mode, std::uint64_t bytes) {
  const bool large = bytes > kOsuLargeMessageBytes;
  if (mode == Mode::kLatency) return large ? IterationCounts{1000, 10} : IterationCounts{10000, 100};
  return large ? IterationCounts{20, 2} : IterationCounts{100, 10};
}

IterationCounts iteration_counts(const Pt2ptOptions& options, std::uint64_t bytes) {
  IterationCounts counts = osu_iteration_counts(options.mode, bytes);
  if (options.iterations_given) counts.iterations = options.iterations;
  if (options.warmup_given) counts.warmup = options.warmup_iterations;
  return counts;
}

std::vector<LinkPair> multi_pairs(int ranks) {
  std::vector<LinkPair> pairs;
  const int half = ranks / 2;
  for (int rank = 0; rank < half; ++rank) pairs.push_back({rank, rank + half});
  return pairs;
}

std::vector<LinkPair> fan_pairs(Mode mode, int ranks, int root, int peers) {
  std::vector<LinkPair> pairs;
  for (int rank = 0; rank < ranks && (peers == 0 || static_cast<int>(pairs.size()) < peers); ++rank) {
    if (rank == root) continue;
    pairs.push_back(mode == Mode::kFanIn ? LinkPair{rank, root} : LinkPair{root, rank});
  }
  return pairs;
}

std::vector<LinkPair> matrix_pairs(int ranks, int sample_peers, std::uint64_t seed) {
  std::vector<LinkPair> pairs;
  std::uint64_t state = seed;
  for (int src = 0; src < ranks; ++src) {
    std::vector<int> peers;
    for (int dst = 0; dst < ranks; ++dst) {
      if (dst != src) peers.push_back(dst);
    }
    if (sample_peers > 0 && static_cast<std::size_t>(sample_peers) < peers.size()) {
      // The first sample_peers places of a Fisher-Yates shuffle are a uniform draw without repeats.
      for (std::size_t place = 0; place < static_cast<std::size_t>(sample_peers); ++place) {
        const std::size_t chosen = place + static_cast<std::size_t>(draw_below(state, peers.size() - place));
        std::swap(peers[place], peers[chosen]);
      }
      peers.resize(static_cast<std::size_t>(sample_peers));
      std::sort(peers.begin(), peers.end());
    }
    for (int dst : peers) pairs.push_back({src, dst});
  }
  return pairs;
}

void check_against_world(const Pt2ptOptions& options, int ranks) {
  if (ranks < 2) {
    throw UsageError("pt2pt_perf needs at least 2 ranks (a pair), not " + std::to_string(ranks) +
                     " (launch with mpirun -np 2 or more, or WORLD_SIZE >= 2)");
  }
  const std::string world = " is outside the world of " + std::to_string(ranks) + " ranks (use 0.." + std::to_string(ranks - 1) + ")";
  if (is_fan(options.mode)) {
    if (options.fan_root >= ranks) throw UsageError("--root: rank " + std::to_string(options.fan_root) + world);
    if (options.fan_peers > ranks - 1) {
      throw UsageError("--senders " + std::to_string(options.fan_peers) + ": the root has only " + std::to_string(ranks - 1) +
                       " other ranks in a world of " + std::to_string(ranks));
    }
  }
  if (!options.matrix && options.mode != Mode::kMultiPair && !is_fan(options.mode)) {
    if (options.pair_src >= ranks) throw UsageError("--pair: rank " + std::to_string(options.pair_src) + world);
    if (options.pair_dst >= ranks) throw UsageError("--pair: rank " + std::to_string(options.pair_dst) + world);
  }
  if (options.matrix && options.sample_peers > ranks - 1) {
    throw UsageError("--sample-peers " + std::to_string(options.sample_peers) + ": a rank has only " + std::to_string(ranks - 1) +
                     " peers in a world of " + std::to_string(ranks) + " ranks");
  }
}

}  // namespace collbench::pt2pt
