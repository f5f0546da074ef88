#include "harness/launcher_env.h"

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <string>

#include "backends/rendezvous/tcp_store.h"
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
  if (!whole_number(text, 9) || std::stoll(text) < lowest || std::stoll(text) > highest) {
    throw UsageError(std::string(name) + "='" + text + "' is not a whole number from " + std::to_string(lowest) +
                     " to " + std::to_string(highest));
  }
  return static_cast<int>(std::stoll(text));
}

}  // namespace

bool whole_number(const std::string& text, std::size_t max_digits) {
  return !text.empty() && text.size() <= max_digits &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

int launcher_rank() {
  for (const char* variable : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", "RANK"}) {
    if (const char* value = std::getenv(variable)) return std::atoi(value);
  }
  return 0;
}

bool started_by_mpi_launcher(const EnvironmentLookup& lookup) {
  return any_set(lookup, {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"});
}

bool started_by_srun(const EnvironmentLookup& lookup) {
  return lookup("SLURM_STEP_ID") && lookup("SLURM_PROCID") && lookup("SLURM_NTASKS");
}

std::string first_host_of_slurm_list(const std::string& host_list) {
  // The first entry: up to a comma outside brackets.
  std::string entry;
  int depth = 0;
  for (char c : host_list) {
    if (c == ',' && depth == 0) break;
    if (c == '[') ++depth;
    if (c == ']') --depth;
    entry += c;
  }
  // Each bracket range becomes its first value, leading zeros kept ("[07-09]" is "07").
  std::string host;
  for (std::size_t i = 0; i < entry.size(); ++i) {
    if (entry[i] != '[') {
      host += entry[i];
      continue;
    }
    const std::size_t close = entry.find(']', i);
    if (close == std::string::npos) return "";
    const std::string inside = entry.substr(i + 1, close - i - 1);
    host += inside.substr(0, inside.find_first_of(",-"));
    i = close;
  }
  return host;
}

int slurm_master_port(long long job_id, long long step_id) {
  return static_cast<int>(10000 + (job_id % 20000 * 97 + step_id % 20000) % 20000);
}

std::map<std::string, std::string> slurm_job_fields(const EnvironmentLookup& lookup) {
  std::map<std::string, std::string> out;
  const char* job = lookup("SLURM_JOB_ID");
  if (!job) return out;
  out["name"] = "slurm";
  const std::pair<const char*, const char*> fields[] = {
      {"job_id", "SLURM_JOB_ID"},          {"step_id", "SLURM_STEP_ID"},
      {"job_name", "SLURM_JOB_NAME"},      {"job_node_list", "SLURM_JOB_NODELIST"},
      {"step_node_list", "SLURM_STEP_NODELIST"}, {"ntasks", "SLURM_NTASKS"},
      {"nnodes", "SLURM_NNODES"},          {"partition", "SLURM_JOB_PARTITION"},
      {"cluster", "SLURM_CLUSTER_NAME"},   {"cpus_per_task", "SLURM_CPUS_PER_TASK"},
      {"cpu_bind", "SLURM_CPU_BIND"},      {"mpi_type", "SLURM_MPI_TYPE"},
  };
  for (const auto& [key, variable] : fields) {
    if (const char* value = lookup(variable)) out[key] = value;
  }
  return out;
}

namespace {

// Slurm's numbers behind the torchrun-style names, for a task srun started without MPI. The
// strings it hands out live as long as the object.
class SlurmFallback {
 public:
  explicit SlurmFallback(const EnvironmentLookup& lookup) : lookup_(lookup), active_(started_by_srun(lookup)) {
    if (!active_) return;
    const char* nodes = lookup("SLURM_STEP_NODELIST");
    if (!nodes) nodes = lookup("SLURM_JOB_NODELIST");
    if (nodes) master_address_ = first_host_of_slurm_list(nodes);
    const char* job = lookup("SLURM_JOB_ID");
    const char* step = lookup("SLURM_STEP_ID");
    if (job && step && whole_number(job, 12) && whole_number(step, 12)) {
      master_port_ = std::to_string(slurm_master_port(std::stoll(job), std::stoll(step)));
    }
  }

  const char* operator()(const char* name) const {
    if (const char* value = lookup_(name)) return value;
    if (!active_) return nullptr;
    const std::string key(name);
    if (key == "RANK") return lookup_("SLURM_PROCID");
    if (key == "WORLD_SIZE") return lookup_("SLURM_NTASKS");
    if (key == "LOCAL_RANK") return lookup_("SLURM_LOCALID");
    if (key == "MASTER_ADDR" && !master_address_.empty()) return master_address_.c_str();
    if (key == "MASTER_PORT" && !master_port_.empty()) return master_port_.c_str();
    return nullptr;
  }

 private:
  const EnvironmentLookup& lookup_;
  bool active_;
  std::string master_address_, master_port_;
};

}  // namespace

LaunchPlan plan_launch(const RunFlags& flags, const EnvironmentLookup& environment) {
  const SlurmFallback slurm(environment);
  const EnvironmentLookup lookup = [&slurm](const char* name) { return slurm(name); };
  const bool file_store = !flags.rendezvous_directory.empty();
  LaunchPlan plan;
  switch (flags.bootstrap) {
    case Bootstrap::kMpi:
      if (file_store) throw UsageError("--rendezvous file:DIR is for runs without MPI; it cannot go with --bootstrap mpi");
      return plan;
    case Bootstrap::kEnv: break;
    case Bootstrap::kAuto:
      // started_by_mpi_launcher looks at the environment itself: srun's SLURM_* never mean MPI.
      if (!file_store && (started_by_mpi_launcher(environment) || !any_set(lookup, {"RANK", "WORLD_SIZE"}))) {
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
  if (const char* token = lookup("COLLBENCH_JOB_TOKEN")) {
    store.job_token = token;
    if (store.job_token.size() > rendezvous::kMaxJobTokenBytes) {
      throw UsageError("COLLBENCH_JOB_TOKEN is " + std::to_string(store.job_token.size()) + " bytes; the rendezvous store takes at most " +
                       std::to_string(rendezvous::kMaxJobTokenBytes) + " (32 random hex digits are plenty)");
    }
  }
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
