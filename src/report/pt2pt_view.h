// pt2pt's reader view: the link matrix a pt2pt_perf --matrix report writes beside the envelope,
// typed for `collbench plot`'s heat map. The envelope (report.h) holds it untyped in kind_fields.
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

}  // namespace collbench::report
