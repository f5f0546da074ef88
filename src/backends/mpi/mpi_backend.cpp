#include "backends/mpi/mpi_backend.h"

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <cstdio>

#include "backends/mpi/mpi_check.h"
#include "backends/mpi/mpi_world.h"
#include "core/group_world.h"
#include "backends/registry.h"
#include "core/error.h"
#include "core/printable.h"
#include "core/host_reduce.h"

namespace collbench::mpi {
namespace {

// MPI's user-op signature around the shared host kernel.
template <SixteenBitFormat Format, ReduceOp Op>
void reduce_sixteen_bit(void* in, void* inout, int* length, MPI_Datatype*) {
  fold_sixteen_bit<Format, Op>(static_cast<const std::uint16_t*>(in), static_cast<std::uint16_t*>(inout),
                               static_cast<std::size_t>(*length));
}

template <SixteenBitFormat Format>
std::array<MPI_Op, 4> create_sixteen_bit_ops() {
  std::array<MPI_Op, 4> ops{};
  CB_MPI_CHECK(MPI_Op_create(&reduce_sixteen_bit<Format, ReduceOp::kSum>, 1, &ops[0]));
  CB_MPI_CHECK(MPI_Op_create(&reduce_sixteen_bit<Format, ReduceOp::kProd>, 1, &ops[1]));
  CB_MPI_CHECK(MPI_Op_create(&reduce_sixteen_bit<Format, ReduceOp::kMin>, 1, &ops[2]));
  CB_MPI_CHECK(MPI_Op_create(&reduce_sixteen_bit<Format, ReduceOp::kMax>, 1, &ops[3]));
  return ops;
}

MPI_Datatype mpi_type(DType dtype) {
  switch (dtype) {
    case DType::kInt8: return MPI_INT8_T;
    case DType::kUint8: return MPI_UINT8_T;
    case DType::kInt32: return MPI_INT32_T;
    case DType::kUint32: return MPI_UINT32_T;
    case DType::kInt64: return MPI_INT64_T;
    case DType::kUint64: return MPI_UINT64_T;
    case DType::kFloat16:
    case DType::kBfloat16: return MPI_UINT16_T;
    case DType::kFloat32: return MPI_FLOAT;
    case DType::kFloat64: return MPI_DOUBLE;
    case DType::kFloat8E4M3:
    case DType::kFloat8E5M2: break;  // not offered: see the support table
  }
  return MPI_DATATYPE_NULL;
}

// A backstop: support_.max_call_count keeps such counts from being asked for.
int mpi_count(std::size_t count) {
  if (count > static_cast<std::size_t>(INT_MAX)) {
    throw Error("MPI takes element counts as int; " + std::to_string(count) + " elements exceed 2^31-1");
  }
  return static_cast<int>(count);
}

void* mutable_send(const CollectiveCall& call) { return const_cast<void*>(call.send); }

constexpr const char* kAlltoallvInPlace =
    "alltoallv runs out of place only, as nccl-tests' does: MPI_IN_PLACE sends each peer the block received from "
    "it, which only a symmetric traffic matrix allows";

// Open MPI's tuned component honours a forced algorithm (OMPI_MCA_coll_tuned_<name>_algorithm)
// only with dynamic rules on, and silently falls back to its own choice for a number it does not
// know. The value it actually holds is read back through MPI's tool interface (MPI_T control
// variables), so a row says what ran: "ompi-tuned-4", or the request and what became of it.
std::optional<int> tuned_value_in_use(const std::string& variable) {
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return std::nullopt;
  std::optional<int> value;
  int count = 0;
  MPI_T_cvar_get_num(&count);
  for (int index = 0; index < count && !value; ++index) {
    char name[256], description[16];
    int name_length = sizeof name, description_length = sizeof description, verbosity = 0, binding = 0, scope = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum enumeration = MPI_T_ENUM_NULL;
    if (MPI_T_cvar_get_info(index, name, &name_length, &verbosity, &type, &enumeration, description, &description_length,
                            &binding, &scope) != MPI_SUCCESS ||
        variable != name || type != MPI_INT) {
      continue;
    }
    MPI_T_cvar_handle handle;
    int elements = 0;
    int read = 0;
    if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &elements) != MPI_SUCCESS) continue;
    if (elements == 1 && MPI_T_cvar_read(handle, &read) == MPI_SUCCESS) value = read;
    MPI_T_cvar_handle_free(&handle);
  }
  MPI_T_finalize();
  return value;
}

std::map<std::string, std::string> forced_tuned_algorithms(int rank) {
  static constexpr std::array<std::pair<const char*, const char*>, 8> kTunedNames = {{
      {"all_reduce", "allreduce"}, {"broadcast", "bcast"}, {"reduce", "reduce"}, {"all_gather", "allgather"},
      {"reduce_scatter", "reduce_scatter_block"}, {"alltoall", "alltoall"}, {"gather", "gather"}, {"scatter", "scatter"},
  }};
  std::map<std::string, std::string> labels;
  const char* dynamic = std::getenv("OMPI_MCA_coll_tuned_use_dynamic_rules");
  if (!dynamic || std::string(dynamic) != "1") return labels;
  for (const auto& [ours, tuned] : kTunedNames) {
    const std::string parameter = std::string("coll_tuned_") + tuned + "_algorithm";
    const char* requested = std::getenv(("OMPI_MCA_" + parameter).c_str());
    if (!requested) continue;
    const std::optional<int> in_use = tuned_value_in_use(parameter);
    if (!in_use) {
      labels[ours] = std::string("ompi-tuned-") + requested + " (requested, not verified)";
    } else if (std::to_string(*in_use) == requested) {
      labels[ours] = "ompi-tuned-" + std::to_string(*in_use);
    } else {
      labels[ours] = std::string("default (ompi-tuned-") + requested + " requested, rejected by Open MPI)";
      if (rank == 0) {
        print_line(stderr, "collbench: warning: Open MPI rejected OMPI_MCA_" + parameter + "=" + requested + " and uses " +
                               (*in_use == 0 ? std::string("its own choice") : std::to_string(*in_use)) + "; rows say \"" + labels[ours] +
                               "\"");
      }
    }
  }
  return labels;
}

}  // namespace

void MpiBackend::barrier(World& world) {
  if (group_) CB_MPI_CHECK(MPI_Barrier(communicator_));
  else world.barrier();
}

MpiBackend::MpiBackend(MPI_Comm parent, bool group) : group_(group) {
  CB_MPI_CHECK(MPI_Comm_dup(parent, &communicator_));
  CB_MPI_CHECK(MPI_Comm_set_errhandler(communicator_, MPI_ERRORS_RETURN));
  CB_MPI_CHECK(MPI_Comm_rank(communicator_, &rank_));
  CB_MPI_CHECK(MPI_Comm_size(communicator_, &size_));
  sixteen_bit_ops_[0] = create_sixteen_bit_ops<SixteenBitFormat::kHalf>();
  sixteen_bit_ops_[1] = create_sixteen_bit_ops<SixteenBitFormat::kBfloat16>();
  // 16-bit floats through user-defined ops, avg as sum and a division, counts as int.
  support_.collectives = {serve("all_reduce", this, &MpiBackend::all_reduce), serve("broadcast", this, &MpiBackend::broadcast),
               serve("reduce", this, &MpiBackend::reduce), serve("all_gather", this, &MpiBackend::all_gather),
               // MPI's in-place form reads the whole input and leaves this rank's block at the buffer's start.
               serve("reduce_scatter", this, &MpiBackend::reduce_scatter, "", InPlaceOutput::kAtStart),
               serve("alltoall", this, &MpiBackend::alltoall), serve("gather", this, &MpiBackend::gather),
               serve("scatter", this, &MpiBackend::scatter), serve("sendrecv", this, &MpiBackend::sendrecv),
               serve("alltoallv", this, &MpiBackend::alltoallv, kAlltoallvInPlace)};
  support_.dtypes = host_dtypes();
  support_.ops = all_reduce_ops();
  support_.max_call_count = static_cast<std::size_t>(INT_MAX);
  support_.communicators = {
      {"MPI_Comm_dup", [this](const std::vector<int>& members) { duplicate_members(members); }, "",
       [this](const std::vector<int>& members) { split_members_once(members); }, ""},
      {"MPI_Comm_split", [this](const std::vector<int>& members) { split_members(members); }, "", {}, ""}};
  support_.dtype_reasons = fp8_reasons("the mpi backend has no 8-bit float reductions (MPI has no fp8 type)");
  support_.point_to_point.exchange = [this](const std::vector<Transfer>& transfers) { exchange(transfers); };
  support_.point_to_point.many_peers = true;  // MPI_Isend/MPI_Irecv to any peers, one MPI_Waitall
  support_.point_to_point.max_transfer_bytes = static_cast<std::size_t>(INT_MAX);
  tuned_algorithms_ = forced_tuned_algorithms(rank_);
}

MpiBackend::~MpiBackend() {
  for (auto& ops : sixteen_bit_ops_) {
    for (auto& op : ops) {
      if (op != MPI_OP_NULL) MPI_Op_free(&op);
    }
  }
  if (members_ != MPI_COMM_NULL) MPI_Comm_free(&members_);
  if (communicator_ != MPI_COMM_NULL) MPI_Comm_free(&communicator_);
}

std::string MpiBackend::algorithm(const std::string& collective) const {
  const auto it = tuned_algorithms_.find(collective);
  return it == tuned_algorithms_.end() ? "default" : it->second;
}

MPI_Op MpiBackend::mpi_op(DType dtype, ReduceOp op) const {
  const ReduceOp combine = op == ReduceOp::kAvg ? ReduceOp::kSum : op;
  if (dtype == DType::kFloat16 || dtype == DType::kBfloat16) {
    return sixteen_bit_ops_[dtype == DType::kFloat16 ? 0 : 1][static_cast<std::size_t>(combine)];
  }
  switch (combine) {
    case ReduceOp::kSum: return MPI_SUM;
    case ReduceOp::kProd: return MPI_PROD;
    case ReduceOp::kMin: return MPI_MIN;
    case ReduceOp::kMax: return MPI_MAX;
    case ReduceOp::kAvg: break;
  }
  return MPI_SUM;
}

void MpiBackend::all_reduce(const CollectiveCall& call) {
  const void* send = call.in_place ? MPI_IN_PLACE : call.send;
  CB_MPI_CHECK(MPI_Allreduce(send, call.recv, mpi_count(call.count), mpi_type(call.dtype), mpi_op(call.dtype, call.op),
                             communicator_));
  finish_average(call.recv, call.count, call.dtype, call.op, size_);
}

void MpiBackend::broadcast(const CollectiveCall& call) {
  // MPI_Bcast has one buffer: the root sends from its send buffer, every other rank receives
  // into its receive buffer (so the root's receive buffer is not written out of place).
  void* buffer = rank_ == call.root && !call.in_place ? mutable_send(call) : call.recv;
  CB_MPI_CHECK(MPI_Bcast(buffer, mpi_count(call.count), mpi_type(call.dtype), call.root, communicator_));
}

void MpiBackend::reduce(const CollectiveCall& call) {
  const void* send = call.in_place && rank_ == call.root ? MPI_IN_PLACE : call.send;
  CB_MPI_CHECK(MPI_Reduce(send, call.recv, mpi_count(call.count), mpi_type(call.dtype), mpi_op(call.dtype, call.op),
                          call.root, communicator_));
  if (rank_ == call.root) finish_average(call.recv, call.count, call.dtype, call.op, size_);
}

void MpiBackend::all_gather(const CollectiveCall& call) {
  const int count = mpi_count(call.count);
  const void* send = call.in_place ? MPI_IN_PLACE : call.send;
  CB_MPI_CHECK(MPI_Allgather(send, call.in_place ? 0 : count, call.in_place ? MPI_DATATYPE_NULL : mpi_type(call.dtype),
                             call.recv, count, mpi_type(call.dtype), communicator_));
}

void MpiBackend::reduce_scatter(const CollectiveCall& call) {
  const void* send = call.in_place ? MPI_IN_PLACE : call.send;
  // In place the result is at the buffer's start: declared as InPlaceOutput::kAtStart in the constructor.
  void* result = call.in_place ? mutable_send(call) : call.recv;
  CB_MPI_CHECK(MPI_Reduce_scatter_block(send, result, mpi_count(call.count), mpi_type(call.dtype), mpi_op(call.dtype, call.op),
                                        communicator_));
  finish_average(result, call.count, call.dtype, call.op, size_);
}

void MpiBackend::alltoall(const CollectiveCall& call) {
  const int count = mpi_count(call.count);
  const void* send = call.in_place ? MPI_IN_PLACE : call.send;
  CB_MPI_CHECK(MPI_Alltoall(send, call.in_place ? 0 : count, call.in_place ? MPI_DATATYPE_NULL : mpi_type(call.dtype),
                            call.recv, count, mpi_type(call.dtype), communicator_));
}

void MpiBackend::gather(const CollectiveCall& call) {
  const int count = mpi_count(call.count);
  const bool in_place = call.in_place && rank_ == call.root;
  CB_MPI_CHECK(MPI_Gather(in_place ? MPI_IN_PLACE : call.send, in_place ? 0 : count,
                          in_place ? MPI_DATATYPE_NULL : mpi_type(call.dtype), call.recv, count, mpi_type(call.dtype),
                          call.root, communicator_));
}

void MpiBackend::scatter(const CollectiveCall& call) {
  const int count = mpi_count(call.count);
  const bool in_place = call.in_place && rank_ == call.root;
  CB_MPI_CHECK(MPI_Scatter(call.send, count, mpi_type(call.dtype), in_place ? MPI_IN_PLACE : call.recv, in_place ? 0 : count,
                           in_place ? MPI_DATATYPE_NULL : mpi_type(call.dtype), call.root, communicator_));
}

// Ring exchange: send to rank + 1, receive from rank - 1.
void MpiBackend::sendrecv(const CollectiveCall& call) {
  constexpr int kRingTag = 7;
  const int count = mpi_count(call.count);
  const int next = (rank_ + 1) % size_;
  const int previous = (rank_ - 1 + size_) % size_;
  if (call.in_place) {
    CB_MPI_CHECK(MPI_Sendrecv_replace(call.recv, count, mpi_type(call.dtype), next, kRingTag, previous, kRingTag,
                                      communicator_, MPI_STATUS_IGNORE));
  } else {
    CB_MPI_CHECK(MPI_Sendrecv(call.send, count, mpi_type(call.dtype), next, kRingTag, call.recv, count,
                              mpi_type(call.dtype), previous, kRingTag, communicator_, MPI_STATUS_IGNORE));
  }
}

// Counts and displacements are ints in MPI (the support table's max_call_count keeps the busiest
// rank's elements, and so every displacement, below 2^31). Converting 4n integers per call is
// nothing next to MPI_Alltoallv's own O(n) setup; nccl-tests also works its per-peer counts out
// inside the timed call.
void MpiBackend::alltoallv(const CollectiveCall& call) {
  const PeerBlocks& blocks = *call.peer_blocks;
  const std::size_t n = static_cast<std::size_t>(size_);
  alltoallv_arguments_.resize(4 * n);
  int* send_counts = alltoallv_arguments_.data();
  int* send_displacements = send_counts + n;
  int* receive_counts = send_displacements + n;
  int* receive_displacements = receive_counts + n;
  for (std::size_t peer = 0; peer < n; ++peer) {
    send_counts[peer] = mpi_count(blocks.send_counts[peer]);
    send_displacements[peer] = mpi_count(blocks.send_offsets[peer]);
    receive_counts[peer] = mpi_count(blocks.receive_counts[peer]);
    receive_displacements[peer] = mpi_count(blocks.receive_offsets[peer]);
  }
  const MPI_Datatype type = mpi_type(call.dtype);
  CB_MPI_CHECK(MPI_Alltoallv(call.send, send_counts, send_displacements, type, call.recv, receive_counts,
                             receive_displacements, type, communicator_));
}

namespace {

void check_made(MPI_Comm made, const std::vector<int>& members, int world_rank, const char* call) {
  int size = 0, rank = -1;
  CB_MPI_CHECK(MPI_Comm_size(made, &size));
  CB_MPI_CHECK(MPI_Comm_rank(made, &rank));
  if (static_cast<std::size_t>(size) != members.size() || rank != world_rank) {
    throw Error(std::string(call) + " made a communicator of " + std::to_string(size) + " rank(s) with this rank as " +
                std::to_string(rank) + "; expected " + std::to_string(members.size()) + " and " + std::to_string(world_rank));
  }
}

}  // namespace

void MpiBackend::split_members_once(const std::vector<int>& members) {
  if (members_ != MPI_COMM_NULL) CB_MPI_CHECK(MPI_Comm_free(&members_));
  CB_MPI_CHECK(MPI_Comm_split(communicator_, is_member(members, rank_) ? 0 : MPI_UNDEFINED, rank_, &members_));
}

void MpiBackend::duplicate_members(const std::vector<int>& members) {
  if (members_ == MPI_COMM_NULL) return;  // not a member
  MPI_Comm made = MPI_COMM_NULL;
  CB_MPI_CHECK(MPI_Comm_dup(members_, &made));
  check_made(made, members, rank_, "MPI_Comm_dup");
  CB_MPI_CHECK(MPI_Comm_free(&made));
}

// Every rank of the parent takes part in a split; the others get MPI_COMM_NULL.
void MpiBackend::split_members(const std::vector<int>& members) {
  MPI_Comm made = MPI_COMM_NULL;
  CB_MPI_CHECK(MPI_Comm_split(communicator_, is_member(members, rank_) ? 0 : MPI_UNDEFINED, rank_, &made));
  if (made == MPI_COMM_NULL) return;
  check_made(made, members, rank_, "MPI_Comm_split");
  CB_MPI_CHECK(MPI_Comm_free(&made));
}

void MpiBackend::exchange(const std::vector<Transfer>& transfers) {
  // Tags keep pt2pt_perf's messages apart from anything else on this communicator; one tag for
  // both directions, as MPI matches per source in posting order.
  constexpr int kPointToPointTag = 100;
  const auto address = [](const Transfer& transfer) { return static_cast<char*>(transfer.buffer->data()) + transfer.offset_bytes; };
  if (transfers.size() == 1) {
    const Transfer& only = transfers.front();
    if (only.direction == Transfer::Direction::kSend) {
      CB_MPI_CHECK(MPI_Send(address(only), mpi_count(only.bytes), MPI_BYTE, only.peer, kPointToPointTag, communicator_));
    } else {
      CB_MPI_CHECK(MPI_Recv(address(only), mpi_count(only.bytes), MPI_BYTE, only.peer, kPointToPointTag, communicator_,
                            MPI_STATUS_IGNORE));
    }
    return;
  }
  point_to_point_requests_.resize(transfers.size());
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    const Transfer& transfer = transfers[i];
    if (transfer.direction == Transfer::Direction::kSend) {
      CB_MPI_CHECK(MPI_Isend(address(transfer), mpi_count(transfer.bytes), MPI_BYTE, transfer.peer, kPointToPointTag,
                             communicator_, &point_to_point_requests_[i]));
    } else {
      CB_MPI_CHECK(MPI_Irecv(address(transfer), mpi_count(transfer.bytes), MPI_BYTE, transfer.peer, kPointToPointTag,
                             communicator_, &point_to_point_requests_[i]));
    }
  }
  CB_MPI_CHECK(MPI_Waitall(static_cast<int>(transfers.size()), point_to_point_requests_.data(), MPI_STATUSES_IGNORE));
}

}  // namespace collbench::mpi

namespace collbench::backend_entry {
namespace {

std::unique_ptr<Backend> make_mpi_backend(World& world, const BackendConfig& /*nothing for MPI*/) {
  // A group's world (concurrent groups, issue 62): its communicator is split from the parent's,
  // coloured by group, ordered as the group lists its ranks (by world rank).
  auto* group_world = dynamic_cast<GroupWorld*>(&world);
  const auto* mpi_world = dynamic_cast<const mpi::MpiWorld*>(group_world ? &group_world->parent() : &world);
  if (!mpi_world) throw Error("the mpi backend needs the MPI control plane (launch with mpirun or srun)");
  if (!group_world) return std::make_unique<mpi::MpiBackend>(mpi_world->communicator());
  MPI_Comm split = MPI_COMM_NULL;
  CB_MPI_CHECK(MPI_Comm_split(mpi_world->communicator(), static_cast<int>(group_world->group_index()), group_world->rank(), &split));
  auto backend = std::make_unique<mpi::MpiBackend>(split, true);  // keeps its own duplicate
  MPI_Comm_free(&split);
  return backend;
}

}  // namespace

extern const BackendEntry mpi{"mpi", make_mpi_backend, [] { return std::string(); }};

}  // namespace collbench::backend_entry
