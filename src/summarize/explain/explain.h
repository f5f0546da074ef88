// collbench explain: "is this number right?" Each collective report beside what its hardware
// should give: the path its bytes crossed (within a host: the GPUs' link or host memory; between
// hosts: the NICs), the expected bus bandwidth there (src/summarize/explain/expected_peaks.txt, an
// --expect file, or the host's measured memory ceiling), the fraction reached at the largest
// sizes, a verdict, the known reasons for a gap, and which sizes are latency- or bandwidth-bound
// by the report's own alpha-beta fit (collbench model's).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "summarize/common/document.h"
#include "summarize/explain/expected_peaks.h"
#include "summarize/common/load.h"

namespace collbench::summarize {

// A host's memory ceiling as memory traffic (bytes read plus written a second), from a membw_perf
// (STREAM's copy, which counts both), copy_perf (a host memcpy, counted once: doubled) or envcheck
// (the triad probe) report.
struct MemoryCeiling {
  double traffic_gbps = 0;
  std::string what;  // "membw_perf copy at 64M (r.json)"
};
// nullopt when no report is of those kinds; throws InputError when one is but holds no figure.
std::optional<MemoryCeiling> memory_ceiling_of(const std::vector<LoadedReport>& reports);

// The verdict's line: below this fraction of the expected figure a collective is `low`.
constexpr double kLowFraction = 0.7;

struct Reason {
  std::string code;  // nvls, tree, cache, small, one_nic, cpu_fallback, tcp, channels, nvlink_down, pcie_narrow
  std::string text;
};

// What one collective report should reach, from its inventory (context.machine).
struct Expectation {
  std::string path;                        // "inter-host: 4 NICs of 200 Gbit/s a host", "intra-host: nvlink4"
  std::optional<double> expected_gbps;     // busbw; none: cannot say
  bool line_rate_only = false;             // the entry gives no practical figure: compared with the line rate
  std::optional<double> line_gbps;         // the link's line rate (per host between hosts)
  int nics_per_host = 0;                   // between hosts: the NICs that count
  // The figure is an upper bound made from the host's memory ceiling, not a figure users see on a
  // link: a run below it is `low` in explain, but the summary's health says it as a note, never
  // check:, since MPI's shared-memory path reached 15-40 % of it on a clean 2-core VM
  // (results/explain/local, 2026-12-07) and a health column that flags every clean run cries wolf.
  bool upper_bound_only = false;
  std::string basis;                       // how the figure was made and its source
  std::string missing;                     // when expected_gbps is none: what is missing
  // A GPU run's entry: "nvml" (picked from the GPU's links, context.machine.gpu_inventory) or
  // "name" (from the model name, the table's gpu lines: no usable inventory, and pick_note says why).
  std::string picked_by;
  std::string pick_note;
  std::string inventory;                   // the facts the pick read: "NVIDIA H200 (9.0): 18 of 18 NVLinks up, ..."
  std::vector<Reason> link_reasons;        // what those facts say about a gap (a link down, a narrow PCIe link)
};

struct SizeRange {
  std::uint64_t from_bytes = 0, to_bytes = 0;
  std::string bound;  // "latency", "bandwidth" or "latency, then bandwidth"
  double alpha_us = 0, beta_gbps = 0;
  std::optional<std::uint64_t> crossover_bytes;  // where alpha equals m / beta, inside the range
};

struct Explanation {
  std::string report_path, benchmark, backend;
  int world_size = 0, hosts = 1;
  std::vector<SizeRange> ranges;
  std::string fit_note;                    // why there are no ranges (one size, ...)
  std::optional<double> busbw_gbps;        // the best of the two largest sizes
  std::uint64_t busbw_at_bytes = 0;
  std::optional<double> busbw_per_nic_gbps;
  Expectation expectation;
  std::optional<double> fraction;
  std::string verdict;                     // "ok", "low", "cannot say"
  std::vector<Reason> reasons;
  std::string gpu_inventory;               // the host's GPUs by NVML, one line; empty where none were read
};

// One line of what NVML reported on the report's host (context.machine.gpu_inventory, 2.10):
// "NVML: 8x NVIDIA H200 (9.0): 18 of 18 NVLinks up (NVLink 4.0), 18 to an NVSwitch; PCIe gen 5 x16
// (at most gen 5 x16)", "NVML not read: ..." or empty where the report has no inventory.
std::string gpu_inventory_line(const report::Report& report);

// Throws InputError only for reports it cannot read as collectives. Without fit_ranges the
// alpha-beta fit (a bootstrap: the slow part) is skipped and `ranges` stays empty.
Explanation explain_report(const LoadedReport& loaded, const ExpectedPeaks& peaks, const std::optional<MemoryCeiling>& ceiling,
                           bool fit_ranges = true);
Expectation expectation_of(const report::Report& report, const ExpectedPeaks& peaks, const std::optional<MemoryCeiling>& ceiling);

// The reports split: collective reports are explained, membw/copy/envcheck reports give the
// ceiling, others are left out with a note; InputError when no collective report is among them.
Document explain_document(const std::vector<LoadedReport>& reports, const ExpectedPeaks& peaks, const std::optional<MemoryCeiling>& ceiling);

// table --summary: an `of_expected` column beside the peak, and `check:` in the health column of
// a collective below kLowFraction of its expected figure, with the path and the reasons.
void add_expected_to_summary(Document& summary, const std::vector<LoadedReport>& reports, const ExpectedPeaks& peaks,
                             const std::optional<MemoryCeiling>& ceiling);

}  // namespace collbench::summarize
