#include "workloads/ddp/exposure.h"

#include <algorithm>

namespace collbench::ddp {

Exposure exposure_against_compute_alone(double step_us, double compute_us, const ComputeAlone& alone) {
  Exposure exposure;
  // A step a little shorter than its baseline is noise between two measurements, not negative cost.
  exposure.exposed_us = std::max(0.0, step_us - alone.compute_us);
  if (alone.compute_us > 0) exposure.compute_slowdown = compute_us / alone.compute_us;
  if (alone.comm_us > 0) exposure.hidden_fraction = std::clamp(1.0 - exposure.exposed_us / alone.comm_us, 0.0, 1.0);
  return exposure;
}

}  // namespace collbench::ddp
