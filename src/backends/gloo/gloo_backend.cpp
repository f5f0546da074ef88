#include "backends/gloo/gloo_backend.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/allreduce_bcube.h>
#include <gloo/allreduce_halving_doubling.h>
#include <gloo/allreduce_ring.h>
#include <gloo/allreduce_ring_chunked.h>
#include <gloo/alltoall.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/config.h>
#include <gloo/gather.h>
#include <gloo/math.h>
#include <gloo/reduce.h>
#include <gloo/reduce_scatter.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/rendezvous/store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/types.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <set>

#include "backends/gloo/io_thread.h"
#include "backends/gloo/network.h"
#include "backends/registry.h"
#include "backends/gloo/tcp_store_for_gloo.h"
#include "backends/rendezvous/tcp_store.h"
#include "core/error.h"
#include "core/process_threads.h"
#include "core/host_reduce.h"
#include "core/printable.h"
#include "core/world.h"

namespace collbench::gloo_backend {
namespace {

using Milliseconds = std::chrono::milliseconds;

// Gloo's timeout for one collective when -T is not given: long enough for the largest sizes on a
// slow network, short enough that a dead peer ends the run with Gloo's message.
constexpr Milliseconds kDefaultCollectiveTimeout = std::chrono::minutes(5);
constexpr Milliseconds kRendezvousTimeout = std::chrono::minutes(1);
// A slot no Gloo collective builds (they use prefixes 0x01..0x0f over a 56-bit tag).
constexpr std::uint64_t kRingExchangeSlot = 0x7eull << 56;
constexpr std::uint64_t kPointToPointSlot = 0x7dull << 56;

// --algo's names, in AllreduceAlgorithm's order.
constexpr std::array<const char*, 5> kAllreduceAlgorithmNames = {"default", "ring", "ring_chunked", "halving_doubling", "bcube"};

// Gloo's element type for each collbench dtype; Visit is called with a value of that type.
template <typename Visit>
void with_element_type(DType dtype, Visit&& visit) {
  switch (dtype) {
    case DType::kFloat16: return visit(gloo::float16{});
    case DType::kBfloat16: return visit(Bfloat16Bits{});
    case DType::kFloat8E4M3:
    case DType::kFloat8E5M2: return;  // not offered: see the support table
    default: return with_arithmetic_type(dtype, visit);
  }
}

// bfloat16 reductions through collbench's host kernel, in both of Gloo's signatures.
template <ReduceOp Op>
void bfloat16_combine(void* out, const void* a, const void* b, std::size_t count) {
  auto* result = static_cast<std::uint16_t*>(out);
  const auto* left = static_cast<const std::uint16_t*>(a);
  const auto* right = static_cast<const std::uint16_t*>(b);
  if (result != left) std::memmove(result, left, count * sizeof(std::uint16_t));
  fold_sixteen_bit<SixteenBitFormat::kBfloat16, Op>(right, result, count);
}

template <ReduceOp Op>
void bfloat16_fold(Bfloat16Bits* inout, const Bfloat16Bits* in, std::size_t count) {
  fold_sixteen_bit<SixteenBitFormat::kBfloat16, Op>(reinterpret_cast<const std::uint16_t*>(in),
                                                    reinterpret_cast<std::uint16_t*>(inout), count);
}

using UnboundReduction = void (*)(void*, const void*, const void*, std::size_t);

// The reduction the unbound-buffer collectives take; avg reduces as sum.
template <typename T>
UnboundReduction unbound_reduction(ReduceOp op) {
  if constexpr (std::is_same_v<T, Bfloat16Bits>) {
    switch (op) {
      case ReduceOp::kProd: return &bfloat16_combine<ReduceOp::kProd>;
      case ReduceOp::kMin: return &bfloat16_combine<ReduceOp::kMin>;
      case ReduceOp::kMax: return &bfloat16_combine<ReduceOp::kMax>;
      default: return &bfloat16_combine<ReduceOp::kSum>;
    }
  } else {
    switch (op) {
      case ReduceOp::kProd: return static_cast<UnboundReduction>(&gloo::product<T>);
      case ReduceOp::kMin: return static_cast<UnboundReduction>(&gloo::min<T>);
      case ReduceOp::kMax: return static_cast<UnboundReduction>(&gloo::max<T>);
      default: return static_cast<UnboundReduction>(&gloo::sum<T>);
    }
  }
}

// guarded() around `body`, called with a value of the call's element type (with_element_type).
template <typename Body>
void guarded_typed(const char* collective, DType dtype, Body&& body) {
  guarded("gloo ", collective, [&] { with_element_type(dtype, body); });
}

void* mutable_send(const CollectiveCall& call) { return const_cast<void*>(call.send); }

std::size_t bytes_of(const CollectiveCall& call, std::size_t count) { return count * dtype_info(call.dtype).size_bytes; }

// Gloo's classic algorithms take counts and byte sizes as int.
int classic_count(std::size_t count, std::size_t element_bytes) {
  if (count > static_cast<std::size_t>(INT_MAX) / element_bytes) {
    throw Error("Gloo's classic algorithms take sizes as int; " + std::to_string(count * element_bytes) +
                " bytes exceed 2^31-1 (use --algo default)");
  }
  return static_cast<int>(count);
}

// Where rank 0 serves the store and which interface Gloo binds on this rank.
struct Network {
  std::string store_host;  // rank 0's choice
  std::string interface;   // this rank's
};

Network choose_network(World& world, const std::string& requested_interface) {
  const std::vector<std::string> hosts = world.gather_strings(world.host());
  const bool one_host = std::all_of(hosts.begin(), hosts.end(), [&](const std::string& h) { return h == hosts[0]; });
  // A failure (a bad --gloo-iface) is a usage error on every rank.
  Network network;
  network.store_host = world.decided_on_rank_zero([&]() -> std::string {
    try {
      if (!requested_interface.empty()) return interface_address(requested_interface);
      // Launched without MPI, the store lives on the address rank 0 was given (MASTER_ADDR).
      if (!world.listen_address().empty()) return world.listen_address();
      return one_host ? std::string("127.0.0.1") : outward_address();
    } catch (const std::exception& e) {
      throw UsageError((requested_interface.empty() ? "" : "--gloo-iface " + requested_interface + ": ") + e.what());
    }
  });
  network.interface = requested_interface.empty() ? interface_routing_to(network.store_host) : requested_interface;
  return network;
}

}  // namespace

AllreduceAlgorithm parse_allreduce_algorithm(const std::string& name) {
  const std::string lower = lowercase(name);
  for (std::size_t i = 0; i < kAllreduceAlgorithmNames.size(); ++i) {
    if (lower == kAllreduceAlgorithmNames[i]) return static_cast<AllreduceAlgorithm>(i);
  }
  throw UsageError("--algo " + name + " is not a Gloo algorithm (gloo: default, ring, ring_chunked, halving_doubling, bcube)");
}

std::string to_string(AllreduceAlgorithm algorithm) { return kAllreduceAlgorithmNames[static_cast<std::size_t>(algorithm)]; }

GlooBackend::GlooBackend(World& world, const BackendConfig& config) : rank_(world.rank()), size_(world.size()) {
  if (!config.algorithm.empty()) allreduce_algorithm_ = parse_allreduce_algorithm(config.algorithm);
  if (!config.algorithm.empty() && !config.algorithm_ranges.empty()) throw UsageError("--algo and --algo-file: give one of them");
  for (const AlgorithmRange& range : config.algorithm_ranges) {
    if (range.collective != "all_reduce") {
      throw UsageError("--algo-file names " + range.collective + "; the gloo backend has algorithm choices for all_reduce only");
    }
    allreduce_ranges_.emplace_back(range, parse_allreduce_algorithm(range.algorithm));
  }
  // Gloo 0.5.0's bcube (base 2) assumes a full cube: at 3 ranks it returns wrong sums, measured.
  const bool power_of_two = (size_ & (size_ - 1)) == 0;
  const bool bcube_in_file = std::any_of(allreduce_ranges_.begin(), allreduce_ranges_.end(),
                                         [](const auto& entry) { return entry.second == AllreduceAlgorithm::kBcube; });
  if ((allreduce_algorithm_ == AllreduceAlgorithm::kBcube || bcube_in_file) && !power_of_two) {
    throw UsageError("--algo bcube needs a world size that is a power of 2 (Gloo's bcube with base 2), not " +
                     std::to_string(size_) + " ranks; ring, ring_chunked and halving_doubling take any size");
  }
  const Network network = choose_network(world, config.network_interface);
  interface_ = network.interface;

  // Rank 0 serves the store; its bound port reaches the others over the World.
  const rendezvous::StoreAddress store_address = rendezvous::parse_store_address(world.decided_on_rank_zero([&] {
    store_server_ = std::make_unique<rendezvous::TcpStoreServer>(rendezvous::StoreAddress{network.store_host, 0});
    return store_server_->address().text();
  }));

  collective_timeout_ =
      config.timeout_seconds > 0 ? Milliseconds(static_cast<long long>(config.timeout_seconds * 1000)) : kDefaultCollectiveTimeout;
  store_address_ = store_address.text();
  try {
    rendezvous::TcpStoreClient client(store_address, kRendezvousTimeout);
    TcpStoreForGloo store(client, std::max(kRendezvousTimeout, collective_timeout_));
    gloo::rendezvous::PrefixStore prefixed("collbench/gloo", store);
    gloo::transport::tcp::attr attributes;
    attributes.iface = interface_;
    const std::set<int> threads_before = threads_of_this_process();
    std::shared_ptr<gloo::transport::Device> device = gloo::transport::tcp::CreateDevice(attributes);
    io_thread_policy_ = calm_new_io_threads(threads_before, kGlooDataIoThreadName);  // io_thread.h says why
    auto context = std::make_shared<gloo::rendezvous::Context>(rank_, size_);
    context->setTimeout(collective_timeout_);
    context->connectFullMesh(prefixed, device);
    context_ = std::move(context);
    device_ = std::move(device);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error("gloo rendezvous through " + store_address.text() + " on interface " + interface_ + " failed: " + e.what());
  }

  bfloat16_reductions_ = {
      std::make_unique<gloo::ReductionFunction<Bfloat16Bits>>(gloo::CUSTOM, &bfloat16_fold<ReduceOp::kSum>),
      std::make_unique<gloo::ReductionFunction<Bfloat16Bits>>(gloo::CUSTOM, &bfloat16_fold<ReduceOp::kProd>),
      std::make_unique<gloo::ReductionFunction<Bfloat16Bits>>(gloo::CUSTOM, &bfloat16_fold<ReduceOp::kMin>),
      std::make_unique<gloo::ReductionFunction<Bfloat16Bits>>(gloo::CUSTOM, &bfloat16_fold<ReduceOp::kMax>)};

  const std::string alltoall_in_place =
      "the gloo backend has no in-place alltoall: gloo::alltoall receives into its output while still sending from "
      "its input, so they must be separate buffers";
  support_.collectives = {serve("all_reduce", this, &GlooBackend::all_reduce), serve("broadcast", this, &GlooBackend::broadcast),
               serve("reduce", this, &GlooBackend::reduce), serve("all_gather", this, &GlooBackend::all_gather),
               serve("reduce_scatter", this, &GlooBackend::reduce_scatter, "", InPlaceOutput::kAtStart),
               serve("alltoall", this, &GlooBackend::alltoall, alltoall_in_place),
               serve("gather", this, &GlooBackend::gather), serve("scatter", this, &GlooBackend::scatter),
               serve("sendrecv", this, &GlooBackend::sendrecv),
               serve("alltoallv", this, &GlooBackend::alltoallv,
                     "alltoallv runs out of place only, as nccl-tests' does: gloo::alltoallv receives into its output "
                     "while still sending from its input")};
  support_.dtypes = host_dtypes();
  support_.ops = all_reduce_ops();
  support_.communicators = {
      {"gloo context + connectFullMesh", [this](const std::vector<int>& members) { connect_members(members); }, "", {}, ""}};
  support_.dtype_reasons = fp8_reasons("the gloo backend has no 8-bit float type");
  support_.point_to_point.exchange = [this](const std::vector<Transfer>& transfers) { exchange(transfers); };
  support_.point_to_point.many_peers = true;  // an unbound buffer per transfer, any peer
  if (allreduce_algorithm_ != AllreduceAlgorithm::kDefault) {
    for (CollectiveEntry& entry : support_.collectives) {
      if (entry.name == "all_reduce") continue;
      entry.unsupported = "the gloo backend has algorithm choices for all_reduce only; --algo " +
                          to_string(allreduce_algorithm_) + " does not apply to " + std::string(entry.name);
    }
  }
}

GlooBackend::~GlooBackend() {
  // The algorithm objects hold buffers registered with the context's pairs: release them first.
  prepared_algorithm_.reset();
  context_.reset();
}

std::string GlooBackend::algorithm(const std::string& collective) const {
  if (collective == "all_reduce") return to_string(allreduce_algorithm_);
  if (collective == "reduce_scatter") return "halving_doubling";
  return "default";
}

std::string GlooBackend::algorithm_at(const std::string& collective, std::uint64_t bytes) const {
  if (collective == "all_reduce") return to_string(allreduce_algorithm_for(bytes));
  return algorithm(collective);
}

AllreduceAlgorithm GlooBackend::allreduce_algorithm_for(std::uint64_t bytes) const {
  for (const auto& [range, algorithm] : allreduce_ranges_) {
    if (range.first_bytes <= bytes && bytes <= range.last_bytes) return algorithm;
  }
  return allreduce_algorithm_;
}

std::map<std::string, std::string> GlooBackend::versions() const {
  return {{"gloo", std::to_string(GLOO_VERSION_MAJOR) + "." + std::to_string(GLOO_VERSION_MINOR) + "." +
                       std::to_string(GLOO_VERSION_PATCH)},
          {"gloo_transport", "tcp"},
          {"gloo_iface", interface_},
          {"gloo_io_thread", io_thread_policy_}};
}

unsigned char* GlooBackend::scratch(std::size_t bytes) {
  if (scratch_.size() < bytes) {
    prepared_algorithm_.reset();  // it may hold the old scratch
    scratch_ = std::vector<unsigned char>(bytes);
  }
  return scratch_.data();
}

template <typename T>
const gloo::ReductionFunction<T>* GlooBackend::classic_reduction(ReduceOp op) const {
  if constexpr (std::is_same_v<T, Bfloat16Bits>) {
    const std::size_t index = op == ReduceOp::kAvg ? 0 : static_cast<std::size_t>(op);
    return bfloat16_reductions_[index].get();
  } else {
    switch (op) {
      case ReduceOp::kProd: return gloo::ReductionFunction<T>::product;
      case ReduceOp::kMin: return gloo::ReductionFunction<T>::min;
      case ReduceOp::kMax: return gloo::ReductionFunction<T>::max;
      default: return gloo::ReductionFunction<T>::sum;
    }
  }
}

template <typename T, typename Make>
gloo::Algorithm& GlooBackend::prepared(std::string_view collective, void* buffer, const CollectiveCall& call, Make make) {
  // The key changes on every rank at the same call: counts, types and ops are the same
  // everywhere, and the buffers are the runner's (fixed for the run) or scratch_ (which grows at
  // the same sizes everywhere).
  const PreparedKey key{collective, buffer, call.count, call.dtype, call.op};
  if (!prepared_algorithm_ || !(key == prepared_key_)) {
    prepared_algorithm_.reset();
    prepared_algorithm_ = make();
    prepared_key_ = key;
  }
  return *prepared_algorithm_;
}

void GlooBackend::all_reduce(const CollectiveCall& call) {
  guarded_typed("allreduce", call.dtype, [&](auto type) {
    using T = decltype(type);
    T* output = static_cast<T*>(call.recv);
    const AllreduceAlgorithm chosen = allreduce_algorithm_for(bytes_of(call, call.count));
    if (chosen == AllreduceAlgorithm::kDefault) {
      gloo::AllreduceOptions options(context_);
      if (!call.in_place) options.setInput(static_cast<T*>(mutable_send(call)), call.count);
      options.setOutput(output, call.count);
      options.setReduceFunction(unbound_reduction<T>(call.op));
      gloo::allreduce(options);
      return;
    }
    // The classic algorithms reduce in place: out of place, the input is copied into the output.
    if (!call.in_place) std::memcpy(static_cast<void*>(output), call.send, bytes_of(call, call.count));
    const int count = classic_count(call.count, sizeof(T));
    const gloo::ReductionFunction<T>* reduction = classic_reduction<T>(call.op);
    gloo::Algorithm& algorithm = prepared<T>("all_reduce", output, call, [&]() -> std::unique_ptr<gloo::Algorithm> {
      const std::vector<T*> pointers{output};
      switch (chosen) {
        case AllreduceAlgorithm::kRing: return std::make_unique<gloo::AllreduceRing<T>>(context_, pointers, count, reduction);
        case AllreduceAlgorithm::kRingChunked:
          return std::make_unique<gloo::AllreduceRingChunked<T>>(context_, pointers, count, reduction);
        case AllreduceAlgorithm::kHalvingDoubling:
          return std::make_unique<gloo::AllreduceHalvingDoubling<T>>(context_, pointers, count, reduction);
        case AllreduceAlgorithm::kBcube: return std::make_unique<gloo::AllreduceBcube<T>>(context_, pointers, count, reduction);
        case AllreduceAlgorithm::kDefault: break;
      }
      throw Error("internal error: the default all_reduce has no classic Gloo algorithm object");
    });
    algorithm.run();
  });
  finish_average(call.recv, call.count, call.dtype, call.op, size_);
}

void GlooBackend::broadcast(const CollectiveCall& call) {
  // As MPI_Bcast: one buffer, the root's send buffer out of place (its receive buffer stays
  // unwritten), every other rank's receive buffer.
  void* buffer = rank_ == call.root && !call.in_place ? mutable_send(call) : call.recv;
  guarded_typed("broadcast", call.dtype, [&](auto type) {
    using T = decltype(type);
    gloo::BroadcastOptions options(context_);
    options.setOutput(static_cast<T*>(buffer), call.count);
    options.setRoot(call.root);
    gloo::broadcast(options);
  });
}

void GlooBackend::reduce(const CollectiveCall& call) {
  guarded_typed("reduce", call.dtype, [&](auto type) {
    using T = decltype(type);
    // Gloo's reduce uses the output on every rank as working space; only the root's is the result.
    gloo::ReduceOptions options(context_);
    if (!call.in_place) options.setInput(static_cast<T*>(mutable_send(call)), call.count);
    options.setOutput(static_cast<T*>(call.recv), call.count);
    options.setRoot(call.root);
    options.setReduceFunction(unbound_reduction<T>(call.op));
    gloo::reduce(options);
  });
  if (rank_ == call.root) finish_average(call.recv, call.count, call.dtype, call.op, size_);
}

void GlooBackend::all_gather(const CollectiveCall& call) {
  guarded_typed("allgather", call.dtype, [&](auto type) {
    using T = decltype(type);
    gloo::AllgatherOptions options(context_);
    // In place, gloo::allgather finds this rank's input at its block of the output.
    if (!call.in_place) options.setInput(static_cast<T*>(mutable_send(call)), call.count);
    options.setOutput(static_cast<T*>(call.recv), call.count * static_cast<std::size_t>(size_));
    gloo::allgather(options);
  });
}

// ReduceScatterHalvingDoubling reduces the whole input in place and leaves this rank's block at the
// buffer's start (its distribution phase; at 2 ranks it also happens to sit at r * count). In place
// that is declared as InPlaceOutput::kAtStart; out of place the input is copied to scratch first
// and this rank's block copied out after.
void GlooBackend::reduce_scatter(const CollectiveCall& call) {
  guarded_typed("reduce_scatter", call.dtype, [&](auto type) {
    using T = decltype(type);
    const std::size_t total = call.count * static_cast<std::size_t>(size_);
    const int total_count = classic_count(total, sizeof(T));
    T* working = call.in_place ? static_cast<T*>(mutable_send(call)) : reinterpret_cast<T*>(scratch(total * sizeof(T)));
    if (!call.in_place) std::memcpy(static_cast<void*>(working), call.send, total * sizeof(T));
    const gloo::ReductionFunction<T>* reduction = classic_reduction<T>(call.op);
    gloo::Algorithm& algorithm = prepared<T>("reduce_scatter", working, call, [&]() -> std::unique_ptr<gloo::Algorithm> {
      const std::vector<int> block_counts(static_cast<std::size_t>(size_), static_cast<int>(call.count));
      return std::make_unique<gloo::ReduceScatterHalvingDoubling<T>>(context_, std::vector<T*>{working}, total_count,
                                                                      block_counts, reduction);
    });
    algorithm.run();
    if (!call.in_place) std::memcpy(call.recv, static_cast<const void*>(working), call.count * sizeof(T));
  });
  finish_average(call.in_place ? mutable_send(call) : call.recv, call.count, call.dtype, call.op, size_);
}

void GlooBackend::alltoall(const CollectiveCall& call) {
  guarded_typed("alltoall", call.dtype, [&](auto type) {
    using T = decltype(type);
    const std::size_t total = call.count * static_cast<std::size_t>(size_);
    gloo::AlltoallOptions options(context_);
    options.setInput(static_cast<T*>(mutable_send(call)), total);
    options.setOutput(static_cast<T*>(call.recv), total);
    gloo::alltoall(options);
  });
}

// A new client of the store per context, as a process joining a new group would connect; its
// keys under a prefix of their own, since the store keeps every key written. Members are world
// ranks 0..k-1, so a member's rank in the context is its world rank.
void GlooBackend::connect_members(const std::vector<int>& members) {
  const std::uint64_t serial = contexts_made_++;
  if (!is_member(members, rank_)) return;
  const int size = static_cast<int>(members.size());
  guarded("gloo ", "connectFullMesh", [&] {
    rendezvous::TcpStoreClient client(rendezvous::parse_store_address(store_address_), kRendezvousTimeout);
    TcpStoreForGloo store(client, std::max(kRendezvousTimeout, collective_timeout_));
    gloo::rendezvous::PrefixStore prefixed("collbench/comm/" + std::to_string(serial), store);
    auto context = std::make_shared<gloo::rendezvous::Context>(rank_, size);
    context->setTimeout(collective_timeout_);
    context->connectFullMesh(prefixed, device_);
    if (context->size != size || context->rank != rank_) {
      throw Error("a Gloo context of " + std::to_string(context->size) + " rank(s) with this rank as " +
                  std::to_string(context->rank) + "; expected " + std::to_string(size) + " and " + std::to_string(rank_));
    }
    // One barrier over the new mesh before it goes: a rank whose side of a pair is connected may
    // otherwise close it while its peer is still finishing the handshake (measured: "Connection
    // closed by peer"). It is also the first use a real job makes of a new group.
    gloo::BarrierOptions barrier(context);
    gloo::barrier(barrier);
  });
}

// Gloo lays each rank's blocks back to back in rank order, as the call's offsets do.
void GlooBackend::alltoallv(const CollectiveCall& call) {
  const PeerBlocks& blocks = *call.peer_blocks;
  guarded_typed("alltoallv", call.dtype, [&](auto type) {
    using T = decltype(type);
    gloo::AlltoallvOptions options(context_);
    options.setInput(static_cast<T*>(mutable_send(call)),
                     std::vector<std::int64_t>(blocks.send_counts.begin(), blocks.send_counts.end()));
    options.setOutput(static_cast<T*>(call.recv),
                      std::vector<std::int64_t>(blocks.receive_counts.begin(), blocks.receive_counts.end()));
    gloo::alltoallv(options);
  });
}

void GlooBackend::gather(const CollectiveCall& call) {
  guarded_typed("gather", call.dtype, [&](auto type) {
    using T = decltype(type);
    gloo::GatherOptions options(context_);
    // In place the root's input already sits at its block of the output; gloo::gather copies
    // it onto itself, which changes nothing.
    options.setInput(static_cast<T*>(mutable_send(call)), call.count);
    if (rank_ == call.root) options.setOutput(static_cast<T*>(call.recv), call.count * static_cast<std::size_t>(size_));
    options.setRoot(call.root);
    gloo::gather(options);
  });
}

void GlooBackend::scatter(const CollectiveCall& call) {
  guarded_typed("scatter", call.dtype, [&](auto type) {
    using T = decltype(type);
    gloo::ScatterOptions options(context_);
    if (rank_ == call.root) {
      std::vector<T*> blocks;
      for (int block = 0; block < size_; ++block) {
        blocks.push_back(static_cast<T*>(mutable_send(call)) + static_cast<std::size_t>(block) * call.count);
      }
      options.setInputs(blocks, call.count);
    }
    // In place the root's output is its own block of the input (the runner's layout).
    options.setOutput(static_cast<T*>(call.recv), call.count);
    options.setRoot(call.root);
    gloo::scatter(options);
  });
}

void GlooBackend::barrier(World& world) {
  if (size_ == 1) return world.barrier();  // Gloo has no pair to itself
  guarded("gloo ", "barrier", [&] {
    gloo::BarrierOptions options(context_);
    gloo::barrier(options);
  });
}

// Ring exchange: send to rank + 1, receive from rank - 1, through unbound buffers on the pairs.
void GlooBackend::sendrecv(const CollectiveCall& call) {
  const std::size_t bytes = bytes_of(call, call.count);
  if (size_ == 1) {
    // Gloo has no pair to itself; as in its own collectives at one rank, the transfer is a copy.
    if (!call.in_place) std::memcpy(call.recv, call.send, bytes);
    return;
  }
  const int next = (rank_ + 1) % size_;
  const int previous = (rank_ - 1 + size_) % size_;
  // In place, as MPI_Sendrecv_replace: receive into scratch while sending, then copy over.
  void* landing = call.in_place ? scratch(bytes) : call.recv;
  guarded("gloo ", "sendrecv", [&] {
    const auto timeout = context_->getTimeout();
    auto outgoing = context_->createUnboundBuffer(mutable_send(call), bytes);
    auto incoming = context_->createUnboundBuffer(landing, bytes);
    incoming->recv(previous, kRingExchangeSlot);
    outgoing->send(next, kRingExchangeSlot);
    outgoing->waitSend(timeout);
    incoming->waitRecv(timeout);
  });
  if (call.in_place) std::memcpy(call.recv, landing, bytes);
}

void GlooBackend::exchange(const std::vector<Transfer>& transfers) {
  guarded("gloo ", "point-to-point exchange", [&] {
    const auto timeout = context_->getTimeout();
    std::vector<std::unique_ptr<gloo::transport::UnboundBuffer>> posted;
    posted.reserve(transfers.size());
    for (const Transfer& transfer : transfers) {
      void* address = static_cast<char*>(transfer.buffer->data()) + transfer.offset_bytes;
      posted.push_back(context_->createUnboundBuffer(address, transfer.bytes));
      // One slot: Gloo matches the messages between two ranks on a slot in posting order, as MPI does on a tag.
      if (transfer.direction == Transfer::Direction::kSend) posted.back()->send(transfer.peer, kPointToPointSlot);
      else posted.back()->recv(transfer.peer, kPointToPointSlot);
    }
    for (std::size_t i = 0; i < transfers.size(); ++i) {
      if (transfers[i].direction == Transfer::Direction::kSend) posted[i]->waitSend(timeout);
      else posted[i]->waitRecv(timeout);
    }
  });
}

}  // namespace collbench::gloo_backend

namespace collbench::backend_entry {
namespace {

std::unique_ptr<Backend> make_gloo_backend(World& world, const BackendConfig& config) {
  return std::make_unique<gloo_backend::GlooBackend>(world, config);
}

}  // namespace

// Gloo's TCP transport runs wherever it was built: every host has at least loopback.
extern const BackendEntry gloo{"gloo", make_gloo_backend, [] { return std::string(); }};

}  // namespace collbench::backend_entry
