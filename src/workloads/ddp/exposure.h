// What a DDP step paid for its communication, measured against the same step's compute with no
// communication at all (issue 46). The step's own forward + backward is not that baseline: while
// the communication threads share the cores, the compute itself slows down, and that cost is paid
// through the compute, inside the step. The baseline is the overlap-off step's forward + backward
// at the same batch, bucket cap, gradient dtype and accumulation, where nothing communicates beside
// the compute (its all-reduces run after the backward pass), less DDP's gradient copies into the
// buckets and back: a step with no communication (torch's no_sync) makes neither, so they are part
// of what communication costs, not of the model's compute (schema 2.5; 2.4 counted them as compute).
#pragma once

#include <optional>

namespace collbench::ddp {

// One rank's figures of the step with no communication beside its compute, means over steps.
struct ComputeAlone {
  double compute_us = 0;  // forward + backward compute, the gradient copies left out
  double comm_us = 0;     // its all-reduces, one after another after the backward pass, and its gradient copies
};

struct Exposure {
  double exposed_us = 0;                   // step - compute alone, never below 0
  std::optional<double> compute_slowdown;  // the step's forward + backward, copies left out, / compute alone (none without compute)
  std::optional<double> hidden_fraction;   // 1 - exposed / communication alone, within [0, 1] (none without communication)
};

// `step_us` and `compute_us` (forward + backward, the gradient copies left out) of the step
// measured, `alone` its baseline.
Exposure exposure_against_compute_alone(double step_us, double compute_us, const ComputeAlone& alone);

}  // namespace collbench::ddp
