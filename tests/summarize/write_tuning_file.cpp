// Writes the tuning file `collbench tune` would write for one tuned range, to stdout, so that the
// tests that feed it to the library's own code (Open MPI under gdb, our NCCL tuner plugin) read
// tune's real writer's output:
//   write_tuning_file openmpi COLLECTIVE RANKS FIRST_BYTES LAST_BYTES ALGORITHM_NUMBER [classic|json]
//   write_tuning_file nccl COLLECTIVE RANKS FIRST_BYTES LAST_BYTES ALGORITHM,PROTOCOL,CHANNELS [NODES]
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "core/flag_values.h"
#include "summarize/tuning/tune.h"
#include "summarize/tuning/tune_files.h"

int main(int argc, char** argv) {
  using namespace collbench::summarize;
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() < 6 || args.size() > 7) {
    std::fprintf(stderr, "usage: write_tuning_file openmpi|nccl COLLECTIVE RANKS FIRST LAST SETTING [classic|json|NODES]\n");
    return 2;
  }
  try {
    TuneDecision decision;
    decision.collective = args[1];
    decision.world_size = std::stoi(args[2]);
    const auto first = std::stoull(args[3]), last = std::stoull(args[4]);
    TuneCandidate candidate;
    candidate.name = args[5];
    TuneLibrary library = TuneLibrary::kOpenMpi;
    OpenMpiRulesForm form = OpenMpiRulesForm::kClassic;
    if (args[0] == "nccl") {
      library = TuneLibrary::kNccl;
      const auto setting = collbench::split_list(args[5]);
      if (setting.size() != 3) throw std::invalid_argument("SETTING is ALGORITHM,PROTOCOL,CHANNELS");
      candidate.nccl_algorithm = setting[0];
      candidate.nccl_protocol = setting[1];
      candidate.nccl_channels = std::stoi(setting[2]);
      if (args.size() == 7) decision.hosts = std::stoi(args[6]);
    } else {
      candidate.mpi_algorithm = std::stoi(args[5]);
      if (args.size() == 7 && args[6] == "json") form = OpenMpiRulesForm::kJson;
    }
    decision.candidates = {candidate};
    // The tuned range, then the library's own choice from the byte after it.
    decision.ranges = {{first, last, 0}, {last + 1, last + 1, std::nullopt}};
    decision.provenance["machine.cpu_model"] = "write_tuning_file";
    std::fputs(tuning_file_text(decision, library, form).c_str(), stdout);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "write_tuning_file: error: %s\n", e.what());
    return 2;
  }
}
