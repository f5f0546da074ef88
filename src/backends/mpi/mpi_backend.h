// Collectives through the MPI library's own calls (MPI_Allreduce, MPI_Bcast, ...), on host memory.
#pragma once

#include <mpi.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace collbench::mpi {

class MpiBackend final : public HostBackend {
 public:
  // `group`: the communicator is one concurrent group's (issue 62), which starts each iteration on
  // its own barrier, so that each group times itself; otherwise the control plane's barrier.
  explicit MpiBackend(MPI_Comm parent, bool group = false);
  ~MpiBackend() override;

  std::string name() const override { return "mpi"; }
  void barrier(World& world) override;
  std::string own_barrier() const override { return group_ ? "MPI_Barrier on the group's communicator" : ""; }
  std::string algorithm(const std::string& collective) const override;
  const BackendSupport& support() const override { return support_; }

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
  // comm_init_perf's methods (backend.h CommunicatorMethod).
  void split_members_once(const std::vector<int>& members);  // MPI_Comm_dup's parent, untimed
  void duplicate_members(const std::vector<int>& members);
  void split_members(const std::vector<int>& members);
  // pt2pt_perf: one transfer as MPI_Send or MPI_Recv (as OSU's latency test calls them), several as
  // MPI_Isend/MPI_Irecv and one MPI_Waitall.
  void exchange(const std::vector<Transfer>& transfers);
  MPI_Op mpi_op(DType dtype, ReduceOp op) const;

  MPI_Comm communicator_ = MPI_COMM_NULL;
  bool group_ = false;
  int rank_ = 0;
  int size_ = 1;
  // MPI has no 16-bit floating types: user-defined ops over MPI_UINT16_T, [half|bf16][sum..max].
  std::array<std::array<MPI_Op, 4>, 2> sixteen_bit_ops_{};
  BackendSupport support_;
  // Per collective, the tuned algorithm Open MPI was asked to force and took ("ompi-tuned-4"), or
  // what became of a request it did not take; absent: no request, Open MPI decides ("default").
  std::map<std::string, std::string> tuned_algorithms_;
  // alltoallv's counts and displacements as MPI takes them (int), refilled each call from the
  // call's blocks without allocating once they have the world's size.
  std::vector<int> alltoallv_arguments_;
  MPI_Comm members_ = MPI_COMM_NULL;  // comm_init_perf: the members' communicator MPI_Comm_dup copies
  std::vector<MPI_Request> point_to_point_requests_;  // kept across calls: the timed loop allocates nothing
};

}  // namespace collbench::mpi
