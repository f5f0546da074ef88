// The collectives as NCCL calls. All-to-all, gather and scatter are NCCL's own calls where
// the loaded NCCL has them (2.28 and later), grouped ncclSend/ncclRecv otherwise, as nccl-tests
// builds them; the report's versions say which ran. The sendrecv ring and alltoallv are always
// grouped send/recv.
#include "backends/nccl/nccl_backend_impl.h"

namespace collbench::nccl {
namespace {

const char* at_block(const void* base, int block, std::size_t count, DType dtype) {
  return static_cast<const char*>(base) + static_cast<std::size_t>(block) * count * dtype_info(dtype).size_bytes;
}
char* at_block(void* base, int block, std::size_t count, DType dtype) {
  return static_cast<char*>(base) + static_cast<std::size_t>(block) * count * dtype_info(dtype).size_bytes;
}

}  // namespace

ncclDataType_t nccl_type(DType dtype) {
  switch (dtype) {
    case DType::kInt8: return ncclInt8;
    case DType::kUint8: return ncclUint8;
    case DType::kInt32: return ncclInt32;
    case DType::kUint32: return ncclUint32;
    case DType::kInt64: return ncclInt64;
    case DType::kUint64: return ncclUint64;
    case DType::kFloat16: return ncclFloat16;
    case DType::kBfloat16: return ncclBfloat16;
    case DType::kFloat32: return ncclFloat32;
    case DType::kFloat64: return ncclFloat64;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
    case DType::kFloat8E4M3: return ncclFloat8e4m3;
    case DType::kFloat8E5M2: return ncclFloat8e5m2;
#else
    case DType::kFloat8E4M3:
    case DType::kFloat8E5M2: break;
#endif
  }
  throw Error("no NCCL type for " + std::string(to_string(dtype)));
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return ncclSum;
    case ReduceOp::kProd: return ncclProd;
    case ReduceOp::kMin: return ncclMin;
    case ReduceOp::kMax: return ncclMax;
    case ReduceOp::kAvg: return ncclAvg;
  }
  throw Error("no NCCL op for " + std::string(to_string(op)));
}

void NcclBackend::declare_support() {
  // Grouped send/recv into the buffer being sent would race; with one rank there is no peer.
  const bool peers = ranks_ > 1;
  support_.collectives = {
      serve("all_reduce", this, &NcclBackend::all_reduce), serve("broadcast", this, &NcclBackend::broadcast),
      serve("reduce", this, &NcclBackend::reduce), serve("all_gather", this, &NcclBackend::all_gather),
      serve("reduce_scatter", this, &NcclBackend::reduce_scatter),
      serve("alltoall", this, &NcclBackend::alltoall,
            peers ? "NCCL has no in-place all-to-all: grouped send/recv would overwrite blocks not yet sent" : ""),
      serve("gather", this, &NcclBackend::gather), serve("scatter", this, &NcclBackend::scatter),
      serve("sendrecv", this, &NcclBackend::sendrecv,
            peers ? "NCCL has no in-place send/recv: receiving into the buffer being sent would race" : ""),
      serve("alltoallv", this, &NcclBackend::alltoallv,
            "alltoallv runs out of place only, as nccl-tests' does: grouped send/recv would overwrite blocks not yet sent")};
  support_.dtypes = host_dtypes();  // fp8 joins once the device is known
  support_.dtype_reasons = fp8_reasons("fp8 needs a GPU of compute capability 9.0 or newer, as NCCL's fp8 does");
  support_.ops = all_reduce_ops();  // avg is ncclAvg
  // As nccl-tests: without it a one-rank copy of 8-16 MiB ran from the H100's L2 and timed 30-37 %
  // under nccl-tests' (results/gpu/2026-11-26-h100).
  support_.moves_buffers_each_call = true;
  support_.point_to_point.exchange = [this](const std::vector<Transfer>& transfers) { exchange(transfers); };
  support_.point_to_point.many_peers = true;  // ncclSend/ncclRecv to any peers in one group
}

void NcclBackend::offer_fp8_where_the_device_has_it() {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
  if (device_.compute_major >= 9) {
    support_.dtypes = all_dtypes();
    support_.dtype_reasons.clear();
    // One rank: NCCL runs a reduction as a local kernel (ncclLaunchOneRank), whose host-side type
    // switch leaves fp8 out (its guard tests __CUDA_ARCH__, which host code never defines), so fp8
    // with avg is ncclInvalidArgument there. Seen with 2.28.3 on one H100 (2026-11-26); in NCCL's
    // source through 2.28.9 and its master branch. Other ops are a plain copy at one rank.
    if (ranks_ == 1) {
      for (DType fp8 : {DType::kFloat8E4M3, DType::kFloat8E5M2}) {
        support_.dtype_op_reasons[{fp8, ReduceOp::kAvg}] =
            "NCCL rejects fp8 with avg on a one-rank communicator (ncclInvalidArgument: its one-rank reduction has no fp8 "
            "pre-multiplied sum)";
      }
    }
    return;
  }
  support_.dtype_reasons = fp8_reasons("fp8 needs a GPU of compute capability 9.0 or newer, as NCCL's fp8 does (this one: " +
                                       std::to_string(device_.compute_major) + "." + std::to_string(device_.compute_minor) + ")");
#else
  support_.dtype_reasons = fp8_reasons("fp8 needs NCCL 2.24 or newer at build time");
#endif
}

void NcclBackend::all_reduce(const CollectiveCall& call) {
  remember_call("all_reduce", call);
  CB_NCCL_ISSUE(ncclAllReduce(call.send, call.recv, call.count, nccl_type(call.dtype), nccl_op(call.op), comm_, stream()));
}

void NcclBackend::broadcast(const CollectiveCall& call) {
  remember_call("broadcast", call);
  CB_NCCL_ISSUE(ncclBroadcast(call.send, call.recv, call.count, nccl_type(call.dtype), call.root, comm_, stream()));
}

void NcclBackend::reduce(const CollectiveCall& call) {
  remember_call("reduce", call);
  CB_NCCL_ISSUE(ncclReduce(call.send, call.recv, call.count, nccl_type(call.dtype), nccl_op(call.op), call.root, comm_, stream()));
}

void NcclBackend::all_gather(const CollectiveCall& call) {
  remember_call("all_gather", call);
  CB_NCCL_ISSUE(ncclAllGather(call.send, call.recv, call.count, nccl_type(call.dtype), comm_, stream()));
}

void NcclBackend::reduce_scatter(const CollectiveCall& call) {
  remember_call("reduce_scatter", call);
  CB_NCCL_ISSUE(ncclReduceScatter(call.send, call.recv, call.count, nccl_type(call.dtype), nccl_op(call.op), comm_, stream()));
}

void NcclBackend::alltoall(const CollectiveCall& call) {
  remember_call("alltoall", call);
  const ncclDataType_t type = nccl_type(call.dtype);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  if (has_native("alltoall")) {
    CB_NCCL_ISSUE(ncclAlltoAll(call.send, call.recv, call.count, type, comm_, stream()));
    return;
  }
#endif
  CB_NCCL_ISSUE(ncclGroupStart());
  for (int peer = 0; peer < ranks_; ++peer) {
    CB_NCCL_ISSUE(ncclSend(at_block(call.send, peer, call.count, call.dtype), call.count, type, peer, comm_, stream()));
    CB_NCCL_ISSUE(ncclRecv(at_block(call.recv, peer, call.count, call.dtype), call.count, type, peer, comm_, stream()));
  }
  CB_NCCL_ISSUE(ncclGroupEnd());
}

void NcclBackend::gather(const CollectiveCall& call) {
  remember_call("gather", call);
  const ncclDataType_t type = nccl_type(call.dtype);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  if (has_native("gather")) {
    CB_NCCL_ISSUE(ncclGather(call.send, call.recv, call.count, type, call.root, comm_, stream()));
    return;
  }
#endif
  CB_NCCL_ISSUE(ncclGroupStart());
  // In place, the root's own block already sits where it belongs; NCCL skips a self copy onto itself.
  CB_NCCL_ISSUE(ncclSend(call.send, call.count, type, call.root, comm_, stream()));
  if (rank_ == call.root) {
    for (int peer = 0; peer < ranks_; ++peer) {
      CB_NCCL_ISSUE(ncclRecv(at_block(call.recv, peer, call.count, call.dtype), call.count, type, peer, comm_, stream()));
    }
  }
  CB_NCCL_ISSUE(ncclGroupEnd());
}

void NcclBackend::scatter(const CollectiveCall& call) {
  remember_call("scatter", call);
  const ncclDataType_t type = nccl_type(call.dtype);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  if (has_native("scatter")) {
    CB_NCCL_ISSUE(ncclScatter(call.send, call.recv, call.count, type, call.root, comm_, stream()));
    return;
  }
#endif
  CB_NCCL_ISSUE(ncclGroupStart());
  if (rank_ == call.root) {
    for (int peer = 0; peer < ranks_; ++peer) {
      CB_NCCL_ISSUE(ncclSend(at_block(call.send, peer, call.count, call.dtype), call.count, type, peer, comm_, stream()));
    }
  }
  CB_NCCL_ISSUE(ncclRecv(call.recv, call.count, type, call.root, comm_, stream()));
  CB_NCCL_ISSUE(ncclGroupEnd());
}

// Ring exchange: send to rank + 1, receive from rank - 1.
void NcclBackend::sendrecv(const CollectiveCall& call) {
  remember_call("sendrecv", call);
  const ncclDataType_t type = nccl_type(call.dtype);
  const int next = (rank_ + 1) % ranks_;
  const int previous = (rank_ - 1 + ranks_) % ranks_;
  CB_NCCL_ISSUE(ncclGroupStart());
  CB_NCCL_ISSUE(ncclSend(call.send, call.count, type, next, comm_, stream()));
  CB_NCCL_ISSUE(ncclRecv(call.recv, call.count, type, previous, comm_, stream()));
  CB_NCCL_ISSUE(ncclGroupEnd());
}

// As nccl-tests' alltoallv: one group with an ncclSend and an ncclRecv per peer, empty blocks
// left out as nccl-tests leaves them out.
void NcclBackend::alltoallv(const CollectiveCall& call) {
  remember_call("alltoallv", call);
  const PeerBlocks& blocks = *call.peer_blocks;
  const ncclDataType_t type = nccl_type(call.dtype);
  const std::size_t element = dtype_info(call.dtype).size_bytes;
  CB_NCCL_ISSUE(ncclGroupStart());
  for (int peer = 0; peer < ranks_; ++peer) {
    const auto p = static_cast<std::size_t>(peer);
    if (blocks.send_counts[p] > 0) {
      CB_NCCL_ISSUE(ncclSend(static_cast<const char*>(call.send) + blocks.send_offsets[p] * element, blocks.send_counts[p],
                             type, peer, comm_, stream()));
    }
    if (blocks.receive_counts[p] > 0) {
      CB_NCCL_ISSUE(ncclRecv(static_cast<char*>(call.recv) + blocks.receive_offsets[p] * element, blocks.receive_counts[p],
                             type, peer, comm_, stream()));
    }
  }
  CB_NCCL_ISSUE(ncclGroupEnd());
}

}  // namespace collbench::nccl
