// What the launcher tells a process about itself before any library starts: whether mpirun/srun
// started it (MPI) or the torchrun-style variables did (RANK, WORLD_SIZE, LOCAL_RANK,
// LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT: the store and Gloo, no MPI_Init).
#pragma once

#include <functional>
#include <map>
#include <string>

#include "backends/gloo/gloo_world.h"
#include "harness/flag_groups.h"

namespace collbench {

// A variable's value, or nullptr when it is not set (std::getenv, or a table in tests).
using EnvironmentLookup = std::function<const char*(const char* name)>;

// The rank from mpirun/srun's environment, else RANK, or 0 without either. Used only to print
// --help and usage errors once, before the ranks have met.
int launcher_rank();

// Whether mpirun/srun's variables are present (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK).
bool started_by_mpi_launcher(const EnvironmentLookup& lookup);

// Whether this process is a task of a Slurm step that srun started (SLURM_STEP_ID, SLURM_PROCID
// and SLURM_NTASKS set; a batch script has no SLURM_STEP_ID, so a program run directly in it is
// not one of several tasks).
bool started_by_srun(const EnvironmentLookup& lookup);

// The first host of a Slurm host list: "node[07-09,12],gpu1" gives "node07".
std::string first_host_of_slurm_list(const std::string& host_list);

// A non-empty run of at most `max_digits` decimal digits.
bool whole_number(const std::string& text, std::size_t max_digits = std::string::npos);

// The port rank 0 serves the store on for a run under srun without MPI and without MASTER_PORT:
// 10000 + (job id x 97 + step id) mod 20000, so steps of one job and jobs sharing a node differ.
int slurm_master_port(long long job_id, long long step_id);

// What a report's context.scheduler says about the Slurm job this process belongs to (empty when
// none): job and step ids, node lists, task count, job name, partition, cluster.
std::map<std::string, std::string> slurm_job_fields(const EnvironmentLookup& lookup);

struct LaunchPlan {
  bool use_mpi = true;
  StoreLaunch store;  // when !use_mpi
};

// --bootstrap mpi: MPI. env: the store. auto: MPI when an MPI launcher's variables are present
// (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK), or when RANK and WORLD_SIZE are both absent and
// srun did not start it; the store otherwise. Under srun without MPI (--mpi=none) the variables
// that are absent come from Slurm: RANK from SLURM_PROCID, WORLD_SIZE from SLURM_NTASKS,
// LOCAL_RANK from SLURM_LOCALID, MASTER_ADDR from the first node of SLURM_STEP_NODELIST (else
// SLURM_JOB_NODELIST), MASTER_PORT from slurm_master_port. --rendezvous file:DIR implies env. Throws UsageError with one line naming the
// variable for anything missing or malformed.
LaunchPlan plan_launch(const RunFlags& flags, const EnvironmentLookup& lookup);

}  // namespace collbench
