#include "core/bus_factor.h"

namespace collbench {

double bus_factor_one(int /*ranks*/) { return 1.0; }
double bus_factor_all_but_one_share(int ranks) { return static_cast<double>(ranks - 1) / ranks; }
double bus_factor_twice_all_but_one_share(int ranks) { return 2.0 * (ranks - 1) / ranks; }

}  // namespace collbench
