// MPI as the control plane: initialisation (RAII), rank identity and the runner's agreements.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "core/world.h"

namespace collbench::mpi {

// Owns MPI_Init/MPI_Finalize. Works under mpirun/srun and as a singleton without a launcher.
// `serialized`: a second thread will make MPI calls, never at the same time as another thread
// (ddp_step_perf's communication thread), so MPI_THREAD_SERIALIZED is requested; exits 1 when the
// library cannot provide it. Every other program keeps plain MPI_Init (see mpi_world.cpp).
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv, bool serialized = false);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

class MpiWorld final : public World {
 public:
  MpiWorld();  // requires an MpiSession
  ~MpiWorld() override;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  std::string host() const override { return host_; }
  void barrier() override;
  void combine(std::vector<double>& values, Combine how) override;
  std::int64_t sum(std::int64_t value) override;
  std::vector<std::string> gather_strings(const std::string& mine) override;
  std::string broadcast_string(const std::string& from_rank_zero) override;
  [[noreturn]] void abort(int exit_code) override;
  std::string library_version() const override;
  ControlPlane control_plane() const override { return ControlPlane::kMpi; }

  MPI_Comm communicator() const { return communicator_; }

 private:
  MPI_Comm communicator_ = MPI_COMM_NULL;  // a duplicate, so runner traffic never matches benchmark traffic
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  std::string host_;
};

}  // namespace collbench::mpi
