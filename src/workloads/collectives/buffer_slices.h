// Moving the buffers between calls, as nccl-tests does: each call of a timed loop works on the next
// slice of the send and receive buffers (nccl-tests' startColl shifts both by the row's bytes each
// iteration), so no call finds the previous call's data in the GPU's cache. Pure (unit-tested).
#pragma once

#include <algorithm>
#include <cstddef>

namespace collbench {

struct BufferSlices {
  std::size_t count = 1;   // slices the calls cycle through; 1: every call at the first
  std::size_t stride = 0;  // bytes from one slice's start to the next's, the same in both buffers
};

// `footprint`: the bytes one call touches in the larger of its buffers; `room`: the bytes each
// buffer has from the call's start (the smaller of the two); `calls`: the calls a row makes
// (warm-up and timed). Slices start 256-byte aligned, as the first does (cudaMalloc's alignment),
// and there are no more of them than calls, since each must be filled with the row's inputs.
inline BufferSlices buffer_slices(std::size_t footprint, std::size_t room, std::size_t calls) {
  constexpr std::size_t kAlignment = 256;
  BufferSlices slices;
  slices.stride = (std::max<std::size_t>(footprint, 1) + kAlignment - 1) / kAlignment * kAlignment;
  if (room < slices.stride) return slices;
  // The last slice needs only the footprint, not a whole stride.
  slices.count = std::min<std::size_t>((room - footprint) / slices.stride + 1, std::max<std::size_t>(calls, 1));
  return slices;
}

}  // namespace collbench
