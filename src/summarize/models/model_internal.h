// What the files of collbench model share (model_forms.cpp, model_fit.cpp, model_json.cpp,
// model_predict.cpp): the few helpers more than one of them needs. Not for other callers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/bus_factor.h"
#include "summarize/models/model.h"

namespace collbench::summarize::model_detail {

// The piece of a world size's fit that holds `bytes` (the nearest at the ends), and its time there.
const HockneyPiece& piece_for(const WorldSizeFit& world, std::uint64_t bytes);
double fitted_time_us(const WorldSizeFit& world, std::uint64_t bytes);
double percentile(std::vector<double> values, double q);
double element_bytes_of(const std::string& dtype);  // 0 for a dtype collbench does not know

// The form an algorithm label names, or "" when the label does not say (default, unknown).
std::string form_named_by(const std::string& benchmark, const std::string& algorithm);
// Open MPI's ring all_reduce (ompi-tuned-4, -5): below one element per rank it runs recursive doubling.
bool runs_ompi_ring(const std::string& algorithm);
// The factors of core/bus_factor.h that give a row's factor at its world size: one, two where
// they coincide (at 2 ranks 2(p-1)/p is 1), or none (no collective's factor).
std::vector<const BusFactor*> bus_factors_matching(int ranks, double factor);
// Of several matching factors, the collective's own where it is one of them, else 1.
std::string_view bus_factor_of(const std::string& benchmark, const std::vector<const BusFactor*>& matching);
double bus_factor_at(const std::string& formula, int ranks);  // the formula of a model file at `ranks`

}  // namespace collbench::summarize::model_detail
