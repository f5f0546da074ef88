// pt2pt's reader view: the link matrix a pt2pt_perf --matrix report writes beside the envelope,
// typed for `collbench plot`'s heat map (the envelope, report.h, holds it untyped in
// kind_fields), and a fan row's own fields (--pattern fan-in|fan-out: Row::fields["fan"]).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/report.h"

namespace collbench::report {

// Each measured ordered link's figure per message size, [first rank][peer]; null where a link was
// not measured (the diagonal, peers not sampled).
struct LinkMatrixSize {
  std::uint64_t bytes = 0;
  std::vector<std::vector<std::optional<double>>> time_us;  // per message (latency: half the round trip)
  std::vector<std::vector<std::optional<double>>> gbps;
};
struct LinkMatrix {
  int ranks = 0;
  std::vector<std::string> hosts;  // every rank's host
  std::vector<LinkMatrixSize> sizes;
};

// A pt2pt report's link matrix, checked as read (every size's matrices square over the ranks,
// cells numbers or null); none for another kind or a run without --matrix. Throws
// ReportFormatError naming the key path.
std::optional<LinkMatrix> link_matrix_of(const Report& report);

// A fan row's root and peers (in the row's link order) and the peers' shares: each peer's bytes
// over its own elapsed time; the root's aggregate is the row's gbps.
struct FanShares {
  std::string pattern;  // "fan-in" or "fan-out"
  int root = 0;
  std::string root_host;
  std::vector<int> peers;
  std::vector<std::string> peer_hosts;
  std::vector<double> peer_gbps;
  double share_min_gbps = 0, share_median_gbps = 0, share_max_gbps = 0;
};

// A pt2pt row's fan, checked as read (one host and share per peer, the spread agreeing with the
// shares); none for a row of another mode. Throws ReportFormatError naming the key path.
std::optional<FanShares> fan_of(const Row& row);

// The kind table's check when a pt2pt report is read: the link matrix and every fan row.
void check_pt2pt_fields(const Report& report);

}  // namespace collbench::report
