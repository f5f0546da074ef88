// How a process decides between MPI and the store (harness/launcher_env.h), from a table of
// variables instead of the real environment: which launch wins, what the store launch reads, and
// one clear UsageError for every missing or malformed variable.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/error.h"
#include "harness/launcher_env.h"

namespace collbench {
namespace {

using Variables = std::map<std::string, std::string>;

LaunchPlan plan(const Variables& variables, const RunFlags& flags = {}) {
  return plan_launch(flags, [&](const char* name) -> const char* {
    const auto found = variables.find(name);
    return found == variables.end() ? nullptr : found->second.c_str();
  });
}

std::string refusal(const Variables& variables, const RunFlags& flags = {}) {
  try {
    plan(variables, flags);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

const Variables kTorchrun{{"RANK", "1"},        {"WORLD_SIZE", "4"},         {"LOCAL_RANK", "1"},
                          {"LOCAL_WORLD_SIZE", "2"}, {"MASTER_ADDR", "10.0.0.1"}, {"MASTER_PORT", "29500"}};

TEST(LaunchPlan, NoVariablesIsMpiAsBefore) { EXPECT_TRUE(plan({}).use_mpi); }

TEST(LaunchPlan, TorchrunVariablesWithoutALauncherMeetInTheStore) {
  const LaunchPlan launch = plan(kTorchrun);
  ASSERT_FALSE(launch.use_mpi);
  EXPECT_EQ(launch.store.rank, 1);
  EXPECT_EQ(launch.store.world_size, 4);
  EXPECT_EQ(launch.store.local_rank, 1);
  EXPECT_EQ(launch.store.master_address, "10.0.0.1");
  EXPECT_EQ(launch.store.master_port, 29500);
  EXPECT_TRUE(launch.store.file_directory.empty());
}

TEST(LaunchPlan, AnMpiLauncherWinsOverLeftoverVariables) {
  for (const char* launcher : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    Variables variables = kTorchrun;
    variables[launcher] = "4";
    EXPECT_TRUE(plan(variables).use_mpi) << launcher;
  }
}

TEST(LaunchPlan, TheFlagDecidesOverTheEnvironment) {
  RunFlags flags;
  flags.bootstrap = Bootstrap::kMpi;
  EXPECT_TRUE(plan(kTorchrun, flags).use_mpi);
  flags.bootstrap = Bootstrap::kEnv;
  Variables variables = kTorchrun;
  variables["OMPI_COMM_WORLD_SIZE"] = "4";
  EXPECT_FALSE(plan(variables, flags).use_mpi);
  EXPECT_NE(refusal({}, flags).find("WORLD_SIZE is not set"), std::string::npos) << refusal({}, flags);
}

TEST(LaunchPlan, AFileRendezvousNeedsNoMasterAndImpliesEnv) {
  RunFlags flags;
  flags.rendezvous_directory = "/shared/run1";
  const LaunchPlan launch = plan({{"RANK", "0"}, {"WORLD_SIZE", "2"}}, flags);
  ASSERT_FALSE(launch.use_mpi);
  EXPECT_EQ(launch.store.file_directory, "/shared/run1");
  EXPECT_TRUE(launch.store.master_address.empty());
  flags.bootstrap = Bootstrap::kMpi;
  EXPECT_NE(refusal(kTorchrun, flags).find("cannot go with --bootstrap mpi"), std::string::npos);
}

TEST(LaunchPlan, LocalRankIsCountedWhenNotGiven) {
  const LaunchPlan launch = plan({{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}});
  EXPECT_EQ(launch.store.local_rank, -1);
}

TEST(LaunchPlan, TheJoinTimeoutIsMinusT) {
  RunFlags flags;
  flags.timeout_seconds = 2.5;
  const LaunchPlan launch = plan(kTorchrun, flags);
  EXPECT_EQ(launch.store.join_timeout.count(), 2500);
  EXPECT_GT(launch.store.operation_timeout, launch.store.join_timeout);
}

TEST(LaunchPlan, MalformedVariablesAreNamedInOneLine) {
  const std::map<std::string, std::pair<Variables, std::string>> cases{
      {"rank not a number", {{{"RANK", "one"}}, "RANK='one' is not a whole number from 0 to 3"}},
      {"rank beyond world", {{{"RANK", "4"}}, "RANK='4' is not a whole number from 0 to 3"}},
      {"negative rank", {{{"RANK", "-1"}}, "RANK='-1'"}},
      {"world size zero", {{{"WORLD_SIZE", "0"}}, "WORLD_SIZE='0' is not a whole number from 1"}},
      {"world size text", {{{"WORLD_SIZE", "4x"}}, "WORLD_SIZE='4x'"}},
      {"port zero", {{{"MASTER_PORT", "0"}}, "MASTER_PORT='0' is not a whole number from 1 to 65535"}},
      {"port too large", {{{"MASTER_PORT", "65536"}}, "MASTER_PORT='65536'"}},
      {"empty address", {{{"MASTER_ADDR", ""}}, "MASTER_ADDR is empty"}},
      {"local rank beyond local size", {{{"LOCAL_RANK", "2"}}, "LOCAL_RANK='2' is not a whole number from 0 to 1"}},
      {"local size beyond world", {{{"LOCAL_WORLD_SIZE", "5"}}, "LOCAL_WORLD_SIZE='5'"}},
      // Issue 48: not "cannot reach the rendezvous store".
      {"job token too long", {{{"COLLBENCH_JOB_TOKEN", std::string(8000, 'k')}},
                              "COLLBENCH_JOB_TOKEN is 8000 bytes; the rendezvous store takes at most 1024"}},
  };
  for (const auto& [name, change] : cases) {
    Variables variables = kTorchrun;
    for (const auto& [variable, value] : change.first) variables[variable] = value;
    const std::string message = refusal(variables);
    EXPECT_NE(message.find(change.second), std::string::npos) << name << ": " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << name;
  }
  Variables longest_token = kTorchrun;
  longest_token["COLLBENCH_JOB_TOKEN"] = std::string(1024, 'k');
  EXPECT_EQ(refusal(longest_token), "(accepted)");
  Variables no_port = kTorchrun;
  no_port.erase("MASTER_PORT");
  EXPECT_NE(refusal(no_port).find("MASTER_PORT is not set"), std::string::npos);
  Variables no_address = kTorchrun;
  no_address.erase("MASTER_ADDR");
  EXPECT_NE(refusal(no_address).find("MASTER_ADDR is not set"), std::string::npos);
  Variables only_rank{{"RANK", "0"}};
  EXPECT_NE(refusal(only_rank).find("WORLD_SIZE is not set"), std::string::npos);
}

}  // namespace
// A task of `srun -n 4 --mpi=none` on nodes node[07-08],gpu1 (the variables srun sets).
const Variables kSrunTask{{"SLURM_JOB_ID", "4242"},      {"SLURM_STEP_ID", "3"},  {"SLURM_PROCID", "2"},
                          {"SLURM_NTASKS", "4"},         {"SLURM_LOCALID", "0"},
                          {"SLURM_STEP_NODELIST", "node[07-08],gpu1"}, {"SLURM_JOB_NODELIST", "login,node[07-08],gpu1"}};

TEST(LaunchPlan, SrunWithoutMpiMeetsInTheStoreWithSlurmsNumbers) {
  const LaunchPlan launch = plan(kSrunTask);
  ASSERT_FALSE(launch.use_mpi);
  EXPECT_EQ(launch.store.rank, 2);
  EXPECT_EQ(launch.store.world_size, 4);
  EXPECT_EQ(launch.store.local_rank, 0);
  EXPECT_EQ(launch.store.master_address, "node07");  // the step's first node, not the job's
  EXPECT_EQ(launch.store.master_port, slurm_master_port(4242, 3));
  EXPECT_NE(slurm_master_port(4242, 3), slurm_master_port(4242, 4));
  EXPECT_NE(slurm_master_port(4242, 3), slurm_master_port(4243, 3));
}

TEST(LaunchPlan, SrunWithMpiIsMpi) {
  for (const char* launcher : {"PMI_SIZE", "PMIX_RANK", "OMPI_COMM_WORLD_SIZE"}) {
    Variables variables = kSrunTask;
    variables[launcher] = "4";
    EXPECT_TRUE(plan(variables).use_mpi) << launcher;
  }
}

TEST(LaunchPlan, ABatchScriptIsNotATaskOfAStep) {
  Variables variables = kSrunTask;
  variables.erase("SLURM_STEP_ID");  // sbatch's script: one process, whatever SLURM_NTASKS says
  EXPECT_TRUE(plan(variables).use_mpi);
}

TEST(LaunchPlan, SetVariablesWinOverSlurms) {
  Variables variables = kSrunTask;
  variables["MASTER_ADDR"] = "10.1.1.1";
  variables["MASTER_PORT"] = "23456";
  const LaunchPlan launch = plan(variables);
  ASSERT_FALSE(launch.use_mpi);
  EXPECT_EQ(launch.store.master_address, "10.1.1.1");
  EXPECT_EQ(launch.store.master_port, 23456);
  EXPECT_EQ(launch.store.rank, 2);
}

TEST(LaunchPlan, SlurmsJobNodeListWhenTheStepHasNone) {
  Variables variables = kSrunTask;
  variables.erase("SLURM_STEP_NODELIST");
  EXPECT_EQ(plan(variables).store.master_address, "login");
}

TEST(LaunchPlan, MalformedSlurmNumbersAreRefusedByName) {
  Variables variables = kSrunTask;
  variables["SLURM_PROCID"] = "7";  // not below SLURM_NTASKS
  EXPECT_NE(refusal(variables).find("RANK='7'"), std::string::npos) << refusal(variables);
}

TEST(SlurmHostList, FirstHost) {
  EXPECT_EQ(first_host_of_slurm_list("vm"), "vm");
  EXPECT_EQ(first_host_of_slurm_list("a,b"), "a");
  EXPECT_EQ(first_host_of_slurm_list("node[07-09,12],gpu1"), "node07");
  EXPECT_EQ(first_host_of_slurm_list("node[3,5]"), "node3");
  EXPECT_EQ(first_host_of_slurm_list("rack[1-2]-n[04-05]"), "rack1-n04");
  EXPECT_EQ(first_host_of_slurm_list("gpu-[10-11].cluster"), "gpu-10.cluster");
  EXPECT_EQ(first_host_of_slurm_list("broken[1-2"), "");
}

TEST(SlurmJobFields, FromTheEnvironment) {
  const auto fields = slurm_job_fields([](const char* name) -> const char* {
    const auto found = kSrunTask.find(name);
    return found == kSrunTask.end() ? nullptr : found->second.c_str();
  });
  EXPECT_EQ(fields.at("name"), "slurm");
  EXPECT_EQ(fields.at("job_id"), "4242");
  EXPECT_EQ(fields.at("step_id"), "3");
  EXPECT_EQ(fields.at("step_node_list"), "node[07-08],gpu1");
  EXPECT_TRUE(slurm_job_fields([](const char*) -> const char* { return nullptr; }).empty());
}

}  // namespace collbench
