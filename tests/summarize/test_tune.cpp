// collbench tune on fixture reports (tests/data/summarize/tune, written by make_fixtures.py): the
// decision per size and its ranges, the three files written and read back, and --verify refusing
// a file of another machine, world size or library version.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/algorithm_ranges.h"
#include "core/input_file.h"
#include "core/error.h"
#include "summarize/common/input_error.h"
#include "summarize/tuning/tune.h"
#include "summarize/tuning/tune_files.h"
#include "run_cli.h"
#include "test_data.h"

namespace collbench::summarize {
namespace {

TuneCandidate mpi_candidate(int number, const std::string& name) {
  TuneCandidate candidate;
  candidate.name = name + " (" + std::to_string(number) + ")";
  candidate.folder = "mpi-" + std::to_string(number);
  candidate.mpi_algorithm = number;
  return candidate;
}

CandidateRuns fixture_runs(const TuneCandidate& candidate) {
  const std::string folder = data("tune/" + candidate.folder);
  return {candidate, load_reports({folder + "/A"}), load_reports({folder + "/B"}), ""};
}

// The three fixture candidates: ring (4) 20 % faster from 16 KiB, recursive_doubling (3) 2 %
// faster at 1 KiB and +-5 % noise elsewhere, rabenseifner (6) 25 % faster at 64 KiB only.
std::vector<CandidateRuns> all_fixture_runs() {
  return {fixture_runs(mpi_candidate(4, "ring")), fixture_runs(mpi_candidate(3, "recursive_doubling")),
          fixture_runs(mpi_candidate(6, "rabenseifner"))};
}

const SizeChoice& at(const TuneDecision& decision, std::uint64_t bytes) {
  for (const auto& choice : decision.sizes) {
    if (choice.bytes == bytes) return choice;
  }
  throw std::runtime_error("no size " + std::to_string(bytes));
}

TEST(Tune, ARealWinIsChosenAndItsSizesMergeIntoOneRange) {
  const TuneDecision decision = decide_tuning(all_fixture_runs(), CompareOptions{});
  EXPECT_EQ(decision.collective, "all_reduce");
  EXPECT_EQ(decision.world_size, 2);
  ASSERT_EQ(decision.sizes.size(), 4u);
  for (std::uint64_t bytes : {16384u, 65536u}) {
    ASSERT_TRUE(at(decision, bytes).chosen.has_value()) << bytes;
    EXPECT_EQ(decision.candidates[*at(decision, bytes).chosen].name, "ring (4)") << bytes;
    // 20 % faster in every pair but for the +-1 % noise: the estimate within a point of -20 %.
    EXPECT_NEAR(at(decision, bytes).change, -0.20, 0.01) << bytes;
    EXPECT_LT(*at(decision, bytes).change_high, 0) << bytes;
  }
  EXPECT_NEAR(at(decision, 16384).default_us, 40.0, 0.5);
  ASSERT_EQ(decision.ranges.size(), 2u);
  EXPECT_EQ(decision.ranges[0].first_bytes, 1024u);
  EXPECT_EQ(decision.ranges[0].last_bytes, 4096u);
  EXPECT_FALSE(decision.ranges[0].chosen.has_value());
  EXPECT_EQ(decision.ranges[1].first_bytes, 16384u);
  EXPECT_EQ(decision.ranges[1].last_bytes, 65536u);
  EXPECT_EQ(decision.candidates[*decision.ranges[1].chosen].name, "ring (4)");
}

TEST(Tune, NoiseAndWinsBelowTheMinimumEffectKeepTheDefault) {
  const TuneDecision decision = decide_tuning(all_fixture_runs(), CompareOptions{});
  // 1 KiB: recursive_doubling is 2 % faster in every pair, real but below the 3 % minimum effect.
  EXPECT_FALSE(at(decision, 1024).chosen.has_value());
  EXPECT_FALSE(at(decision, 4096).chosen.has_value());
  // Without ring, recursive_doubling's +-5 % swings never make it FASTER anywhere.
  const TuneDecision noise_only = decide_tuning({fixture_runs(mpi_candidate(3, "recursive_doubling"))}, CompareOptions{});
  for (const auto& choice : noise_only.sizes) EXPECT_FALSE(choice.chosen.has_value()) << choice.bytes << " " << choice.why;
  ASSERT_EQ(noise_only.ranges.size(), 1u);
  EXPECT_TRUE(tuned_ranges(noise_only).empty());
  // With a 1 % minimum effect the 2 % win at 1 KiB counts.
  CompareOptions lenient;
  lenient.min_effect = 0.01;
  const TuneDecision small_win = decide_tuning({fixture_runs(mpi_candidate(3, "recursive_doubling"))}, lenient);
  ASSERT_TRUE(at(small_win, 1024).chosen.has_value());
}

TEST(Tune, ALoneBetterEstimateDoesNotSplitARange) {
  // At 64 KiB rabenseifner's estimate (-25 %) beats ring's (-20 %), and both are FASTER; they were
  // never compared with each other, so ring's range from 16 KiB goes on.
  const TuneDecision decision = decide_tuning(all_fixture_runs(), CompareOptions{});
  EXPECT_EQ(decision.candidates[*at(decision, 65536).chosen].name, "ring (4)");
  EXPECT_NE(at(decision, 65536).why.find("neighbour"), std::string::npos) << at(decision, 65536).why;
  // Alone, rabenseifner wins 64 KiB.
  const TuneDecision alone = decide_tuning({fixture_runs(mpi_candidate(6, "rabenseifner"))}, CompareOptions{});
  EXPECT_EQ(alone.candidates[*at(alone, 65536).chosen].name, "rabenseifner (6)");
  EXPECT_FALSE(at(alone, 16384).chosen.has_value());
}

TEST(Tune, TheOpenMpiRulesFileRoundTrips) {
  const TuneDecision decision = decide_tuning(all_fixture_runs(), CompareOptions{});
  const std::string text = tuning_file_text(decision, TuneLibrary::kOpenMpi);
  // Open MPI's classic format (fixture versions.mpi names no version): one collective (allreduce
  // is 2), three communicator sizes: 1 rank with Open MPI's own choice alone, 2 ranks with the
  // rules from 0 bytes (ring (4) from 16 KiB to 64 KiB), 3 ranks with Open MPI's own choice, so
  // that 4.1 and 5.0 apply the rules at 2 ranks only.
  std::string numbers;
  for_each_csv_row(text, "", [&](int, const std::vector<std::string>&, const std::string& line) { numbers += line + " "; });
  EXPECT_EQ(numbers, "1 2 3 1 1 0 0 0 0 2 3 0 0 0 0 16384 4 4 0 65537 0 0 0 3 1 0 0 0 0 ") << text;
  for (std::size_t start = 0, end; start < text.size(); start = end + 1) {
    end = text.find('\n', start);
    EXPECT_LT(end - start, 255u) << "longer than a tuner's line: " << text.substr(start, end - start);
  }
  const TuningFile file = parse_tuning_file(text, "rules.conf");
  EXPECT_EQ(file.library, TuneLibrary::kOpenMpi);
  EXPECT_EQ(file.collective, "all_reduce");
  EXPECT_EQ(file.world_size, 2);
  ASSERT_EQ(file.ranges.size(), 1u);
  EXPECT_EQ(file.ranges[0].first_bytes, 16384u);
  EXPECT_EQ(file.ranges[0].last_bytes, 65536u);
  EXPECT_EQ(file.ranges[0].candidate.mpi_algorithm, 4);
  EXPECT_EQ(file.ranges[0].setting, "ring (4)");
  EXPECT_EQ(file.provenance.at("machine.cpu_model"), "Fixture CPU");
  EXPECT_EQ(file.provenance.at("versions.mpi"), "fixture");
  EXPECT_NE(file.provenance.at("runs").find("8 or more run pairs"), std::string::npos);
}

// A decision by hand: ranges at 8-64 B (candidate 0) and 1-4 KiB (candidate 1), the default between.
TuneDecision hand_decision(std::vector<TuneCandidate> candidates) {
  TuneDecision decision;
  decision.collective = "all_reduce";
  decision.world_size = 4;
  decision.hosts = 2;
  decision.candidates = std::move(candidates);
  decision.ranges = {{8, 64, 0}, {256, 256, std::nullopt}, {1024, 4096, 1}};
  decision.provenance = {{"machine.cpu_model", "Fixture CPU"}, {"versions.nccl", "2.28.3"}};
  return decision;
}

TEST(Tune, TheNcclAndGlooFilesRoundTrip) {
  TuneCandidate tree, ring;
  tree.name = "Tree/LL";
  tree.nccl_algorithm = "tree";
  tree.nccl_protocol = "ll";
  ring.name = "Ring/Simple/ch4";
  ring.nccl_algorithm = "ring";
  ring.nccl_protocol = "simple";
  ring.nccl_channels = 4;
  const std::string csv = tuning_file_text(hand_decision({tree, ring}), TuneLibrary::kNccl);
  // The example tuner's columns: collective,min,max,algorithm,protocol,channels,nNodes,nRanks; the
  // first range ends the byte before the default's range begins.
  EXPECT_NE(csv.find("\nallreduce,8,255,tree,ll,-1,2,4\nallreduce,1024,4096,ring,simple,4,2,4\n"), std::string::npos) << csv;
  const TuningFile nccl = parse_tuning_file(csv, "nccl_tuner.conf");
  EXPECT_EQ(nccl.library, TuneLibrary::kNccl);
  ASSERT_EQ(nccl.ranges.size(), 2u);
  EXPECT_EQ(nccl.ranges[1].candidate.nccl_channels, 4);
  EXPECT_EQ(nccl.ranges[0].last_bytes, 255u);

  TuneCandidate bcube, halving;
  bcube.name = bcube.gloo_algorithm = "bcube";
  halving.name = halving.gloo_algorithm = "halving_doubling";
  const std::string gloo_text = tuning_file_text(hand_decision({bcube, halving}), TuneLibrary::kGloo);
  const TuningFile gloo = parse_tuning_file(gloo_text, "gloo-algo.conf");
  ASSERT_EQ(gloo.ranges.size(), 2u);
  EXPECT_EQ(gloo.ranges[0].candidate.gloo_algorithm, "bcube");
  // The programs read the same file: what --algo-file gives at each size.
  const auto rules = parse_algorithm_ranges(gloo_text, "gloo-algo.conf");
  EXPECT_EQ(algorithm_at(rules, "all_reduce", 8), "bcube");
  EXPECT_EQ(algorithm_at(rules, "all_reduce", 255), "bcube");
  EXPECT_EQ(algorithm_at(rules, "all_reduce", 256), std::nullopt);
  EXPECT_EQ(algorithm_at(rules, "all_reduce", 4096), "halving_doubling");
  EXPECT_EQ(algorithm_at(rules, "all_reduce", 4097), std::nullopt);
  EXPECT_EQ(algorithm_at(rules, "broadcast", 8), std::nullopt);
}

TEST(Tune, AFakeNcclRunGivesTheTunerCsv) {
  TuneCandidate tree_ll;
  tree_ll.name = "Tree/LL";
  tree_ll.folder = "nccl-Tree-LL";
  tree_ll.nccl_algorithm = "tree";
  tree_ll.nccl_protocol = "ll";
  const TuneDecision decision = decide_tuning({fixture_runs(tree_ll)}, CompareOptions{});
  ASSERT_EQ(decision.ranges.size(), 2u);
  const std::string csv = tuning_file_text(decision, TuneLibrary::kNccl);
  // From 1 KiB (the first measured size) to the byte before 16 KiB, where NCCL's choice stays.
  EXPECT_NE(csv.find("\nallreduce,1024,16383,tree,ll,-1,1,2\n"), std::string::npos) << csv;
  // The tuner skips lines that start with '#': one rule line, every other line a comment.
  std::size_t rules = 0;
  for (std::size_t start = 0; start < csv.size(); start = csv.find('\n', start) + 1) rules += csv[start] != '#';
  EXPECT_EQ(rules, 1u) << csv;
  EXPECT_NE(csv.find("# tune: versions.nccl=2.28.3\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("# tune: machine.gpus=NVIDIA H100 80GB HBM3\n"), std::string::npos) << csv;
  const TuningFile file = parse_tuning_file(csv, "nccl_tuner.conf");
  ASSERT_EQ(file.ranges.size(), 1u);
  EXPECT_EQ(file.ranges[0].setting, "tree/ll");
}

TEST(Tune, MalformedFilesAreOneLineErrors) {
  EXPECT_THROW(parse_algorithm_ranges("all_reduce 64 8 ring\n", "f"), UsageError);
  EXPECT_THROW(parse_algorithm_ranges("all_reduce 8 64 ring\nall_reduce 64 128 bcube\n", "f"), UsageError);
  EXPECT_THROW(parse_algorithm_ranges("all_reduce 8 -64 ring\n", "f"), UsageError);
  EXPECT_THROW(parse_algorithm_ranges("all_reduce 8 64\n", "f"), UsageError);
  try {
    parse_algorithm_ranges("# a comment\nall_reduce 8 x ring\n", "gloo.conf");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "gloo.conf:2: 'x' is not a byte count");
  }
  EXPECT_THROW(parse_algorithm_ranges("all_reduce 8 99999999999999999999 ring\n", "f"), UsageError);  // beyond 64 bits
  EXPECT_THROW(parse_tuning_file("1\n2\n", "plain.conf"), InputError);  // no provenance: not tune's
  const std::string huge = "# tune: library=openmpi\n# tune: collective=all_reduce\n# tune: world_size=99999999999999999999\n";
  EXPECT_THROW(parse_tuning_file(huge, "huge.conf"), InputError);
  EXPECT_THROW(parse_tuning_file("# tune: library=openmpi\n# tune: collective=all_reduce\n# tune: world_size=0\n", "zero.conf"), InputError);
  // Rules that end early, and an algorithm Open MPI 4.1 does not have.
  const std::string head = "# tune: library=openmpi\n# tune: collective=all_reduce\n# tune: world_size=2\n";
  EXPECT_THROW(parse_tuning_file(head + "1\n2\n1\n2\n3\n0 0 0 0\n", "short.conf"), InputError);
  EXPECT_THROW(parse_tuning_file(head + "1\n2\n1\n2\n2\n0 9 4 0\n64 0 0 0\n", "nine.conf"), InputError);
  EXPECT_THROW(read_tuning_file("/nonexistent/rules.conf"), InputError);
}

TEST(Tune, OpenMpiSixReadsTheJsonFormAtTheMeasuredSizeOnly) {
  TuneDecision decision = decide_tuning(all_fixture_runs(), CompareOptions{});
  EXPECT_EQ(resolved_rules_form(decision, OpenMpiRulesForm::kFromVersion), OpenMpiRulesForm::kClassic);  // "fixture"
  EXPECT_EQ(open_mpi_rules_form_of("Open MPI v4.1.4"), OpenMpiRulesForm::kClassic);
  EXPECT_EQ(open_mpi_rules_form_of("Open MPI v5.0.10"), OpenMpiRulesForm::kClassic);
  EXPECT_EQ(open_mpi_rules_form_of("Open MPI v6.0.0rc1"), OpenMpiRulesForm::kJson);
  decision.provenance["versions.mpi"] = "Open MPI v6.1.0";
  EXPECT_EQ(tuning_file_name(TuneLibrary::kOpenMpi, resolved_rules_form(decision, OpenMpiRulesForm::kFromVersion)), "ompi-rules.json");
  const std::string text = tuning_file_text(decision, TuneLibrary::kOpenMpi);
  const auto json = nlohmann::json::parse(text);
  // coll_tuned_dynamic_file.c on 6.0+: the collective by name, comm_size_min..max inclusive, and a
  // message size no rule matches takes Open MPI's fixed decision.
  EXPECT_EQ(json["collectives"]["allreduce"],
            nlohmann::json::parse(R"([{"comm_size_min": 2, "comm_size_max": 2, "rules": [{"msg_size_min": 16384, "msg_size_max": 65536, "alg": 4, "faninout": 4}]}])"));
  EXPECT_EQ(json["collbench_tune"]["versions.mpi"], "Open MPI v6.1.0");
  const TuningFile file = parse_tuning_file(text, "rules.json");
  EXPECT_EQ(file.form, OpenMpiRulesForm::kJson);
  ASSERT_EQ(file.ranges.size(), 1u);
  EXPECT_EQ(file.ranges[0].last_bytes, 65536u);
  // Asked for, the other form; a 4.1 file names the same range.
  EXPECT_EQ(parse_tuning_file(tuning_file_text(decision, TuneLibrary::kOpenMpi, OpenMpiRulesForm::kClassic), "r.conf").ranges[0].first_bytes, 16384u);
  // Other sizes or collectives than the measured one, and overlapping rules, are refused.
  const auto refused = [&](const std::string& from, const std::string& to) {
    std::string changed = text;
    const auto at = changed.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    changed.replace(at, from.size(), to);
    try {
      parse_tuning_file(changed, "r.json");
      return std::string("accepted");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
  };
  EXPECT_NE(refused("\"comm_size_min\": 2", "\"comm_size_min\": 1").find("must both be 2"), std::string::npos);
  EXPECT_NE(refused("\"msg_size_max\": 65536", "\"msg_size_max\": 8").find("the range 16384-8 ends before it starts"), std::string::npos);
  EXPECT_NE(refused("\"faninout\": 4\n", "\"faninout\": 4},{\"msg_size_min\": 0, \"msg_size_max\": 20000, \"alg\": 1\n")
                .find("rules[1]: the range 0-20000 overlaps 16384-65536 (rules[0])"),
            std::string::npos);
  EXPECT_NE(refused("\"allreduce\"", "\"bcast\"").find("rules for bcast"), std::string::npos);
  EXPECT_NE(refused("\"rules\": [", "\"rules\": [[").find("not valid JSON"), std::string::npos);
}

TEST(Tune, OpenMpiOffersTheCollectivesItSizesAsCollbenchDoes) {
  TuneDecision decision = hand_decision({mpi_candidate(2, "pairwise"), mpi_candidate(3, "modified_bruck")});
  decision.collective = "alltoall";
  EXPECT_NE(tuning_file_text(decision, TuneLibrary::kOpenMpi).find("\n1\n3\n3\n"), std::string::npos);  // COLLTYPE ALLTOALL 3
  decision.collective = "reduce_scatter";  // MPI_Reduce_scatter_block: REDUCESCATTERBLOCK 13
  EXPECT_NE(tuning_file_text(decision, TuneLibrary::kOpenMpi).find("\n1\n13\n3\n"), std::string::npos);
  EXPECT_EQ(open_mpi_parameter("reduce_scatter"), "reduce_scatter_block");
  EXPECT_EQ(open_mpi_parameter("broadcast"), "bcast");
  decision.collective = "scatter";
  EXPECT_THROW(tuning_file_text(decision, TuneLibrary::kOpenMpi), InputError);
}

// Issue 64: a reader takes ranges only in order and apart, and names the file, the line and both.
TEST(Tune, RangesOutOfOrderOrOverlappingAreRefusedByEveryReader) {
  const auto error_of = [](const std::string& text) {
    try {
      parse_tuning_file(text, "f");
      return std::string("accepted");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
  };
  const std::string mpi = "# tune: library=openmpi\n# tune: collective=all_reduce\n# tune: world_size=2\n1\n2\n";
  // Message sizes backwards within the measured entry.
  EXPECT_EQ(error_of(mpi + "3\n1\n1\n0 0 0 0\n2\n3\n0 0 0 0\n4096 1 4 0\n1024 0 0 0\n3\n1\n0 0 0 0\n"),
            "f:14: the rule from 1024 bytes does not follow the rule from 4096 bytes (line 13): message sizes must increase");
  // One communicator size twice.
  EXPECT_EQ(error_of(mpi + "3\n1\n1\n0 0 0 0\n2\n1\n0 0 0 0\n2\n1\n0 0 0 0\n"),
            "f:13: communicator size 2 does not follow 2 (line 10): Open MPI 4.1 and 5.0 need them increasing");
  // Rules at a size that was not measured, and rules at N that 4.1 would also use below N.
  EXPECT_NE(error_of(mpi + "2\n2\n1\n0 0 0 0\n3\n2\n0 1 4 0\n64 0 0 0\n").find("sets rules at 3 ranks, where nothing was measured"), std::string::npos);
  EXPECT_NE(error_of(mpi + "2\n2\n2\n0 1 4 0\n64 0 0 0\n3\n1\n0 0 0 0\n").find("below 2 ranks too"), std::string::npos);
  EXPECT_NE(error_of(mpi + "2\n1\n1\n0 0 0 0\n2\n2\n0 1 4 0\n64 0 0 0\n").find("above 2 ranks too"), std::string::npos);
  EXPECT_NE(error_of(mpi + "3\n1\n1\n0 0 0 0\n2\n1\n64 1 4 0\n").find("must start at 0 bytes"), std::string::npos);
  EXPECT_NE(error_of(mpi + "3\n1\n1\n0 0 0 0\n2\n1\n0 0 0 0\n3\n1\n0 0 0 0\n7\n").find("f:16: more numbers after the last rule"), std::string::npos);
  EXPECT_NE(error_of(mpi + "3\n1\n1\n0 0 0 0\n2\n1\n0,0,0,0\n").find("not commas"), std::string::npos);
  EXPECT_NE(error_of(mpi + "3\n1\n1\n0 0 0 0\n2\n").find("the rules end early: a rule count expected after line 10"), std::string::npos);
  // NCCL: min above max, and two rows that can both apply.
  const std::string nccl = "# tune: library=nccl\n# tune: collective=all_reduce\n# tune: world_size=4\n";
  EXPECT_EQ(error_of(nccl + "allreduce,64,8,ring,ll,-1,1,4\n"), "f:4: the range 64-8 ends before it starts");
  EXPECT_EQ(error_of(nccl + "allreduce,0,255,ring,ll,-1,1,4\nallreduce,128,4096,tree,simple,-1,-1,4\n"),
            "f:5: allreduce 128-4096 overlaps 0-255 at line 4");
  EXPECT_EQ(error_of(nccl + "allreduce,0,255,ring,ll,-1,1,4\nallreduce,128,4096,tree,simple,-1,2,4\n"), "accepted");  // other node counts
  EXPECT_NE(error_of(nccl + "allreduce,0,255,warp,ll,-1,1,4\n").find("algorithm 'warp'"), std::string::npos);
  EXPECT_NE(error_of(nccl + "allreduce,0,255,ring,ll,0,1,4\n").find("channels 0"), std::string::npos);
  // gloo: both ranges and the earlier line named.
  const std::string gloo = "# tune: library=gloo\n# tune: collective=all_reduce\n# tune: world_size=2\n";
  EXPECT_EQ(error_of(gloo + "all_reduce 8 64 ring\nall_reduce 64 128 bcube\n"), "f:5: all_reduce 64-128 overlaps 8-64 at line 4");
}

TEST(Tune, HostileProvenanceAndEndlessFiles) {
  TuneDecision decision = hand_decision({mpi_candidate(1, "basic_linear"), mpi_candidate(4, "ring")});
  decision.provenance["machine.cpu_model"] = "Evil\x1b]0;owned\x07 CPU\nallreduce,0,99,ring,ll,1,1,4";
  // A newline would start a rule line in the file; an escape would reach whoever reads it.
  for (OpenMpiRulesForm form : {OpenMpiRulesForm::kClassic, OpenMpiRulesForm::kJson}) {
    const std::string text = tuning_file_text(decision, TuneLibrary::kOpenMpi, form);
    EXPECT_EQ(text.find('\x1b'), std::string::npos);
    EXPECT_EQ(parse_tuning_file(text, "f").provenance.at("machine.cpu_model"), "Evil?]0;owned? CPU?allreduce,0,99,ring,ll,1,1,4");
  }
  // An endless file ends at the reader's cap with one line.
  try {
    read_tuning_file("/dev/zero");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/zero"), std::string::npos) << e.what();
  }
}

TEST(Tune, CandidatesAndBadInput) {
  TuneLibrary library = TuneLibrary::kGloo;
  TuneRequest request;
  request.mpi_algorithms = {"ring", "6", "4"};
  const auto candidates = expand_candidates(request, "all_reduce", library);
  EXPECT_EQ(library, TuneLibrary::kOpenMpi);
  ASSERT_EQ(candidates.size(), 2u);  // ring is 4: once
  EXPECT_EQ(candidates[0].name, "ring (4)");
  EXPECT_EQ(candidate_command({"all_reduce_perf", "-b", "8"}, &candidates[0]),
            (std::vector<std::string>{"env", "OMPI_MCA_coll_tuned_use_dynamic_rules=1", "OMPI_MCA_coll_tuned_allreduce_algorithm=4",
                                      "all_reduce_perf", "-b", "8"}));
  request.mpi_algorithms = {"all"};
  EXPECT_EQ(expand_candidates(request, "broadcast", library).size(), 9u);
  request.mpi_algorithms = {"7"};
  EXPECT_THROW(expand_candidates(request, "all_reduce", library), InputError);
  request.mpi_algorithms = {"warp_speed"};
  EXPECT_THROW(expand_candidates(request, "all_reduce", library), InputError);
  EXPECT_THROW(expand_candidates(TuneRequest{}, "all_reduce", library), InputError);  // empty set
  TuneRequest two;
  two.mpi_algorithms = {"all"};
  two.gloo_algorithms = {"ring"};
  EXPECT_THROW(expand_candidates(two, "all_reduce", library), InputError);
  TuneRequest gloo;
  gloo.gloo_algorithms = {"all"};
  EXPECT_EQ(expand_candidates(gloo, "all_reduce", library).size(), 4u);
  EXPECT_THROW(expand_candidates(gloo, "broadcast", library), InputError);
  TuneRequest nccl;
  nccl.nccl_algorithms = {"Ring", "Tree"};
  EXPECT_THROW(expand_candidates(nccl, "all_reduce", library), InputError);  // no protocols
  nccl.nccl_protocols = {"LL", "Simple"};
  nccl.nccl_channels = {"2", "4"};
  const auto nccl_candidates = expand_candidates(nccl, "all_reduce", library);
  ASSERT_EQ(nccl_candidates.size(), 8u);
  EXPECT_EQ(nccl_candidates[1].name, "Ring/LL/ch4");
  EXPECT_EQ(nccl_candidates[1].nccl_protocol, "ll");
  EXPECT_EQ(candidate_command({"all_reduce_perf"}, &nccl_candidates[1]),
            (std::vector<std::string>{"all_reduce_perf", "--algo", "Ring", "--proto", "LL"}));

  EXPECT_EQ(collective_of_program("/opt/bin/all_gather_perf"), "all_gather");

  // On the command line: one line on stderr, exit 2.
  const std::string out = ::testing::TempDir() + "/tune_bad";
  std::string err;
  EXPECT_EQ(run_cli({"tune", "--np", "2", "--mpi-algorithms", "ring", "--out", out, "--", "all_reduce_perf"}, &err), 2);
  EXPECT_NE(err.find("give the benchmark --placement out"), std::string::npos) << err;  // in and out: two rows a size
  EXPECT_EQ(run_cli({"tune", "--np", "2", "--out", out, "--", "all_reduce_perf", "--placement", "out"}, &err), 2);
  EXPECT_NE(err.find("no candidates"), std::string::npos) << err;
  // Channel counts run through the plugin that applies the file, so tune wants it before any run.
  EXPECT_EQ(run_cli({"tune", "--np", "2", "--nccl-algos", "ring", "--nccl-protos", "ll", "--nccl-channels", "4", "--out", out, "--",
                     "all_reduce_perf", "--placement", "out"}, &err), 2);
  EXPECT_NE(err.find("give --nccl-tuner-plugin LIB"), std::string::npos) << err;
  EXPECT_EQ(run_cli({"tune", "--mpi-algorithms", "warp", "--out", out, "--", "all_reduce_perf", "--placement=out"}, &err), 2);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_EQ(run_cli({"tune", "--mpi-algorithms", "all", "--out", out, "--", "alltoallv_perf", "--placement", "out"}, &err), 2);
  EXPECT_NE(err.find("covers all_reduce, broadcast, reduce, all_gather, alltoall, gather and reduce_scatter, not alltoallv"), std::string::npos) << err;
  EXPECT_EQ(run_cli({"tune", "--mpi-algorithms", "all", "--out", out, "--", "scatter_perf", "--placement", "out"}, &err), 2);
  EXPECT_NE(err.find("only at its root"), std::string::npos) << err;
  // In place, Open MPI sizes all_gather, alltoall and gather by send arguments the call leaves out.
  EXPECT_EQ(run_cli({"tune", "--np", "2", "--mpi-algorithms", "all", "--out", out, "--", "all_gather_perf", "--placement", "in"}, &err), 2);
  EXPECT_NE(err.find("in-place all_gather as 0 bytes"), std::string::npos) << err;
  EXPECT_EQ(run_cli({"tune", "--mpi-algorithms", "all", "--out", out}, &err), 2);
  EXPECT_EQ(run_cli({"tune", "--verify", data("tune/none.conf"), "--mpi-algorithms", "all", "--out", out, "--", "all_reduce_perf", "--placement", "in"}, &err), 2);
  EXPECT_NE(err.find("give no candidates"), std::string::npos) << err;
  // Every candidate skipped: nothing to decide, and the line says why.
  CandidateRuns skipped{mpi_candidate(4, "ring"), {}, {}, "its run failed (no such thing)"};
  try {
    decide_tuning({skipped}, CompareOptions{});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "tune: no candidate ran (ring (4): its run failed (no such thing))");
  }
}

// --verify with a fake benchmark named all_reduce_perf that copies a fixture report to its -J
// path (under a fake launcher): the machine and versions come from that report.
std::string fake_benchmark(const std::string& dir, const std::string& report) {
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/all_reduce_perf";
  std::ofstream script(path);
  script << "#!/bin/sh\nwhile [ $# -gt 0 ]; do\n  if [ \"$1\" = -J ]; then cp '" << report << "' \"$2\"; exit 0; fi\n  shift\ndone\nexit 1\n";
  script.close();
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

TuneOptions verify_options(const std::string& name, const std::string& file_text) {
  const std::string dir = ::testing::TempDir() + "/" + name;
  std::filesystem::remove_all(dir);
  TuneOptions options;
  options.bench = {fake_benchmark(dir + "/bin", data("tune/mpi-4/A/run-1.json")), "--placement", "out"};
  // A launcher that drops "-np 2" and runs the benchmark once: the reports say 2 ranks.
  options.ab.launcher = {"sh", "-c", "shift 2; exec \"$@\"", "fake-launcher"};
  options.ab.world_size = 2;
  options.ab.state_reruns = 0;
  options.ab.runs = options.ab.max_runs = 5;  // the fewest pairs whose signed-rank interval is finite
  options.ab.out_dir = dir + "/out";
  options.verify_file = dir + "/rules.conf";
  std::ofstream(options.verify_file) << file_text;
  return options;
}

TEST(Tune, VerifyRefusesAFileOfAnotherMachineWorldOrVersion) {
  const std::string text = tuning_file_text(decide_tuning(all_fixture_runs(), CompareOptions{}), TuneLibrary::kOpenMpi);
  const auto refusal = [&](const std::string& name, const std::string& from, const std::string& to) {
    std::string changed = text;
    const auto at = changed.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    changed.replace(at, from.size(), to);
    TuneOptions options = verify_options(name, changed);
    try {
      run_verify(options, stderr);
      return std::string("accepted");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
  };
  EXPECT_NE(refusal("verify_cpu", "machine.cpu_model=Fixture CPU", "machine.cpu_model=Other CPU").find("machine.cpu_model is 'Other CPU' in the file, 'Fixture CPU' here"),
            std::string::npos);
  EXPECT_NE(refusal("verify_mpi", "versions.mpi=fixture", "versions.mpi=Open MPI 5.0.3").find("versions.mpi"), std::string::npos);
  // A form the Open MPI of the runs would misread: the JSON form where the runs' version reads the
  // classic one (the fixture names no version: classic).
  TuneOptions json = verify_options("verify_json", tuning_file_text(decide_tuning(all_fixture_runs(), CompareOptions{}), TuneLibrary::kOpenMpi,
                                                                    OpenMpiRulesForm::kJson));
  try {
    run_verify(json, stderr);
    ADD_FAILURE() << "a JSON file verified with a classic-form Open MPI";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is in Open MPI's JSON form, which 'fixture' does not read as meant: write it with --rules-format classic"),
              std::string::npos)
        << e.what();
  }
  TuneOptions other_np = verify_options("verify_np", text);
  other_np.ab.world_size = 4;
  try {
    run_verify(other_np, stderr);
    ADD_FAILURE() << "a file for 2 ranks verified at 4";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is for 2 ranks (world_size), not 4"), std::string::npos) << e.what();
  }

  // The file of this machine runs: the same reports on both sides, so every size is SAME, and
  // the ring range is reported as not faster.
  TuneOptions options = verify_options("verify_same", text);
  const TuneOutcome outcome = run_verify(options, stderr);
  EXPECT_EQ(outcome.exit_code, 0);
  // At 2 ranks, and at 1 rank, below the file's world size, where it must change nothing.
  ASSERT_EQ(outcome.document.tables.size(), 2u);
  EXPECT_EQ(outcome.document.tables[0].groups[0].rows.size(), 4u);
  EXPECT_EQ(outcome.document.tables[1].title, "Below the file's world size: 1 ranks, where it must change nothing");
  EXPECT_TRUE(std::filesystem::exists(options.ab.out_dir + "/verify-below/A/run-1.json"));
  bool said = false;
  for (const auto& note : outcome.document.notes) said = said || note == "range 16384-65536 ring (4): not faster; SAME at 2";
  EXPECT_TRUE(said) << ::testing::PrintToString(outcome.document.notes);
}

// --verify fails when the file makes anything SLOWER where it should change nothing: at N - 1 ranks
// this fake benchmark answers with the fixture's slower runs when the rules file is set (its ring
// runs are 20 % faster from 16 KiB, so the default's runs are 25 % slower than them), and at N
// ranks alike on both sides.
TEST(Tune, VerifyFailsOnASlowerSizeBelowTheFilesWorldSize) {
  const std::string text = tuning_file_text(decide_tuning(all_fixture_runs(), CompareOptions{}), TuneLibrary::kOpenMpi);
  TuneOptions options = verify_options("verify_below", text);
  const std::string fixture = data("tune/mpi-4");
  std::ofstream script(options.bench.front());
  script << "#!/bin/sh\nwhile [ $# -gt 0 ]; do\n  if [ \"$1\" = -J ]; then\n    run=$(basename \"$2\")\n"
         << "    side=A\n    [ \"$NP\" = 1 ] && [ -z \"$OMPI_MCA_coll_tuned_dynamic_rules_filename\" ] && side=B\n"
         << "    cp '" << fixture << "'/$side/$run \"$2\"; exit 0\n  fi\n  shift\ndone\nexit 1\n";
  script.close();
  options.ab.launcher = {"sh", "-c", "NP=$2; export NP; shift 2; exec \"$@\"", "fake-launcher"};
  options.ab.runs = options.ab.max_runs = 8;  // enough pairs for a verdict past Holm's correction over 4 sizes
  const TuneOutcome outcome = run_verify(options, stderr);
  EXPECT_EQ(outcome.exit_code, 1);
  ASSERT_EQ(outcome.document.tables.size(), 2u);
  for (const auto& row : outcome.document.tables[0].groups[0].rows) EXPECT_EQ(row.back(), "SAME") << row.front();  // at 2 ranks
  int slower = 0;
  for (const auto& row : outcome.document.tables[1].groups[0].rows) slower += row.back() == "SLOWER";
  EXPECT_EQ(slower, 2) << ::testing::PrintToString(outcome.document.notes);  // 16 KiB and 64 KiB at 1 rank
  bool said = false;
  for (const auto& note : outcome.document.notes) said = said || note.find("SLOWER where the file should change nothing: it fails") != std::string::npos;
  EXPECT_TRUE(said) << ::testing::PrintToString(outcome.document.notes);
}

}  // namespace
}  // namespace collbench::summarize
