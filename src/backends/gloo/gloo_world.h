// The control plane without MPI: ranks started by hand, by torchrun or by a container orchestrator
// meet through a key-value store (rank 0 serves the TCP store of backends/rendezvous on
// MASTER_ADDR:MASTER_PORT, or Gloo's FileStore in a shared directory), then run the World's
// barrier, combine, sum and gathers over Gloo's TCP transport. broadcast_string goes through the
// store itself, so what rank 0 shares (an NCCL unique id, the heartbeat invitation) travels there.
//
// Joining checks what a launch by hand gets wrong, each as one UsageError line (exit 2): a master
// that cannot be reached or served, a duplicate RANK, ranks that disagree on WORLD_SIZE, a world
// that does not fill up within the join timeout, a file directory left by an earlier run.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "core/world.h"

namespace collbench {

// Everything a process needs to join, read from its environment (harness/launcher_env.h).
struct StoreLaunch {
  int rank = 0;
  int world_size = 1;
  int local_rank = -1;        // LOCAL_RANK; -1: counted from the ranks on the same host
  std::string master_address;  // MASTER_ADDR: where rank 0 serves the store ("" only with a file store)
  int master_port = 0;         // MASTER_PORT
  std::string file_directory;  // --rendezvous file:DIR; "" for the TCP store
  std::string interface;       // GLOO_SOCKET_IFNAME: the interface every rank binds ("" : see gloo_world.cpp)
  // TORCHELASTIC_USE_AGENT_STORE=True: torchrun's own agent already serves MASTER_PORT, so
  // rank 0 cannot; a failure to listen says so.
  bool torchrun_agent_store = false;
  // COLLBENCH_JOB_TOKEN ("" when unset): what every process must present to rank 0's TCP store.
  std::string job_token;
  std::chrono::milliseconds join_timeout{120'000};  // -T, or the default
  std::chrono::milliseconds operation_timeout{1'800'000};  // one control-plane call
};

// Collective over the processes of one launch. Throws UsageError (exit 2) for bad rendezvous
// settings and Error for failures of the machine; in a build without Gloo, UsageError saying so.
// `on_met` runs once every rank's join record is in: from then on the caller keeps one -T deadline
// for the rest of the start-up, which the steps' own deadlines (each -T) would add up past.
std::unique_ptr<World> join_gloo_world(const StoreLaunch& launch, const std::function<void()>& on_met = {});

}  // namespace collbench
