#include "harness/runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <initializer_list>
#include <optional>

#include "core/error.h"
#include "harness/context.h"
#include "core/stats.h"
#include "core/values.h"
#include "harness/measurement_loop.h"
#include "harness/watchdog.h"

namespace collbench {

// Buffers are sized once for the largest row of the run, like nccl-tests, so allocation and
// first-touch page faults never land in a timed region.
struct CollectiveRunner::Buffers {
  std::unique_ptr<Buffer> send;     // out of place: the inputs
  std::unique_ptr<Buffer> recv;     // out of place: the outputs; in place: the one shared buffer
  std::vector<unsigned char> host;  // staging for inputs and for reading outputs back, a piece at a time
};

namespace {
// The staging piece: a whole number of elements of any dtype, small next to the messages.
constexpr std::size_t kStagingBytes = 4u << 20;
}  // namespace

namespace {

char* at_offset(void* base, std::size_t bytes) { return static_cast<char*>(base) + bytes; }

std::string describe(std::string_view collective, std::uint64_t bytes, DType dtype, Placement placement) {
  return std::string(collective) + " at " + std::to_string(bytes) + " B " + std::string(to_string(dtype)) + " " +
         (placement == Placement::kInPlace ? "in-place" : "out-of-place");
}

}  // namespace

RowSize row_size_for(const Collective& collective, std::uint64_t requested_bytes, DType dtype, int ranks) {
  const std::size_t element = dtype_info(dtype).size_bytes;
  std::size_t count = static_cast<std::size_t>(requested_bytes / element);
  BufferLayout layout = collective.layout(count, ranks, element);
  // Sizes too small for one 16-byte block per rank are raised to the smallest row that has one,
  // instead of timing an empty call (nccl-tests prints such rows as size 0).
  const std::size_t elements_per_16_bytes = element >= 16 ? 1 : 16 / element;
  for (std::size_t smallest : {std::size_t{1}, static_cast<std::size_t>(ranks) * elements_per_16_bytes}) {
    if (layout.call_count > 0) break;
    count = smallest;
    layout = collective.layout(count, ranks, element);
  }
  return {std::max(layout.send_count, layout.recv_count), layout};
}

BufferBytes largest_buffers(const Collective& collective, const Options& options, int ranks) {
  BufferBytes largest;
  for (DType dtype : options.dtypes) {
    const std::uint64_t element = dtype_info(dtype).size_bytes;
    for (std::uint64_t bytes : options.requested_sizes()) {
      const BufferLayout layout = row_size_for(collective, bytes, dtype, ranks).layout;
      largest.send = std::max<std::uint64_t>(largest.send, layout.send_count * element);
      largest.shared = std::max<std::uint64_t>(largest.shared, std::max(layout.send_count, layout.recv_count) * element);
    }
  }
  return largest;
}

CollectiveRunner::CollectiveRunner(const Collective& collective, const Options& options, World& world, Backend& backend,
                                   Watchdog* watchdog, RunnerEvents events)
    : collective_(collective),
      options_(options),
      world_(world),
      backend_(backend),
      entry_(backend.entry_for(collective.name)),
      watchdog_(watchdog),
      events_(std::move(events)) {}

void CollectiveRunner::run() {
  const int ranks = world_.size();
  const BufferBytes largest = largest_buffers(collective_, options_, ranks);
  Buffers buffers;
  // -u starts the calls past an aligned address: room for the skew of the widest element.
  const std::size_t skew = static_cast<std::size_t>(options_.unaligned_elements) * sizeof(double);
  buffers.send = backend_.allocate(largest.send + skew);
  buffers.recv = backend_.allocate(largest.shared + skew);
  buffers.host.resize(std::min<std::size_t>(largest.shared, kStagingBytes));

  const std::vector<ReduceOp> ops = collective_.takes_op ? options_.ops : std::vector<ReduceOp>{ReduceOp::kSum};
  std::vector<int> roots{-1};
  if (collective_.takes_root) {
    roots.clear();
    if (options_.root == kEveryRoot) {
      for (int r = 0; r < ranks; ++r) roots.push_back(r);
    } else {
      roots.push_back(options_.root);
    }
  }
  for (int cycle = 1; cycle <= options_.cycles; ++cycle) {
    for (DType dtype : options_.dtypes) {
      for (ReduceOp op : ops) {
        for (int root : roots) run_case({dtype, op, root, cycle}, buffers);
      }
    }
  }
}

void CollectiveRunner::run_case(const Case& one_case, Buffers& buffers) {
  std::size_t previous_row_count = 0;
  for (std::uint64_t requested : options_.requested_sizes()) {
    const RowSize size = row_size_for(collective_, requested, one_case.dtype, world_.size());
    if (size.row_count == previous_row_count) continue;  // rounding made it the same row as the last
    previous_row_count = size.row_count;
    std::optional<report::ResultRow> out_of_place, in_place;
    for (Placement placement : options_.placements()) {
      const std::optional<ReduceOp> op = collective_.takes_op ? std::optional<ReduceOp>(one_case.op) : std::nullopt;
      const std::string unsupported = backend_.unsupported_reason(
          {collective_.name, one_case.dtype, op, placement == Placement::kInPlace, size.layout.call_count});
      if (!unsupported.empty()) {
        events_.case_skipped({std::string(to_string(one_case.dtype)), op ? std::string(to_string(*op)) : "none",
                              std::string(to_string(placement)), unsupported});
        continue;
      }
      report::ResultRow row = measure(one_case, size, requested, placement, buffers);
      events_.row_completed(row);
      (placement == Placement::kInPlace ? in_place : out_of_place) = std::move(row);
    }
    events_.size_completed(out_of_place ? &*out_of_place : nullptr, in_place ? &*in_place : nullptr);
  }
}

CollectiveCall CollectiveRunner::prepare(const Case& one_case, const RowSize& size, Placement placement,
                                         Buffers& buffers) {
  const BufferLayout& layout = size.layout;
  const std::size_t element = dtype_info(one_case.dtype).size_bytes;
  const std::size_t rank = static_cast<std::size_t>(world_.rank());
  const std::size_t skew = unaligned_bytes(one_case.dtype);
  const ValueSpec spec{one_case.dtype, one_case.op, world_.size(), options_.seed};

  CollectiveCall call;
  call.count = layout.call_count;
  call.dtype = one_case.dtype;
  call.op = one_case.op;
  call.root = one_case.root < 0 ? 0 : one_case.root;
  call.in_place = placement == Placement::kInPlace;
  Buffer* inputs = buffers.send.get();
  std::size_t input_offset = skew;
  if (call.in_place) {
    // Poison the whole shared buffer first: the parts outside this rank's input must be written.
    const std::size_t shared_bytes = std::max(layout.send_count, layout.recv_count) * element;
    buffers.recv->fill_bytes(kPoisonByte, skew, shared_bytes);
    inputs = buffers.recv.get();
    input_offset = skew + rank * layout.in_place_send_stride * element;
    call.send = at_offset(buffers.recv->data(), input_offset);
    call.recv = at_offset(buffers.recv->data(), skew + rank * layout.in_place_recv_stride * element);
  } else {
    buffers.recv->fill_bytes(kPoisonByte, skew, layout.recv_count * element);
    call.send = at_offset(buffers.send->data(), skew);
    call.recv = at_offset(buffers.recv->data(), skew);
  }
  // Inputs go through the staging buffer a piece at a time, so host memory stays at the buffers
  // the collective needs plus one piece (not a third copy of the largest message).
  const std::size_t piece = buffers.host.size() / element;
  for (std::size_t first = 0; first < layout.send_count; first += piece) {
    const std::size_t count = std::min(piece, layout.send_count - first);
    fill_inputs(spec, world_.rank(), buffers.host.data(), count, first);
    inputs->copy_from_host(buffers.host.data(), input_offset + first * element, count * element);
  }
  return call;
}

std::size_t CollectiveRunner::unaligned_bytes(DType dtype) const {
  return static_cast<std::size_t>(options_.unaligned_elements) * dtype_info(dtype).size_bytes;
}

report::ResultRow CollectiveRunner::measure(const Case& one_case, const RowSize& size, std::uint64_t requested_bytes,
                                            Placement placement, Buffers& buffers) {
  const std::size_t element = dtype_info(one_case.dtype).size_bytes;
  const std::uint64_t bytes = size.row_count * element;
  CollectiveCall call = prepare(one_case, size, placement, buffers);
  // The backend decides how the call is issued, grouped and waited for; the loop owns the schedule
  // and the clock, and runs the check after timing through the same operation.
  const std::unique_ptr<TimedOperation> operation =
      backend_.make_operation([this, &call] { entry_->issue(call); }, options_.calls_per_iteration);
  RowCheck check;
  check.prepare = [&](int) { call = prepare(one_case, size, placement, buffers); };
  check.count_wrong = [&](int) { return count_wrong(one_case, size, placement, buffers); };
  LoopSettings settings;
  settings.warmup_iterations = options_.warmup_iterations;
  settings.iterations = options_.iterations;
  settings.aggregation = options_.aggregation;
  settings.blocking = options_.blocking;
  settings.graph_launches = options_.graph_launches;
  settings.per_iteration_marks = options_.per_iteration_marks;
  settings.check_iterations = options_.check_iterations;
  settings.inject_slowdown_percent = options_.inject_slowdown_percent;
  LoopResult timed = time_iterations(world_, settings, *operation, watchdog_,
                                     describe(collective_.name, bytes, one_case.dtype, placement), &check);

  report::ResultRow row;
  row.bytes = bytes;
  row.requested_bytes = requested_bytes;
  row.count = size.row_count;
  row.dtype = std::string(to_string(one_case.dtype));
  row.op = collective_.takes_op ? std::string(to_string(one_case.op)) : "none";
  row.root = collective_.takes_root ? one_case.root : -1;
  row.placement = std::string(to_string(placement));
  row.backend = backend_.name();
  row.algorithm = backend_.algorithm(std::string(collective_.name));
  row.cycle = one_case.cycle;
  row.iterations = options_.iterations;
  row.warmup_iterations = options_.warmup_iterations;
  row.time_aggregation = std::string(to_string(options_.aggregation));
  row.time_us = timed.combined;
  row.time_over_ranks_us = report::RankTimeViews{timed.views.mean_us, timed.views.max_us, timed.views.min_us};
  row.timing = timed.method;
  row.calls_per_iteration = options_.calls_per_iteration;
  row.issue_us = timed.issue_us;
  row.timestamp = utc_timestamp_now();
  row.algbw_gbps = row.time_us.mean > 0 ? static_cast<double>(bytes) / (row.time_us.mean * 1e3) : 0.0;
  row.bus_bandwidth_factor = collective_.bus_bandwidth_factor(world_.size());
  if (world_.size() > 1) row.busbw_gbps = row.algbw_gbps * row.bus_bandwidth_factor;
  row.check_iterations = options_.check_iterations;
  row.wrong = timed.wrong;
  if (options_.keep_samples) row.samples_us = std::move(timed.combined_us);
  return row;
}

// Compares this rank's outputs of the call just completed with their closed forms, a staging
// piece at a time.
std::int64_t CollectiveRunner::count_wrong(const Case& one_case, const RowSize& size, Placement placement,
                                           Buffers& buffers) {
  const BufferLayout& layout = size.layout;
  const std::size_t element = dtype_info(one_case.dtype).size_bytes;
  const int rank = world_.rank();
  const ValueSpec spec{one_case.dtype, one_case.op, world_.size(), options_.seed};
  const bool in_place = placement == Placement::kInPlace;
  OutputContext where{rank, world_.size(), one_case.root < 0 ? 0 : one_case.root, layout.call_count, in_place};
  std::size_t output_offset = unaligned_bytes(one_case.dtype);
  if (in_place && entry_->in_place_output == InPlaceOutput::kAtRankStride) {
    output_offset += static_cast<std::size_t>(rank) * layout.in_place_recv_stride * element;
  }
  bool corrupt = options_.inject_corrupt_output && rank == world_.size() - 1;
  std::int64_t wrong = 0;
  const std::size_t piece = buffers.host.size() / element;
  for (std::size_t first = 0; first < layout.recv_count; first += piece) {
    const std::size_t count = std::min(piece, layout.recv_count - first);
    buffers.recv->copy_to_host(buffers.host.data(), output_offset + first * element, count * element);
    for (std::size_t i = 0; i < count; ++i) {
      const Expected source = collective_.expected_output(where, first + i);
      double expected = 0, tolerance = 0;
      switch (source.kind) {
        case Expected::Kind::kUnchecked: continue;
        case Expected::Kind::kCopyOf: expected = input_value(spec, source.source_rank, source.source_index); break;
        case Expected::Kind::kReductionAt:
          expected = reduced_value(spec, source.source_index);
          tolerance = reduction_tolerance(spec, source.source_index);
          break;
      }
      if (corrupt) {  // --inject-corrupt-output: a value no input produces and no reduction over < 12 ranks reaches
        store_element(one_case.dtype, buffers.host.data(), i, 99.0);
        corrupt = false;
      }
      const double actual = load_element(one_case.dtype, buffers.host.data(), i);
      if (!(std::fabs(actual - expected) <= tolerance)) ++wrong;  // NaN counts as wrong
    }
  }
  return wrong;
}

}  // namespace collbench
