// collbench ab and sweep: interleaved run pairs, resuming, and the sweep runner.
// (tests/summarize/summarize_test_helpers.h has what the command files share.)
#include "summarize_test_helpers.h"

namespace collbench::summarize {
namespace {

TEST(Ab, CommandsSplitAtTheSeparator) {
  AbOptions options;
  split_ab_commands({"old/all_reduce_perf", "-b", "8", ":::", "new/all_reduce_perf", "-b", "8"}, options);
  EXPECT_EQ(options.command_a, (std::vector<std::string>{"old/all_reduce_perf", "-b", "8"}));
  EXPECT_EQ(options.command_b, (std::vector<std::string>{"new/all_reduce_perf", "-b", "8"}));
  EXPECT_THROW(split_ab_commands({"a", "b"}, options), InputError);
  EXPECT_THROW(split_ab_commands({"a", ":::"}, options), InputError);
  EXPECT_THROW(split_ab_commands({"a", ":::", "b", ":::", "c"}, options), InputError);
  EXPECT_EQ(run_cli({"ab", "--out", ::testing::TempDir() + "/ab_bad", "--", "a", "b"}), 2);
  EXPECT_EQ(run_cli({"ab", "--runs", "4", "--max-runs", "3", "--out", ::testing::TempDir() + "/ab_bad", "--", "a", ":::", "b"}), 2);
}

// ab against a machine state, with a fake probe (no state can be made on demand) and commands
// that copy a fixture report to the run's -J path: a pair the probe saw in two states is set
// aside and run again, at most --state-reruns times, and the JSON says so.

AbOptions fixture_ab(const std::string& out_dir, std::vector<double> probe_ns, int* probe_calls) {
  AbOptions options;
  options.runs = options.max_runs = 3;
  options.launcher = {"none"};
  options.out_dir = out_dir;
  options.command_a = {"sh", "-c", "cp \"$0\" \"$2\"", data("compare/base.json")};
  options.command_b = {"sh", "-c", "cp \"$0\" \"$2\"", data("compare/same.json")};
  options.compare.paired = true;
  options.state_probe = [probe_ns, probe_calls]() -> std::optional<double> {
    return probe_ns[static_cast<std::size_t>((*probe_calls)++) % probe_ns.size()];
  };
  return options;
}

TEST(Ab, APairSeenInTwoMachineStatesRunsAgain) {
  const std::string dir = ::testing::TempDir() + "/ab_state_once";
  std::filesystem::remove_all(dir);
  int calls = 0;
  // Pair 1 in one state; pair 2 flips between its runs, then runs again in the slow state; pair 3 calm.
  const auto outcome = run_ab(fixture_ab(dir, {100, 110, 100, 100, 300, 310, 300, 320, 310, 100, 100, 100}, &calls), stderr);
  EXPECT_EQ(calls, 12);
  EXPECT_EQ(outcome.runs_a_side, 3);
  const auto& guard = outcome.document.extra.at("state_guard");
  EXPECT_EQ(guard.at("pairs_run_again"), 1);
  EXPECT_EQ(guard.at("pairs_kept_in_two_states"), 0);
  EXPECT_EQ(guard.at("probes_ns").size(), 3u);
  EXPECT_EQ(guard.at("probes_ns")[1], (nlohmann::json{300, 320, 310}));
  for (const char* side : {"A", "B"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/set-aside/" + side + "/run-2.try-1.json")) << side;
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + side + "/run-2.json")) << side;
    EXPECT_FALSE(std::filesystem::exists(dir + "/" + side + "/run-4.json")) << side;
  }
  EXPECT_TRUE(has_note(outcome.document, "1 run pair(s) set aside and run again"));
}

TEST(Ab, APairStillInTwoStatesIsKeptAfterItsReruns) {
  const std::string dir = ::testing::TempDir() + "/ab_state_always";
  std::filesystem::remove_all(dir);
  int calls = 0;
  AbOptions options = fixture_ab(dir, {100, 250}, &calls);  // every pair sees both states
  options.state_reruns = 1;
  const auto outcome = run_ab(options, stderr);
  EXPECT_EQ(calls, 3 * 2 * 3);  // 3 pairs, each run twice, 3 probes a try
  const auto& guard = outcome.document.extra.at("state_guard");
  EXPECT_EQ(guard.at("pairs_run_again"), 3);
  EXPECT_EQ(guard.at("pairs_kept_in_two_states"), 3);
  EXPECT_TRUE(has_note(outcome.document, "3 pair(s) kept after 1 re-run(s) still in two states"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/set-aside/B/run-3.try-1.json"));
  // Resumed after pair 3's B report was lost: pair 3 runs again, and what it sets aside is added
  // beside the earlier try, not over it.
  std::filesystem::remove(dir + "/B/run-3.json");
  calls = 0;
  const auto resumed = run_ab(options, stderr);
  EXPECT_EQ(resumed.document.extra.at("state_guard").at("pairs_run_again"), 1);
  EXPECT_TRUE(std::filesystem::exists(dir + "/set-aside/B/run-3.try-1.json"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/set-aside/B/run-3.try-2.json"));
  // --state-reruns 0: no probe, nothing set aside.
  const std::string off = dir + "_off";
  std::filesystem::remove_all(off);
  calls = 0;
  options = fixture_ab(off, {100, 250}, &calls);
  options.state_reruns = 0;
  const auto unguarded = run_ab(options, stderr);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(unguarded.document.extra.at("state_guard").at("on"), false);
  EXPECT_FALSE(std::filesystem::exists(off + "/set-aside"));
}

// Fixture reports for ab's runs: `side`.N.json is `fixture` with the N-th probe pair recorded on `host`.
void write_probed_runs(const std::string& fixtures, const std::string& side, const std::string& fixture,
                       const std::vector<std::pair<double, double>>& probes, const std::string& host = "runner") {
  std::ifstream in(data(fixture));
  const nlohmann::json document = nlohmann::json::parse(in);
  for (std::size_t run = 0; run < probes.size(); ++run) {
    nlohmann::json probed = document;
    probed["context"]["state_probe"] = {{"host", host}, {"cpus", {0, 1}}, {"before_ns", probes[run].first}, {"after_ns", probes[run].second}};
    std::ofstream(fixtures + "/" + side + "." + std::to_string(run + 1) + ".json") << probed.dump();
  }
}

// ab's commands: the n-th run of a side copies that side's n-th fixture, so a re-run gets new probes.
AbOptions probed_fixture_ab(const std::string& dir, const std::string& fixtures, int* probe_calls) {
  AbOptions options = fixture_ab(dir, {100}, probe_calls);
  const std::string copy_next = "n=$(($(cat \"$0.count\" 2>/dev/null || echo 0) + 1)); echo $n > \"$0.count\"; cp \"$0.$n.json\" \"$2\"";
  options.command_a = {"sh", "-c", copy_next, fixtures + "/A"};
  options.command_b = {"sh", "-c", copy_next, fixtures + "/B"};
  return options;
}

TEST(Ab, ReadsTheMachineStateFromTheReportsProbe) {
  // Each run's report records the probe around its rows; ab judges a pair by those four values and
  // stops probing on its own once the reports carry them (its own probe is asked for the first pair
  // only). The n-th run of a side copies that side's n-th fixture, so a re-run gets new probes.
  const std::string dir = ::testing::TempDir() + "/ab_state_reports", fixtures = dir + "_fixtures";
  std::filesystem::remove_all(dir);
  std::filesystem::remove_all(fixtures);
  std::filesystem::create_directories(fixtures);
  // Pair 2 (B first) flips to the slow state during B; its re-run is in the slow state throughout.
  write_probed_runs(fixtures, "A", "compare/base.json", {{160, 158}, {515, 530}, {510, 515}, {160, 160}});
  write_probed_runs(fixtures, "B", "compare/same.json", {{159, 161}, {160, 520}, {520, 525}, {158, 159}});
  int calls = 0;
  const auto outcome = run_ab(probed_fixture_ab(dir, fixtures, &calls), stderr);
  EXPECT_EQ(calls, 3);
  const auto& guard = outcome.document.extra.at("state_guard");
  EXPECT_EQ(guard.at("pairs_run_again"), 1);
  EXPECT_EQ(guard.at("pairs_kept_in_two_states"), 0);
  ASSERT_EQ(guard.at("probes_ns").size(), 3u);
  EXPECT_EQ(guard.at("probes_ns")[1], (nlohmann::json{520, 525, 510, 515}));
  EXPECT_NE(guard.at("probe").get<std::string>().find("between CPUs 0 and 1 of runner, recorded by each run"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir + "/set-aside/B/run-2.try-1.json"));
  EXPECT_TRUE(has_note(outcome.document, "1 run pair(s) set aside and run again"));
}

TEST(Ab, ProgressLinesEscapeTheReportsText) {
  // The host a report's probe names reaches ab's "run pair N again ... of HOST" line: an escape
  // sequence in it must not reach the terminal. The out folder's name is escaped alike on resuming.
  const std::string dir = ::testing::TempDir() + "/ab_escape\x1b[2J", fixtures = ::testing::TempDir() + "/ab_escape_fixtures";
  std::filesystem::remove_all(dir);
  std::filesystem::remove_all(fixtures);
  std::filesystem::create_directories(fixtures);
  const std::string host = "runner\x1b]0;title\x07\x1b[31m\nforged line\xc2\x9b" "31m";
  write_probed_runs(fixtures, "A", "compare/base.json", {{160, 158}, {515, 530}, {510, 515}, {160, 160}, {160, 160}}, host);
  write_probed_runs(fixtures, "B", "compare/same.json", {{159, 161}, {160, 520}, {520, 525}, {158, 159}, {158, 159}}, host);
  int calls = 0;
  AbOptions options = probed_fixture_ab(dir, fixtures, &calls);
  std::FILE* progress = std::tmpfile();
  ASSERT_NE(progress, nullptr);
  run_ab(options, progress);
  std::filesystem::remove(dir + "/B/run-3.json");  // resumed: pair 3 runs again from the fifth fixtures
  run_ab(options, progress);
  std::rewind(progress);
  std::string printed;
  for (int c; (c = std::fgetc(progress)) != EOF;) printed += static_cast<char>(c);
  std::fclose(progress);
  EXPECT_NE(printed.find("run pair 2 again: its runs were in two machine states (a cache-line round trip between CPUs 0 and 1 of "
                         "runner?]0;title??[31m?forged line?31m"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("[ab] resuming " + ::testing::TempDir() + "/ab_escape?[2J: 2 complete run pair(s) kept"), std::string::npos) << printed;
  EXPECT_EQ(printed.find('\x1b'), std::string::npos) << printed;
  EXPECT_EQ(printed.find("\xc2\x9b"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("\nforged"), std::string::npos) << printed;
}

TEST(Ab, TheStateRuleAndTheRealProbe) {
  EXPECT_TRUE(one_machine_state({100.0, 199.0, std::nullopt}, 2));
  EXPECT_FALSE(one_machine_state({100.0, 201.0}, 2));
  EXPECT_TRUE(one_machine_state({std::nullopt, std::nullopt}, 2));
  // The CPUs: two ranks' own; one rank's and the host's next; none without a CPU of its own.
  EXPECT_EQ(state_probe_between(2, 3).cpu_b, 3);
  EXPECT_EQ(state_probe_between(-1, 3).cpu_a, -1);
  if (sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
    EXPECT_EQ(state_probe_between(0, -1).cpu_b, 1);
    EXPECT_EQ(state_probe_between(0, 0).cpu_b, 1);
  }
  const StateProbe probe = state_probe_for_this_process();
  if (probe.cpu_a < 0) GTEST_SKIP() << "this process may use one CPU only";
  EXPECT_NE(probe.cpu_a, probe.cpu_b);
  // Two CPUs that are really two: on one, every round trip would wait for a time slice and the
  // probe would give up. Tries for up to 10 s, 50 ms apart: beside the suite's other tests (ctest
  // -j 8 on 2 cores) three tries in a row gave up once (2026-12-03, results/ci/README.md); a probe
  // that can never measure still fails.
  std::optional<double> round_trip;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  int attempts = 0;
  while (!round_trip && std::chrono::steady_clock::now() < deadline) {
    if (attempts++ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    round_trip = probe.measure();
  }
  ASSERT_TRUE(round_trip.has_value()) << "no probe in " << attempts << " tries over 10 s";
  EXPECT_GT(*round_trip, 10);  // a cache line through another core's cache takes tens of ns at least
}

TEST(Sweep, GridAndCommandsWithoutAShell) {
  SweepOptions options;
  options.world_sizes = {1, 2};
  options.settings = {{"NCCL_ALGO", {"Ring", "Tree"}}};
  options.repeat = 2;
  options.out_dir = "/tmp/out";
  options.bench = {"all_reduce_perf", "-b", "8"};
  const auto points = expand_grid(options);
  ASSERT_EQ(points.size(), 8u);
  EXPECT_EQ(points[0].name, "np1.NCCL_ALGO-Ring.r1");
  EXPECT_EQ(points[7].name, "np2.NCCL_ALGO-Tree.r2");
  const auto argv = point_command(options, points[7], "/tmp/out/p.json");
  const std::vector<std::string> tail = {"-np", "2", "all_reduce_perf", "-b", "8", "-J", "/tmp/out/p.json", "--overwrite",
                                         "--tag", "np=2", "--tag", "repeat=2", "--tag", "NCCL_ALGO=Tree"};
  ASSERT_GE(argv.size(), tail.size());
  EXPECT_EQ(std::vector<std::string>(argv.end() - tail.size(), argv.end()), tail);
  EXPECT_EQ(argv[0], "mpirun");
  options.launcher = {"srun", "--mpi=pmix"};
  EXPECT_EQ(point_command(options, points[7], "p.json")[2], "-n");
}

}  // namespace
}  // namespace collbench::summarize
