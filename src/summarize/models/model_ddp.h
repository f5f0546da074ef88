// collbench model ddp: what a data-parallel training step would cost at another world size, link,
// bucket size, gradient dtype or accumulation, from a fitted all_reduce model (model.h) and a
// ddp_step_perf report's measured compute and gradient size.
//
// What is modelled, as PyTorch DDP runs a step with overlap: the forward and backward passes of
// every micro-step take the measured compute time per micro-step (strong scaling: scaled with the
// per-rank batch); the first accumulate-1 micro-steps run under no_sync (no communication); in the
// last, gradients become ready through the backward pass, buckets close as their bytes reach the
// cap (the first bucket against its own cap), and each bucket's all-reduce starts when it is ready
// and the previous one has finished (one communication stream, in bucket order). The step ends at
// the later of the backward pass's end and the last all-reduce's end; exposed communication is what
// runs past the backward pass.
//
// What is not: the report records the model's gradient bytes, not its tensors or each layer's
// backward time, so gradients are taken to become ready at an even rate through the backward pass
// (a bucket is ready when its share of the bytes is); a tensor larger than the cap does not end a
// bucket early. Converting gradients to 16 bits, the optimizer step, and communication slowing the
// compute it overlaps (cores shared on a CPU) are left out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/report.h"
#include "workloads/ddp/report/ddp_step_view.h"
#include "summarize/common/document.h"
#include "summarize/models/model.h"

namespace collbench::summarize {

struct DdpWhatIfOptions {
  PredictOptions link;                   // world size, ranks per host, the link between hosts (sizes unused)
  std::vector<double> bucket_mb;         // empty: the report's
  std::vector<std::string> grad_dtypes;  // empty: the report's
  std::vector<int> accumulate;           // empty: the report's
};

struct DdpSetting {
  double bucket_mb = 0;
  std::string grad_dtype;
  int accumulate = 1;
  int buckets = 0;
  double allreduce_us = 0;  // every bucket's all-reduce, one after another
  double exposed_comm_us = 0;
  double step_us = 0, step_low_us = 0, step_high_us = 0;  // low, high: every all-reduce at its interval's ends
  double samples_per_s = 0;
  std::optional<double> measured_step_us;  // the report's row of this setting, at its own world size
};

struct DdpWhatIf {
  std::vector<DdpSetting> settings;
  std::size_t best = 0;  // the most samples per second
  std::vector<std::string> notes;
};

// Throws InputError: a report without ddp_step rows or without a bucket schedule, a model without
// an all_reduce fit that can predict at the world size, an unknown gradient dtype, bad settings.
// `rows` are the report's typed rows (report::read_ddp_rows); `context` is its context.
DdpWhatIf ddp_what_if(const Model& model, const report::Context& context, const std::vector<report::DdpStepRow>& rows,
                      const std::string& report_path, const DdpWhatIfOptions& options);

Document ddp_document(const DdpWhatIf& what_if, const DdpWhatIfOptions& options);

}  // namespace collbench::summarize
