#include "workloads/ddp/buckets.h"

namespace collbench::ddp {

std::uint64_t mib_to_bytes(double mib) { return static_cast<std::uint64_t>(mib * 1024.0 * 1024.0); }

BucketPlan assign_buckets(const std::vector<ParameterTensor>& tensors, std::uint64_t first_bucket_cap_bytes,
                          std::uint64_t bucket_cap_bytes, std::uint64_t gradient_element_bytes) {
  BucketPlan plan;
  plan.tensor_offset.assign(tensors.size(), 0);
  plan.bucket_of_tensor.assign(tensors.size(), -1);
  Bucket open;
  std::uint64_t open_bytes = 0;
  std::uint64_t cap = first_bucket_cap_bytes;
  auto close = [&] {
    open.cap_bytes = cap;
    plan.buckets.push_back(open);
    open = Bucket{};
    open_bytes = 0;
  };
  for (int index = static_cast<int>(tensors.size()) - 1; index >= 0; --index) {
    open.tensors.push_back(index);
    open.elements += tensors[static_cast<std::size_t>(index)].elements;
    open_bytes += tensors[static_cast<std::size_t>(index)].elements * gradient_element_bytes;
    if (open_bytes >= cap) {
      close();
      cap = bucket_cap_bytes;  // every bucket after the first
    }
  }
  if (!open.tensors.empty()) close();
  std::uint64_t offset = 0;
  for (std::size_t b = 0; b < plan.buckets.size(); ++b) {
    Bucket& bucket = plan.buckets[b];
    bucket.offset = offset;
    for (int index : bucket.tensors) {
      plan.tensor_offset[static_cast<std::size_t>(index)] = offset;
      plan.bucket_of_tensor[static_cast<std::size_t>(index)] = static_cast<int>(b);
      offset += tensors[static_cast<std::size_t>(index)].elements;
    }
  }
  return plan;
}

}  // namespace collbench::ddp
