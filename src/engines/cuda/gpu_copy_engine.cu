// copy_perf's GPU copies: host<->device from pinned and pageable memory and device->device within
// each GPU by cudaMemcpyAsync, between every GPU pair by cudaMemcpyPeerAsync (the copy engines),
// and the device copies again by an SM copy kernel (nvbandwidth's CE-vs-SM comparison), each in
// one direction and both at once.
#include <cstring>
#include <optional>
#include <set>

#include "engines/engines.h"
#include "cuda/check.h"
#include "cuda/device.h"
#include "cuda/memory.h"

namespace collbench::compute {
namespace {

// 16-byte loads and stores, grid-stride; the few tail bytes one byte at a time.
__global__ void copy_kernel(uint4* destination, const uint4* source, std::size_t vectors, unsigned char* tail_destination,
                            const unsigned char* tail_source, std::size_t tail_bytes) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::size_t i = first; i < vectors; i += stride) destination[i] = source[i];
  if (first < tail_bytes) tail_destination[first] = tail_source[first];
}

// One GPU's part: a stream per direction, the events that join them, a source and a destination.
struct DeviceSide {
  int device = 0;
  int sm_blocks = 0;  // a few per SM, to keep every SM busy
  cuda::Stream streams[2];
  cuda::Event main_ready, other_done;  // ordering only, not timing
  cuda::DeviceBuffer source, destination;
};

// One direction of a path: by cudaMemcpyAsync of `kind`, by cudaMemcpyPeerAsync, or by the SMs of
// the source's GPU (across GPUs once peer access is enabled).
struct Leg {
  enum Way { kMemcpy, kPeer, kSm } way;
  void* destination;
  const void* source;
  cudaMemcpyKind kind = cudaMemcpyDefault;
  const DeviceSide* to = nullptr;
  const DeviceSide* from = nullptr;

  void issue(std::uint64_t bytes, cudaStream_t stream) const {
    if (way == kMemcpy) CB_CUDA_CHECK(cudaMemcpyAsync(destination, source, bytes, kind, stream));
    if (way == kPeer) CB_CUDA_CHECK(cudaMemcpyPeerAsync(destination, to->device, source, from->device, bytes, stream));
    if (way != kSm) return;
    constexpr int kThreads = 512;
    const std::size_t vectors = bytes / sizeof(uint4), copied = vectors * sizeof(uint4);
    copy_kernel<<<from->sm_blocks, kThreads, 0, stream>>>(static_cast<uint4*>(destination), static_cast<const uint4*>(source),
                                                          vectors, static_cast<unsigned char*>(destination) + copied,
                                                          static_cast<const unsigned char*>(source) + copied, bytes - copied);
    CB_CUDA_CHECK(cudaGetLastError());
  }
};

struct Route {
  DeviceSide* first;
  DeviceSide* second;
  Leg forward;
  std::optional<Leg> backward;  // on the second GPU's other stream, at once with forward
};

class GpuCopyEngine final : public CopyEngine {
 public:
  GpuCopyEngine(int devices, std::uint64_t largest);

  const std::vector<CopyPath>& paths() const override { return paths_; }
  TimingSchedule schedule() const override { return TimingSchedule::kBatch; }
  void issue(std::size_t path, std::uint64_t bytes) override;
  void wait(std::size_t path) override {
    CB_CUDA_CHECK(cudaSetDevice(routes_[path].first->device));
    CB_CUDA_CHECK(cudaStreamSynchronize(routes_[path].first->streams[0].get()));
  }
  std::vector<std::string> devices() const override {
    std::vector<std::string> lines;
    for (const DeviceSide& side : sides_) lines.push_back(cuda::device_info(side.device).describe());
    return lines;
  }
  std::vector<std::pair<std::string, std::string>> versions() const override {
    return {{"cuda_runtime", cuda::runtime_version()}, {"cuda_driver", cuda::driver_version()}};
  }

 private:
  void add(CopyPath path, DeviceSide& first, DeviceSide& second, const Leg& forward, std::optional<Leg> backward = {}) {
    if (backward) path.direction = "bi";
    paths_.push_back(std::move(path));
    routes_.push_back({&first, &second, forward, backward});
  }

  std::vector<DeviceSide> sides_;
  cuda::PinnedBuffer pinned_[2];
  std::vector<unsigned char> pageable_[2];
  std::vector<CopyPath> paths_;
  std::vector<Route> routes_;
};

GpuCopyEngine::GpuCopyEngine(int devices, std::uint64_t largest) : sides_(static_cast<std::size_t>(devices)) {
  for (int d = 0; d < devices; ++d) {
    DeviceSide& side = sides_[static_cast<std::size_t>(d)];
    side.device = d;
    CB_CUDA_CHECK(cudaSetDevice(d));
    side.sm_blocks = cuda::device_info(d).multiprocessors * 4;
    for (auto& stream : side.streams) stream = cuda::create_stream(cudaStreamNonBlocking);
    side.main_ready = cuda::create_event(cudaEventDisableTiming);
    side.other_done = cuda::create_event(cudaEventDisableTiming);
    side.source = cuda::DeviceBuffer(largest);
    side.destination = cuda::DeviceBuffer(largest);
    side.source.fill_bytes(0x5a, 0, largest);
    side.destination.fill_bytes(0, 0, largest);
  }
  for (int i = 0; i < 2; ++i) {
    pinned_[i] = cuda::allocate_pinned(largest);
    std::memset(pinned_[i].get(), i == 0 ? 0x5a : 0, largest);
    pageable_[i].assign(largest, i == 0 ? 0x5a : 0);
  }
  std::set<std::pair<int, int>> peer_access;
  for (int i = 0; i < devices; ++i) {
    for (int j = 0; j < devices; ++j) {
      int can = 0;
      if (i != j) CB_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, i, j));
      if (!can) continue;
      CB_CUDA_CHECK(cudaSetDevice(i));
      const cudaError_t status = cudaDeviceEnablePeerAccess(j, 0);
      if (status != cudaErrorPeerAccessAlreadyEnabled) CB_CUDA_CHECK(status);
      cudaGetLastError();
      peer_access.emplace(i, j);
    }
  }

  for (DeviceSide& side : sides_) {
    const int d = side.device;
    for (const bool pinned : {true, false}) {
      const char* memory = pinned ? "pinned" : "pageable";
      const Leg h2d{Leg::kMemcpy, side.destination.data(), pinned ? pinned_[0].get() : pageable_[0].data(), cudaMemcpyHostToDevice};
      const Leg d2h{Leg::kMemcpy, pinned ? pinned_[1].get() : pageable_[1].data(), side.source.data(), cudaMemcpyDeviceToHost};
      add({"h2d", memory, "ce", -1, d}, side, side, h2d);
      add({"d2h", memory, "ce", d, -1}, side, side, d2h);
      // From pageable memory the driver stages each copy through a pinned bounce buffer with the
      // calling host thread, so two directions at once are serialized on it: no bidirectional
      // row is offered there (it would measure the host thread, not the link).
      if (pinned) add({"h2d+d2h", memory, "ce", d, d}, side, side, h2d, d2h);
    }
    // Both d2d buffers stay on this GPU, so its L2 can hold a small copy's every byte.
    int l2_bytes = 0;
    CB_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, d));
    CopyPath d2d{"d2d", "device", "driver", d, d};
    d2d.cache_bytes = static_cast<std::uint64_t>(l2_bytes);
    add(d2d, side, side, {Leg::kMemcpy, side.destination.data(), side.source.data(), cudaMemcpyDeviceToDevice});
    d2d.engine = "sm";
    add(d2d, side, side, {Leg::kSm, side.destination.data(), side.source.data(), {}, &side, &side});
  }
  for (DeviceSide& from : sides_) {
    for (DeviceSide& to : sides_) {
      if (from.device == to.device) continue;
      CopyPath path{"p2p", "device", "ce", from.device, to.device};
      Leg there{Leg::kPeer, to.destination.data(), from.source.data(), {}, &to, &from};
      Leg back{Leg::kPeer, from.destination.data(), to.source.data(), {}, &from, &to};
      add(path, from, to, there);
      add(path, from, to, there, back);
      // SM copies write into the peer's memory, so they need peer access, both ways for bi.
      if (!peer_access.count({from.device, to.device})) continue;
      path.engine = "sm";
      there.way = back.way = Leg::kSm;
      add(path, from, to, there);
      if (peer_access.count({to.device, from.device})) add(path, from, to, there, back);
    }
  }
}

// One iteration: forward on the first GPU's stream, backward (bi only) on the second's, started
// together and joined back into the first GPU's stream, which wait() waits on; the loop times
// batches of them as nccl-tests does.
void GpuCopyEngine::issue(std::size_t path, std::uint64_t bytes) {
  const Route& route = routes_[path];
  cudaStream_t main = route.first->streams[0].get();
  cudaStream_t other = route.second->streams[1].get();
  CB_CUDA_CHECK(cudaSetDevice(route.first->device));
  if (route.backward) {
    CB_CUDA_CHECK(cudaEventRecord(route.first->main_ready.get(), main));
    CB_CUDA_CHECK(cudaStreamWaitEvent(other, route.first->main_ready.get(), 0));
  }
  route.forward.issue(bytes, main);
  if (route.backward) {
    CB_CUDA_CHECK(cudaSetDevice(route.second->device));
    route.backward->issue(bytes, other);
    CB_CUDA_CHECK(cudaEventRecord(route.second->other_done.get(), other));
    CB_CUDA_CHECK(cudaSetDevice(route.first->device));
    CB_CUDA_CHECK(cudaStreamWaitEvent(main, route.second->other_done.get(), 0));
  }
}

}  // namespace

std::unique_ptr<CopyEngine> make_gpu_copy_engine(std::uint64_t largest, std::string* why_not) {
  if (cuda::device_for_local_rank(0, why_not) < 0) return nullptr;
  return std::make_unique<GpuCopyEngine>(cuda::visible_device_count(nullptr), largest);
}

}  // namespace collbench::compute
