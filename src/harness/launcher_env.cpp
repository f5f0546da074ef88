#include "harness/launcher_env.h"

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <string>

#include "core/error.h"

namespace collbench {
namespace {

constexpr const char* kNeeded = "env bootstrap reads RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT";

bool any_set(const EnvironmentLookup& lookup, std::initializer_list<const char*> names) {
  return std::any_of(names.begin(), names.end(), [&](const char* name) { return lookup(name) != nullptr; });
}

// A whole number from `lowest` to `highest`; UsageError naming the variable otherwise.
int integer_variable(const EnvironmentLookup& lookup, const char* name, long long lowest, long long highest) {
  const char* value = lookup(name);
  if (!value) throw UsageError(std::string(name) + " is not set (" + kNeeded + ")");
  const std::string text(value);
  const bool digits = !text.empty() && text.size() <= 9 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || std::stoll(text) < lowest || std::stoll(text) > highest) {
    throw UsageError(std::string(name) + "='" + text + "' is not a whole number from " + std::to_string(lowest) +
                     " to " + std::to_string(highest));
  }
  return static_cast<int>(std::stoll(text));
}

}  // namespace

int launcher_rank() {
  for (const char* variable : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", "RANK"}) {
    if (const char* value = std::getenv(variable)) return std::atoi(value);
  }
  return 0;
}

bool started_by_mpi_launcher(const EnvironmentLookup& lookup) {
  return any_set(lookup, {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"});
}

LaunchPlan plan_launch(const RunFlags& flags, const EnvironmentLookup& lookup) {
  const bool file_store = !flags.rendezvous_directory.empty();
  LaunchPlan plan;
  switch (flags.bootstrap) {
    case Bootstrap::kMpi:
      if (file_store) throw UsageError("--rendezvous file:DIR is for runs without MPI; it cannot go with --bootstrap mpi");
      return plan;
    case Bootstrap::kEnv: break;
    case Bootstrap::kAuto:
      if (!file_store && (started_by_mpi_launcher(lookup) || !any_set(lookup, {"RANK", "WORLD_SIZE"}))) {
        return plan;
      }
      break;
  }
  plan.use_mpi = false;
  StoreLaunch& store = plan.store;
  store.world_size = integer_variable(lookup, "WORLD_SIZE", 1, 1 << 20);
  store.rank = integer_variable(lookup, "RANK", 0, store.world_size - 1);
  if (lookup("LOCAL_WORLD_SIZE")) {
    const int local_size = integer_variable(lookup, "LOCAL_WORLD_SIZE", 1, store.world_size);
    if (lookup("LOCAL_RANK")) store.local_rank = integer_variable(lookup, "LOCAL_RANK", 0, local_size - 1);
  } else if (lookup("LOCAL_RANK")) {
    store.local_rank = integer_variable(lookup, "LOCAL_RANK", 0, store.world_size - 1);
  }
  const char* address = lookup("MASTER_ADDR");
  if (address && *address) store.master_address = address;
  store.file_directory = flags.rendezvous_directory;
  if (!file_store) {
    if (store.master_address.empty()) {
      throw UsageError(std::string(address ? "MASTER_ADDR is empty" : "MASTER_ADDR is not set") +
                       ": rank 0 serves the rendezvous store on MASTER_ADDR:MASTER_PORT (or use --rendezvous file:DIR)");
    }
    store.master_port = integer_variable(lookup, "MASTER_PORT", 1, 65535);
  } else if (lookup("MASTER_PORT")) {
    store.master_port = integer_variable(lookup, "MASTER_PORT", 1, 65535);  // unused, but not malformed
  }
  if (const char* interface = lookup("GLOO_SOCKET_IFNAME")) store.interface = interface;
  if (const char* token = lookup("COLLBENCH_JOB_TOKEN")) store.job_token = token;
  const char* agent_store = lookup("TORCHELASTIC_USE_AGENT_STORE");
  store.torchrun_agent_store = agent_store && std::string(agent_store) == "True";
  if (flags.timeout_seconds > 0) {
    store.join_timeout = std::chrono::milliseconds(static_cast<long long>(flags.timeout_seconds * 1000));
    // Longer than -T plus the heartbeat's grace, so the job watchdog names a stuck rank first.
    store.operation_timeout = store.join_timeout + std::chrono::seconds(10);
  }
  return plan;
}

}  // namespace collbench
