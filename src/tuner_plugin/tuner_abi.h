// NCCL's tuner plugin interface, as NVIDIA/nccl documents it (src/include/plugin/tuner/tuner_v4.h,
// tuner_v5.h, tuner_v6.h and plugins/tuner/README.md), declared here in our words: NCCL installs no
// header for it. A plugin exports a struct of function pointers under a versioned symbol name
// (ncclTunerPlugin_v4, _v5, _v6); NCCL dlopens NCCL_TUNER_PLUGIN and takes the newest symbol it
// knows. The layouts below must match NCCL's field for field: only the order and types matter.
#pragma once

#include <cstddef>
#include <cstdint>

#include <nccl.h>  // ncclResult_t

namespace collbench::tuner_abi {

// ncclDebugLogger_t: NCCL's logger, handed to init (level, subsystem flags, file, line, printf format).
using DebugLogger = void (*)(int level, unsigned long flags, const char* file, int line, const char* format, ...);
constexpr int kLogWarn = 2;
constexpr int kLogInfo = 3;
constexpr unsigned long kLogTuning = 0x40;

// ncclFunc_t (an int-sized enum): broadcast 0, reduce 1, allgather 2, reducescatter 3, allreduce 4, ...
using CollectiveType = int;

// Passed to init by pointer only; a plugin that changes no constant never looks inside.
struct NvlDomainInfo;
struct TunerConstants;

// The cost table: NCCL's float[numAlgo][numProto] behind a float**; entries of -1 are algorithm and
// protocol pairs NCCL will not run here. NCCL takes the cheapest entry, so a plugin chooses one by
// setting it to 0. nChannels: 0 as NCCL hands it over, meaning "NCCL's own"; a positive value is the
// channel count NCCL then uses.
using GetCollInfo = ncclResult_t (*)(void* context, CollectiveType collective, std::size_t bytes, int pipelined_operations,
                                     float** cost_table, int algorithms, int protocols, int registered_buffers, int* channels);
using Finalize = ncclResult_t (*)(void* context);

// v4 (NCCL 2.24-2.27): init(nRanks, nNodes, logger, context out).
struct TunerV4 {
  const char* name;
  ncclResult_t (*init)(std::size_t ranks, std::size_t nodes, DebugLogger logger, void** context);
  GetCollInfo get_coll_info;
  Finalize finalize;
};

// v5 (NCCL 2.28-2.29): init(context out, commId, nRanks, nNodes, logger, NVLink domains, constants in/out).
using InitV5 = ncclResult_t (*)(void** context, std::uint64_t communicator_id, std::size_t ranks, std::size_t nodes, DebugLogger logger,
                                NvlDomainInfo* domains, TunerConstants* constants);
struct TunerV5 {
  const char* name;
  InitV5 init;
  GetCollInfo get_coll_info;
  Finalize finalize;
};

// v6 (NCCL 2.30): v5 and an optional getChunkSize (nullptr: NCCL's own chunk size).
struct TunerV6 {
  const char* name;
  InitV5 init;
  GetCollInfo get_coll_info;
  Finalize finalize;
  ncclResult_t (*get_chunk_size)(void* context, CollectiveType collective, std::size_t bytes, int algorithm, int protocol, int channels,
                                 std::size_t* chunk_size);
};

}  // namespace collbench::tuner_abi
