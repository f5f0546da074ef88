// The open backend interface: a backend that declares only part of what collbench offers gets
// real, checked rows for that part and skipped rows with its own reason for the rest.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <set>
#include <tuple>

#include "one_rank_world.h"
#include "backends/backend.h"
#include "workloads/collectives/collective_workload.h"
#include "harness/report_writer.h"
#include "report/report_json.h"
#include "workloads/collectives/buffer_slices.h"
#include "workloads/collectives/collective.h"
#include "workloads/collectives/report/collective_rows.h"

namespace collbench {
namespace {

using testing::OneRankWorld;

// all_reduce only, out of place only, float32 and int32, sum and max, at most 128 elements.
// With one rank an all-reduce is a copy, so the runner's checks hold if and only if it ran.
class PartialBackend final : public Backend {
 public:
  PartialBackend() {
    support_.collectives.push_back({"all_reduce",
                                    [this](const CollectiveCall& call) {
                                      ++calls;
                                      const std::size_t bytes = call.count * dtype_info(call.dtype).size_bytes;
                                      seen.push_back({call.send, call.count, call.dtype, call.op, fnv1a(call.send, bytes)});
                                      std::memcpy(call.recv, call.send, bytes);
                                    },
                                    "partial has no in-place all-reduce"});
    support_.dtypes = {DType::kFloat32, DType::kInt32};
    support_.ops = {ReduceOp::kSum, ReduceOp::kMax};
    support_.max_call_count = 128;
  }
  std::string name() const override { return "partial"; }
  std::string algorithm(const std::string&) const override { return "default"; }
  std::string device_description() const override { return "cpu"; }
  const BackendSupport& support() const override { return support_; }
  std::unique_ptr<Buffer> allocate(std::size_t bytes) override { return std::make_unique<HostBuffer>(bytes); }
  void synchronize() override {}
  // As NCCL's ncclGroupSimulateEnd: the call is planned, not run (so `calls` does not count it).
  std::optional<double> library_estimate_us(std::string_view collective, const std::function<void()>&) override {
    if (!estimate) return std::nullopt;
    ++estimates;
    estimated.emplace_back(collective);
    return estimate;
  }

  // nccl-tests' convention, as the nccl backend declares it: each call on the next buffer slice.
  void move_buffers() { support_.moves_buffers_each_call = true; }
  // A dtype and op the library rejects together although it has each (as NCCL's one-rank fp8 avg).
  void reject_together(DType dtype, ReduceOp op, const std::string& why) { support_.dtype_op_reasons[{dtype, op}] = why; }

  struct Call {
    const void* send;
    std::size_t count;
    DType dtype;
    ReduceOp op;
    std::uint64_t input_hash;  // of the bytes the call read
  };
  static std::uint64_t fnv1a(const void* data, std::size_t bytes) {
    std::uint64_t hash = 1469598103934665603ull;
    for (std::size_t i = 0; i < bytes; ++i) hash = (hash ^ static_cast<const unsigned char*>(data)[i]) * 1099511628211ull;
    return hash;
  }
  std::vector<Call> seen;  // every call, in order
  int calls = 0;
  std::optional<double> estimate;  // none by default, as the CPU libraries
  int estimates = 0;
  std::vector<std::string> estimated;  // the collective each estimate was asked for

 private:
  BackendSupport support_;
};

struct Outcome {
  nlohmann::json rows = nlohmann::json::array();
  nlohmann::json skipped = nlohmann::json::array();
  nlohmann::json document;
};

// The collective's workload over the one driver, on one rank, with the partial backend.
Outcome run_on_partial_backend(const char* collective_name, PartialBackend& backend, int warmup_iterations = 1,
                               bool estimate = true) {
  CollectiveOptions options;
  options.nccl_estimate = estimate;  // --nccl-estimate
  options.explicit_sizes = {64, 256, 1024};  // 16, 64 and 256 float32 elements
  options.dtypes = {DType::kFloat32, DType::kFloat64, DType::kInt32};
  options.ops = {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kAvg};
  options.iterations = 2;
  options.warmup_iterations = warmup_iterations;
  options.check_iterations = 1;
  options.backend = "partial";
  // The driver owns the backend it is given; this one forwards to the test's.
  struct Forwarding final : Backend {
    explicit Forwarding(PartialBackend& to) : to(to) {}
    std::string name() const override { return to.name(); }
    std::string algorithm(const std::string& collective) const override { return to.algorithm(collective); }
    std::string device_description() const override { return to.device_description(); }
    const BackendSupport& support() const override { return to.support(); }
    std::unique_ptr<Buffer> allocate(std::size_t bytes) override { return to.allocate(bytes); }
    void synchronize() override { to.synchronize(); }
    std::optional<double> library_estimate_us(std::string_view collective, const std::function<void()>& issue) override {
      return to.library_estimate_us(collective, issue);
    }
    PartialBackend& to;
  };
  const ProgramSpec program = collective_program(*find_collective(collective_name), options, [&backend](World&, const CollectiveOptions&) {
    return std::make_unique<Forwarding>(backend);
  });
  OneRankWorld world;
  ReportWriter report;
  const std::vector<std::string> argv{"test"};
  RunContext run{world, report, nullptr, argv};
  measure(program, run);
  const nlohmann::json document = report.snapshot();
  return {document["results"], document["skipped"], document};
}

std::multiset<std::string> reasons(const Outcome& outcome) {
  std::multiset<std::string> found;
  for (const auto& skipped : outcome.skipped) found.insert(skipped["reason"].get<std::string>());
  return found;
}

TEST(BackendSupport, RealRowsForWhatItHasSkippedRowsWithItsReasonForTheRest) {
  PartialBackend backend;
  const Outcome outcome = run_on_partial_backend("all_reduce", backend);

  // Measured: {float32, int32} x {sum, max} x out of place x the sizes within 128 elements.
  std::set<std::tuple<std::string, std::string, std::uint64_t>> measured;
  for (const auto& row : outcome.rows) {
    EXPECT_EQ(row["placement"], "out");
    EXPECT_EQ(row["backend"], "partial");
    ASSERT_TRUE(row["wrong"].is_number());
    EXPECT_EQ(row["wrong"], 0) << row["dtype"] << " " << row["op"] << " " << row["bytes"];
    // No -B: nothing compared bit for bit, so bitdiff is null and there is no first difference.
    EXPECT_TRUE(row.at("bitdiff").is_null());
    EXPECT_FALSE(row.contains("first_bitdiff"));
    measured.insert({row["dtype"].get<std::string>(), row["op"].get<std::string>(), row["bytes"].get<std::uint64_t>()});
  }
  const std::set<std::tuple<std::string, std::string, std::uint64_t>> want = {
      {"float32", "sum", 64}, {"float32", "sum", 256}, {"float32", "max", 64}, {"float32", "max", 256},
      {"int32", "sum", 64},   {"int32", "sum", 256},   {"int32", "max", 64},   {"int32", "max", 256}};
  EXPECT_EQ(measured, want);
  EXPECT_EQ(outcome.rows.size(), want.size());
  // warm-up + timed + check iterations, for every measured row and nothing else, and the run's
  // warm-up before the first row: one iteration at the largest case, one at the smallest.
  EXPECT_EQ(backend.calls, 2 + static_cast<int>(want.size()) * (1 + 2 + 1));

  // Every other (dtype, op, placement) of 3 x 3 x 2 is skipped with the backend's words, each
  // reason once per (dtype, op, placement) however many sizes it held for.
  const auto found = reasons(outcome);
  EXPECT_EQ(found.count("the partial backend has no dtype float64"), 3u * 2);
  EXPECT_EQ(found.count("the partial backend has no op avg"), 2u * 2);
  EXPECT_EQ(found.count("partial has no in-place all-reduce"), 2u * 2);
  EXPECT_EQ(found.count("the partial backend takes at most 128 elements per call, not 256"), 2u * 2);
  EXPECT_EQ(outcome.skipped.size(), 6u + 4 + 4 + 4);
  for (const auto& skipped : outcome.skipped) {
    if (skipped["reason"] == "partial has no in-place all-reduce") EXPECT_EQ(skipped["placement"], "in");
  }
}

TEST(BackendSupport, ADtypeAndOpRejectedTogetherAreSkippedWithTheLibrarysReason) {
  PartialBackend backend;
  backend.reject_together(DType::kInt32, ReduceOp::kMax, "partial rejects int32 with max");
  const Outcome outcome = run_on_partial_backend("all_reduce", backend);
  for (const auto& row : outcome.rows) EXPECT_FALSE(row["dtype"] == "int32" && row["op"] == "max") << row["bytes"];
  EXPECT_EQ(outcome.rows.size(), 6u);  // the 8 of the test above less int32 max at its 2 sizes
  EXPECT_EQ(backend.calls, 2 + 6 * (1 + 2 + 1));
  const auto found = reasons(outcome);
  EXPECT_EQ(found.count("partial rejects int32 with max"), 2u);     // out of place and in place
  EXPECT_EQ(found.count("partial has no in-place all-reduce"), 3u);  // the in-place int32 max said why above
}

TEST(BackendSupport, ABackendThatMovesTheBuffersGetsEachCallOnTheNextSliceWithTheSameInputs) {
  PartialBackend backend;
  backend.move_buffers();
  const Outcome outcome = run_on_partial_backend("all_reduce", backend);
  ASSERT_EQ(outcome.rows.size(), 8u);
  for (const auto& row : outcome.rows) {
    EXPECT_EQ(row["wrong"], 0) << row["dtype"] << " " << row["op"] << " " << row["bytes"];
    // Buffers sized for the 1 KiB row: 1 warm-up + 2 timed calls fit 3 slices 256 B apart.
    EXPECT_NE(row["timing"].get<std::string>().find("next of 3 buffer slices 256 B apart, as nccl-tests"), std::string::npos)
        << row["timing"];
  }
  // Per row (after the run's two warm-up calls): warm-up and timed calls on three distinct slices,
  // each holding the row's inputs; the check after them on the first slice again.
  ASSERT_EQ(backend.seen.size(), 2 + 8u * 4);
  for (std::size_t row = 0; row < 8; ++row) {
    const auto* calls = &backend.seen[2 + row * 4];
    const char* first = static_cast<const char*>(calls[0].send);
    for (int k = 1; k < 3; ++k) {
      EXPECT_EQ(static_cast<const char*>(calls[k].send) - first, 256 * k) << "row " << row;
      EXPECT_EQ(calls[k].input_hash, calls[0].input_hash) << "row " << row << ": slice " << k << " holds other inputs";
    }
    EXPECT_EQ(calls[3].send, calls[0].send) << "row " << row << ": the check ran off the first slice";
    EXPECT_EQ(calls[3].input_hash, calls[0].input_hash);
  }
  // Without the declaration (the host libraries, as OSU) every call uses the first slice.
  PartialBackend still;
  const Outcome unmoved = run_on_partial_backend("all_reduce", still);
  for (const auto& call : still.seen) EXPECT_EQ(call.send, still.seen[0].send);
  for (const auto& row : unmoved.rows) EXPECT_EQ(row["timing"].get<std::string>().find("slices"), std::string::npos);
}

TEST(BackendSupport, TheRunWarmsUpAtTheLargestRunnableCaseThenTheSmallestOnceBeforeTheFirstRow) {
  // nccl-tests' warm-up: -w iterations at the largest size, then at the smallest, before anything
  // is timed. The 1 KiB cases exceed the backend's 128 elements and are skipped, so the largest
  // case that runs is float32 sum at 256 B (64 elements), the first in the sweep of that size.
  PartialBackend backend;
  const Outcome outcome = run_on_partial_backend("all_reduce", backend, 3);
  ASSERT_EQ(outcome.rows.size(), 8u);
  ASSERT_EQ(backend.seen.size(), 6 + 8u * (3 + 2 + 1));
  for (std::size_t call = 0; call < 6; ++call) {
    EXPECT_EQ(backend.seen[call].count, call < 3 ? 64u : 16u) << "call " << call;
    EXPECT_EQ(backend.seen[call].dtype, DType::kFloat32);
    EXPECT_EQ(backend.seen[call].op, ReduceOp::kSum);
  }
  // The first row (float32 sum at 64 B) then has its own 3 + 2 + 1 calls.
  for (std::size_t call = 6; call < 12; ++call) EXPECT_EQ(backend.seen[call].count, 16u) << "call " << call;
  EXPECT_EQ(backend.seen[12].count, 64u);
  for (const auto& row : outcome.rows) {
    EXPECT_NE(row["timing"].get<std::string>().find(
                  "; warm-up once before the first row, untimed (as nccl-tests): 3 iterations at all_reduce at 256 B float32 "
                  "out-of-place (the largest case), then 3 iterations at all_reduce at 64 B float32 out-of-place (the "
                  "smallest); then the row's own warm-up"),
              std::string::npos)
        << row["timing"];
    EXPECT_EQ(row["warmup_iterations"], 3);
  }

  // -w 0: no warm-up anywhere, and every row says so.
  PartialBackend cold;
  const Outcome unwarmed = run_on_partial_backend("all_reduce", cold, 0);
  EXPECT_EQ(cold.calls, 8 * (2 + 1));
  for (const auto& row : unwarmed.rows) {
    EXPECT_NE(row["timing"].get<std::string>().find("; no warm-up (-w 0): none before the first row, none in the row"),
              std::string::npos)
        << row["timing"];
    EXPECT_EQ(row["timing"].get<std::string>().find("as nccl-tests)"), std::string::npos);
  }
}

TEST(HostBuffer, FillsTheInputsAtTheOffsetAndNothingElse) {
  // The runner writes inputs through Buffer::fill_inputs (on a GPU, a kernel): at an unaligned
  // offset (-u) the bytes are fill_inputs', and the poison around them stays.
  const ValueSpec spec{DType::kFloat64, ReduceOp::kProd, 4, 3};
  const std::size_t offset = 3, count = 100, element = 8;
  HostBuffer buffer(offset + count * element + 16);
  buffer.fill_bytes(kPoisonByte, 0, buffer.bytes());
  buffer.fill_inputs(spec, 2, offset, count);
  std::vector<unsigned char> expected(count * element);
  fill_inputs(spec, 2, expected.data(), count);
  const auto* bytes = static_cast<const unsigned char*>(buffer.data());
  EXPECT_EQ(std::vector<unsigned char>(bytes + offset, bytes + offset + count * element), expected);
  for (std::size_t i = 0; i < buffer.bytes(); ++i) {
    if (i < offset || i >= offset + count * element) ASSERT_EQ(bytes[i], kPoisonByte) << "byte " << i;
  }
}

TEST(BufferSlices, AsManyAsTheCallsAndTheRoomAllowAligned) {
  EXPECT_EQ(buffer_slices(64, 1024, 3).count, 3u);  // 4 would fit 256 B apart; 3 calls use 3
  EXPECT_EQ(buffer_slices(64, 1024, 3).stride, 256u);
  EXPECT_EQ(buffer_slices(64, 1024, 100).count, 4u);
  EXPECT_EQ(buffer_slices(1024, 2048, 100).count, 2u);  // the last slice needs only the footprint
  EXPECT_EQ(buffer_slices(1024, 2047, 100).count, 1u);
  EXPECT_EQ(buffer_slices(1 << 20, 1 << 20, 100).count, 1u);  // the largest row never moves
  EXPECT_EQ(buffer_slices(300, 4096, 100).stride, 512u);     // strides keep 256-byte alignment
  EXPECT_EQ(buffer_slices(300, 4096, 100).count, 8u);
  EXPECT_EQ(buffer_slices(8, 100, 10).count, 1u);  // no room for a second aligned slice
  EXPECT_EQ(buffer_slices(0, 4096, 2).count, 2u);  // a row of no elements: no division by zero
  EXPECT_EQ(buffer_slices(0, 4096, 2).stride, 256u);
  EXPECT_EQ(buffer_slices(8, std::size_t{8} << 30, 25).count, 25u);
  EXPECT_EQ(buffer_slices(8, 4096, 0).count, 1u);
}

TEST(BackendSupport, ACollectiveTheBackendLacksIsSkippedNeverCalled) {
  PartialBackend backend;
  const Outcome outcome = run_on_partial_backend("broadcast", backend);
  EXPECT_TRUE(outcome.rows.empty());
  EXPECT_EQ(backend.calls, 0);
  ASSERT_FALSE(outcome.skipped.empty());
  // broadcast takes no op: 3 dtypes x 2 placements, all for the same reason.
  EXPECT_EQ(outcome.skipped.size(), 3u * 2);
  for (const auto& skipped : outcome.skipped) {
    EXPECT_EQ(skipped["reason"], "the partial backend has no broadcast");
    EXPECT_EQ(skipped["op"], "none");
  }
}

TEST(BackendSupport, TheLibrarysOwnEstimateRidesBesideTheMeasuredTime) {
  // A backend with a cost model of its own (NCCL's ncclGroupSimulateEnd): every measured row keeps
  // its estimate, asked once per row and never run; a backend without one writes no field.
  PartialBackend estimating;
  estimating.estimate = 12.5;
  const Outcome with_estimate = run_on_partial_backend("all_reduce", estimating);
  ASSERT_EQ(with_estimate.rows.size(), 8u);
  for (const auto& row : with_estimate.rows) EXPECT_EQ(row.at("library_estimate_us"), 12.5) << row["bytes"];
  EXPECT_EQ(estimating.estimates, 8);
  EXPECT_EQ(estimating.estimated, std::vector<std::string>(8, "all_reduce"));
  EXPECT_EQ(estimating.calls, 2 + 8 * (1 + 2 + 1));  // the estimate ran no call (nor was asked for the run's warm-up)
  // It survives the report's reader, and an old row without it still reads.
  for (const auto& row : report::report_from_json(with_estimate.document).rows) EXPECT_EQ(row.library_estimate_us, 12.5);
  for (const auto& row : with_estimate.rows) EXPECT_EQ(report::row_from_json(row, report::kCollectiveRows).library_estimate_us, 12.5);
  PartialBackend plain;
  const Outcome without = run_on_partial_backend("all_reduce", plain);
  ASSERT_EQ(without.rows.size(), 8u);
  for (const auto& row : without.rows) EXPECT_FALSE(row.contains("library_estimate_us"));
  for (const auto& row : report::report_from_json(without.document).rows) EXPECT_FALSE(row.library_estimate_us.has_value());
}

TEST(BackendSupport, NoEstimateIsAskedForUnlessWanted) {
  // --nccl-estimate is off by default: no row asks, whatever the backend could tell.
  PartialBackend estimating;
  estimating.estimate = 12.5;
  const Outcome outcome = run_on_partial_backend("all_reduce", estimating, 1, false);
  ASSERT_EQ(outcome.rows.size(), 8u);
  EXPECT_EQ(estimating.estimates, 0);
  for (const auto& row : outcome.rows) EXPECT_FALSE(row.contains("library_estimate_us")) << row["bytes"];
  EXPECT_FALSE(CollectiveOptions{}.nccl_estimate);
}

TEST(BackendSupport, NoEstimateIsAskedForWithoutAWarmUp) {
  // NCCL runs what it simulated with its next real launch; without a warm-up that launch would be
  // a timed one (or be captured into -G's graph), so the row goes without the estimate.
  PartialBackend estimating;
  estimating.estimate = 12.5;
  const Outcome outcome = run_on_partial_backend("all_reduce", estimating, 0);
  ASSERT_EQ(outcome.rows.size(), 8u);
  EXPECT_EQ(estimating.estimates, 0);
  for (const auto& row : outcome.rows) EXPECT_FALSE(row.contains("library_estimate_us")) << row["bytes"];
  EXPECT_EQ(estimating.calls, 8 * (2 + 1));
}

}  // namespace
}  // namespace collbench
