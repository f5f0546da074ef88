#include "harness/context.h"

#include "engines/gpu_links.h"
#include "engines/host_info.h"
#include "engines/nic_info.h"
#include "harness/source_state.h"

#include "core/printable.h"
#include "core/state_probe.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <thread>

#include "harness/launcher_env.h"

extern char** environ;

namespace collbench {
namespace {

constexpr const char* kAllowedPrefixes[] = {"NCCL_", "OMPI_MCA_", "UCX_", "GLOO_", "OPENBLAS_", "OMP_", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_LAUNCH_BLOCKING",
                                             "MPICH_", "I_MPI_", "FI_", "SLURM_JOB_", "SLURM_NTASKS", "SLURM_NNODES"};
// The torchrun-style variables say how a run without MPI was launched (rank 0's values).
constexpr const char* kAllowedNames[] = {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE", "COLLBENCH_SEED", "COLLBENCH_GLOO_IO_THREAD", "WORLD_SIZE",
                                         "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"};
// Open MPI's launcher plumbing: job ids, daemon addresses, session folders and a transport key.
// It describes this launch, not the tuning, and the key must not leave the machine.
constexpr const char* kLauncherPrefixes[] = {"OMPI_MCA_orte_", "OMPI_MCA_ess", "OMPI_MCA_pmix", "OMPI_MCA_initial_wdir",
                                             "OMPI_MCA_shmem_RUNTIME_QUERY_hint"};
// Even inside allowed prefixes, never copy anything that looks like a credential.
constexpr const char* kSecretWords[] = {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "AUTH"};

bool allowed(const std::string& name) {
  for (const char* prefix : kLauncherPrefixes) {
    if (name.rfind(prefix, 0) == 0) return false;
  }
  for (const char* word : kSecretWords) {
    if (name.find(word) != std::string::npos) return false;
  }
  for (const char* exact : kAllowedNames) {
    if (name == exact) return true;
  }
  for (const char* prefix : kAllowedPrefixes) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// One field of `scontrol show ... --oneliner` output ("Key=value" separated by spaces), or "".
std::string scontrol_field(const std::string& text, const std::string& key) {
  const std::string marker = " " + key + "=";
  const std::size_t at = (" " + text).find(marker);
  if (at == std::string::npos) return "";
  const std::size_t start = at + key.size() + 1;  // " " prepended above shifts by one
  return text.substr(start, text.find_first_of(" \n", start) - start);
}

std::string command_output(const std::string& command) {
  std::string out;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0;) out.append(buffer, n);
    ::pclose(pipe);
  }
  return out;
}

// What launched this Slurm job and step, as far as this host can tell: the batch script (scontrol
// show job's Command) and the srun command line, read from /proc when srun runs on this host
// (interactive srun, or srun in a batch script whose first node is rank 0's). Slurm passes neither
// to the tasks. Best effort: without scontrol, or with srun elsewhere, the fields stay absent.
void add_slurm_commands(std::map<std::string, std::string>& scheduler, const std::string& this_host) {
  const auto job = scheduler.find("job_id");
  if (job == scheduler.end()) return;
  if (!whole_number(job->second)) return;
  const std::string job_text = command_output("timeout 5 scontrol show job --oneliner " + job->second + " 2>/dev/null");
  if (scontrol_field(job_text, "BatchFlag") == "1") {
    const std::string script = scontrol_field(job_text, "Command");
    if (!script.empty()) scheduler["batch_command"] = script;
  }
  const auto step = scheduler.find("step_id");
  if (step == scheduler.end() || !whole_number(step->second)) return;
  const std::string step_text =
      command_output("timeout 5 scontrol show step --oneliner " + job->second + "." + step->second + " 2>/dev/null");
  const std::string srun_host_pid = scontrol_field(step_text, "SrunHost:Pid");
  const std::size_t colon = srun_host_pid.rfind(':');
  if (colon == std::string::npos || !whole_number(srun_host_pid.substr(colon + 1))) return;
  const std::string srun_host = srun_host_pid.substr(0, colon);
  if (srun_host != this_host && srun_host != this_host.substr(0, this_host.find('.'))) return;
  std::ifstream cmdline("/proc/" + srun_host_pid.substr(colon + 1) + "/cmdline");
  std::string command, argument;
  while (std::getline(cmdline, argument, '\0')) command += (command.empty() ? "" : " ") + argument;
  if (!command.empty()) scheduler["srun_command"] = command;
}

// A report is still worth writing on a machine whose topology cannot be read: the fields are then
// left out, and compare judges it by the rule for reports without them.
std::optional<compute::HostInfo> probe_this_host() {
  try {
    return compute::probe_host();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Each NIC as the report records it: its speed null where the driver gives none.
nlohmann::json nics_json(const std::vector<compute::NicInfo>& nics) {
  nlohmann::json array = nlohmann::json::array();
  for (const auto& nic : nics) {
    array.push_back({{"name", nic.name}, {"kind", nic.kind}, {"speed_mbit", nic.speed_mbit ? nlohmann::json(*nic.speed_mbit) : nlohmann::json(nullptr)},
                     {"physical", nic.physical}});
  }
  return array;
}

}  // namespace

nlohmann::json gpu_inventory_json(const compute::GpuLinkInventory& inventory) {
  const auto or_null = [](const std::optional<unsigned>& value) { return value ? nlohmann::json(*value) : nlohmann::json(nullptr); };
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& gpu : inventory.gpus) {
    gpus.push_back({{"index", gpu.index},
                    {"name", gpu.name},
                    {"compute_capability", gpu.compute_capability},
                    {"nvlink", {{"links", gpu.nvlinks},
                                {"active", gpu.nvlinks_active},
                                {"to_nvswitch", gpu.nvlinks_to_nvswitch},
                                {"version_code", or_null(gpu.nvlink_version_code)},
                                {"version", gpu.nvlink_version_code ? nlohmann::json(compute::nvlink_version_name(*gpu.nvlink_version_code)) : nlohmann::json(nullptr)}}},
                    {"nvswitch", gpu.nvlinks_to_nvswitch > 0},
                    {"pcie", {{"generation", or_null(gpu.pcie_generation)},
                              {"max_generation", or_null(gpu.pcie_max_generation)},
                              {"width", or_null(gpu.pcie_width)},
                              {"max_width", or_null(gpu.pcie_max_width)}}}});
  }
  return {{"source", "nvml"}, {"library", printable(inventory.library)}, {"read", inventory.read}, {"note", inventory.note}, {"gpus", gpus}};
}

std::string host_facts_line(const std::optional<compute::HostInfo>& host) {
  if (!host) return "";
  // Tabs: a CPU model may hold spaces, never a tab.
  return host->cpu_model + '\t' + std::to_string(host->physical_cores) + '\t' + std::to_string(host->online_cores) + '\t' +
         std::to_string(host->memory_bytes) + '\t' + compute::nics_facts(compute::probe_nics());
}

nlohmann::json per_host_machines(const report::Context& context, const std::vector<std::string>& facts_by_rank) {
  nlohmann::json per_host = nlohmann::json::array();
  for (const auto& name : context.hosts) {
    nlohmann::json entry = {{"host", name}, {"ranks", nlohmann::json::array()}};
    std::string facts;
    for (const auto& rank : context.ranks) {
      if (rank.host != name) continue;
      if (entry["ranks"].empty() && static_cast<std::size_t>(rank.rank) < facts_by_rank.size()) {
        facts = facts_by_rank[static_cast<std::size_t>(rank.rank)];
      }
      entry["ranks"].push_back(rank.rank);
    }
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (std::size_t end; (end = facts.find('\t', start)) != std::string::npos; start = end + 1) fields.push_back(facts.substr(start, end - start));
    fields.push_back(facts.substr(start));
    if (fields.size() >= 4) {
      entry["cpu_model"] = fields[0];
      if (const int cores = std::stoi(fields[1]); cores > 0) entry["cores"] = cores;
      entry["threads"] = std::stoi(fields[2]);
      entry["memory_bytes"] = std::stoull(fields[3]);
    }
    // The host's NICs (physical interfaces, active InfiniBand ports): collbench explain counts them.
    if (fields.size() >= 5) entry["nics"] = nics_json(compute::nics_from_facts(fields[4]));
    per_host.push_back(std::move(entry));
  }
  return per_host;
}

nlohmann::json machine_of(const report::Context& context, const std::optional<compute::HostInfo>& host) {
  nlohmann::json machine = {{"hosts", context.hosts}};
  if (host) {
    machine["cpu_model"] = host->cpu_model;
    if (host->physical_cores > 0) machine["cores"] = host->physical_cores;
    machine["threads"] = host->online_cores;
    machine["memory_bytes"] = host->memory_bytes;
    // The caches a rank's buffers pass through: the summary's health line tells a cache effect
    // from a fault by them (summarize/tables/nccl_table.cpp).
    if (host->last_level_cache_bytes > 0) machine["last_level_cache_bytes"] = host->last_level_cache_bytes;
    machine["caches"] = nlohmann::json::array();
    for (const auto& cache : host->caches) {
      machine["caches"].push_back({{"level", cache.level}, {"bytes", cache.bytes}, {"shared_by_cores", cache.shared_by_cores}});
    }
  }
  machine["nics"] = nics_json(compute::probe_nics());
  utsname names{};
  if (::uname(&names) == 0) machine["kernel"] = std::string(names.sysname) + " " + names.release;
  // GPU models from the ranks' devices ("NVIDIA H100 80GB HBM3 [0]"), without the index.
  std::vector<std::string> gpus;
  for (const auto& rank : context.ranks) {
    if (rank.device == "cpu" || rank.device.empty()) continue;
    const std::string model = rank.device.substr(0, rank.device.rfind(" ["));
    if (std::find(gpus.begin(), gpus.end(), model) == gpus.end()) gpus.push_back(model);
  }
  machine["gpus"] = nlohmann::json::array();
  for (const auto& model : gpus) machine["gpus"].push_back({{"model", model}});
  return machine;
}

report::StateProbeRecord state_probe_of(World& world) {
  const std::vector<std::string> everyone = world.gather_strings(world.host() + '\n' + std::to_string(first_cpu_of_this_process()));
  const auto host_of = [&](std::size_t rank) { return everyone.at(rank).substr(0, everyone.at(rank).rfind('\n')); };
  const auto cpu_of = [&](std::size_t rank) { return std::stoi(everyone.at(rank).substr(everyone.at(rank).rfind('\n') + 1)); };
  report::StateProbeRecord record;
  record.host = host_of(0);
  const int partner = everyone.size() > 1 && host_of(1) == record.host ? cpu_of(1) : -1;
  const StateProbe probe = state_probe_between(cpu_of(0), partner);
  record.cpu_a = probe.cpu_a;
  record.cpu_b = probe.cpu_b;
  return record;
}

std::optional<double> probe_machine_state(World& world, const report::StateProbeRecord& where, const ProbeSchedule& schedule) {
  world.barrier();
  std::optional<double> round_trip_ns;
  if (world.rank() == 0) {
    round_trip_ns = StateProbe{where.cpu_a, where.cpu_b}.measure(schedule.patience, schedule.size);
  } else {
    std::this_thread::sleep_for(schedule.quiet);
  }
  world.barrier();
  return round_trip_ns;
}

std::string collbench_version() {
  // "0.4.0+g1a2b3c4", "-dirty" when the tree differed from that commit: git describe's style,
  // from the state recorded at build time.
  const std::string commit = collbench_source_commit();
  if (commit.size() < 7 || commit == "unknown") return COLLBENCH_VERSION;
  const std::string tree = collbench_source_tree();
  return std::string(COLLBENCH_VERSION) + "+g" + commit.substr(0, 7) + (tree.rfind("modified", 0) == 0 ? "-dirty" : "");
}

std::string collbench_source_line() {
  return "source: commit " + collbench_source_commit() + ", tree " + collbench_source_tree();
}

std::string utc_timestamp_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[40];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &parts);
  return formatted("%s.%03dZ", text, static_cast<int>(millis));
}

std::map<std::string, std::string> allow_listed_environment(char** environment) {
  std::map<std::string, std::string> out;
  for (char** entry = environment; entry && *entry; ++entry) {
    const std::string text(*entry);
    const auto equals = text.find('=');
    if (equals == std::string::npos) continue;
    const std::string name = text.substr(0, equals);
    if (allowed(name)) out[name] = text.substr(equals + 1);
  }
  return out;
}

report::Context collect_context(World& world, const std::string& backend_name, const std::string& device,
                                const std::vector<std::string>& argv, const RunFlags& flags, nlohmann::json options) {
  report::Context context;
  context.argv = argv;
  context.start_time = utc_timestamp_now();
  context.world_size = world.size();
  // Every rank probes its own host: on several nodes, rank 0's host is not the others'.
  const std::optional<compute::HostInfo> host = probe_this_host();
  const std::string mine = world.host() + '\n' + std::to_string(world.local_rank()) + '\n' + device + '\n' +
                           std::to_string(static_cast<long long>(::getpid())) + '\n' + host_facts_line(host);
  const std::vector<std::string> everyone = world.gather_strings(mine);
  std::vector<std::string> facts_by_rank;
  for (int rank = 0; rank < world.size(); ++rank) {
    const std::string& text = everyone[static_cast<std::size_t>(rank)];
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
      fields.push_back(text.substr(start, end - start));
    }
    fields.push_back(text.substr(start));
    report::RankInfo info;
    info.rank = rank;
    info.host = fields.at(0);
    info.local_rank = std::stoi(fields.at(1));
    info.device = fields.at(2);
    info.pid = std::stoll(fields.at(3));
    facts_by_rank.push_back(fields.size() > 4 ? fields[4] : "");
    context.ranks.push_back(info);
    if (std::find(context.hosts.begin(), context.hosts.end(), info.host) == context.hosts.end()) {
      context.hosts.push_back(info.host);
    }
  }
  context.backend = backend_name;
  context.versions["collbench"] = collbench_version();
  context.versions["collbench_commit"] = collbench_source_commit();
  context.versions["collbench_tree"] = collbench_source_tree();
  // Under MPI its library; without MPI, Gloo and the store the ranks met in.
  context.versions[world.control_plane() == ControlPlane::kMpi ? "mpi" : "control_plane"] = world.library_version();
  context.versions["compiler"] = std::string(__VERSION__);
  context.env = allow_listed_environment(environ);
  context.options = std::move(options);
  // A program without --seed records the seed its inputs are made with all the same.
  if (!context.options.contains("seed")) context.options["seed"] = flags.seed;
  context.tags = flags.tags;
  // Rank 0's machine (the ranks' devices cover every GPU), and each host's once with its ranks; the
  // driver, CUDA, MPI, NCCL and Gloo versions are in context.versions, from the libraries' own calls.
  context.machine = machine_of(context, host);
  context.machine["per_host"] = per_host_machines(context, facts_by_rank);
  // Rank 0's host's GPUs and links, by NVML (rank 0 alone: NVML's start costs every caller, and
  // only rank 0's context is written).
  if (world.rank() == 0) context.machine["gpu_inventory"] = gpu_inventory_json(compute::probe_gpu_links());
  const EnvironmentLookup lookup = [](const char* name) -> const char* { return std::getenv(name); };
  context.scheduler = slurm_job_fields(lookup);
  // Only rank 0's context is written; the others need not ask the controller.
  if (world.rank() == 0) add_slurm_commands(context.scheduler, world.host());
  return context;
}

}  // namespace collbench
