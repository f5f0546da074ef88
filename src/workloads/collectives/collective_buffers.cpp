#include "workloads/collectives/collective_buffers.h"

#include <algorithm>
#include <cmath>

#include "core/values.h"
#include "workloads/collectives/bitwise.h"
#include "workloads/collectives/traffic_run.h"

namespace collbench {
namespace {

// The staging piece: a whole number of elements of any dtype, small next to the messages.
constexpr std::size_t kStagingBytes = 4u << 20;
// A staging piece with at least this many elements is checked by the process's OpenMP threads
// (as many as its CPU binding allows: one where mpirun binds each rank to a core); smaller pieces
// stay on one thread, where starting the team would cost more than it saves.
constexpr std::size_t kParallelCheckElements = 1u << 16;

char* at_offset(void* base, std::size_t bytes) { return static_cast<char*>(base) + bytes; }

}  // namespace

CollectiveBuffers::CollectiveBuffers(const Collective& collective, Backend& backend, const CollectiveEntry* entry, World& world,
                                     const CollectiveOptions& options, const BufferBytes& largest)
    : collective_(collective), backend_(backend), entry_(entry), world_(world), options_(options) {
  // -u starts the calls past an aligned address: room for the skew of the widest element.
  const std::size_t skew = static_cast<std::size_t>(options_.unaligned_elements) * sizeof(double);
  send_ = backend_.allocate(largest.send + skew);
  recv_ = backend_.allocate(largest.shared + skew);
  host_.resize(std::min<std::size_t>(largest.shared, kStagingBytes));
}

OutputContext CollectiveBuffers::output_context(const CollectiveCase& one_case) const {
  return {world_.rank(), world_.size(), one_case.root < 0 ? 0 : one_case.root, one_case.size.layout.call_count,
          one_case.placement == Placement::kInPlace, one_case.traffic.get()};
}

void CollectiveBuffers::issue_one_call() {
  if (!moving_) {
    entry_->issue(call_);
    return;
  }
  CollectiveCall moved = call_;
  const std::size_t shift = next_slice_ * slices_.stride;
  moved.send = static_cast<const char*>(call_.send) + shift;
  moved.recv = static_cast<char*>(call_.recv) + shift;
  next_slice_ = (next_slice_ + 1) % slices_.count;
  entry_->issue(moved);
}

void CollectiveBuffers::start_moving(const CollectiveCase& one_case) {
  slices_ = BufferSlices{};
  next_slice_ = 0;
  moving_ = false;
  if (!backend_.support().moves_buffers_each_call) return;
  const BufferLayout& layout = one_case.size.layout;
  const std::size_t element = dtype_info(one_case.dtype).size_bytes;
  const std::size_t skew = unaligned_bytes(one_case.dtype);
  const std::size_t send_bytes = layout.send_count * element;
  // In place, one slice is the whole shared region (this rank's input and every output); out of
  // place, the larger of the two buffers' parts.
  const std::size_t footprint = std::max(send_bytes, layout.recv_count * element);
  const std::size_t room = call_.in_place ? recv_->bytes() - skew : std::min(send_->bytes(), recv_->bytes()) - skew;
  const auto calls = static_cast<std::size_t>(options_.warmup_iterations + options_.iterations) *
                     static_cast<std::size_t>(std::max(options_.calls_per_iteration, 1));
  slices_ = buffer_slices(footprint, room, calls);
  for (std::size_t slice = 1; slice < slices_.count; ++slice) {
    // The inputs (in place: with the poisoned outputs around them), so no timed call reads memory
    // nothing wrote.
    if (call_.in_place) {
      recv_->copy_within(skew, skew + slice * slices_.stride, footprint);
    } else {
      send_->copy_within(skew, skew + slice * slices_.stride, send_bytes);
    }
  }
  moving_ = slices_.count > 1;
}

// Poisons the outputs and writes this rank's inputs where the buffer lives (Buffer::fill_inputs: a
// kernel on a GPU). The rounding inputs of -B's check go through host staging a piece at a time, so
// host memory stays at the buffers the collective needs plus one piece.
void CollectiveBuffers::fill_inputs(const CollectiveCase& one_case, bool rounding) {
  const BufferLayout& layout = one_case.size.layout;
  const std::size_t element = dtype_info(one_case.dtype).size_bytes;
  const std::size_t rank = static_cast<std::size_t>(world_.rank());
  const std::size_t skew = unaligned_bytes(one_case.dtype);
  const ValueSpec spec{one_case.dtype, one_case.op, world_.size(), options_.seed};
  moving_ = false;

  call_.count = layout.call_count;
  call_.dtype = one_case.dtype;
  call_.op = one_case.op;
  call_.root = one_case.root < 0 ? 0 : one_case.root;
  call_.in_place = one_case.placement == Placement::kInPlace;
  call_.peer_blocks = nullptr;
  if (one_case.traffic) {
    peer_blocks_ = peer_blocks_of(*one_case.traffic, world_.rank());
    call_.peer_blocks = &peer_blocks_;
  }
  Buffer* inputs = send_.get();
  std::size_t input_offset = skew;
  if (call_.in_place) {
    // Poison the whole shared buffer first: the parts outside this rank's input must be written.
    const std::size_t shared_bytes = std::max(layout.send_count, layout.recv_count) * element;
    recv_->fill_bytes(kPoisonByte, skew, shared_bytes);
    inputs = recv_.get();
    input_offset = skew + rank * layout.in_place_send_stride * element;
    call_.send = at_offset(recv_->data(), input_offset);
    call_.recv = at_offset(recv_->data(), skew + rank * layout.in_place_recv_stride * element);
  } else {
    recv_->fill_bytes(kPoisonByte, skew, layout.recv_count * element);
    call_.send = at_offset(send_->data(), skew);
    call_.recv = at_offset(recv_->data(), skew);
  }
  if (!rounding || !dtype_info(one_case.dtype).is_floating) {
    inputs->fill_inputs(spec, world_.rank(), input_offset, layout.send_count);  // on the device where it lives
    return;
  }
  const std::size_t piece = host_.size() / element;
  for (std::size_t first = 0; first < layout.send_count; first += piece) {
    const std::size_t count = std::min(piece, layout.send_count - first);
    for (std::size_t i = 0; i < count; ++i) {
      store_element(one_case.dtype, host_.data(), i, rounding_input(options_.seed, world_.rank(), first + i));
    }
    inputs->copy_from_host(host_.data(), input_offset + first * element, count * element);
  }
}

// Compares this rank's outputs of the call just completed with their closed forms, a staging
// piece at a time. Each element's verdict depends on nothing but its index and the piece's bytes,
// so a large piece is counted by several threads (the check is untimed; on a GPU host it is the one
// part of a row that still walks every element on a CPU).
std::int64_t CollectiveBuffers::count_wrong(const CollectiveCase& one_case) {
  const BufferLayout& layout = one_case.size.layout;
  const std::size_t element = dtype_info(one_case.dtype).size_bytes;
  const ValueModel values({one_case.dtype, one_case.op, world_.size(), options_.seed});
  const OutputContext where = output_context(one_case);
  bool corrupt = options_.inject_corrupt_output && world_.rank() == world_.size() - 1;
  std::int64_t wrong = 0;
  const std::size_t piece = host_.size() / element;
  for (std::size_t first = 0; first < layout.recv_count; first += piece) {
    const std::size_t count = std::min(piece, layout.recv_count - first);
    unsigned char* outputs = read_outputs(one_case, first, count);
    // --inject-corrupt-output: the first element this rank checks gets a value no input produces
    // and no reduction over < 12 ranks reaches.
    for (std::size_t i = 0; corrupt && i < count; ++i) {
      if (collective_.expected_output(where, first + i).kind == Expected::Kind::kUnchecked) continue;
      store_element(one_case.dtype, outputs, i, 99.0);
      corrupt = false;
    }
    const auto elements = static_cast<std::ptrdiff_t>(count);
    std::int64_t wrong_in_piece = 0;
#pragma omp parallel for schedule(static) reduction(+ : wrong_in_piece) if (count >= kParallelCheckElements)
    for (std::ptrdiff_t i = 0; i < elements; ++i) {
      const auto index = static_cast<std::size_t>(i);
      const Expected source = collective_.expected_output(where, first + index);
      double expected = 0, tolerance = 0;
      switch (source.kind) {
        case Expected::Kind::kUnchecked: continue;
        case Expected::Kind::kCopyOf: expected = values.input(source.source_rank, source.source_index); break;
        case Expected::Kind::kReductionAt: {
          const ValueModel::Reduction reduction = values.reduction(source.source_index);
          expected = reduction.value;
          tolerance = reduction.tolerance;
          break;
        }
      }
      const double actual = load_element(one_case.dtype, outputs, index);
      if (!(std::fabs(actual - expected) <= tolerance)) ++wrong_in_piece;  // NaN counts as wrong
    }
    wrong += wrong_in_piece;
  }
  return wrong;
}

unsigned char* CollectiveBuffers::read_outputs(const CollectiveCase& one_case, std::size_t first, std::size_t count) {
  const std::size_t element = dtype_info(one_case.dtype).size_bytes;
  std::size_t offset = unaligned_bytes(one_case.dtype);
  if (one_case.placement == Placement::kInPlace && entry_->in_place_output == InPlaceOutput::kAtRankStride) {
    offset += static_cast<std::size_t>(world_.rank()) * one_case.size.layout.in_place_recv_stride * element;
  }
  recv_->copy_to_host(host_.data(), offset + first * element, count * element);
  return host_.data();
}

}  // namespace collbench
