// Checks a ddp_step_perf report: the envelope, every row's checks and the accounting invariants.
// usage: check_ddp_report REPORT --world-size N --rows N --wrong zero|positive [--invariants]
//                         [--profile FORWARD_US BACKWARD_US] [--compute-alone row|pass] [--comm-cores N]
//   Always: every float32 gradient is copied into its bucket and back (gradient_copy_bytes = 8 x
//   parameters), the copies and the elementwise time are parts of compute. Every row has its compute
//   alone (> 0, said where from; the gradient copies left out: an overlap-off row's is its compute
//   less its copies, its comm alone its all-reduces and copies), exposed_us = max(0, step - compute
//   alone), compute_slowdown = (compute - copies) / compute alone, hidden_fraction = 1 - exposed /
//   comm alone within [0, 1], and per rank the thread that issued the all-reduces (ddp-comm with
//   overlap on) with the CPUs it ran on.
//   --compute-alone row: each overlap-on row's compute alone is its overlap-off row's compute less copies;
//   pass: it came from an untimed overlap-off pass inside the row.
//   --comm-cores N: rows say N, and on every rank the communicating threads may run on N CPUs that
//   the compute thread may not.
//   --profile: the compute came from a profile whose layer times sum to FORWARD_US and BACKWARD_US
//   per micro-step: no GEMM ran, and every rank's forward and backward took at least that long.
//   --invariants: per rank, step = forward + backward compute + exposed communication (within 2%);
//   exposed <= communication; with overlap off, exposed = communication (each within 5% + 200 us,
//   the bookkeeping between the timers). Prints one line per failure; exit 1 on any.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  std::printf("FAIL: %s\n", what.c_str());
  ++failures;
}

bool close(double a, double b, double relative, double absolute) { return std::fabs(a - b) <= relative * std::fabs(b) + absolute; }

// The figures against the compute alone, in closed form from the row's own numbers, and where the
// compute alone came from.
void check_compute_alone(const nlohmann::json& results, const nlohmann::json& row, const std::string& where, const std::string& source) {
  // The model's compute: DDP's gradient copies count with communication (schema 2.5).
  const double alone = row["compute_alone_us"].get<double>(), compute = row["compute_us"].get<double>() - row["gradient_copy_us"].get<double>();
  expect(alone > 0 && row["compute_alone"].is_string(), where + ": a compute alone, said where from");
  expect(close(row["exposed_us"].get<double>(), std::max(0.0, row["time_us"]["mean"].get<double>() - alone), 1e-9, 1e-6),
         where + ": exposed_us " + row["exposed_us"].dump() + " != step - compute alone");
  expect(close(row["compute_slowdown"].get<double>(), compute / alone, 1e-9, 0),
         where + ": compute_slowdown != (compute - gradient copies) / compute alone");
  if (row["comm_alone_us"].get<double>() > 0) {
    const double hidden = row["hidden_fraction"].get<double>();
    expect(hidden >= 0 && hidden <= 1 &&
               close(hidden, std::clamp(1 - row["exposed_us"].get<double>() / row["comm_alone_us"].get<double>(), 0.0, 1.0), 1e-9, 1e-12),
           where + ": hidden_fraction " + row["hidden_fraction"].dump() + " != 1 - exposed / comm alone");
  }
  for (const auto& rank : row["per_rank"]) expect(rank["compute_alone_us"].get<double>() > 0, where + ": each rank's compute alone");
  const std::string text = row["compute_alone"].get<std::string>();
  if (row["overlap"] == "off") {
    expect(close(alone, compute, 1e-9, 1e-9), where + ": overlap off, its compute alone is its own compute less the gradient copies");
    expect(close(row["comm_alone_us"].get<double>(), row["comm_us"].get<double>() + row["gradient_copy_us"].get<double>(), 1e-9, 1e-9),
           where + ": overlap off, its communication alone is its own all-reduces and gradient copies");
    return;
  }
  if (source == "pass") expect(text.rfind("an untimed overlap-off pass", 0) == 0, where + ": compute alone from a pass, not '" + text + "'");
  if (source != "row") return;
  expect(text.rfind("the overlap-off row", 0) == 0, where + ": compute alone from the overlap-off row, not '" + text + "'");
  for (const auto& other : results) {
    if (other["overlap"] == "off" && other["bucket_mb"] == row["bucket_mb"] && other["grad_dtype"] == row["grad_dtype"] &&
        other["accumulate"] == row["accumulate"]) {
      expect(close(alone, other["compute_us"].get<double>() - other["gradient_copy_us"].get<double>(), 1e-9, 1e-9),
             where + ": compute alone != the overlap-off row's compute less its gradient copies");
    }
  }
}

int cpus_in(const std::string& list) {  // "0-3,6" -> 5
  int count = 0;
  for (std::size_t start = 0; start < list.size();) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string part = list.substr(start, comma - start);
    const std::size_t dash = part.find('-');
    count += dash == std::string::npos ? 1 : std::stoi(part.substr(dash + 1)) - std::stoi(part.substr(0, dash)) + 1;
    start = comma + 1;
  }
  return count;
}

// Who communicated, where: the issuing thread is named, with the CPUs it was seen on.
void check_threads(const nlohmann::json& row, const std::string& where, int comm_cores) {
  if (comm_cores > 0) expect(row["comm_cores"] == comm_cores, where + ": comm_cores " + row["comm_cores"].dump());
  for (const auto& rank : row["per_rank"]) {
    const std::string who = where + " rank " + rank["rank"].dump();
    std::string issuing, compute_allowed, comm_allowed;
    for (const auto& thread : rank["threads"]) {
      const std::string role = thread["role"].get<std::string>(), name = thread["name"].get<std::string>();
      expect(!thread["allowed_cpus"].get<std::string>().empty(), who + ": thread " + name + " without its allowed CPUs");
      if (role.find("all-reduces") != std::string::npos) {
        issuing = name;
        expect(!thread["cpus"].get<std::string>().empty(), who + ": the issuing thread without the CPUs it ran on");
      }
      if (role.find("compute") != std::string::npos) compute_allowed = thread["allowed_cpus"].get<std::string>();
      if (role == "all-reduces" || role == "backend I/O") {
        expect(comm_allowed.empty() || comm_allowed == thread["allowed_cpus"], who + ": communicating threads on different CPUs");
        comm_allowed = thread["allowed_cpus"].get<std::string>();
      }
    }
    expect(!issuing.empty(), who + ": no thread issued the all-reduces");
    if (row["overlap"] == "on") expect(issuing == "ddp-comm", who + ": overlap on, but the all-reduces came from " + issuing);
    if (comm_cores == 0 || row["overlap"] != "on") continue;
    expect(cpus_in(comm_allowed) == comm_cores, who + ": communication may run on " + comm_allowed + ", not " + std::to_string(comm_cores) + " CPUs");
    expect(!compute_allowed.empty() && compute_allowed != comm_allowed, who + ": compute on " + compute_allowed + ", communication on " + comm_allowed);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: check_ddp_report REPORT --world-size N --rows N --wrong zero|positive [--invariants]\n");
    return 2;
  }
  int world_size = -1, rows = -1;
  std::string wrong = "zero";
  bool invariants = false;
  double profile_forward_us = -1, profile_backward_us = -1;
  std::string compute_alone;
  int comm_cores = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--world-size" && i + 1 < argc) world_size = std::stoi(argv[++i]);
    else if (arg == "--rows" && i + 1 < argc) rows = std::stoi(argv[++i]);
    else if (arg == "--wrong" && i + 1 < argc) wrong = argv[++i];
    else if (arg == "--invariants") invariants = true;
    else if (arg == "--compute-alone" && i + 1 < argc) compute_alone = argv[++i];
    else if (arg == "--comm-cores" && i + 1 < argc) comm_cores = std::stoi(argv[++i]);
    else if (arg == "--profile" && i + 2 < argc) {
      profile_forward_us = std::stod(argv[++i]);
      profile_backward_us = std::stod(argv[++i]);
    }
    else {
      std::fprintf(stderr, "check_ddp_report: unknown argument %s\n", arg.c_str());
      return 2;
    }
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::printf("FAIL: cannot read %s\n", argv[1]);
    return 1;
  }
  const nlohmann::json report = nlohmann::json::parse(in);
  expect(report["schema_version"].get<std::string>().rfind("2.", 0) == 0, "schema_version 2.x");
  expect(report["benchmark"] == "ddp_step", "benchmark ddp_step");
  expect(report["status"] == "complete", "status complete");
  if (world_size > 0) expect(report["context"]["world_size"] == world_size, "world_size " + std::to_string(world_size));
  const auto& results = report["results"];
  if (rows >= 0) expect(static_cast<int>(results.size()) == rows, "rows: " + std::to_string(results.size()) + ", want " + std::to_string(rows));
  std::int64_t wrong_total = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& row = results[i];
    const std::string where = "row " + std::to_string(i) + " (bucket " + row["bucket_mb"].dump() + ", overlap " +
                              row["overlap"].get<std::string>() + ", " + row["grad_dtype"].get<std::string>() + ", accumulate " +
                              row["accumulate"].dump() + ")";
    expect(row["kind"] == "ddp_step", where + ": kind ddp_step");
    expect(row["wrong"].is_number_integer(), where + ": wrong is checked");
    if (row["wrong"].is_number_integer()) wrong_total += row["wrong"].get<std::int64_t>();
    expect(static_cast<int>(row["per_rank"].size()) == report["context"]["world_size"].get<int>(), where + ": a figure per rank");
    expect(row["buckets"].get<int>() >= 1 && row["allreduce_calls"] == row["buckets"], where + ": one all-reduce per bucket");
    const double element_bytes = row["grad_dtype"] == "float32" ? 4 : 2;
    expect(row["allreduce_bytes"].get<double>() == element_bytes * report["model"]["parameters"].get<double>(),
           where + ": all-reduce bytes = parameters x dtype bytes");
    expect(close(row["samples_per_s"].get<double>(),
                 row["global_batch"].get<double>() * row["accumulate"].get<double>() / (row["time_us"]["mean"].get<double>() * 1e-6),
                 1e-9, 0),
           where + ": samples/s = global batch x accumulate / mean step time");
    expect(row["gradient_copy_bytes"].get<double>() == 8 * report["model"]["parameters"].get<double>(),
           where + ": gradient copy bytes = parameters x 4 B, into the buckets and back");
    expect(row["memory_gbps"].get<double>() > 0 && row["memory_bandwidth"].is_string(), where + ": the bandwidth and its source");
    for (const auto& rank : row["per_rank"]) {
      const double compute = rank["forward_us"].get<double>() + rank["backward_compute_us"].get<double>();
      expect(rank["gradient_copy_us"].get<double>() > 0 && rank["gradient_copy_us"].get<double>() <= rank["backward_compute_us"].get<double>(),
             where + ": the gradient copies take time, inside backward");
      expect(rank["elementwise_us"].get<double>() <= compute, where + ": elementwise time is part of compute");
      if (profile_forward_us < 0) continue;
      const double micro_steps = row["accumulate"].get<double>();
      expect(rank["forward_us"].get<double>() >= profile_forward_us * micro_steps,
             where + ": forward " + rank["forward_us"].dump() + " us < the profile's " + std::to_string(profile_forward_us));
      expect(rank["backward_compute_us"].get<double>() >= profile_backward_us * micro_steps,
             where + ": backward " + rank["backward_compute_us"].dump() + " us < the profile's " + std::to_string(profile_backward_us));
      expect(rank["elementwise_us"].get<double>() == 0, where + ": no elementwise time under a profile");
    }
    if (profile_forward_us >= 0) {
      expect(row["compute"] == "profile" && row["compute_profile"].is_string(), where + ": compute from the profile");
      expect(row["forward_gemm_flops"] == 0 && row["backward_gemm_flops"] == 0, where + ": no GEMM under a profile");
    } else {
      expect(row["compute"] == "gemm shapes" && row["compute_profile"].is_null(), where + ": compute from the GEMM shapes");
    }
    check_compute_alone(results, row, where, compute_alone);
    check_threads(row, where, comm_cores);
    // Schema 2.4 renamed two figures and still writes them under their former names (minor
    // versions only add keys).
    expect(row["exposed_comm_us"] == row["exposed_inside_step_us"] && row["overlap_fraction"] == row["hidden_inside_step_fraction"],
           where + ": the figures renamed in 2.4 are not also under their former names");
    for (const auto& rank : row["per_rank"]) {
      expect(rank["exposed_comm_us"] == rank["exposed_inside_step_us"], where + ": a rank's exposed_comm_us is not its exposed_inside_step_us");
    }
    if (!invariants) continue;
    for (const auto& rank : row["per_rank"]) {
      const std::string who = where + " rank " + rank["rank"].dump();
      const double step = rank["step_us"]["mean"].get<double>(), forward = rank["forward_us"].get<double>(),
                   backward = rank["backward_compute_us"].get<double>(), comm = rank["comm_us"].get<double>(),
                   exposed = rank["exposed_inside_step_us"].get<double>();
      expect(close(step, forward + backward + exposed, 0.02, 20),
             who + ": step " + std::to_string(step) + " != compute " + std::to_string(forward + backward) + " + exposed " + std::to_string(exposed));
      expect(exposed <= comm * 1.05 + 200, who + ": exposed " + std::to_string(exposed) + " > communication " + std::to_string(comm));
      if (row["overlap"] == "off") {
        expect(close(exposed, comm, 0.05, 200), who + ": overlap off but exposed " + std::to_string(exposed) + " != communication " +
                                                    std::to_string(comm));
      }
    }
  }
  if (wrong == "zero") expect(wrong_total == 0, "wrong total " + std::to_string(wrong_total) + ", want 0");
  if (wrong == "positive") expect(wrong_total > 0, "wrong total 0, want > 0 (the corruption was not caught)");
  if (failures == 0) std::printf("ok: %s: %zu rows\n", argv[1], results.size());
  return failures == 0 ? 0 : 1;
}
