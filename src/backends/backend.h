// The data plane: one small interface that every communication library sits behind.
//
// A backend is open. It serves the collectives it has from its own table (a collective is the
// workload's name, "all_reduce"; there is no method per collective) and declares what it supports
// in BackendSupport: collectives, dtypes, ops, in-place forms, the largest count. The runner asks
// unsupported_reason() before it fills any buffer and records each "no" as a skipped row with the
// backend's reason: nothing is faked, and a missing operation needs no code. A quirk of one
// library's collective (MPI's in-place reduce-scatter output at the buffer's start) is data in
// that table entry, not a hook here. Backends get a BackendConfig, never the command line.
// Buffers may live in host or device memory; the runner moves data only through Buffer, untimed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/algorithm_ranges.h"
#include "core/dtype.h"
#include "core/timed_operation.h"
#include "core/values.h"

namespace collbench {

// What backends read from the command line, built by the harness. Most fields are for GPU
// backends; a backend ignores what it has no use for.
struct BackendConfig {
  double timeout_seconds = 0;  // -T: a GPU backend polls its waits and aborts the communicator after it
  std::string nccl_algo;       // --algo / --proto: NCCL_ALGO / NCCL_PROTO (empty: NCCL decides)
  std::string nccl_proto;
  bool capture_nccl_algorithm = false;  // --capture-algo
  // --algo for a backend that picks among its own algorithms (gloo: ring, bcube, ...); the same
  // text NCCL gets as NCCL_ALGO. Empty: the library's default.
  std::string algorithm;
  // --algo-file: an algorithm per collective and size range (gloo), what collbench tune writes.
  std::vector<AlgorithmRange> algorithm_ranges;
  std::string network_interface;  // --gloo-iface: the NIC a TCP backend binds (empty: it chooses)
  int registration = 0;  // -R: 0 plain device memory, 1 ncclMemAlloc + ncclCommRegister, 2 symmetric window
};

class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual void* data() = 0;  // what the backend's collectives take (host or device pointer)
  virtual std::size_t bytes() const = 0;
  virtual void copy_from_host(const void* source, std::size_t offset_bytes, std::size_t bytes) = 0;
  virtual void copy_to_host(void* destination, std::size_t offset_bytes, std::size_t bytes) const = 0;
  virtual void fill_bytes(unsigned char value, std::size_t offset_bytes, std::size_t bytes) = 0;
  // Copies `bytes` from one place of this buffer to another that does not overlap it (device to
  // device where the buffer is on a device), untimed: how the inputs reach every buffer slice.
  virtual void copy_within(std::size_t from_offset, std::size_t to_offset, std::size_t bytes) = 0;
  // Writes fill_inputs(spec, rank, ...)'s `count` elements at `offset_bytes`, where the buffer lives
  // (a device buffer with a kernel: no host fill and copy of the whole message).
  virtual void fill_inputs(const ValueSpec& spec, int rank, std::size_t offset_bytes, std::size_t count) = 0;
};

// The arguments of one collective call, in nccl-tests' terms: `count` is the per-call element
// count the library takes (elements per rank for all-gather, reduce-scatter, all-to-all, gather
// and scatter). For in-place calls send and recv alias one buffer, at the collective's offsets.
// alltoallv's per-peer blocks for this rank, in elements and in rank order: how many it sends to
// and receives from each rank, and where each block starts in the send and the receive buffer.
struct PeerBlocks {
  std::vector<std::size_t> send_counts, send_offsets;
  std::vector<std::size_t> receive_counts, receive_offsets;
};

struct CollectiveCall {
  const void* send = nullptr;
  void* recv = nullptr;
  std::size_t count = 0;
  DType dtype = DType::kFloat32;
  ReduceOp op = ReduceOp::kSum;
  int root = 0;
  bool in_place = false;
  // Collectives with per-peer counts (alltoallv): `count` is then the busiest rank's elements,
  // and these are the blocks. nullptr for the others.
  const PeerBlocks* peer_blocks = nullptr;
};

// Where this rank's output starts in the one buffer of an in-place call.
enum class InPlaceOutput {
  kAtRankStride,  // rank * the layout's in-place stride (nccl-tests' convention)
  kAtStart,       // the buffer's start (MPI's in-place reduce-scatter)
};

// One collective a backend has.
struct CollectiveEntry {
  std::string_view name;                           // the workload's name: "all_reduce"
  std::function<void(const CollectiveCall&)> issue;  // issues one call
  std::string in_place_unsupported;                // why the in-place form cannot run; "" if it can
  InPlaceOutput in_place_output = InPlaceOutput::kAtRankStride;
  // Why no form of it can run with this backend's settings (an --algo that names an algorithm of
  // another collective); "" if it can.
  std::string unsupported;
};

// comm_init_perf: one way a backend makes a communicator over some of the world's ranks and
// destroys it again (MPI_Comm_split, a Gloo context and its full mesh, ncclCommInitRank, ...).
struct CommunicatorMethod {
  std::string_view name;  // as the rows show it: "MPI_Comm_split"
  // Every rank of the world calls it with the same `members` (world ranks 0..k-1): members make
  // the communicator, check its size and their rank in it, and destroy it before returning; a
  // rank outside takes part only where the library needs every rank of the parent (a split) and
  // returns at once otherwise. Throws Error on a library failure.
  std::function<void(const std::vector<int>& members)> create_and_destroy;
  // Why it cannot run with this backend as built and loaded (a newer NCCL call); "" if it can.
  std::string unsupported;
  // Every rank, untimed, before a communicator size's iterations (what the method copies); may be empty.
  std::function<void(const std::vector<int>& members)> prepare;
  // Why it cannot make a communicator of every world rank ("" if it can): ncclCommShrink must
  // leave at least one rank out. That size's row is then skipped with this reason.
  std::string whole_world_unsupported;
};

// Whether world rank `rank` is one of `members`: members are world ranks 0..k-1, so a member's rank
// in a communicator of them is its world rank.
inline bool is_member(const std::vector<int>& members, int rank) {
  return std::find(members.begin(), members.end(), rank) != members.end();
}

// ---- Point to point (pt2pt_perf): one primitive, a list of transfers posted together ----------
// One message between this rank and `peer`: `bytes` from (send) or into (recv) `buffer` at
// `offset_bytes`. Bytes, not elements: point-to-point moves raw bytes.
struct Transfer {
  enum class Direction { kSend, kRecv };
  Direction direction = Direction::kSend;
  int peer = 0;
  Buffer* buffer = nullptr;
  std::size_t offset_bytes = 0;
  std::size_t bytes = 0;
};

// A backend's point-to-point primitive: `exchange` posts every transfer of the list at once (in
// list order; messages to one peer are matched in that order) and returns when all are complete,
// or, on a backend with a device queue, when all are queued in order (synchronize() waits for
// them). An empty `exchange` means the backend has none, and `unsupported` says why.
struct PointToPointEntry {
  std::function<void(const std::vector<Transfer>&)> exchange;
  std::string unsupported;
  std::size_t max_transfer_bytes = SIZE_MAX;  // MPI takes counts as int
  // One exchange may hold transfers to and from several peers at once (pt2pt_perf's fan-in and
  // fan-out); without it a case with more than one peer is skipped with the reason.
  bool many_peers = false;
};

// Everything a backend can run; anything else is a skipped row with the reason.
struct BackendSupport {
  std::vector<CollectiveEntry> collectives;
  std::vector<DType> dtypes;
  std::vector<ReduceOp> ops;
  std::size_t max_call_count = SIZE_MAX;  // MPI takes counts as int
  std::map<DType, std::string> dtype_reasons;  // why a dtype missing from `dtypes` is missing, when known
  // A dtype and an op the library rejects together although it has each (NCCL's one-rank fp8 avg), and why.
  std::map<std::pair<DType, ReduceOp>, std::string> dtype_op_reasons;
  std::vector<CommunicatorMethod> communicators;  // comm_init_perf's methods, in the order rows show them
  PointToPointEntry point_to_point;  // pt2pt_perf's transfers; none: every pt2pt case is skipped with its reason
  // nccl-tests' convention, for GPU backends: each call of a timed loop works on the next slice of
  // the buffers (workloads/collectives/buffer_slices.h), so no call finds the last one's data in
  // the cache. Off for host libraries, whose anchor (OSU) reuses one buffer.
  bool moves_buffers_each_call = false;
};

// Every dtype but the 8-bit floats: what host libraries (MPI, Gloo) reduce.
std::vector<DType> host_dtypes();
// The same reason for both 8-bit floats.
std::map<DType, std::string> fp8_reasons(const std::string& why);

// An entry served by one of the backend's own member functions.
template <class Library>
CollectiveEntry serve(std::string_view name, Library* backend, void (Library::*issue)(const CollectiveCall&),
                      std::string in_place_unsupported = "", InPlaceOutput output = InPlaceOutput::kAtRankStride) {
  return {name, [backend, issue](const CollectiveCall& call) { (backend->*issue)(call); },
          std::move(in_place_unsupported), output, ""};
}

// One case as a backend judges it, before the runner fills buffers for it.
struct CallShape {
  std::string_view collective;
  DType dtype = DType::kFloat32;
  std::optional<ReduceOp> op;  // nullopt for collectives without a reduction
  bool in_place = false;
  std::size_t call_count = 0;
};

class Backend {
 public:
  Backend() = default;
  Backend(const Backend&) = delete;  // it holds its library's communicator
  Backend& operator=(const Backend&) = delete;
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // What the backend runs for this collective, as far as it can tell ("default" when it cannot).
  virtual std::string algorithm(const std::string& collective) const = 0;
  // The same for a call of `bytes`, where the choice depends on the size (gloo's --algo-file).
  virtual std::string algorithm_at(const std::string& collective, std::uint64_t bytes) const {
    (void)bytes;
    return algorithm(collective);
  }
  virtual std::string device_description() const = 0;  // "cpu", "NVIDIA H100 80GB HBM3 [0]", ...
  virtual const BackendSupport& support() const = 0;

  virtual std::unique_ptr<Buffer> allocate(std::size_t bytes) = 0;
  // Waits until every call issued so far has completed (no-op for synchronous libraries).
  virtual void synchronize() = 0;

  // The row's call as the measurement loop's operation (core/timed_operation.h), made once per row
  // outside timing. The default issues `calls_per_iteration` calls one after another, waits with
  // synchronize() and asks for OSU's schedule; a GPU backend groups the calls, offers device marks
  // and graph capture, and asks for nccl-tests' batches.
  virtual std::unique_ptr<TimedOperation> make_operation(std::function<void()> issue_one_call, int calls_per_iteration);
  // The barrier that starts an iteration together (TimedOperation::start_together): the control
  // plane's by default. A backend whose library moves data on threads of its own overrides it
  // with its library's barrier on the measured communicator, and names it in own_barrier().
  virtual void barrier(World& world) { world.barrier(); }
  virtual std::string own_barrier() const { return ""; }
  // The library's own estimate of one call of `collective` in microseconds, from its cost model,
  // without running it (NCCL's ncclGroupSimulateEnd, 2.22 and later); nullopt where the library has
  // none. Asked once per row before its warm-up, untimed, on every rank; it is kept beside the
  // measured time, never in it.
  virtual std::optional<double> library_estimate_us(std::string_view /*collective*/,
                                                    const std::function<void()>& /*issue_one_call*/) {
    return std::nullopt;
  }
  // Library versions and settings the report should record ("nccl" -> "2.28.9", ...).
  virtual std::map<std::string, std::string> versions() const { return {}; }

  // This backend's entry for `collective`; nullptr when it has none. Looked up once per run, so
  // the timed loop pays no lookup.
  const CollectiveEntry* entry_for(std::string_view collective) const;
  // "" when this backend can run `shape`, otherwise why not (the skipped row's reason). Depends
  // only on the case, so every rank gets the same answer and none is left waiting.
  std::string unsupported_reason(const CallShape& shape) const;
  // "" when this backend can exchange point-to-point messages of `bytes`, otherwise why not.
  // Why pt2pt_perf cannot run messages of `bytes` with `peers` peers in one exchange ("" if it can).
  std::string point_to_point_unsupported(std::size_t bytes, std::size_t peers = 1) const;
};

// The default operation: calls issued one after another on the host, completed by synchronize().
class HostCallOperation final : public TimedOperation {
 public:
  HostCallOperation(Backend& backend, std::function<void()> issue_one_call, int calls_per_iteration)
      : backend_(backend), issue_(std::move(issue_one_call)), calls_(calls_per_iteration) {}
  int calls_per_iteration() const override { return calls_; }
  void issue(int) override {
    for (int call = 0; call < calls_; ++call) issue_();
  }
  void issue_check() override { issue_(); }
  void wait() override { backend_.synchronize(); }
  void start_together(World& world) override { backend_.barrier(world); }
  std::string own_barrier() const override { return backend_.own_barrier(); }

 private:
  Backend& backend_;
  std::function<void()> issue_;
  int calls_;
};

inline std::unique_ptr<TimedOperation> Backend::make_operation(std::function<void()> issue_one_call,
                                                               int calls_per_iteration) {
  return std::make_unique<HostCallOperation>(*this, std::move(issue_one_call), calls_per_iteration);
}

// A buffer in ordinary host memory, for CPU backends.
class HostBuffer final : public Buffer {
 public:
  explicit HostBuffer(std::size_t bytes);
  void* data() override { return storage_.get(); }
  std::size_t bytes() const override { return bytes_; }
  void copy_from_host(const void* source, std::size_t offset_bytes, std::size_t bytes) override;
  void copy_to_host(void* destination, std::size_t offset_bytes, std::size_t bytes) const override;
  void fill_bytes(unsigned char value, std::size_t offset_bytes, std::size_t bytes) override;
  void copy_within(std::size_t from_offset, std::size_t to_offset, std::size_t bytes) override;
  void fill_inputs(const ValueSpec& spec, int rank, std::size_t offset_bytes, std::size_t count) override;

 private:
  struct FreeMemory {
    void operator()(unsigned char* memory) const { std::free(memory); }
  };
  std::size_t bytes_;
  std::unique_ptr<unsigned char, FreeMemory> storage_;
};

// A backend of a host library (MPI, Gloo): host buffers, and calls that are done when they return.
class HostBackend : public Backend {
 public:
  std::string device_description() const override { return "cpu"; }
  std::unique_ptr<Buffer> allocate(std::size_t bytes) override { return std::make_unique<HostBuffer>(bytes); }
  void synchronize() override {}
};

}  // namespace collbench
