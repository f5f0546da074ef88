// tun_forwarder: joins two TUN devices that live in two network namespaces and carries IP packets
// between them with a fixed one-way delay and Bernoulli loss. It stands in for netem, which the
// kernels we test on lack (CONFIG_NET_SCH_NETEM is not set); rate limits stay in the kernel (tbf).
//
// usage: tun_forwarder --netns-a PATH --dev-a NAME --netns-b PATH --dev-b NAME
//                      [--delay-ms 5] [--loss 0.001] [--seed 1] [--queue-bytes 67108864]
//
// The TUN devices must already exist (ip tuntap add ... mode tun) in their namespaces; this attaches
// to them. Run it at real-time priority (chrt -f): busy-polling MPI ranks otherwise starve it and
// the "delay" becomes whatever the scheduler gives. Stops on SIGINT/SIGTERM and prints its counts.
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string netns_a, dev_a, netns_b, dev_b;
  double delay_ms = 5.0;
  double loss = 0.001;
  std::uint64_t seed = 1;
  std::size_t queue_bytes = 64u << 20;  // per direction; beyond it packets drop as at a full router
};

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "tun_forwarder: %s%s%s\n", what.c_str(), errno ? ": " : "", errno ? std::strerror(errno) : "");
  std::exit(1);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) { errno = 0; fail("missing value for " + flag); }
    const std::string value = argv[++i];
    try {
      if (flag == "--netns-a") o.netns_a = value;
      else if (flag == "--dev-a") o.dev_a = value;
      else if (flag == "--netns-b") o.netns_b = value;
      else if (flag == "--dev-b") o.dev_b = value;
      else if (flag == "--delay-ms") o.delay_ms = std::stod(value);
      else if (flag == "--loss") o.loss = std::stod(value);
      else if (flag == "--seed") o.seed = std::stoull(value);
      else if (flag == "--queue-bytes") o.queue_bytes = std::stoull(value);
      else { errno = 0; fail("unknown flag " + flag); }
    } catch (const std::logic_error&) {
      errno = 0;
      fail("bad value for " + flag + ": " + value);
    }
  }
  errno = 0;
  if (o.netns_a.empty() || o.dev_a.empty() || o.netns_b.empty() || o.dev_b.empty()) fail("need --netns-a --dev-a --netns-b --dev-b");
  if (!(o.delay_ms >= 0 && o.delay_ms <= 10000)) fail("--delay-ms must be within [0, 10000]");
  if (!(o.loss >= 0 && o.loss < 1)) fail("--loss must be within [0, 1)");
  return o;
}

// Attaches to an existing TUN device inside the namespace at netns_path, then returns to ours:
// TUNSETIFF looks the name up in the calling thread's current network namespace.
int open_tun(const std::string& netns_path, const std::string& name, int home_netns) {
  const int target = open(netns_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (target < 0) fail("open " + netns_path);
  if (setns(target, CLONE_NEWNET) != 0) fail("setns " + netns_path);
  close(target);
  const int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail("open /dev/net/tun");
  ifreq request{};
  request.ifr_flags = IFF_TUN | IFF_NO_PI;
  std::snprintf(request.ifr_name, IFNAMSIZ, "%s", name.c_str());
  if (ioctl(fd, TUNSETIFF, &request) != 0) fail("attach to TUN device " + name + " in " + netns_path);
  if (setns(home_netns, CLONE_NEWNET) != 0) fail("setns back");
  return fd;
}

struct Packet {
  Clock::time_point due;
  std::vector<unsigned char> bytes;
};

// One direction of the link: read from `in`, hold each surviving packet for the delay, write to `out`.
struct Direction {
  const char* name;
  int in, out;
  std::deque<Packet> queue;  // FIFO is due-ordered: the delay is the same for every packet
  std::size_t queued_bytes = 0;
  std::uint64_t forwarded = 0, lost = 0, overflow = 0, write_failed = 0;
};

void drain_input(Direction& d, const Options& o, std::mt19937_64& rng, std::bernoulli_distribution& drop) {
  const auto delay = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(o.delay_ms));
  unsigned char buffer[65536];
  for (int budget = 0; budget < 256; ++budget) {  // bounded so the other direction is served too
    const ssize_t n = read(d.in, buffer, sizeof buffer);
    if (n <= 0) {
      if (n < 0 && errno != EAGAIN && errno != EINTR) fail(std::string("read ") + d.name);
      return;
    }
    if (o.loss > 0 && drop(rng)) { ++d.lost; continue; }
    if (d.queued_bytes + n > o.queue_bytes) { ++d.overflow; continue; }
    d.queue.push_back({Clock::now() + delay, std::vector<unsigned char>(buffer, buffer + n)});
    d.queued_bytes += n;
  }
}

void send_due(Direction& d, Clock::time_point now) {
  while (!d.queue.empty() && d.queue.front().due <= now) {
    const Packet& p = d.queue.front();
    // Writing injects the packet into the far namespace's stack; a failure there is a lost packet.
    if (write(d.out, p.bytes.data(), p.bytes.size()) != static_cast<ssize_t>(p.bytes.size())) ++d.write_failed;
    else ++d.forwarded;
    d.queued_bytes -= p.bytes.size();
    d.queue.pop_front();
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (home < 0) fail("open /proc/self/ns/net");
  const int tun_a = open_tun(o.netns_a, o.dev_a, home);
  const int tun_b = open_tun(o.netns_b, o.dev_b, home);
  close(home);

  // Signals arrive as readable data on a descriptor, so stopping needs no global flag.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  if (sigprocmask(SIG_BLOCK, &stop_signals, nullptr) != 0) fail("sigprocmask");
  const int signals = signalfd(-1, &stop_signals, SFD_CLOEXEC);
  if (signals < 0) fail("signalfd");

  std::mt19937_64 rng(o.seed);
  std::bernoulli_distribution drop(o.loss);
  Direction a_to_b{"a->b", tun_a, tun_b, {}, 0, 0, 0, 0, 0};
  Direction b_to_a{"b->a", tun_b, tun_a, {}, 0, 0, 0, 0, 0};
  std::fprintf(stderr, "tun_forwarder: %s <-> %s, delay %.3f ms each way, loss %.4f%%\n", o.dev_a.c_str(), o.dev_b.c_str(),
               o.delay_ms, o.loss * 100);

  for (;;) {
    // Sleep until input arrives or the earliest held packet is due; ppoll has nanosecond resolution.
    const auto now = Clock::now();
    timespec wait{1, 0};
    for (const Direction* d : {&a_to_b, &b_to_a}) {
      if (d->queue.empty()) continue;
      const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(d->queue.front().due - now).count();
      const long long ns = left < 0 ? 0 : left;
      if (ns < wait.tv_sec * 1000000000LL + wait.tv_nsec) wait = {static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
    }
    pollfd fds[3] = {{tun_a, POLLIN, 0}, {tun_b, POLLIN, 0}, {signals, POLLIN, 0}};
    if (ppoll(fds, 3, &wait, nullptr) < 0 && errno != EINTR) fail("ppoll");
    if (fds[2].revents & POLLIN) break;
    if (fds[0].revents & (POLLERR | POLLHUP) || fds[1].revents & (POLLERR | POLLHUP)) { errno = 0; fail("TUN device went away"); }
    if (fds[0].revents & POLLIN) drain_input(a_to_b, o, rng, drop);
    if (fds[1].revents & POLLIN) drain_input(b_to_a, o, rng, drop);
    const auto after = Clock::now();
    send_due(a_to_b, after);
    send_due(b_to_a, after);
  }
  for (const Direction* d : {&a_to_b, &b_to_a}) {
    std::fprintf(stderr, "tun_forwarder: %s forwarded %llu, lost %llu (random), dropped %llu (queue full), %llu failed writes\n",
                 d->name, static_cast<unsigned long long>(d->forwarded), static_cast<unsigned long long>(d->lost),
                 static_cast<unsigned long long>(d->overflow), static_cast<unsigned long long>(d->write_failed));
  }
  return 0;
}
