// nccl-tests' bus bandwidth factors (busbw = algbw * factor; its doc/PERFORMANCE.md), each with
// its formula as text. A collective's descriptor names one (workloads/collectives/collective.h),
// and collbench model reads a row's factor back into the formula it writes in its model file: one
// table for both, so the texts and the arithmetic cannot drift apart.
#pragma once

#include <string_view>

namespace collbench {

struct BusFactor {
  std::string_view formula;  // "2(p-1)/p", with p the ranks
  double (*at)(int ranks);
};

double bus_factor_one(int ranks);
double bus_factor_all_but_one_share(int ranks);        // (p-1)/p
double bus_factor_twice_all_but_one_share(int ranks);  // 2(p-1)/p: reduce-scatter + all-gather

inline constexpr BusFactor kBusFactorOne{"1", bus_factor_one};
inline constexpr BusFactor kBusFactorAllButOneShare{"(p-1)/p", bus_factor_all_but_one_share};
inline constexpr BusFactor kBusFactorTwiceAllButOneShare{"2(p-1)/p", bus_factor_twice_all_but_one_share};
inline constexpr const BusFactor* kBusFactors[] = {&kBusFactorTwiceAllButOneShare, &kBusFactorAllButOneShare, &kBusFactorOne};

}  // namespace collbench
