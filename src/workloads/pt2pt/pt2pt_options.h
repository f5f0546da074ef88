// pt2pt_perf's options and the pure rules behind them: OSU's modes and iteration counts, the pairs
// a run measures (OSU's pair, mbw_mr's N/2 pairs, the link matrix and its sampled peers). No MPI,
// no backend: unit-tested as they are.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/sizes.h"
#include "harness/flag_groups.h"

namespace collbench::pt2pt {

// OSU's point-to-point tests: osu_latency, osu_bw, osu_bibw, osu_mbw_mr, and OSU 7's congestion
// tests osu_bw_fan_in and osu_bw_fan_out (chosen with --pattern, not --mode).
enum class Mode { kLatency, kBandwidth, kBidirectional, kMultiPair, kFanIn, kFanOut };
std::string to_string(Mode mode);                 // "latency", "bw", "bibw", "mbw_mr", "fan-in", "fan-out"
std::optional<Mode> parse_mode(const std::string& text);     // --mode's four
std::optional<Mode> parse_pattern(const std::string& text);  // --pattern's two
// K ranks to one (fan-in) or one to K (fan-out): the one rank is the fan's root.
inline bool is_fan(Mode mode) { return mode == Mode::kFanIn || mode == Mode::kFanOut; }

// OSU's window of non-blocking messages per iteration (osu_bw, osu_bibw, osu_mbw_mr: 64).
constexpr int kOsuWindow = 64;
// OSU's "large message" threshold: above it, fewer iterations (LARGE_MESSAGE_SIZE, 8192 bytes).
constexpr std::uint64_t kOsuLargeMessageBytes = 8192;
// The acknowledgement osu_bw waits for after each window (4 bytes).
constexpr std::size_t kAckBytes = 4;

struct Pt2ptOptions : RunFlags, BackendFlags {
  SizeSweep sweep{1, 1u << 20, 0, 2.0};  // OSU's point-to-point default: 1 B .. 1 MiB, doubling
  std::vector<std::uint64_t> explicit_sizes;  // --sizes
  bool sizes_given = false;                   // -b/-e/-i/-f or --sizes on the command line
  Mode mode = Mode::kLatency;
  int window = kOsuWindow;
  int pair_src = 0, pair_dst = 1;  // --pair: the two ranks of latency, bw and bibw (OSU: 0 and 1)
  bool matrix = false;             // --matrix: every ordered pair, one at a time
  int sample_peers = 0;            // --sample-peers K: K peers per rank (0: every peer)
  double slow_link_factor = 1.5;   // --slow-link-factor: flag links slower than this x their class's median
  int fan_root = 0;                // --root: the receiver of fan-in, the sender of fan-out
  int fan_peers = 0;               // --senders K: the fan's other end (0: every other rank)
  bool iterations_given = false, warmup_given = false;  // -n / -w given: they replace OSU's counts

  // The sizes the run measures: --sizes, the sweep, or for --matrix without sizes 8 B and 1 MiB.
  std::vector<std::uint64_t> requested_sizes() const;
};

// Parses argv (without argv[0]); throws UsageError with one sentence on any bad flag.
Pt2ptOptions parse_options(const std::vector<std::string>& args);
std::string usage_text();
// context.options: every flag as the run understood it, as its declaration records it.
nlohmann::json options_as_json(const Pt2ptOptions& options);

// OSU's iteration and warm-up counts for a mode and message size (osu_util.h): latency 10000 and
// 100 up to 8 KiB, 1000 and 10 above; the bandwidth tests 100 and 10, 20 and 2 above.
struct IterationCounts {
  int iterations = 0;
  int warmup = 0;
};
IterationCounts osu_iteration_counts(Mode mode, std::uint64_t bytes);
// The counts a case runs with: OSU's, unless -n or -w replaced them.
IterationCounts iteration_counts(const Pt2ptOptions& options, std::uint64_t bytes);

// One ordered pair: `src` starts (sends first, times), `dst` answers.
struct LinkPair {
  int src = 0;
  int dst = 0;
  bool operator==(const LinkPair& other) const { return src == other.src && dst == other.dst; }
};

// mbw_mr's pairs, as OSU makes them: rank i with rank i + N/2 for i < N/2 (an odd last rank idles).
std::vector<LinkPair> multi_pairs(int ranks);

// A fan's links, one per peer, from the data's sender to its receiver: fan-in `peer -> root`,
// fan-out `root -> peer`. The peers are the first `peers` ranks other than the root, in rank
// order (0: all of them).
std::vector<LinkPair> fan_pairs(Mode mode, int ranks, int root, int peers);

// The link matrix's schedule: for every rank in order, its peers in order; all N-1 of them, or
// `sample_peers` of them drawn with `seed` (the same draw on every rank and every run with that
// seed, whatever the standard library: a splitmix64 stream and a partial Fisher-Yates shuffle).
std::vector<LinkPair> matrix_pairs(int ranks, int sample_peers, std::uint64_t seed);

// Checks against the world, the same on every rank: --pair inside it and distinct, at least two
// ranks, --sample-peers below the world, --root inside it and --senders at most the other ranks.
// Throws UsageError.
void check_against_world(const Pt2ptOptions& options, int ranks);

}  // namespace collbench::pt2pt
