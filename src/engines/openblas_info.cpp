#include "engines/openblas_info.h"

#include <cblas.h>

#include <cctype>

#include "core/printable.h"

namespace collbench::compute {

VectorLevel vector_level_of_core(const std::string& corename) {
  const std::string name = lowercase(corename);
  for (const char* core : {"skylakex", "cooperlake", "sapphirerapids"}) {
    if (name == core) return VectorLevel::kAvx512;
  }
  for (const char* core : {"haswell", "zen", "skylake", "broadwell"}) {
    if (name == core) return VectorLevel::kAvx2;
  }
  for (const char* core : {"sandybridge", "bulldozer", "piledriver", "steamroller", "excavator"}) {
    if (name == core) return VectorLevel::kAvx;
  }
  return VectorLevel::kSse;  // prescott, core2, nehalem, atom, barcelona, ... and anything unknown
}

std::string recommended_coretype(VectorLevel level) {
  switch (level) {
    case VectorLevel::kAvx512: return "SkylakeX";
    case VectorLevel::kAvx2: return "Haswell";
    case VectorLevel::kAvx: return "Sandybridge";
    default: return "Prescott";
  }
}

std::string core_warning(const std::string& corename, VectorLevel cpu_level) {
  const VectorLevel core_level = vector_level_of_core(corename);
  if (core_level >= cpu_level) return "";
  return "OpenBLAS chose the '" + corename + "' kernels (" + to_string(core_level) + ") but this CPU supports " +
         to_string(cpu_level) + "; GEMM may run several times slower than it can. Set OPENBLAS_CORETYPE=" +
         recommended_coretype(cpu_level) + " in the environment of every rank (mpirun -x OPENBLAS_CORETYPE=" +
         recommended_coretype(cpu_level) + ").";
}

OpenBlasInfo configure_openblas(int threads, VectorLevel cpu_level) {
  if (threads > 0) openblas_set_num_threads(threads);
  OpenBlasInfo info;
  const char* core = openblas_get_corename();
  const char* config = openblas_get_config();
  info.corename = core ? core : "unknown";
  info.config = config ? config : "unknown";
  // trailing spaces in the config string are an OpenBLAS habit
  while (!info.config.empty() && std::isspace(static_cast<unsigned char>(info.config.back()))) info.config.pop_back();
  info.threads = openblas_get_num_threads();
  info.warning = core_warning(info.corename, cpu_level);
  return info;
}

}  // namespace collbench::compute
