// Gradient buckets the way PyTorch DDP forms them (torch/csrc/distributed/c10d/reducer.cpp,
// compute_bucket_assignment_by_size, as applied by Reducer::rebuild_buckets after the first
// iteration): tensors are taken in the order their gradients become ready, the reverse of
// registration; each joins the open bucket; the bucket closes as soon as its bytes reach its cap.
// The first bucket's cap is first_bucket_bytes_cap (1 MiB, torch.distributed's
// _DEFAULT_FIRST_BUCKET_BYTES), every later one bucket_cap_mb (MiB). A tensor at least as large
// as the cap therefore closes the bucket it lands in: it has a bucket of its own when that bucket
// was empty, and shares it with the smaller tensors before it otherwise.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/ddp/model.h"

namespace collbench::ddp {

struct Bucket {
  std::vector<int> tensors;      // tensor indices (registration order numbers), in ready order
  std::uint64_t elements = 0;
  std::uint64_t offset = 0;      // first element in the flat gradient buffer (laid out bucket by bucket)
  std::uint64_t cap_bytes = 0;   // the cap it was filled against
};

struct BucketPlan {
  std::vector<Bucket> buckets;                 // in the order they become ready and are all-reduced
  std::vector<std::uint64_t> tensor_offset;    // per tensor (registration order): its place in the flat buffer
  std::vector<int> bucket_of_tensor;           // per tensor: its bucket
};

// `gradient_element_bytes`: the bytes of one gradient element as DDP counts them (4 for float32
// parameters; compression hooks do not change the assignment).
BucketPlan assign_buckets(const std::vector<ParameterTensor>& tensors, std::uint64_t first_bucket_cap_bytes,
                          std::uint64_t bucket_cap_bytes, std::uint64_t gradient_element_bytes = 4);

// MiB as DDP reads bucket_cap_mb: int(mb * 1024 * 1024).
std::uint64_t mib_to_bytes(double mib);

}  // namespace collbench::ddp
