// The control plane: who the ranks are and how the runner agrees with itself across them.
//
// Separate from the data-plane Backend because every backend (MPI, NCCL, Gloo) is launched and
// coordinated the same way while the data it measures moves through different libraries. Two
// implementations: MPI (mpirun/srun, backends/mpi/mpi_world.h) and Gloo over a rendezvous store
// (torchrun-style RANK/WORLD_SIZE variables, backends/gloo/gloo_world.h).
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "core/error.h"

namespace collbench {

enum class Combine { kMax, kMin, kSum };

// What carries the control plane: MPI (launched by mpirun or srun), or Gloo after the ranks met
// through a key-value store (launched by hand, by torchrun or by a container orchestrator).
enum class ControlPlane { kMpi, kGloo };

class World {
 public:
  virtual ~World() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int local_rank() const = 0;  // rank among the processes on this host
  virtual std::string host() const = 0;
  virtual void barrier() = 0;
  // Element-wise combination across ranks; every rank gets the result.
  virtual void combine(std::vector<double>& values, Combine how) = 0;
  virtual std::int64_t sum(std::int64_t value) = 0;
  // Every rank's string, in rank order, on every rank.
  virtual std::vector<std::string> gather_strings(const std::string& mine) = 0;
  // Rank 0's string on every rank.
  virtual std::string broadcast_string(const std::string& from_rank_zero) = 0;
  // Ends every process of the job with `exit_code`; never returns.
  [[noreturn]] virtual void abort(int exit_code) = 0;
  virtual std::string library_version() const = 0;
  virtual ControlPlane control_plane() const = 0;
  // The address this rank was given to listen on, for side channels such as the -T heartbeats
  // (rank 0 listens, the others connect): "" under MPI, where they listen on every address.
  virtual std::string listen_address() const { return ""; }

  // `decide` on rank 0 only, its text on every rank. What it throws there is thrown on every rank
  // (a UsageError as one, anything else as Error), so no rank is left waiting for the others.
  std::string decided_on_rank_zero(const std::function<std::string()>& decide) {
    std::string outcome;  // "ok " + the text, "usage " or "error " + why
    if (rank() == 0) {
      try {
        outcome = "ok " + decide();
      } catch (const UsageError& e) {
        outcome = std::string("usage ") + e.what();
      } catch (const std::exception& e) {
        outcome = std::string("error ") + e.what();
      }
    }
    outcome = broadcast_string(outcome);
    if (outcome.rfind("usage ", 0) == 0) throw UsageError(outcome.substr(6));
    if (outcome.rfind("error ", 0) == 0) throw Error(outcome.substr(6));
    return outcome.substr(3);
  }
};

}  // namespace collbench
