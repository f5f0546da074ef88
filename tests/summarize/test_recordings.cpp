// compare --recordings: a stored baseline of recordings made at different times (issue 65). The
// fixture runs are tests/data/summarize/runs (three runs, two rows, 1 % between runs); a recording
// is those runs put at a level of its own, as the machine's level moves between recordings.
#include "summarize_test_helpers.h"

namespace collbench::summarize {
namespace {

namespace fs = std::filesystem;

// `levels.size()` recordings of aa_base's three runs, recording k's at levels[k] x their figures,
// under baseline/recording-K/run-R/all_reduce.json as scripts/ci-perf.sh stores them.
std::vector<LoadedReport> recorded_baseline(const std::vector<double>& levels) {
  const auto runs = load_reports({data("runs/aa_base")});
  std::vector<LoadedReport> out;
  for (std::size_t k = 0; k < levels.size(); ++k) {
    for (std::size_t r = 0; r < runs.size(); ++r) {
      LoadedReport run = runs[r];
      run.path = "baseline/recording-" + std::to_string(k) + "/run-" + std::to_string(r + 1) + "/all_reduce.json";
      run.report.context.start_time = "2026-01-0" + std::to_string(k + 1) + "T0" + std::to_string(r) + ":00:00Z";
      for (auto& row : run.report.rows) {
        for (auto& sample : row.samples_us) sample *= levels[k];
      }
      out.push_back(std::move(run));
    }
  }
  return out;
}

// aa_new's three runs (the same code as aa_base), every figure times `factor`.
std::vector<LoadedReport> new_runs_at(double factor) {
  auto runs = load_reports({data("runs/aa_new")});
  for (auto& run : runs) {
    for (auto& row : run.report.rows) {
      for (auto& sample : row.samples_us) sample *= factor;
    }
  }
  return runs;
}

CompareOptions by_recording(double min_effect = 0.05) {
  CompareOptions options;
  options.by_recording = true;
  options.min_effect = min_effect;  // scripts/ci-perf.sh's against a stored baseline
  return options;
}

TEST(Recordings, ARunBelongsToTheNearestRecordingFolderAboveIt) {
  EXPECT_EQ(recording_of("baseline/recording-20261207T2140Z/run-1/all_reduce.json"), "recording-20261207T2140Z");
  EXPECT_EQ(recording_of("/abs/recording-a/deeper/recording-b/run-2/x.json"), "recording-b");
  EXPECT_EQ(recording_of("baseline/run-1/all_reduce.json"), "");  // a baseline from before recordings: one
  EXPECT_EQ(recording_of("x.json"), "");
  const auto recordings = recordings_of(recorded_baseline({1.0, 1.0}));
  ASSERT_EQ(recordings.size(), 2u);
  EXPECT_EQ(recordings[0].name, "recording-0");
  EXPECT_EQ(recordings[0].started, "2026-01-01T00:00:00Z");
  EXPECT_EQ(recordings[1].reports, 3u);
}

TEST(Recordings, ABaselineOfOneRecordingSaysSoAndCapsSlowerAtUnknown) {
  // 20 % slower against the three runs of one recording: today's rule says SLOWER (exit 1)...
  const auto base = load_reports({data("runs/aa_base")});
  EXPECT_EQ(compare_reports(base, new_runs_at(1.2), CompareOptions{}).count(Verdict::kSlower), 3u);
  // ...by recordings it is UNKNOWN, capped, with a note that says why and what would decide it.
  const auto result = compare_reports(base, new_runs_at(1.2), by_recording());
  EXPECT_FALSE(result.any_slower());
  for (const auto& line : result.lines) {
    EXPECT_EQ(line.verdict, Verdict::kUnknown) << describe_key(line.key);
    EXPECT_TRUE(line.slower_capped);
    EXPECT_EQ(line.base_recordings, 1u);
    EXPECT_FALSE(line.more_runs.has_value());  // more runs of this recording would not decide it
  }
  ASSERT_TRUE(result.recordings.has_value());
  EXPECT_EQ(result.recordings->recordings.size(), 1u);
  EXPECT_EQ(result.recordings->capped, 3u);
  const auto document = compare_document(result, by_recording());
  EXPECT_NE(document.notes.front().find("a baseline of runs from 2 more recording(s) would decide them"), std::string::npos)
      << document.notes.front();
  EXPECT_TRUE(has_note(document, "baseline: runs from 1 recording(s) (2026-01-01T01:00:00Z)"));
  EXPECT_TRUE(has_note(document, "SLOWER is capped at UNKNOWN until the baseline holds runs from 3 recordings"));
  EXPECT_EQ(document.extra.at("baseline_recordings").at("slower_capped"), 3);
  // SAME and FASTER fail no job: judged as before.
  const auto same = compare_reports(base, new_runs_at(1.0), by_recording());
  EXPECT_EQ(same.count(Verdict::kSame), same.lines.size());
  EXPECT_EQ(compare_reports(base, new_runs_at(0.8), by_recording()).count(Verdict::kFaster), 3u);
  // The command line: exit 0 with --recordings, 1 without (that path unchanged), 2 with --paired.
  EXPECT_EQ(run_cli({"compare", "--recordings", "--min-effect", "5%", data("runs/aa_base"), data("runs/slower20")}), 0);
  EXPECT_EQ(run_cli({"compare", "--min-effect", "5%", data("runs/aa_base"), data("runs/slower20")}), 1);
  std::string err;
  EXPECT_EQ(run_cli({"compare", "--recordings", "--paired", data("runs/aa_base"), data("runs/slower20")}, &err), 2);
  EXPECT_NE(err.find("--recordings judges a stored baseline unpaired"), std::string::npos) << err;
}

TEST(Recordings, ABaselineOfSeveralRecordingsIsJudgedByTheSpreadBetweenThem) {
  // Four recordings within 1 % of one another: 20 % slower is SLOWER, the same code SAME.
  const auto steady = recorded_baseline({1.00, 1.01, 0.99, 1.005});
  const auto slower = compare_reports(steady, new_runs_at(1.2), by_recording());
  for (const auto& line : slower.lines) {
    EXPECT_EQ(line.verdict, Verdict::kSlower) << describe_key(line.key);
    EXPECT_EQ(line.base_recordings, 4u);
    EXPECT_EQ(line.base_runs, 12u);
    EXPECT_NEAR(line.threshold, 0.05, 1e-12);  // the spread between recordings (~1 %) is below the minimum effect
  }
  const auto same = compare_reports(steady, new_runs_at(1.0), by_recording());
  EXPECT_EQ(same.count(Verdict::kSame), same.lines.size());
  const auto document = compare_document(slower, by_recording());
  EXPECT_TRUE(has_note(document, "baseline: runs from 4 recording(s) (2026-01-01T00:00:00Z .. 2026-01-04T00:00:00Z), each one unit"));
  EXPECT_TRUE(has_note(document, "BASE's recordings are its units"));
  EXPECT_EQ(document.extra.at("baseline_recordings").at("recordings").size(), 4u);

  // The issue's false alarm: +13.4 %. Judged against one recording's runs (a few seconds apart,
  // within 1 %), today's rule calls it SLOWER. Four recordings whose levels moved 8 % between
  // them (1.00, 1.12, 0.92, 1.06): the threshold is that spread, and +13.4 % is not SLOWER.
  const auto issue_case = new_runs_at(1.134);
  CompareOptions today;
  today.min_effect = 0.05;
  EXPECT_EQ(compare_reports(load_reports({data("runs/aa_base")}), issue_case, today).count(Verdict::kSlower), 3u);
  const auto moving = compare_reports(recorded_baseline({1.00, 1.12, 0.92, 1.06}), issue_case, by_recording());
  EXPECT_FALSE(moving.any_slower());
  for (const auto& line : moving.lines) {
    // The spread of the recordings' log levels: 0.0838, about 8.7 %.
    EXPECT_NEAR(line.threshold, 0.087, 0.01) << describe_key(line.key);
    EXPECT_EQ(line.verdict, Verdict::kUnknown);
    EXPECT_FALSE(line.slower_capped);  // four recordings: judged, not capped
  }
  // A change well beyond that spread is still found: +60 %.
  EXPECT_EQ(compare_reports(recorded_baseline({1.00, 1.12, 0.92, 1.06}), new_runs_at(1.6), by_recording()).count(Verdict::kSlower), 3u);
}

// Files on disk, for the command line: BASELINE/recording-K/{fingerprint.txt, run-R/all_reduce.json}.
class StoredBaseline : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("collbench-recordings-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }
  // A recording of aa_base's runs, with the machine of `fingerprint` (a fixture's fingerprint.txt).
  void add_recording(const std::string& name, const std::string& fingerprint) {
    const fs::path recording = folder_ / "baseline" / ("recording-" + name);
    for (int run = 1; run <= 3; ++run) {
      fs::create_directories(recording / ("run-" + std::to_string(run)));
      fs::copy_file(data("runs/aa_base/run-" + std::to_string(run) + ".json"), recording / ("run-" + std::to_string(run)) / "all_reduce.json");
    }
    fs::copy_file(data(fingerprint), recording / "fingerprint.txt");
  }
  std::string baseline() const { return (folder_ / "baseline").string(); }
  // slower20's runs (20 % slower) with this machine's fingerprint, as scripts/ci-perf.sh writes NEW.
  std::string slower_here() const {
    const fs::path folder = folder_ / "new";
    fs::create_directories(folder);
    for (int run = 1; run <= 3; ++run) {
      fs::copy_file(data("runs/slower20/run-" + std::to_string(run) + ".json"), folder / ("run-" + std::to_string(run) + ".json"),
                    fs::copy_options::overwrite_existing);
    }
    fs::copy_file(data("runs/aa_new/fingerprint.txt"), folder / "fingerprint.txt", fs::copy_options::overwrite_existing);
    return folder.string();
  }
  fs::path folder_;
};

TEST_F(StoredBaseline, ARecordingFromAnotherMachineMakesItForeign) {
  add_recording("a", "runs/aa_base/fingerprint.txt");
  add_recording("b", "runs/aa_base/fingerprint.txt");
  add_recording("c", "runs/aa_base/fingerprint.txt");
  // Three recordings of this machine (aa_new's fingerprint is the same CPU): 20 % slower fails.
  std::string out;
  EXPECT_EQ(run_cli({"compare", "--recordings", "--min-effect", "5%", baseline(), data("runs/aa_new")}, nullptr, &out), 0) << out;
  EXPECT_EQ(run_cli({"compare", "--recordings", baseline(), slower_here()}, nullptr, &out), 1) << out;
  EXPECT_NE(out.find("baseline: runs from 3 recording(s)"), std::string::npos) << out;
  // One recording made on another CPU: the baseline is another machine's, every verdict UNKNOWN, exit 0, one line.
  add_recording("d", "runs/other_machine/fingerprint.txt");
  EXPECT_EQ(run_cli({"compare", "--recordings", baseline(), data("runs/aa_new")}, nullptr, &out), 0);
  EXPECT_NE(out.find("verdict: UNKNOWN -- BASE and NEW ran on different machines (cores: '2 | 64' vs '2')"), std::string::npos) << out;
  EXPECT_EQ(run_cli({"compare", "--recordings", baseline(), slower_here()}, nullptr, &out), 0) << out;  // 20 % slower: not judged
}

}  // namespace
}  // namespace collbench::summarize
