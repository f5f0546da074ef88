// --compute-profile: a model's measured per-layer times, which replace the synthetic compute (the
// GEMMs and the elementwise time) with the times themselves, spent spinning on the core as the
// real layer would keep it busy. So a user can put their own model's profile under DDP's
// bucketing and communication.
#pragma once

#include <string>
#include <vector>

#include "workloads/ddp/model.h"

namespace collbench::ddp {

struct ComputeProfile {
  std::string path;
  std::vector<double> forward_us;   // per model layer; 0 where the profile has no line for it
  std::vector<double> backward_us;
  int layers_timed = 0;             // layers with a line
};

// CSV: "layer,forward_us,backward_us", one line per layer of `model` (by its name; any order); a
// header line starting "layer,", '#' comments. Times are microseconds per step at the batch the
// profile was taken at, finite, 0 to 1e9. Throws UsageError with one line naming the file and line
// (an unknown layer, a repeated one, a bad number, no line at all); text from the file is made
// printable.
ComputeProfile parse_compute_profile_csv(const std::string& text, const std::string& what, const Model& model);
ComputeProfile load_compute_profile(const std::string& path, const Model& model);

}  // namespace collbench::ddp
