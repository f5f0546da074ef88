// Collectives through Gloo (pytorch/gloo) over its TCP transport, on host memory.
//
// Rendezvous: rank 0 serves a TcpStore (backends/rendezvous) on its address and a kernel-chosen
// port, sends "host:port" to the other ranks over the World, and every rank connects Gloo's full
// mesh through it. The store stays up for the backend's life; it is idle after the rendezvous.
//
// Algorithms (--algo, all_reduce only): "default" is gloo::allreduce (its ring over unbound
// buffers, input and output separate); ring, ring_chunked, halving_doubling and bcube are Gloo's
// classic algorithm objects (AllreduceRing, ...), which reduce in place and are built once per
// buffer shape. reduce_scatter always uses ReduceScatterHalvingDoubling, Gloo's only one.
//
// What a timed call includes (the runner's clock runs around one issue(), synchronously): the
// call on this thread and the socket I/O of Gloo's transport thread it waits for; the small
// per-call set-up of unbound buffers; for the in-place-only classic algorithms and
// reduce_scatter out of place, the copy of the input into the buffer they reduce in (a Gloo
// user pays it too); for avg, the division after the sum. Building a classic algorithm object
// (buffer registration with every peer) happens on the first call of a shape, which warm-up
// absorbs: with -w 0 the first timed iteration pays it.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"

namespace gloo {
class Algorithm;
class Context;
template <typename T>
class ReductionFunction;
namespace transport {
class Device;
}
}  // namespace gloo

namespace collbench {
class World;
}

namespace collbench::rendezvous {
class TcpStoreServer;
}

namespace collbench::gloo_backend {

// The 16 bits of a bfloat16; Gloo 0.5.0 has no such type, so reductions over it use collbench's
// host kernel through Gloo's custom reduction hook (as the MPI backend uses a user-defined op).
struct Bfloat16Bits {
  std::uint16_t bits;
};

enum class AllreduceAlgorithm { kDefault, kRing, kRingChunked, kHalvingDoubling, kBcube };

// "ring" -> kRing ...; throws UsageError listing the names for anything else.
AllreduceAlgorithm parse_allreduce_algorithm(const std::string& name);
std::string to_string(AllreduceAlgorithm algorithm);

class GlooBackend final : public HostBackend {
 public:
  GlooBackend(World& world, const BackendConfig& config);
  ~GlooBackend() override;

  std::string name() const override { return "gloo"; }
  std::string algorithm(const std::string& collective) const override;
  std::string algorithm_at(const std::string& collective, std::uint64_t bytes) const override;
  const BackendSupport& support() const override { return support_; }
  // Gloo's own barrier on the measured context (TimedOperation::start_together says why).
  void barrier(World& world) override;
  std::string own_barrier() const override { return "Gloo's, on the measured context"; }
  std::map<std::string, std::string> versions() const override;

 private:
  void all_reduce(const CollectiveCall& call);
  void broadcast(const CollectiveCall& call);
  void reduce(const CollectiveCall& call);
  void all_gather(const CollectiveCall& call);
  void reduce_scatter(const CollectiveCall& call);
  void alltoall(const CollectiveCall& call);
  void gather(const CollectiveCall& call);
  void scatter(const CollectiveCall& call);
  void sendrecv(const CollectiveCall& call);
  void alltoallv(const CollectiveCall& call);
  // comm_init_perf: a new context of the members over the store, connected as a full mesh.
  void connect_members(const std::vector<int>& members);
  // pt2pt_perf: an unbound buffer per transfer, all posted, then every send and receive waited for.
  void exchange(const std::vector<Transfer>& transfers);

  // A classic algorithm object for (collective, buffer, count, dtype, op), built on the first
  // call of that shape. Every rank sees the same sequence of shapes, so all build together.
  template <typename T, typename Make>
  gloo::Algorithm& prepared(std::string_view collective, void* buffer, const CollectiveCall& call, Make make);
  template <typename T>
  const gloo::ReductionFunction<T>* classic_reduction(ReduceOp op) const;
  // Scratch memory of at least `bytes`, kept across calls (in-place ring exchange, out-of-place
  // reduce-scatter), so its registration with Gloo stays valid.
  unsigned char* scratch(std::size_t bytes);

  int rank_ = 0;
  int size_ = 1;
  std::string io_thread_policy_ = "normal (one rank: no I/O thread)";  // io_thread.h
  AllreduceAlgorithm allreduce_algorithm_ = AllreduceAlgorithm::kDefault;
  // --algo-file: all_reduce's algorithm per size range; sizes outside them take allreduce_algorithm_.
  std::vector<std::pair<AlgorithmRange, AllreduceAlgorithm>> allreduce_ranges_;
  AllreduceAlgorithm allreduce_algorithm_for(std::uint64_t bytes) const;
  std::string interface_;
  std::unique_ptr<rendezvous::TcpStoreServer> store_server_;  // rank 0 only
  std::shared_ptr<gloo::Context> context_;
  // What a new context needs: the store rank 0 serves, the transport device, the timeouts, and a
  // serial number for its keys (a store key is written once; every rank counts the same calls).
  std::string store_address_;
  std::shared_ptr<gloo::transport::Device> device_;
  std::chrono::milliseconds collective_timeout_{0};
  std::uint64_t contexts_made_ = 0;
  std::array<std::unique_ptr<gloo::ReductionFunction<Bfloat16Bits>>, 4> bfloat16_reductions_;

  struct PreparedKey {
    std::string_view collective;
    void* buffer = nullptr;
    std::size_t count = 0;
    DType dtype = DType::kFloat32;
    ReduceOp op = ReduceOp::kSum;
    bool operator==(const PreparedKey& other) const {
      return collective == other.collective && buffer == other.buffer && count == other.count &&
             dtype == other.dtype && op == other.op;
    }
  };
  PreparedKey prepared_key_;
  std::unique_ptr<gloo::Algorithm> prepared_algorithm_;
  std::vector<unsigned char> scratch_;
  BackendSupport support_;
};

}  // namespace collbench::gloo_backend
