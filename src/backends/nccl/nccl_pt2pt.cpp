// pt2pt_perf's point-to-point primitive on NCCL: every transfer of the list as ncclSend/ncclRecv
// (bytes as ncclUint8) inside one ncclGroupStart/ncclGroupEnd on the communicator's stream. The
// group is queued, not completed: the operation's wait (synchronize) completes it, so a batch of
// iterations goes to the GPU back to back, as nccl-tests issues its calls.
#include <algorithm>

#include "backends/nccl/nccl_backend_impl.h"

namespace collbench::nccl {

void NcclBackend::exchange(const std::vector<Transfer>& transfers) {
  std::size_t largest = 0;
  for (const Transfer& transfer : transfers) largest = std::max(largest, transfer.bytes);
  current_bytes_ = largest;
  current_step_ = "point-to-point exchange of " + std::to_string(transfers.size()) + " message(s) of up to " +
                  std::to_string(largest) + " B";
  CB_NCCL_ISSUE(ncclGroupStart());
  for (const Transfer& transfer : transfers) {
    char* address = static_cast<char*>(transfer.buffer->data()) + transfer.offset_bytes;
    if (transfer.direction == Transfer::Direction::kSend) {
      CB_NCCL_ISSUE(ncclSend(address, transfer.bytes, ncclUint8, transfer.peer, comm_, stream()));
    } else {
      CB_NCCL_ISSUE(ncclRecv(address, transfer.bytes, ncclUint8, transfer.peer, comm_, stream()));
    }
  }
  CB_NCCL_ISSUE(ncclGroupEnd());
}

}  // namespace collbench::nccl
