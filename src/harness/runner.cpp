#include "harness/runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <initializer_list>
#include <optional>

#include "core/error.h"
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
  std::vector<unsigned char> host;  // staging for inputs and for reading outputs back
};

namespace {

char* at_offset(void* base, std::size_t bytes) { return static_cast<char*>(base) + bytes; }

std::string describe(std::string_view collective, std::uint64_t bytes, DType dtype, Placement placement) {
  return std::string(collective) + " at " + std::to_string(bytes) + " B " + std::string(to_string(dtype)) + " " +
         (placement == Placement::kInPlace ? "in-place" : "out-of-place");
}

// For --inject-corrupt-output: changes the first element this rank checks to a value no
// input produces and no reduction over fewer than 12 ranks reaches, so a working checker counts it.
void corrupt_first_checked_element(const Collective& collective, const OutputContext& where, unsigned char* host,
                                   DType dtype, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    if (collective.expected_output(where, i).kind == Expected::Kind::kUnchecked) continue;
    store_element(dtype, host, i, 99.0);
    return;
  }
}

}  // namespace

RowSize row_size_for(const Collective& collective, std::uint64_t requested_bytes, DType dtype, int ranks) {
  std::size_t count = static_cast<std::size_t>(requested_bytes / dtype_info(dtype).size_bytes);
  BufferLayout layout = collective.layout(count, ranks);
  // Sizes too small for one element per rank are raised to one element per rank, instead of
  // timing an empty call (nccl-tests prints such rows as size 0).
  for (std::size_t smallest : {std::size_t{1}, static_cast<std::size_t>(ranks)}) {
    if (layout.call_count > 0) break;
    count = smallest;
    layout = collective.layout(count, ranks);
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
  buffers.send = backend_.allocate(largest.send);
  buffers.recv = backend_.allocate(largest.shared);
  buffers.host.resize(largest.shared);

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
  const ValueSpec spec{one_case.dtype, one_case.op, world_.size(), options_.seed};
  fill_inputs(spec, world_.rank(), buffers.host.data(), layout.send_count);
  const std::size_t input_bytes = layout.send_count * element;

  CollectiveCall call;
  call.count = layout.call_count;
  call.dtype = one_case.dtype;
  call.op = one_case.op;
  call.root = one_case.root < 0 ? 0 : one_case.root;
  call.in_place = placement == Placement::kInPlace;
  if (call.in_place) {
    // Poison the whole shared buffer first: the parts outside this rank's input must be written.
    const std::size_t shared_bytes = std::max(layout.send_count, layout.recv_count) * element;
    buffers.recv->fill_bytes(kPoisonByte, 0, shared_bytes);
    const std::size_t send_offset = rank * layout.in_place_send_stride * element;
    buffers.recv->copy_from_host(buffers.host.data(), send_offset, input_bytes);
    call.send = at_offset(buffers.recv->data(), send_offset);
    call.recv = at_offset(buffers.recv->data(), rank * layout.in_place_recv_stride * element);
  } else {
    buffers.send->copy_from_host(buffers.host.data(), 0, input_bytes);
    buffers.recv->fill_bytes(kPoisonByte, 0, layout.recv_count * element);
    call.send = buffers.send->data();
    call.recv = buffers.recv->data();
  }
  return call;
}

report::ResultRow CollectiveRunner::measure(const Case& one_case, const RowSize& size, std::uint64_t requested_bytes,
                                            Placement placement, Buffers& buffers) {
  const std::size_t element = dtype_info(one_case.dtype).size_bytes;
  const std::uint64_t bytes = size.row_count * element;
  const CollectiveCall call = prepare(one_case, size, placement, buffers);
  // The backend decides how an iteration is issued and timed (CPU: monotonic clock; GPU: CUDA
  // events, optionally a CUDA graph of several calls); the loop, barriers and samples are the harness's.
  const std::unique_ptr<IterationLauncher> launcher = backend_.make_launcher([this, &call] { entry_->issue(call); });
  const std::unique_ptr<IterationTimer> timer = backend_.make_timer();
  TimedOperation operation;
  operation.run_untimed = [&](int) {
    launcher->launch();
    backend_.synchronize();
  };
  operation.run_timed_us = [&](int) {
    timer->start();
    launcher->launch();
    return timer->stop_us() / launcher->calls_per_launch();
  };
  LoopResult timed = time_iterations(world_, {options_.warmup_iterations, options_.iterations, options_.aggregation, options_.inject_slowdown_percent},
                                     operation, watchdog_, describe(collective_.name, bytes, one_case.dtype, placement));

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
  row.algbw_gbps = row.time_us.mean > 0 ? static_cast<double>(bytes) / (row.time_us.mean * 1e3) : 0.0;
  row.bus_bandwidth_factor = collective_.bus_bandwidth_factor(world_.size());
  if (world_.size() > 1) row.busbw_gbps = row.algbw_gbps * row.bus_bandwidth_factor;
  row.check_iterations = options_.check_iterations;
  if (options_.check_iterations > 0) row.wrong = count_wrong(one_case, size, placement, buffers);
  if (options_.keep_samples) row.samples_us = std::move(timed.combined_us);
  return row;
}

std::int64_t CollectiveRunner::count_wrong(const Case& one_case, const RowSize& size, Placement placement,
                                           Buffers& buffers) {
  const BufferLayout& layout = size.layout;
  const std::size_t element = dtype_info(one_case.dtype).size_bytes;
  const int rank = world_.rank();
  const ValueSpec spec{one_case.dtype, one_case.op, world_.size(), options_.seed};
  const bool in_place = placement == Placement::kInPlace;
  OutputContext where{rank, world_.size(), one_case.root < 0 ? 0 : one_case.root, layout.call_count, in_place};
  std::size_t output_offset = 0;
  if (in_place && entry_->in_place_output == InPlaceOutput::kAtRankStride) {
    output_offset = static_cast<std::size_t>(rank) * layout.in_place_recv_stride;
  }
  std::int64_t wrong = 0;
  for (int check = 0; check < options_.check_iterations; ++check) {
    const CollectiveCall call = prepare(one_case, size, placement, buffers);
    world_.barrier();
    entry_->issue(call);
    backend_.synchronize();
    if (watchdog_) watchdog_->progress();
    buffers.recv->copy_to_host(buffers.host.data(), output_offset * element, layout.recv_count * element);
    if (options_.inject_corrupt_output && rank == world_.size() - 1) corrupt_first_checked_element(collective_, where, buffers.host.data(), one_case.dtype, layout.recv_count);
    for (std::size_t i = 0; i < layout.recv_count; ++i) {
      const Expected source = collective_.expected_output(where, i);
      double expected = 0, tolerance = 0;
      switch (source.kind) {
        case Expected::Kind::kUnchecked: continue;
        case Expected::Kind::kCopyOf: expected = input_value(spec, source.source_rank, source.source_index); break;
        case Expected::Kind::kReductionAt:
          expected = reduced_value(spec, source.source_index);
          tolerance = reduction_tolerance(spec, source.source_index);
          break;
      }
      const double actual = load_element(one_case.dtype, buffers.host.data(), i);
      if (!(std::fabs(actual - expected) <= tolerance)) ++wrong;  // NaN counts as wrong
    }
  }
  return world_.sum(wrong);
}

}  // namespace collbench
