// The few socket steps the rank monitor (heartbeats), the rendezvous store and Gloo's choice of
// address share, written once: a TCP connect bounded by a deadline, whole messages in and out,
// a listening socket, and the host's interface addresses. Each caller keeps its own protocol and
// its own messages; these return what happened and leave the wording to them.
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace collbench {

using SocketClock = std::chrono::steady_clock;

// A blocking TCP socket connected to `address` within `timeout`, or -1 with `*error` set to the
// errno value that stopped it (ETIMEDOUT when the time ran out). The attempt itself is
// non-blocking, so that a host that drops it costs no more than `timeout`.
int connect_within(const sockaddr* address, socklen_t size, std::chrono::milliseconds timeout, int* error);

// A TCP socket listening on `address` (port 0: one the kernel picks), or -1 with errno set.
int listen_on(const sockaddr* address, socklen_t size, int backlog);

// The port a bound socket listens on; -1 when it cannot be read.
int bound_port(int socket);

// Sends every byte of `bytes`; false when the peer is gone.
bool send_all(int socket, const char* bytes, std::size_t size);

enum class Received { kAll, kTimedOut, kClosed };

// Reads exactly `size` bytes into `bytes`, waiting until `deadline` at most.
Received receive_all(int socket, char* bytes, std::size_t size, SocketClock::time_point deadline);

void set_blocking(int socket, bool blocking);
void set_no_delay(int socket);  // small frames leave at once instead of waiting for Nagle's ACK

// `address` as a numeric host ("10.0.0.2", "fe80::1" without its zone); "" for a family that has
// none (a link-layer address).
std::string numeric_host(const sockaddr* address);

struct InterfaceAddress {
  std::string interface;
  int family = AF_UNSPEC;
  std::string address;  // numeric_host of it
  bool up = false;
  bool loopback = false;
};

// Every address of every interface, in the kernel's order (getifaddrs); throws Error when the
// kernel cannot list them.
std::vector<InterfaceAddress> interface_addresses();

}  // namespace collbench
