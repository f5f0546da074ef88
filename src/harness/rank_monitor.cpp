#include "harness/rank_monitor.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <sstream>

#include "core/error.h"
#include "core/printable.h"
#include "core/sockets.h"

namespace collbench {
namespace {

enum MessageKind : std::uint32_t { kHello = 1, kHeartbeat = 2, kTimedOut = 3, kStop = 4, kGoodbye = 5, kLeaving = 6 };

// Fixed-size frames: kind, rank, progress, token. Same-architecture peers (one MPI job), so the
// host byte order is fine.
constexpr std::size_t kFrameBytes = 24;
// Heartbeats to a stopped peer pile up in its socket; beyond this we stop queueing them.
constexpr std::size_t kOutboxLimit = 64 * 1024;

struct Frame {
  std::uint32_t kind = 0;
  std::int32_t rank = 0;
  std::uint64_t progress = 0;
  std::uint64_t token = 0;
};
static_assert(sizeof(Frame) == kFrameBytes, "a frame's bytes are its four fields in order, unpadded");

std::string encode(const Frame& frame) { return std::string(reinterpret_cast<const char*>(&frame), kFrameBytes); }

Frame decode(const char* bytes) {
  Frame frame;
  std::memcpy(&frame, bytes, kFrameBytes);
  return frame;
}

void close_quietly(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

double seconds_between(RankMonitor::Clock::time_point from, RankMonitor::Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

int milliseconds_left(RankMonitor::Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - RankMonitor::Clock::now());
  return static_cast<int>(std::max<long long>(0, left.count()));
}

// Reads exactly one frame, waiting at most until `deadline`.
bool read_frame(int fd, Frame* frame, RankMonitor::Clock::time_point deadline) {
  char bytes[kFrameBytes];
  if (receive_all(fd, bytes, kFrameBytes, deadline) != Received::kAll) return false;
  *frame = decode(bytes);
  return true;
}

bool write_frame(int fd, const Frame& frame) {
  const std::string bytes = encode(frame);
  return send_all(fd, bytes.data(), bytes.size());
}

// Rank 0's IPv4 addresses, loopback first: ranks on the same host (the usual case, and every test)
// then never leave loopback; ranks elsewhere (or in another network namespace) try the others.
std::vector<std::string> local_addresses() {
  std::vector<std::string> addresses{"127.0.0.1"};
  try {
    for (const InterfaceAddress& entry : interface_addresses()) {
      if (entry.family == AF_INET && entry.up && !entry.loopback) addresses.push_back(entry.address);
    }
  } catch (const Error&) {
    // No interface list: loopback still serves the ranks on this host.
  }
  return addresses;
}

// Connects to ip:port within `timeout`; -1 when it cannot.
int connect_to(const std::string& ip, int port, std::chrono::milliseconds timeout) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::inet_pton(AF_INET, ip.c_str(), &address.sin_addr) != 1) return -1;
  int error = 0;
  return connect_within(reinterpret_cast<const sockaddr*>(&address), sizeof(address), timeout, &error);
}

}  // namespace

struct RankMonitor::Peer {
  int fd = -1;
  std::uint64_t progress = 0;
  Clock::time_point last_heard = Clock::now();
  // The connection ended, as seen from the read side: everything the peer sent before it closed
  // has been read. A failed send alone does not say so: a peer that said goodbye and closed makes
  // the next send fail (a reset) while its goodbye still waits unread, and taking that for a
  // death was issue 19's spurious exit 4 at the end of clean runs.
  bool closed = false;
  bool send_failed = false;  // stop writing; the read side decides whether the peer is gone
  bool said_goodbye = false;  // ... and the peer had finished normally
  bool left_on_timeout = false;  // ... because its own watchdog fired: alive, not a straggler
  std::string inbox;
  std::string outbox;
};

RankMonitor::RankMonitor(int rank, int size, double silence_seconds)
    : rank_(rank), silence_seconds_(silence_seconds) {
  peers_.resize(rank == 0 ? static_cast<std::size_t>(size) : 1);
}

RankMonitor::~RankMonitor() {
  say_goodbye();
  // Unread heartbeats would make close() reset the connection rather than end it; read them first.
  for (Peer& peer : peers_) receive_from(peer);
  for (Peer& peer : peers_) close_quietly(peer.fd);
}

std::unique_ptr<RankMonitor> RankMonitor::connect(World& world, double silence_seconds, std::string* problem) {
  std::unique_ptr<RankMonitor> monitor(new RankMonitor(world.rank(), world.size(), silence_seconds));
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  std::string invitation;  // "token port address..." from rank 0; empty when rank 0 cannot listen
  int listener = -1;
  if (monitor->is_root()) {
    // A launch that gave rank 0 an address (MASTER_ADDR) is listened on there only; under MPI,
    // on every address, offered to the others loopback first.
    const std::string given = world.listen_address();
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    const bool usable = given.empty() || ::inet_pton(AF_INET, given.c_str(), &address.sin_addr) == 1;
    int port = -1;
    if (!usable) {
      if (problem) *problem = "heartbeats need an IPv4 address, and this launch gave " + given;
    } else if ((listener = listen_on(reinterpret_cast<sockaddr*>(&address), sizeof(address), std::min(world.size(), 4096))) >= 0 &&
               (port = bound_port(listener)) >= 0) {
      std::random_device entropy;
      monitor->token_ = (static_cast<std::uint64_t>(entropy()) << 32) ^ entropy();
      invitation = std::to_string(monitor->token_) + ' ' + std::to_string(port);
      for (const auto& ip : given.empty() ? local_addresses() : std::vector<std::string>{given}) invitation += ' ' + ip;
    } else if (problem) {
      *problem = std::string("cannot listen for heartbeats: ") + std::strerror(errno);
    }
  }
  invitation = world.broadcast_string(invitation);
  bool joined = !invitation.empty();
  if (joined && monitor->is_root()) {
    // Accept every other rank; a connection that does not show the job's token is someone else's.
    int waiting = world.size() - 1;
    while (waiting > 0) {
      pollfd wait{listener, POLLIN, 0};
      if (::poll(&wait, 1, milliseconds_left(deadline)) <= 0) break;
      int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      Frame hello;
      const bool valid = read_frame(fd, &hello, std::min(deadline, Clock::now() + std::chrono::seconds(2))) &&
                         hello.kind == kHello && hello.token == monitor->token_ && hello.rank > 0 &&
                         hello.rank < world.size() && monitor->peers_[static_cast<std::size_t>(hello.rank)].fd < 0;
      if (!valid || !write_frame(fd, {kHello, 0, 0, monitor->token_})) {
        close_quietly(fd);
        continue;
      }
      monitor->peers_[static_cast<std::size_t>(hello.rank)].fd = fd;
      --waiting;
    }
    joined = waiting == 0;
    if (!joined && problem) *problem = std::to_string(waiting) + " rank(s) did not connect for heartbeats";
  } else if (joined) {
    std::istringstream text(invitation);
    int port = 0;
    text >> monitor->token_ >> port;
    joined = false;
    for (std::string ip; !joined && text >> ip;) {
      int fd = connect_to(ip, port, std::chrono::seconds(1));
      if (fd < 0) continue;
      Frame answer;
      if (write_frame(fd, {kHello, world.rank(), 0, monitor->token_}) && read_frame(fd, &answer, deadline) &&
          answer.kind == kHello && answer.token == monitor->token_) {
        monitor->peers_[0].fd = fd;
        joined = true;
      } else {
        close_quietly(fd);
      }
    }
  }
  close_quietly(listener);
  // All or nothing, so every rank knows which kind of watchdog it runs.
  if (world.sum(joined ? 0 : 1) != 0) {
    if (problem && problem->empty()) *problem = "a rank could not reach rank 0 for heartbeats";
    return nullptr;
  }
  for (Peer& peer : monitor->peers_) {
    if (peer.fd >= 0) {
      set_blocking(peer.fd, false);
      set_no_delay(peer.fd);
    }
    peer.last_heard = Clock::now();
  }
  return monitor;
}

void RankMonitor::send_to(Peer& peer, std::uint32_t kind, std::uint64_t progress) {
  if (peer.fd < 0 || peer.closed || peer.send_failed) return;
  if (kind != kHeartbeat || peer.outbox.size() < kOutboxLimit) {
    peer.outbox += encode({kind, rank_, progress, token_});
  }
  while (!peer.outbox.empty()) {
    const ssize_t sent = ::send(peer.fd, peer.outbox.data(), peer.outbox.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent <= 0) {
      if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;  // later
      peer.send_failed = true;
      receive_from(peer);  // what it said before closing, then (a reset or the end) whether it is gone
      return;
    }
    peer.outbox.erase(0, static_cast<std::size_t>(sent));
  }
}

void RankMonitor::receive_from(Peer& peer) {
  if (peer.fd < 0 || peer.closed) return;
  char bytes[4096];
  for (;;) {
    const ssize_t got = ::recv(peer.fd, bytes, sizeof(bytes), MSG_DONTWAIT);
    if (got == 0) {
      peer.closed = true;
      break;
    }
    if (got < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) peer.closed = true;
      break;
    }
    peer.inbox.append(bytes, static_cast<std::size_t>(got));
  }
  std::size_t used = 0;
  for (; used + kFrameBytes <= peer.inbox.size(); used += kFrameBytes) {
    const Frame frame = decode(peer.inbox.data() + used);
    if (frame.token != token_) continue;
    peer.last_heard = Clock::now();
    switch (frame.kind) {
      case kHeartbeat: peer.progress = std::max(peer.progress, frame.progress); break;
      case kTimedOut:
        peer.progress = std::max(peer.progress, frame.progress);
        timeout_reported_ = true;
        break;
      case kStop: stop_received_ = true; break;
      case kGoodbye: peer.said_goodbye = true; break;
      case kLeaving:
        peer.left_on_timeout = true;
        timeout_reported_ = true;
        break;
      default: break;
    }
  }
  peer.inbox.erase(0, used);
}

void RankMonitor::exchange(std::uint64_t my_progress) {
  for (std::size_t r = 0; r < peers_.size(); ++r) {
    if (is_root() && r == 0) continue;
    send_to(peers_[r], kHeartbeat, my_progress);
    receive_from(peers_[r]);
  }
}

std::vector<int> RankMonitor::dead_ranks() const {
  std::vector<int> dead;
  for (std::size_t r = 0; r < peers_.size(); ++r) {
    const Peer& peer = peers_[r];
    if (peer.fd >= 0 && peer.closed && !peer.said_goodbye && !peer.left_on_timeout) dead.push_back(is_root() ? static_cast<int>(r) : 0);
  }
  return dead;
}

bool RankMonitor::root_responsive() const {
  const Peer& root = peers_[0];
  return !root.closed && seconds_between(root.last_heard, Clock::now()) < silence_seconds_;
}

std::vector<RankMonitor::Straggler> RankMonitor::stragglers(std::uint64_t my_progress, bool include_behind) const {
  const auto now = Clock::now();
  std::uint64_t furthest = my_progress;
  for (std::size_t r = 1; r < peers_.size(); ++r) furthest = std::max(furthest, peers_[r].progress);
  std::vector<Straggler> late;
  if (include_behind && my_progress < furthest) {
    late.push_back({0, "behind: progress " + std::to_string(my_progress) + " of " + std::to_string(furthest)});
  }
  for (std::size_t r = 1; r < peers_.size(); ++r) {
    const Peer& peer = peers_[r];
    const int rank = static_cast<int>(r);
    const double silent = seconds_between(peer.last_heard, now);
    if (peer.said_goodbye || peer.left_on_timeout) continue;  // finished, or a survivor that gave up
    if (peer.closed) {
      late.push_back({rank, formatted("died (its heartbeat connection closed %.2f s ago)", silent)});
    } else if (silent >= silence_seconds_) {
      late.push_back({rank, formatted("no heartbeat for %.2f s (stopped or frozen)", silent)});
    } else if (include_behind && peer.progress < furthest) {
      late.push_back({rank, "behind: progress " + std::to_string(peer.progress) + " of " + std::to_string(furthest)});
    }
  }
  return late;
}

std::vector<RankMonitor::Straggler> RankMonitor::root_as_straggler() const {
  const Peer& root = peers_[0];
  const double silent = seconds_between(root.last_heard, Clock::now());
  if (root.closed && !root.said_goodbye) return {{0, "died (its heartbeat connection closed)"}};
  if (silent >= silence_seconds_) return {{0, formatted("no heartbeat for %.2f s (stopped or frozen)", silent)}};
  return {};
}

void RankMonitor::report_timeout(std::uint64_t my_progress) {
  if (!is_root()) send_to(peers_[0], kTimedOut, my_progress);
}

void RankMonitor::stop_everyone(std::chrono::milliseconds grace) {
  if (!is_root()) return;
  for (std::size_t r = 1; r < peers_.size(); ++r) send_to(peers_[r], kStop, 0);
  // Wait for the responsive ranks to leave, so that they, not the launcher, choose their exit code.
  const auto deadline = Clock::now() + grace;
  while (Clock::now() < deadline) {
    bool all_gone = true;
    for (std::size_t r = 1; r < peers_.size(); ++r) {
      Peer& peer = peers_[r];
      receive_from(peer);
      if (!peer.outbox.empty()) send_to(peer, kHeartbeat, 0);  // flush a queued stop
      const bool silent = seconds_between(peer.last_heard, Clock::now()) >= silence_seconds_;
      if (!peer.closed && !silent) all_gone = false;
    }
    if (all_gone) return;
    ::usleep(20 * 1000);
  }
}

void RankMonitor::announce_leaving() {
  if (!is_root()) send_to(peers_[0], kLeaving, 0);
  goodbye_sent_ = true;
}

void RankMonitor::say_goodbye() {
  if (goodbye_sent_) return;
  goodbye_sent_ = true;
  for (std::size_t r = 0; r < peers_.size(); ++r) {
    if (is_root() && r == 0) continue;
    send_to(peers_[r], kGoodbye, 0);
  }
}

}  // namespace collbench
