#include "summarize/explain/explain.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <sstream>

#include "core/printable.h"
#include "summarize/common/input_error.h"
#include "summarize/models/model.h"
#include "summarize/tables/nccl_table.h"
#include "summarize/plots/plot.h"
#include "summarize/common/series.h"
#include "workloads/collectives/report/collective_rows.h"
#include "workloads/copy/report/copy_rows.h"
#include "workloads/envcheck/report/probe_rows.h"
#include "workloads/membw/report/stream_rows.h"

namespace collbench::summarize {
namespace {

std::string lower_case(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool is_ceiling_kind(report::RowKind kind) {
  return kind == report::kStreamRows || kind == report::kCopyRows || kind == report::kProbeRows;
}

// The sweep's own curve, as health_of reads it: out-of-place rows of the first dtype, op and root,
// first cycle, in size order.
std::vector<const report::Row*> curve_of(const report::Report& report) {
  std::vector<const report::Row*> curve;
  for (const auto& row : report.rows) {
    if (row.fields.value("placement", "") != "out" || row.cycle != 1) continue;
    if (!curve.empty()) {
      const auto& first = curve.front()->fields;
      if (row.fields.at("dtype") != first.at("dtype") || row.fields.at("op") != first.at("op") || row.fields.at("root") != first.at("root")) continue;
    }
    curve.push_back(&row);
  }
  std::sort(curve.begin(), curve.end(), [](const auto* a, const auto* b) { return a->size < b->size; });
  return curve;
}

// What the rows say NCCL ran (--capture-algo: "NVLS/Simple"; forced: "forced:Tree/*"), lowered.
std::string algorithms_of(const report::Report& report) {
  std::string all;
  for (const auto& row : report.rows) all += " " + lower_case(row.fields.value("algorithm", ""));
  return all;
}

std::string env_of(const report::Report& report, const std::string& name) {
  const auto it = report.context.env.find(name);
  return it == report.context.env.end() ? "" : it->second;
}

// Physical NICs with a speed, per host, as context.machine records them (2.8): per_host[].nics,
// else rank 0's machine.nics for every host.
std::vector<std::map<long, int>> nic_speeds_per_host(const report::Report& report) {
  std::vector<std::map<long, int>> hosts;
  const auto count = [](const nlohmann::json& nics, bool only_physical) {
    std::map<long, int> speeds;
    if (!nics.is_array()) return speeds;
    for (const auto& nic : nics) {
      if (!nic.is_object() || (only_physical && !nic.value("physical", false))) continue;
      const auto speed = nic.find("speed_mbit");
      if (speed != nic.end() && speed->is_number_integer() && speed->get<long>() > 0) ++speeds[speed->get<long>()];
    }
    return speeds;
  };
  const auto& machine = report.context.machine;
  if (const auto per_host = machine.find("per_host"); per_host != machine.end() && per_host->is_array()) {
    for (const auto& host : *per_host) {
      if (host.is_object() && host.contains("nics")) hosts.push_back(count(host.at("nics"), false));
    }
  }
  if (hosts.size() != std::max<std::size_t>(1, report.context.hosts.size()) && machine.contains("nics")) {
    hosts.assign(std::max<std::size_t>(1, report.context.hosts.size()), count(machine.at("nics"), true));
  }
  return hosts;
}

bool has_infiniband(const report::Report& report) {
  const auto& machine = report.context.machine;
  const auto look = [](const nlohmann::json& nics) {
    if (!nics.is_array()) return false;
    return std::any_of(nics.begin(), nics.end(), [](const nlohmann::json& nic) { return nic.is_object() && nic.value("kind", "") == "infiniband"; });
  };
  if (machine.contains("nics") && look(machine.at("nics"))) return true;
  if (const auto per_host = machine.find("per_host"); per_host != machine.end() && per_host->is_array()) {
    for (const auto& host : *per_host) {
      if (host.is_object() && host.contains("nics") && look(host.at("nics"))) return true;
    }
  }
  return false;
}

std::string gpu_model_of(const report::Report& report) {
  const auto gpus = report.context.machine.find("gpus");
  if (gpus == report.context.machine.end() || !gpus->is_array() || gpus->empty()) return "";
  return gpus->front().value("model", "");
}

// One GPU as context.machine.gpu_inventory records it (2.10); a field of another type reads as
// absent, so a hand-edited report cannot make explain throw.
struct GpuLinkFacts {
  std::string name, compute_capability;
  unsigned nvlinks = 0, active = 0, to_nvswitch = 0;
  std::optional<unsigned> version_code, pcie_generation, pcie_max_generation, pcie_width, pcie_max_width;
};

struct GpuInventory {
  bool present = false, read = false;
  std::string note;
  std::vector<GpuLinkFacts> gpus;
};

std::optional<unsigned> count_at(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return std::nullopt;
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer() || it->get<std::int64_t>() < 0 || it->get<std::int64_t>() > 1000000) return std::nullopt;
  return static_cast<unsigned>(it->get<std::int64_t>());
}

std::string text_at(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return "";
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

GpuInventory inventory_of(const report::Report& report) {
  GpuInventory inventory;
  const auto found = report.context.machine.find("gpu_inventory");
  if (found == report.context.machine.end() || !found->is_object()) return inventory;
  inventory.present = true;
  const auto read = found->find("read");
  inventory.read = read != found->end() && read->is_boolean() && read->get<bool>();
  inventory.note = text_at(*found, "note");
  const auto gpus = found->find("gpus");
  if (gpus == found->end() || !gpus->is_array()) return inventory;
  for (const auto& gpu : *gpus) {
    if (!gpu.is_object()) continue;
    GpuLinkFacts facts;
    facts.name = text_at(gpu, "name");
    facts.compute_capability = text_at(gpu, "compute_capability");
    const nlohmann::json nvlink = gpu.contains("nvlink") ? gpu.at("nvlink") : nlohmann::json();
    facts.nvlinks = count_at(nvlink, "links").value_or(0);
    facts.active = std::min(facts.nvlinks, count_at(nvlink, "active").value_or(0));
    facts.to_nvswitch = std::min(facts.active, count_at(nvlink, "to_nvswitch").value_or(0));
    facts.version_code = count_at(nvlink, "version_code");
    const nlohmann::json pcie = gpu.contains("pcie") ? gpu.at("pcie") : nlohmann::json();
    facts.pcie_generation = count_at(pcie, "generation");
    facts.pcie_max_generation = count_at(pcie, "max_generation");
    facts.pcie_width = count_at(pcie, "width");
    facts.pcie_max_width = count_at(pcie, "max_width");
    inventory.gpus.push_back(std::move(facts));
  }
  return inventory;
}

std::string pcie_text(const std::optional<unsigned>& generation, const std::optional<unsigned>& width) {
  return (generation ? formatted("gen %u", *generation) : std::string("gen ?")) + (width ? formatted(" x%u", *width) : std::string(" x?"));
}

// "NVIDIA H200 (9.0): 18 of 18 NVLinks up (NVML version code 6), 18 to an NVSwitch; PCIe gen 5 x16 (at most gen 5 x16)"
std::string facts_text(const GpuLinkFacts& gpu) {
  std::string text = printable(gpu.name.empty() ? "a GPU without a name" : gpu.name) + (gpu.compute_capability.empty() ? "" : " (" + printable(gpu.compute_capability) + ")") + ": ";
  if (gpu.nvlinks == 0) {
    text += "no NVLink";
  } else {
    text += formatted("%u of %u NVLinks up", gpu.active, gpu.nvlinks);
    if (gpu.version_code) text += formatted(" (NVML version code %u)", *gpu.version_code);
    text += gpu.to_nvswitch > 0 ? formatted(", %u to an NVSwitch", gpu.to_nvswitch) : std::string(gpu.active > 0 ? ", GPU to GPU (no NVSwitch)" : "");
  }
  return text + "; PCIe " + pcie_text(gpu.pcie_generation, gpu.pcie_width) + " (at most " + pcie_text(gpu.pcie_max_generation, gpu.pcie_max_width) + ")";
}

// The NVLink generation of a GPU: by its architecture (the compute capability's major: every GPU of
// one carries one NVLink generation), else by NVML's version code (nvmlNvlinkVersion_t: 1 is 1.0,
// 2 and 3 are 2.x, 4 and 5 are 3.x, 6 is 4.0, 7 is 5.0). The architecture comes first because
// NVML's code has been seen to say 5.0 on an H100 (vLLM's benchmarks work around it).
std::optional<int> nvlink_generation(const GpuLinkFacts& gpu, std::string& disagreement) {
  static const int kByCode[] = {0, 1, 2, 2, 3, 3, 4, 5};
  std::optional<int> by_code;
  if (gpu.version_code && *gpu.version_code < sizeof(kByCode) / sizeof(kByCode[0]) && *gpu.version_code > 0) by_code = kByCode[*gpu.version_code];
  std::optional<int> by_architecture;
  const int major = std::atoi(gpu.compute_capability.c_str());
  if (major >= 6 && major <= 10) by_architecture = major - 5;  // Pascal 1, Volta 2, Ampere 3, Hopper 4, Blackwell 5
  if (by_architecture && by_code && *by_architecture != *by_code) {
    disagreement = formatted("NVML's version code %u says NVLink %d, compute capability %s says %d: taken as %d", *gpu.version_code, *by_code,
                             printable(gpu.compute_capability).c_str(), *by_architecture, *by_architecture);
  }
  return by_architecture ? by_architecture : by_code;
}

// An entry's figure: its practical busbw, or its line rate (said so).
void take_entry(Expectation& expectation, const LinkPeak& peak, double times, const std::string& what) {
  expectation.line_rate_only = !peak.practical_gbps;
  expectation.expected_gbps = peak.practical_gbps.value_or(peak.line_gbps) * times;
  expectation.line_gbps = peak.line_gbps * times;
  expectation.basis = what + ": " + (peak.practical_gbps ? formatted("%.4g GB/s busbw", *peak.practical_gbps) : formatted("line rate %.4g GB/s (no practical figure)", peak.line_gbps)) +
                      (times != 1 ? formatted(" x %g", times) : std::string()) + " (" + peak.name + ", " + peak.origin + "; source: " + peak.source + ")";
}

// NCCL's all_reduce on NVSwitches that reduce (NVLS) is what users see there unless the run says
// otherwise: an algorithm captured or forced without NVLS, or NCCL_NVLS_ENABLE=0. The source's
// figure is for 8 GPUs of one host, so fewer ranks keep the link's own entry.
bool runs_nvls(const report::Report& report, const std::string& algorithms) {
  if (algorithms.find("nvls") != std::string::npos) return true;
  // Rows say "default" where the backend could not tell what ran (no --capture-algo, nothing forced).
  std::istringstream words(algorithms);
  for (std::string word; words >> word;) {
    if (word != "default") return false;
  }
  const std::string forced = lower_case(env_of(report, "NCCL_ALGO"));
  return report.context.world_size >= 8 && env_of(report, "NCCL_NVLS_ENABLE") != "0" && (forced.empty() || forced.find("nvls") != std::string::npos);
}

// The entry of a GPU run picked from its links as NVML reported them: NVLinks to an NVSwitch give
// nvlink<generation> (its -nvls entry for all_reduce where NVLS runs), scaled by the links up of
// those NVML lists; no NVLink up gives pcie<generation>-x16, scaled by the lanes. False, with
// why_not, where the inventory cannot pick (the name mapping is then used).
bool pick_from_inventory(Expectation& expectation, const report::Report& report, const ExpectedPeaks& peaks, const std::string& gpu, std::string& why_not) {
  const GpuInventory inventory = inventory_of(report);
  if (!inventory.present) {
    why_not = "the report has no NVML inventory (context.machine.gpu_inventory, schema 2.10)";
    return false;
  }
  if (!inventory.read) {
    why_not = "NVML was not read on the run's host (" + printable(inventory.note) + ")";
    return false;
  }
  const GpuLinkFacts* slowest = nullptr;  // the GPU of this model with the fewest links up bounds a collective
  int count = 0;
  for (const auto& facts : inventory.gpus) {
    if (facts.name != gpu) continue;
    ++count;
    if (!slowest || facts.active < slowest->active || (facts.active == slowest->active && facts.pcie_width < slowest->pcie_width)) slowest = &facts;
  }
  if (!slowest) {
    why_not = "NVML lists no GPU named '" + printable(gpu) + "'";
    return false;
  }
  const GpuLinkFacts& facts = *slowest;
  expectation.inventory = (count > 1 ? formatted("%dx ", count) : std::string()) + facts_text(facts);
  if (facts.active > 0) {
    if (facts.to_nvswitch == 0) {
      why_not = "its NVLinks join GPUs directly (no NVSwitch, by NVML), and the table's NVLink entries are for NVSwitch systems";
      return false;
    }
    std::string disagreement;
    const std::optional<int> generation = nvlink_generation(facts, disagreement);
    if (!generation) {
      why_not = "NVML gives neither a compute capability nor an NVLink version";
      return false;
    }
    const std::string key = formatted("nvlink%d", *generation);
    const LinkPeak* link = peaks.link(key);
    if (!link) {
      why_not = "no entry '" + key + "' in the table for NVLink " + std::to_string(*generation);
      return false;
    }
    if (report.benchmark == "all_reduce" && runs_nvls(report, algorithms_of(report))) {
      if (const LinkPeak* nvls = peaks.link(key + "-nvls")) link = nvls;
    }
    const double up = static_cast<double>(facts.active) / facts.nvlinks;
    if (facts.active < facts.nvlinks) {
      expectation.link_reasons.push_back({"nvlink_down", formatted("%u of the GPU's %u NVLinks are down (NVML): the expected figure is scaled to the %u up", facts.nvlinks - facts.active,
                                                                   facts.nvlinks, facts.active)});
    }
    expectation.path = "intra-host: " + link->name;
    expectation.picked_by = "nvml";
    expectation.pick_note = disagreement;
    take_entry(expectation, *link, up, "within the host, by NVML: " + expectation.inventory);
    return true;
  }
  const std::optional<unsigned> generation = facts.pcie_max_generation ? facts.pcie_max_generation : facts.pcie_generation;
  const std::optional<unsigned> width = facts.pcie_width ? facts.pcie_width : facts.pcie_max_width;
  if (!generation || !width) {
    why_not = "NVML gives no NVLink up and no PCIe generation and width";
    return false;
  }
  const std::string key = formatted("pcie%u-x16", *generation);
  const LinkPeak* link = peaks.link(key);
  if (!link) {
    why_not = "no entry '" + key + "' in the table for PCIe gen " + std::to_string(*generation);
    return false;
  }
  if (facts.pcie_max_width && *width < *facts.pcie_max_width) {
    expectation.link_reasons.push_back({"pcie_narrow", formatted("the GPU's PCIe link runs at x%u of its x%u lanes (NVML): the expected figure is scaled to them", *width,
                                                                 *facts.pcie_max_width)});
  }
  expectation.path = "intra-host: " + link->name;
  expectation.picked_by = "nvml";
  take_entry(expectation, *link, *width / 16.0, "within the host over PCIe, by NVML: " + expectation.inventory);
  return true;
}

std::vector<SizeRange> ranges_of(const LoadedReport& loaded, std::string& note) {
  std::vector<SizeRange> ranges;
  Model model;
  try {
    model = fit_model({loaded});
  } catch (const InputError& e) {
    note = std::string("no alpha-beta fit: ") + e.what();
    return ranges;
  }
  // The out-of-place series of the first dtype; captured algorithms split it by size, so every
  // series that differs from the first only in its algorithm label counts.
  const auto without_algorithm = [](SeriesKey key) {
    key.erase(std::remove_if(key.begin(), key.end(), [](const auto& field) { return field.first == "algorithm"; }), key.end());
    return key;
  };
  std::optional<SeriesKey> chosen;
  for (const auto& series : model.series) {
    const auto placement = std::find_if(series.key.begin(), series.key.end(), [](const auto& field) { return field.first == "placement"; });
    if (placement == series.key.end() || placement->second != "out" || series.per_world_size.empty()) continue;
    if (!chosen) chosen = without_algorithm(series.key);
    if (without_algorithm(series.key) != *chosen) continue;
    for (const auto& piece : series.per_world_size.front().pieces) {
      SizeRange range;
      range.from_bytes = piece.from_bytes;
      range.to_bytes = piece.to_bytes;
      range.alpha_us = piece.alpha_us.value;
      range.beta_gbps = piece.beta_gbps.value;
      // alpha = m / beta where m = alpha (us) x beta (GB/s = 1e3 B/us).
      const double crossover = range.alpha_us * range.beta_gbps * 1e3;
      if (!(range.beta_gbps > 0) || crossover >= static_cast<double>(range.to_bytes)) {
        range.bound = "latency";
      } else if (crossover <= static_cast<double>(range.from_bytes)) {
        range.bound = "bandwidth";
      } else {
        range.bound = "latency, then bandwidth";
        range.crossover_bytes = static_cast<std::uint64_t>(crossover);
      }
      ranges.push_back(range);
    }
  }
  std::sort(ranges.begin(), ranges.end(), [](const SizeRange& a, const SizeRange& b) { return a.from_bytes < b.from_bytes; });
  if (ranges.empty()) note = "no alpha-beta fit: no out-of-place rows to fit";
  return ranges;
}

}  // namespace

std::optional<MemoryCeiling> memory_ceiling_of(const std::vector<LoadedReport>& reports) {
  std::optional<MemoryCeiling> best;
  for (const auto& loaded : reports) {
    const report::RowKind kind = loaded.report.kind;
    if (!is_ceiling_kind(kind)) continue;
    std::optional<double> traffic;
    std::string what;
    for (const auto& row : loaded.report.rows) {
      double gbps = 0;
      std::string label;
      if (kind == report::kStreamRows) {
        // STREAM's copy counts the bytes read and written: memory traffic as it is.
        if (row.fields.value("kernel", "") != "copy" || row.fields.value("cache_resident", false) || !headline(row)) continue;
        gbps = *headline(row);
        label = "membw_perf copy at " + size_tick_label(row.size);
      } else if (kind == report::kCopyRows) {
        // A host memcpy counts each byte once; it was read and written.
        if (row.fields.value("memory", "host") != "host" || row.fields.value("cache_resident", false) || !headline(row)) continue;
        gbps = 2 * *headline(row);
        label = "copy_perf memcpy at " + size_tick_label(row.size) + ", doubled (read and written)";
      } else {
        const auto triad = row.fields.find("probes");
        if (triad == row.fields.end() || !triad->is_object() || !triad->contains("triad_gbps") || !triad->at("triad_gbps").is_number()) continue;
        gbps = triad->at("triad_gbps").get<double>();
        label = "envcheck triad probe";
      }
      if (gbps > 0 && (!traffic || gbps > *traffic)) {
        traffic = gbps;
        what = label;
      }
    }
    if (!traffic) throw InputError(loaded.path + ": a " + report::row_kind_spec(kind).name + " report without a memory figure past the caches to take as the ceiling");
    if (!best || *traffic > best->traffic_gbps) best = MemoryCeiling{*traffic, what + " (" + loaded.path + ")"};
  }
  return best;
}

Expectation expectation_of(const report::Report& report, const ExpectedPeaks& peaks, const std::optional<MemoryCeiling>& ceiling) {
  Expectation expectation;
  const int hosts = std::max<int>(1, static_cast<int>(report.context.hosts.size()));
  if (hosts > 1) {
    if (const LinkPeak* link = peaks.link("inter-host")) {
      expectation.path = "inter-host";
      expectation.nics_per_host = 1;
      take_entry(expectation, *link, 1, "between hosts, from --expect");
      return expectation;
    }
    const auto per_host = nic_speeds_per_host(report);
    if (per_host.empty() || per_host.front().empty()) {
      expectation.path = "inter-host";
      expectation.missing = "no NIC speed in the report's inventory (context.machine.nics, schema 2.8; a VM's NIC may report none): give --expect with an inter-host entry";
      return expectation;
    }
    // The fastest speed of the first host, counted on every host (the fewest count).
    const long speed = per_host.front().rbegin()->first;
    int nics = per_host.front().rbegin()->second;
    for (const auto& host : per_host) nics = std::min(nics, host.count(speed) ? host.at(speed) : 0);
    const std::string key = formatted("nic-%ldg", speed / 1000);
    expectation.nics_per_host = nics;
    expectation.path = formatted("inter-host: %d NIC(s) of %g Gbit/s a host", nics, speed / 1000.0);
    const LinkPeak* link = peaks.link(key);
    if (!link || nics == 0) {
      expectation.missing = !link ? "no entry '" + key + "' for a " + formatted("%g", speed / 1000.0) + " Gbit/s NIC in the table: give one with --expect"
                                  : "a host without a NIC of that speed";
      return expectation;
    }
    // NCCL cannot spread an alltoall over several NICs (NVIDIA/nccl-tests#267, sjeaugey, 2024-11-19).
    const bool one_nic_only = report.benchmark == "alltoall";
    take_entry(expectation, *link, one_nic_only ? 1 : nics, one_nic_only ? "between hosts, alltoall: one NIC's figure (NVIDIA/nccl-tests#267)" : "between hosts");
    return expectation;
  }
  if (const LinkPeak* link = peaks.link("intra-host")) {
    expectation.path = "intra-host";
    take_entry(expectation, *link, 1, "within the host, from --expect");
    return expectation;
  }
  const std::string gpu = gpu_model_of(report);
  if (!gpu.empty()) {
    std::string why_not;
    if (pick_from_inventory(expectation, report, peaks, gpu, why_not)) return expectation;
    // No pick from the links: the table's gpu lines, by the model's name, said so.
    expectation.link_reasons.clear();
    expectation.picked_by = "name";
    expectation.pick_note = "picked by the GPU's name, not its links: " + why_not;
    const LinkPeak* link = peaks.link_of_gpu(gpu);
    if (!link) {
      expectation.path = "intra-host: " + gpu;
      expectation.missing = "no entry for the GPU '" + gpu + "' in the table: give a gpu line (or an intra-host link) with --expect";
      return expectation;
    }
    if (report.benchmark == "all_reduce" && algorithms_of(report).find("nvls") != std::string::npos) {
      if (const LinkPeak* nvls = peaks.link(link->name + "-nvls")) link = nvls;
    }
    expectation.path = "intra-host: " + link->name;
    take_entry(expectation, *link, 1, "within the host, " + gpu);
    return expectation;
  }
  expectation.path = "intra-host: host memory";
  if (!ceiling) {
    expectation.missing = "no memory ceiling: give --ceilings with a membw_perf, copy_perf or envcheck report, or put one among the reports";
    return expectation;
  }
  // A byte between two ranks of a host is copied into the shared segment and out of it: two
  // copies, each a read and a write, so a quarter of the memory traffic the host sustains. A
  // reduction reads the received byte and its own and writes the sum: five accesses, a fifth.
  const bool reduces = report.benchmark == "all_reduce" || report.benchmark == "reduce" || report.benchmark == "reduce_scatter";
  const double accesses = reduces ? 5 : 4;
  expectation.expected_gbps = ceiling->traffic_gbps / accesses;
  expectation.upper_bound_only = true;
  expectation.line_gbps = ceiling->traffic_gbps;
  expectation.basis = formatted("host memory: %s of the measured %.4g GB/s of memory traffic (a byte between ranks is written into the shared segment and read out%s); ",
                                reduces ? "a fifth" : "a quarter", ceiling->traffic_gbps,
                                reduces ? ", then read with the rank's own and the sum written: five accesses" : ": four accesses") + ceiling->what;
  return expectation;
}

Explanation explain_report(const LoadedReport& loaded, const ExpectedPeaks& peaks, const std::optional<MemoryCeiling>& ceiling, bool fit_ranges) {
  const report::Report& report = loaded.report;
  if (report.kind != report::kCollectiveRows) {
    throw InputError(loaded.path + ": explain reads collective reports, and membw_perf, copy_perf or envcheck reports as the memory ceiling (this one holds " +
                     report::row_kind_spec(report.kind).name + " rows)");
  }
  Explanation explanation;
  explanation.report_path = loaded.path;
  explanation.benchmark = report.benchmark;
  explanation.backend = report.context.backend;
  explanation.world_size = report.context.world_size;
  explanation.hosts = std::max<int>(1, static_cast<int>(report.context.hosts.size()));
  if (fit_ranges) explanation.ranges = ranges_of(loaded, explanation.fit_note);
  explanation.expectation = expectation_of(report, peaks, ceiling);
  const Expectation& expected = explanation.expectation;

  const auto curve = curve_of(report);
  const report::Row* best = nullptr;
  for (std::size_t i = curve.size() >= 2 ? curve.size() - 2 : 0; i < curve.size(); ++i) {
    if (headline(*curve[i]) && (!best || *headline(*curve[i]) > *headline(*best))) best = curve[i];
  }
  if (best) {
    explanation.busbw_gbps = headline(*best);
    explanation.busbw_at_bytes = best->size;
  }
  if (explanation.hosts > 1 && expected.nics_per_host > 0 && explanation.busbw_gbps) {
    explanation.busbw_per_nic_gbps = *explanation.busbw_gbps / expected.nics_per_host;
  }
  if (!explanation.busbw_gbps) {
    explanation.verdict = "cannot say";
    explanation.expectation.missing = explanation.world_size == 1 ? "one rank: no bus bandwidth (nothing crosses a link)" : "no bus bandwidth at the largest sizes";
  } else if (!expected.expected_gbps) {
    explanation.verdict = "cannot say";
  } else {
    explanation.fraction = *explanation.busbw_gbps / *expected.expected_gbps;
    explanation.verdict = *explanation.fraction < kLowFraction ? "low" : "ok";
  }

  // The known reasons, where the report shows them.
  const double busbw = explanation.busbw_gbps.value_or(0);
  const std::string algorithms = algorithms_of(report);
  const bool gpu = !gpu_model_of(report).empty();
  auto& reasons = explanation.reasons;
  const bool nvls_entry = expected.path.size() > 5 && expected.path.compare(expected.path.size() - 5, 5, "-nvls") == 0;
  if (gpu && report.benchmark == "all_reduce" && explanation.hosts == 1 &&
      (nvls_entry || algorithms.find("nvls") != std::string::npos || (expected.line_gbps && busbw > *expected.line_gbps))) {
    reasons.push_back({"nvls", "NVLS: the NVSwitch reduces in the switch, so all_reduce's busbw is not bandwidth on the wire and can pass the link's line rate (NVIDIA/nccl-tests#212)"});
  }
  if (explanation.hosts > 1 && report.benchmark == "all_reduce" &&
      (algorithms.find("tree") != std::string::npos || (expected.line_gbps && busbw > *expected.line_gbps))) {
    reasons.push_back({"tree", "a tree (or NVLS tree) all_reduce sends fewer bytes between hosts than busbw's ring factor counts, so busbw at a few hosts can pass the NICs' rate (NVIDIA/nccl#812)"});
  }
  // The latency term still at or above the bandwidth term at the largest size: busbw there says
  // little of the link (nccl-tests#212: "256M is too small to reach peak bandwidth").
  if (best && !explanation.ranges.empty()) {
    const SizeRange& last = explanation.ranges.back();
    if (last.beta_gbps > 0 && last.alpha_us >= static_cast<double>(best->size) / (last.beta_gbps * 1e3)) {
      reasons.push_back({"small", formatted("latency-bound at the largest size: alpha %.3g us is at least the bandwidth term of %s (%.3g us); sweep larger sizes (-e) to see the link",
                                            last.alpha_us, size_tick_label(best->size).c_str(), static_cast<double>(best->size) / (last.beta_gbps * 1e3))});
    }
  }
  if (!gpu && explanation.hosts == 1 && best && row_fits_in_a_cache(report, *best)) {
    reasons.push_back({"cache", "cache-resident rows: the largest size's buffers (about 2x " + size_tick_label(best->size) +
                                    " a rank) fit in a cache the report names, so busbw measures the cache, not memory; sweep past the last-level cache (-e) to measure memory"});
  }
  const std::string hca = env_of(report, "NCCL_IB_HCA");
  if (explanation.hosts > 1 && expected.nics_per_host > 1 && report.benchmark != "alltoall" && expected.expected_gbps &&
      (busbw <= 1.25 * *expected.expected_gbps / expected.nics_per_host || (!hca.empty() && hca.find(',') == std::string::npos))) {
    reasons.push_back({"one_nic", formatted("one NIC of %d: busbw is about one NIC's figure", expected.nics_per_host) +
                                      (hca.empty() ? std::string("") : " (NCCL_IB_HCA=" + hca + " names one)")});
  }
  if (report.context.backend != "nccl" && (report.context.versions.count("cuda_driver") || report.context.versions.count("nccl"))) {
    reasons.push_back({"cpu_fallback", "CPU fallback: the " + report.context.backend + " backend moved host memory on a machine with a GPU driver"});
  }
  if (explanation.hosts > 1 && has_infiniband(report)) {
    std::string tcp;
    if (report.context.backend == "gloo") tcp = "the gloo backend (TCP)";
    if (env_of(report, "NCCL_IB_DISABLE") == "1") tcp = "NCCL_IB_DISABLE=1";
    if (lower_case(env_of(report, "NCCL_NET")) == "socket") tcp = "NCCL_NET=Socket";
    if (env_of(report, "OMPI_MCA_btl").find("tcp") != std::string::npos) tcp = "OMPI_MCA_btl=" + env_of(report, "OMPI_MCA_btl");
    if (!tcp.empty()) reasons.push_back({"tcp", "TCP where RDMA was expected: the hosts have InfiniBand ports, but " + tcp});
  }
  for (const char* name : {"NCCL_MAX_NCHANNELS", "NCCL_MIN_NCHANNELS", "NCCL_MAX_CTAS", "NCCL_MIN_CTAS"}) {
    const std::string value = env_of(report, name);
    if (!value.empty()) reasons.push_back({"channels", std::string("channels set by ") + name + "=" + value + ": fewer channels drive fewer links and SMs"});
  }
  reasons.insert(reasons.end(), expected.link_reasons.begin(), expected.link_reasons.end());
  explanation.gpu_inventory = gpu_inventory_line(report);
  return explanation;
}

std::string gpu_inventory_line(const report::Report& report) {
  const GpuInventory inventory = inventory_of(report);
  if (!inventory.present) return "";
  if (!inventory.read) return "NVML not read: " + printable(inventory.note);
  if (inventory.gpus.empty()) return "NVML: no GPU";
  // Alike GPUs once, with their count, in NVML's order.
  std::vector<std::pair<std::string, int>> kinds;
  for (const auto& gpu : inventory.gpus) {
    const std::string text = facts_text(gpu);
    const auto it = std::find_if(kinds.begin(), kinds.end(), [&text](const auto& kind) { return kind.first == text; });
    if (it == kinds.end()) kinds.push_back({text, 1});
    else ++it->second;
  }
  std::string line = "NVML: ";
  for (std::size_t i = 0; i < kinds.size(); ++i) line += (i ? "; " : "") + (kinds[i].second > 1 ? formatted("%dx ", kinds[i].second) : std::string()) + kinds[i].first;
  return line;
}

namespace {

std::string fraction_text(const std::optional<double>& fraction) { return fraction ? formatted("%.0f %%", 100 * *fraction) : "n/a"; }

std::string reasons_text(const std::vector<Reason>& reasons) {
  std::string text;
  for (const auto& reason : reasons) text += (text.empty() ? "" : "; ") + reason.text;
  return text;
}

std::string range_words(const SizeRange& range) {
  std::string text = size_tick_label(range.from_bytes) + " to " + size_tick_label(range.to_bytes) + ": ";
  if (range.bound == "latency") return text + formatted("latency-bound (alpha %.3g us)", range.alpha_us);
  if (range.bound == "bandwidth") return text + formatted("bandwidth-bound (beta %.3g GB/s; alpha %.3g us)", range.beta_gbps, range.alpha_us);
  return text + formatted("latency-bound below %s, bandwidth-bound above (alpha %.3g us, beta %.3g GB/s)", size_tick_label(*range.crossover_bytes).c_str(),
                          range.alpha_us, range.beta_gbps);
}

// The explanation in plain words, one paragraph a report.
std::string words_of(const Explanation& e) {
  std::string text = e.benchmark + formatted(" at %d rank(s) on %d host(s) (", e.world_size, e.hosts) + e.report_path + "): ";
  for (const auto& range : e.ranges) text += range_words(range) + "; ";
  if (!e.fit_note.empty()) text += e.fit_note + "; ";
  if (e.busbw_gbps) text += formatted("busbw %.4g GB/s at %s", *e.busbw_gbps, size_tick_label(e.busbw_at_bytes).c_str());
  if (e.busbw_per_nic_gbps) text += formatted(" (%.4g GB/s a NIC)", *e.busbw_per_nic_gbps);
  const Expectation& x = e.expectation;
  if (e.fraction) {
    text += formatted(", %s of the expected %.4g GB/s", fraction_text(e.fraction).c_str(), *x.expected_gbps) + " over " + x.path + ": " + e.verdict +
            (e.verdict == "low" ? formatted(" (below %.0f %%)", 100 * kLowFraction) : std::string()) + ". Expected: " + x.basis + ".";
  } else {
    text += std::string(e.busbw_gbps ? "; " : "") + "cannot say over " + x.path + ": " + x.missing + ".";
  }
  if (!x.pick_note.empty()) text += " (" + x.pick_note + ")";
  if (!e.reasons.empty()) text += " Reasons: " + reasons_text(e.reasons) + ".";
  // The host's GPUs where NVML listed some and the entry was not picked from them (a CPU run on a
  // GPU host, or a name pick): what the links were, beside what was expected.
  if (e.gpu_inventory.rfind("NVML: ", 0) == 0 && e.gpu_inventory != "NVML: no GPU" && x.picked_by != "nvml") text += " GPUs of the host: " + e.gpu_inventory + ".";
  return text;
}

nlohmann::json json_of(const Explanation& e) {
  nlohmann::json ranges = nlohmann::json::array();
  for (const auto& r : e.ranges) {
    ranges.push_back({{"from_bytes", r.from_bytes}, {"to_bytes", r.to_bytes}, {"bound", r.bound}, {"alpha_us", r.alpha_us}, {"beta_gbps", r.beta_gbps},
                      {"crossover_bytes", r.crossover_bytes ? nlohmann::json(*r.crossover_bytes) : nlohmann::json(nullptr)}});
  }
  nlohmann::json reasons = nlohmann::json::array();
  for (const auto& reason : e.reasons) reasons.push_back({{"code", reason.code}, {"text", reason.text}});
  const auto or_null = [](const std::optional<double>& value) { return value ? nlohmann::json(*value) : nlohmann::json(nullptr); };
  const Expectation& x = e.expectation;
  return {{"report", e.report_path}, {"benchmark", e.benchmark}, {"backend", e.backend}, {"world_size", e.world_size}, {"hosts", e.hosts},
          {"ranges", ranges}, {"fit_note", e.fit_note}, {"busbw_gbps", or_null(e.busbw_gbps)}, {"busbw_at_bytes", e.busbw_at_bytes},
          {"busbw_per_nic_gbps", or_null(e.busbw_per_nic_gbps)},
          {"expected", {{"path", x.path}, {"busbw_gbps", or_null(x.expected_gbps)}, {"line_rate_only", x.line_rate_only}, {"line_gbps", or_null(x.line_gbps)},
                        {"nics_per_host", x.nics_per_host}, {"basis", x.basis}, {"missing", x.missing}, {"picked_by", x.picked_by},
                        {"pick_note", x.pick_note}, {"inventory", x.inventory}}},
          {"gpu_inventory", e.gpu_inventory.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.gpu_inventory)},
          {"fraction", or_null(e.fraction)}, {"low_below", kLowFraction}, {"verdict", e.verdict}, {"reasons", reasons},
          {"words", words_of(e)}};
}

}  // namespace

Document explain_document(const std::vector<LoadedReport>& reports, const ExpectedPeaks& peaks, const std::optional<MemoryCeiling>& ceiling) {
  Table table;
  table.title = "Explanation";
  table.columns = {{"benchmark"}, {"ranks"}, {"hosts"}, {"path"}, {"busbw_gbps", 3}, {"at"}, {"expected_gbps", 3}, {"of_expected"}, {"verdict"}, {"reasons"}};
  Table::Group group;
  Document document;
  nlohmann::json all = nlohmann::json::array();
  for (const auto& loaded : reports) {
    if (is_ceiling_kind(loaded.report.kind)) continue;
    if (loaded.report.kind != report::kCollectiveRows) {
      document.notes.push_back(loaded.path + ": left out, a " + report::row_kind_spec(loaded.report.kind).name + " report (explain reads collectives)");
      continue;
    }
    const Explanation e = explain_report(loaded, peaks, ceiling);
    std::string codes;
    for (const auto& reason : e.reasons) codes += (codes.empty() ? "" : ",") + reason.code;
    group.rows.push_back({e.benchmark, e.world_size, e.hosts, e.expectation.path, e.busbw_gbps ? nlohmann::json(*e.busbw_gbps) : nlohmann::json(nullptr),
                          e.busbw_gbps ? nlohmann::json(size_tick_label(e.busbw_at_bytes)) : nlohmann::json(nullptr),
                          e.expectation.expected_gbps ? nlohmann::json(*e.expectation.expected_gbps) : nlohmann::json(nullptr), fraction_text(e.fraction),
                          e.verdict, codes.empty() ? "-" : codes});
    document.notes.push_back(words_of(e));
    all.push_back(json_of(e));
  }
  if (all.empty()) throw InputError("explain: no collective report among the inputs (membw_perf, copy_perf and envcheck reports only give the memory ceiling)");
  table.groups.push_back(std::move(group));
  document.tables.push_back(std::move(table));
  document.extra["explanations"] = std::move(all);
  document.extra["memory_ceiling"] = ceiling ? nlohmann::json({{"traffic_gbps", ceiling->traffic_gbps}, {"what", ceiling->what}}) : nlohmann::json(nullptr);
  return document;
}

void add_expected_to_summary(Document& summary, const std::vector<LoadedReport>& reports, const ExpectedPeaks& peaks,
                             const std::optional<MemoryCeiling>& ceiling) {
  if (summary.tables.empty() || reports.empty() || reports.front().report.kind != report::kCollectiveRows) return;
  Table& table = summary.tables.front();
  const auto column = [&table](const std::string& name) {
    const auto it = std::find_if(table.columns.begin(), table.columns.end(), [&name](const Column& c) { return c.name == name; });
    return static_cast<std::size_t>(it - table.columns.begin());
  };
  const std::size_t peak_column = column("max_busbw_gbps"), health_column = column("health");
  if (peak_column >= table.columns.size() || health_column >= table.columns.size() || table.groups.size() != 1) return;
  table.columns.insert(table.columns.begin() + static_cast<long>(peak_column) + 1, Column{"of_expected"});
  auto& rows = table.groups.front().rows;
  for (std::size_t i = 0; i < rows.size() && i < reports.size(); ++i) {
    const Explanation e = explain_report(reports[i], peaks, ceiling, false);
    auto& health = rows[i][health_column];
    if (e.verdict == "low" && e.expectation.upper_bound_only) {
      health = health.get<std::string>() + formatted(" (note: busbw %s of the %s bound %.3g GB/s, collbench explain says why)",
                                                     fraction_text(e.fraction).c_str(), e.expectation.path.c_str(), *e.expectation.expected_gbps);
    } else if (e.verdict == "low") {
      const std::string text = health.get<std::string>();
      const std::string finding = formatted("busbw %s of the expected %.3g GB/s (%s)", fraction_text(e.fraction).c_str(), *e.expectation.expected_gbps,
                                            e.expectation.path.c_str()) + (e.reasons.empty() ? "" : ": " + reasons_text(e.reasons));
      if (text.rfind("check: ", 0) == 0) {
        health = "check: " + finding + "; " + text.substr(7);
      } else {
        const std::size_t note = text.find(" (note: ");
        health = "check: " + finding + (note == std::string::npos ? "" : text.substr(note));
      }
    }
    rows[i].insert(rows[i].begin() + static_cast<long>(peak_column) + 1, nlohmann::json(fraction_text(e.fraction)));
  }
  summary.notes.push_back(formatted("of_expected: busbw at the largest sizes as a fraction of what the path should give (collbench explain); below %.0f %% of a link's figure the health says check:, below the host-memory bound (CPUs within a host) a note", 100 * kLowFraction));
}

}  // namespace collbench::summarize
