// collbench explain on GPU runs whose report records the host's GPUs and links by NVML
// (context.machine.gpu_inventory, schema 2.10): each way the links pick the expected-peak entry,
// the reasons they give for a gap, and each way back to the model's name, with its note.
#include <gtest/gtest.h>

#include <algorithm>

#include "summarize/explain/explain.h"
#include "curves.h"
#include "test_data.h"

namespace collbench::summarize {
namespace {

// One GPU as NVML reports it (the form harness/context.cpp writes).
nlohmann::json nvml_gpu(const std::string& name, unsigned links, unsigned active, unsigned to_nvswitch, unsigned version_code, unsigned width,
                        const std::string& compute_capability = "9.0") {
  return {{"index", 0},
          {"name", name},
          {"compute_capability", compute_capability},
          {"nvlink", {{"links", links}, {"active", active}, {"to_nvswitch", to_nvswitch},
                      {"version_code", links ? nlohmann::json(version_code) : nlohmann::json(nullptr)}, {"version", nullptr}}},
          {"nvswitch", to_nvswitch > 0},
          {"pcie", {{"generation", 5}, {"max_generation", 5}, {"width", width}, {"max_width", 16}}}};
}

// reaching(busbw) run on GPUs of `model`, NCCL, with `gpus` as NVML's inventory of the host.
LoadedReport on_host_with(double busbw, const std::string& model, const nlohmann::json& gpus) {
  LoadedReport loaded = on_gpus(curve({{8, 5, 0.001}, {1u << 20, 1000, busbw / 2}, {1u << 30, 1e6, busbw}}));
  loaded.report.context.machine["gpus"] = {{{"model", model}}};
  loaded.report.context.backend = "nccl";
  loaded.report.context.machine["gpu_inventory"] = {{"source", "nvml"}, {"library", "libnvidia-ml.so.1"}, {"read", true}, {"note", ""}, {"gpus", gpus}};
  return loaded;
}

nlohmann::json eight(const nlohmann::json& gpu) { return nlohmann::json::array({gpu, gpu, gpu, gpu, gpu, gpu, gpu, gpu}); }

bool has_link_reason(const Explanation& e, const std::string& code) {
  return std::any_of(e.reasons.begin(), e.reasons.end(), [&](const Reason& r) { return r.code == code; });
}

TEST(ExplainLinks, NvLinksToAnNvSwitchPickTheirGenerationsEntry) {
  const ExpectedPeaks peaks = ExpectedPeaks::built_in();
  const Explanation e = explain_report(on_host_with(350, "NVIDIA H200", eight(nvml_gpu("NVIDIA H200", 18, 18, 18, 6, 16))), peaks, std::nullopt);
  EXPECT_EQ(e.expectation.path, "intra-host: nvlink4");
  EXPECT_EQ(e.expectation.picked_by, "nvml");
  EXPECT_EQ(e.expectation.pick_note, "");
  EXPECT_DOUBLE_EQ(*e.expectation.expected_gbps, 370);
  EXPECT_EQ(e.expectation.inventory, "8x NVIDIA H200 (9.0): 18 of 18 NVLinks up (NVML version code 6), 18 to an NVSwitch; PCIe gen 5 x16 (at most gen 5 x16)");
  EXPECT_EQ(e.gpu_inventory, "NVML: 8x NVIDIA H200 (9.0): 18 of 18 NVLinks up (NVML version code 6), 18 to an NVSwitch; PCIe gen 5 x16 (at most gen 5 x16)");
  EXPECT_EQ(e.verdict, "ok");
  // A100 (8.0, code 4: NVLink 3.0): its generation's entry, whatever its name says.
  const Explanation a100 = explain_report(on_host_with(200, "NVIDIA A100-SXM4-40GB", eight(nvml_gpu("NVIDIA A100-SXM4-40GB", 12, 12, 12, 4, 16, "8.0"))), peaks,
                                          std::nullopt);
  EXPECT_EQ(a100.expectation.path, "intra-host: nvlink3");
  EXPECT_EQ(a100.expectation.picked_by, "nvml");
}

TEST(ExplainLinks, AllReduceOnEightGpusOfAnNvSwitchExpectsNvlsUnlessTheRunSaysOtherwise) {
  const ExpectedPeaks peaks = ExpectedPeaks::built_in();
  LoadedReport eight_ranks = on_host_with(470, "NVIDIA H200", eight(nvml_gpu("NVIDIA H200", 18, 18, 18, 6, 16)));
  eight_ranks.report.context.world_size = 8;
  const Explanation nvls = explain_report(eight_ranks, peaks, std::nullopt);
  EXPECT_EQ(nvls.expectation.path, "intra-host: nvlink4-nvls");
  EXPECT_DOUBLE_EQ(*nvls.expectation.expected_gbps, 480);
  EXPECT_TRUE(has_link_reason(nvls, "nvls"));
  LoadedReport disabled = eight_ranks;
  disabled.report.context.env["NCCL_NVLS_ENABLE"] = "0";
  EXPECT_EQ(explain_report(disabled, peaks, std::nullopt).expectation.path, "intra-host: nvlink4");
  LoadedReport ring = eight_ranks;
  ring.report.context.env["NCCL_ALGO"] = "Ring";
  EXPECT_EQ(explain_report(ring, peaks, std::nullopt).expectation.path, "intra-host: nvlink4");
  // Two ranks: the source's NVLS figure is for 8 GPUs; the link's own entry.
  EXPECT_EQ(explain_report(on_host_with(300, "NVIDIA H200", eight(nvml_gpu("NVIDIA H200", 18, 18, 18, 6, 16))), peaks, std::nullopt).expectation.path,
            "intra-host: nvlink4");
}

TEST(ExplainLinks, LinksDownOrLanesMissingScaleTheFigureAndSayWhy) {
  const ExpectedPeaks peaks = ExpectedPeaks::built_in();
  nlohmann::json gpus = eight(nvml_gpu("NVIDIA H200", 18, 18, 18, 6, 16));
  gpus[5] = nvml_gpu("NVIDIA H200", 18, 16, 16, 6, 16);  // the slowest GPU bounds the collective
  const Explanation down = explain_report(on_host_with(300, "NVIDIA H200", gpus), peaks, std::nullopt);
  EXPECT_DOUBLE_EQ(*down.expectation.expected_gbps, 370.0 * 16 / 18);
  EXPECT_TRUE(has_link_reason(down, "nvlink_down"));
  EXPECT_EQ(down.expectation.inventory.rfind("8x NVIDIA H200 (9.0): 16 of 18 NVLinks up", 0), 0u) << down.expectation.inventory;
  // PCIe only: the model's name has no entry, the links do; x8 of x16 halves the line rate.
  const nlohmann::json pcie = {nvml_gpu("NVIDIA H100 PCIe", 0, 0, 0, 0, 16), nvml_gpu("NVIDIA H100 PCIe", 0, 0, 0, 0, 8)};
  const Explanation narrow = explain_report(on_host_with(25, "NVIDIA H100 PCIe", pcie), peaks, std::nullopt);
  EXPECT_EQ(narrow.expectation.path, "intra-host: pcie5-x16");
  EXPECT_TRUE(narrow.expectation.line_rate_only);
  EXPECT_DOUBLE_EQ(*narrow.expectation.expected_gbps, 63.0 / 2);  // PCIe 5.0 x16: 63 GB/s a direction
  EXPECT_TRUE(has_link_reason(narrow, "pcie_narrow"));
  EXPECT_EQ(narrow.verdict, "ok");
  const Explanation full = explain_report(on_host_with(25, "NVIDIA H100 PCIe", nlohmann::json::array({nvml_gpu("NVIDIA H100 PCIe", 0, 0, 0, 0, 16)})), peaks,
                                          std::nullopt);
  EXPECT_DOUBLE_EQ(*full.expectation.expected_gbps, 63);
  EXPECT_FALSE(has_link_reason(full, "pcie_narrow"));
  EXPECT_EQ(full.verdict, "low");
}

TEST(ExplainLinks, AnNvLinkVersionCodeAgainstTheArchitectureTakesTheArchitecture) {
  // NVML's code 7 (NVLink 5.0) on a Hopper GPU (9.0), as vLLM's benchmarks saw on an H100.
  const Explanation e = explain_report(on_host_with(350, "NVIDIA H100 80GB HBM3", eight(nvml_gpu("NVIDIA H100 80GB HBM3", 18, 18, 18, 7, 16))),
                                       ExpectedPeaks::built_in(), std::nullopt);
  EXPECT_EQ(e.expectation.path, "intra-host: nvlink4");
  EXPECT_EQ(e.expectation.picked_by, "nvml");
  EXPECT_EQ(e.expectation.pick_note, "NVML's version code 7 says NVLink 5, compute capability 9.0 says 4: taken as 4");
}

TEST(ExplainLinks, WithoutUsableLinksTheNamePicksAndSaysWhy) {
  const ExpectedPeaks peaks = ExpectedPeaks::built_in();
  const auto by_name = [&](const LoadedReport& loaded) { return explain_report(loaded, peaks, std::nullopt).expectation; };
  // A report before 2.10: no inventory.
  LoadedReport old = on_host_with(350, "NVIDIA H200", nlohmann::json::array());
  old.report.context.machine.erase("gpu_inventory");
  const Expectation before = by_name(old);
  EXPECT_EQ(before.path, "intra-host: nvlink4");
  EXPECT_EQ(before.picked_by, "name");
  EXPECT_EQ(before.pick_note, "picked by the GPU's name, not its links: the report has no NVML inventory (context.machine.gpu_inventory, schema 2.10)");
  EXPECT_EQ(explain_report(old, peaks, std::nullopt).gpu_inventory, "");
  // NVML not read on the host.
  LoadedReport unread = old;
  unread.report.context.machine["gpu_inventory"] = {{"source", "nvml"}, {"read", false}, {"note", "nvmlInit_v2: Driver Not Loaded (9)"}, {"gpus", nlohmann::json::array()}};
  EXPECT_EQ(by_name(unread).pick_note, "picked by the GPU's name, not its links: NVML was not read on the run's host (nvmlInit_v2: Driver Not Loaded (9))");
  EXPECT_EQ(explain_report(unread, peaks, std::nullopt).gpu_inventory, "NVML not read: nvmlInit_v2: Driver Not Loaded (9)");
  // NVML lists other GPUs.
  EXPECT_NE(by_name(on_host_with(350, "NVIDIA H200", nlohmann::json::array({nvml_gpu("NVIDIA L4", 0, 0, 0, 0, 16)}))).pick_note.find("NVML lists no GPU named 'NVIDIA H200'"),
            std::string::npos);
  // NVLink bridges between pairs (H200 NVL): no NVSwitch, no table entry, and the name has none either.
  const Expectation bridged = by_name(on_host_with(100, "NVIDIA H200 NVL", nlohmann::json::array({nvml_gpu("NVIDIA H200 NVL", 18, 18, 0, 6, 16)})));
  EXPECT_EQ(bridged.picked_by, "name");
  EXPECT_FALSE(bridged.expected_gbps.has_value());
  EXPECT_NE(bridged.pick_note.find("join GPUs directly (no NVSwitch, by NVML)"), std::string::npos) << bridged.pick_note;
  // A field of another type reads as absent: no throw, and the PCIe-less, NVLink-less GPU cannot pick.
  const nlohmann::json hostile_gpu = {{"name", "NVIDIA H200"}, {"nvlink", "many"}, {"pcie", {{"width", -3}}}};
  LoadedReport hostile = on_host_with(350, "NVIDIA H200", nlohmann::json::array({hostile_gpu}));
  EXPECT_NE(by_name(hostile).pick_note.find("NVML gives no NVLink up and no PCIe generation and width"), std::string::npos) << by_name(hostile).pick_note;
}

}  // namespace
}  // namespace collbench::summarize
