// The collectives' inputs written on the GPU: the bytes core's fill_inputs() writes on the host,
// made where they are used. A host fill of a large message and its copy took most of a GPU sweep's
// time (a row of 8 GiB: seconds to fill, where the timed calls take milliseconds).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "core/values.h"

namespace collbench::cuda {

// Writes input_value(spec, rank, i) in spec.dtype for i in [0, count) (a rank's whole input) at
// device address `destination` (any alignment), on `stream`, and returns when it is written. Then it
// reads a few elements back (the first, middle and last ones) and compares them with the host's
// fill, so a defect here is an Error naming the element, never a check that blames the library.
void fill_inputs_on_device(void* destination, const ValueSpec& spec, int rank, std::size_t count, cudaStream_t stream);

}  // namespace collbench::cuda
