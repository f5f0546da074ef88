// collbench model ddp on a fixture model (ring all_reduce, alpha 100 us, beta 10 GB/s) and a fixture
// ddp_step report (100 MiB of float32 gradients, forward 10 ms and backward 20 ms per micro-step,
// 32 samples per rank): every figure below follows by hand (make_fixtures.py).
#include <gtest/gtest.h>

#include <string>

#include "report/report_json.h"
#include "workloads/ddp/report/ddp_step_view.h"
#include "summarize/common/input_error.h"
#include "summarize/models/model_ddp.h"
#include "run_cli.h"
#include "test_data.h"

namespace collbench::summarize {
namespace {

// Ring all_reduce of `bytes` at 8 ranks: 14 alpha + 14/8 bytes / beta.
double ring8(double bytes) { return 14 * 100 + 1.75 * bytes / 1e4; }

DdpWhatIf what_if(const DdpWhatIfOptions& options) {
  const std::string path = data("model/ddp/report.json");
  return ddp_what_if(read_model_file(data("model/ddp/model.json")), report::read_report_file(path).context, report::read_ddp_rows(path),
                     "report.json", options);
}

const DdpSetting& find(const DdpWhatIf& result, double bucket_mb, const std::string& dtype, int accumulate) {
  for (const auto& setting : result.settings) {
    if (setting.bucket_mb == bucket_mb && setting.grad_dtype == dtype && setting.accumulate == accumulate) return setting;
  }
  throw std::runtime_error("no such setting");
}

TEST(ModelDdp, StepTimeExposedCommunicationAndSamplesAreTheClosedForm) {
  DdpWhatIfOptions options;
  options.link.world_size = 8;
  options.bucket_mb = {1, 25, 100};
  options.grad_dtypes = {"float32", "float16"};
  options.accumulate = {1, 4};
  const DdpWhatIf result = what_if(options);
  ASSERT_EQ(result.settings.size(), 12u);
  const double mib = 1048576;

  // 25 MiB, float32: 4 buckets ready at 5, 10, 15, 20 ms into the backward pass; each all-reduce
  // takes ring8(25 MiB) = 5987.52 us > 5 ms, so they queue: the last ends at 5000 + 4 * 5987.52.
  const DdpSetting& fp32 = find(result, 25, "float32", 1);
  EXPECT_EQ(fp32.buckets, 4);
  EXPECT_NEAR(fp32.allreduce_us, 4 * ring8(25 * mib), 1e-6);
  EXPECT_NEAR(fp32.exposed_comm_us, 5000 + 4 * ring8(25 * mib) - 20000, 1e-6);  // 8950.08
  EXPECT_NEAR(fp32.step_us, 30000 + 8950.08, 1e-6);
  EXPECT_NEAR(fp32.samples_per_s, 32 * 8 / (38950.08e-6), 1e-6);

  // float16 halves the bytes: 3693.76 us per bucket, shorter than the 5 ms between buckets, so only
  // the last bucket's all-reduce is exposed.
  const DdpSetting& fp16 = find(result, 25, "float16", 1);
  EXPECT_NEAR(fp16.exposed_comm_us, ring8(12.5 * mib), 1e-6);
  EXPECT_NEAR(fp16.step_us, 30000 + 3693.76, 1e-6);

  // One 100 MiB bucket: ready at the end of the backward pass, all of it exposed.
  const DdpSetting& one = find(result, 100, "float32", 1);
  EXPECT_EQ(one.buckets, 1);
  EXPECT_NEAR(one.exposed_comm_us, ring8(100 * mib), 1e-6);  // 19750.08

  // 1 MiB: 100 buckets 200 us apart, each 1583.5008 us: back to back from the first.
  const DdpSetting& small = find(result, 1, "float32", 1);
  EXPECT_EQ(small.buckets, 100);
  EXPECT_NEAR(small.exposed_comm_us, 200 + 100 * ring8(mib) - 20000, 1e-6);  // 138550.08

  // Accumulating 4 micro-steps: 3 more forward+backward passes, the same exposed communication,
  // four times the samples.
  const DdpSetting& accumulated = find(result, 25, "float16", 4);
  EXPECT_NEAR(accumulated.step_us, 4 * 30000 + 3693.76, 1e-6);
  EXPECT_NEAR(accumulated.samples_per_s, 32 * 8 * 4 / (123693.76e-6), 1e-6);
  EXPECT_EQ(&result.settings[result.best], &accumulated);
  // No interval in the fixture model: the ends equal the step.
  EXPECT_NEAR(accumulated.step_low_us, accumulated.step_us, 1e-9);
}

TEST(ModelDdp, ASlowLinkBetweenHostsAndTheMeasuredStep) {
  DdpWhatIfOptions options;
  options.link.world_size = 8;
  options.link.ranks_per_host = 4;
  options.link.inter_latency_us = 5000;
  options.link.inter_bandwidth_gbps = 1.25;
  options.bucket_mb = {25};
  options.grad_dtypes = {"float32"};
  options.accumulate = {1};
  const DdpSetting slow = what_if(options).settings.at(0);
  // The ring's 14 hops form one chain of which a quarter (one per host) cross the 5 ms link and
  // the rest take the model's 100 us; every step's bytes wait for the 10 Gbit/s link.
  const double bucket = 14 * (0.25 * 5000 + 0.75 * 100) + 1.75 * 26214400 / 1250.0;
  EXPECT_NEAR(slow.exposed_comm_us, 5000 + 4 * bucket - 20000, 1e-6);
  EXPECT_FALSE(slow.measured_step_us);

  // At the report's own world size and placement the measured step stands beside the prediction,
  // and the model's own fit at 2 ranks (200 us + bytes / 10 GB/s) costs the buckets.
  DdpWhatIfOptions here;
  here.link.world_size = 2;
  const DdpWhatIf measured = what_if(here);  // the report's settings: (25, float32, 1), (25, float16, 4)
  ASSERT_EQ(measured.settings.size(), 4u);
  const DdpSetting& same = find(measured, 25, "float32", 1);
  ASSERT_TRUE(same.measured_step_us);
  EXPECT_EQ(*same.measured_step_us, 31000);
  EXPECT_NEAR(same.allreduce_us, 4 * (200 + 26214400 / 1e4), 1e-6);
  EXPECT_FALSE(find(measured, 25, "float16", 1).measured_step_us);  // not a setting the report ran
}

TEST(ModelDdp, BadInputIsExitTwoWithOneLine) {
  const std::string model = data("model/ddp/model.json"), report = data("model/ddp/report.json");
  std::string err;
  EXPECT_EQ(run_cli({"model", "ddp", model, report, "--np", "8", "--bucket-mb", "1,25", "--grad-dtype", "float32,float16",
                     "--accumulate", "1,4"},
                    &err),
            0)
      << err;
  // A ddp report without its bucket schedule.
  EXPECT_EQ(run_cli({"model", "ddp", model, data("model/bad/ddp_without_buckets.json"), "--np", "8"}, &err), 2);
  EXPECT_NE(err.find("no bucket schedule"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  // A report of another kind where the ddp report goes.
  EXPECT_EQ(run_cli({"model", "ddp", model, data("model/two_hosts/ring-np2-one-host.json"), "--np", "8"}, &err), 2);
  EXPECT_NE(err.find("expected a ddp_step_perf report"), std::string::npos) << err;
  // A model without an all_reduce fit.
  EXPECT_EQ(run_cli({"model", "ddp", data("model/ddp/broadcast_model.json"), report, "--np", "8"}, &err), 2);
  EXPECT_NE(err.find("no all_reduce fit"), std::string::npos) << err;
  // No --np, one argument only, an unknown dtype, a bucket of 0 MiB, hosts that do not divide --np.
  EXPECT_EQ(run_cli({"model", "ddp", model, report}), 2);
  EXPECT_EQ(run_cli({"model", "ddp", model, "--np", "8"}), 2);
  EXPECT_EQ(run_cli({"model", "ddp", model, report, "--np", "8", "--grad-dtype", "int8"}), 2);
  EXPECT_EQ(run_cli({"model", "ddp", model, report, "--np", "8", "--bucket-mb", "0"}), 2);
  EXPECT_EQ(run_cli({"model", "ddp", model, report, "--np", "8", "--ranks-per-host", "3"}), 2);
}

}  // namespace
}  // namespace collbench::summarize
