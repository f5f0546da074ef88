#include "core/sockets.h"

#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace collbench {
namespace {

// Milliseconds to `deadline` for one poll: never negative, and a day's deadline waits in steps.
int poll_milliseconds(SocketClock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SocketClock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 60'000));
}

}  // namespace

int connect_within(const sockaddr* address, socklen_t size, std::chrono::milliseconds timeout, int* error) {
  const int attempt = ::socket(address->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (attempt < 0) {
    *error = errno;
    return -1;
  }
  *error = 0;
  if (::connect(attempt, address, size) != 0) {
    *error = errno;
    if (*error == EINPROGRESS) {
      pollfd writable{attempt, POLLOUT, 0};
      socklen_t length = sizeof(*error);
      const int wait_ms = static_cast<int>(std::clamp<long long>(timeout.count(), 0, 60'000));
      if (::poll(&writable, 1, wait_ms) != 1 || ::getsockopt(attempt, SOL_SOCKET, SO_ERROR, error, &length) != 0) {
        *error = ETIMEDOUT;
      }
    }
  }
  if (*error != 0) {
    ::close(attempt);
    return -1;
  }
  set_blocking(attempt, true);
  return attempt;
}

int listen_on(const sockaddr* address, socklen_t size, int backlog) {
  const int listener = ::socket(address->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) return -1;
  // A store restarted on a fixed port must not wait out the last run's TIME_WAIT connections.
  const int one = 1;
  ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(listener, address, size) == 0 && ::listen(listener, backlog) == 0) return listener;
  const int why = errno;
  ::close(listener);
  errno = why;
  return -1;
}

int bound_port(int socket) {
  sockaddr_storage bound{};
  socklen_t size = sizeof(bound);
  if (::getsockname(socket, reinterpret_cast<sockaddr*>(&bound), &size) != 0) return -1;
  return bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                     : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
}

bool send_all(int socket, const char* bytes, std::size_t size) {
  while (size > 0) {
    const ssize_t sent = ::send(socket, bytes, size, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    bytes += sent;
    size -= static_cast<std::size_t>(sent);
  }
  return true;
}

Received receive_all(int socket, char* bytes, std::size_t size, SocketClock::time_point deadline) {
  std::size_t got = 0;
  while (got < size) {
    pollfd readable{socket, POLLIN, 0};
    const int ready = ::poll(&readable, 1, poll_milliseconds(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return Received::kClosed;
    if (ready == 0) {
      if (SocketClock::now() >= deadline) return Received::kTimedOut;
      continue;
    }
    const ssize_t received = ::recv(socket, bytes + got, size - got, 0);
    if (received < 0 && errno == EINTR) continue;
    if (received <= 0) return Received::kClosed;
    got += static_cast<std::size_t>(received);
  }
  return Received::kAll;
}

void set_blocking(int socket, bool blocking) {
  const int flags = ::fcntl(socket, F_GETFL, 0);
  ::fcntl(socket, F_SETFL, blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK);
}

void set_no_delay(int socket) {
  const int one = 1;
  ::setsockopt(socket, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

std::string numeric_host(const sockaddr* address) {
  char text[NI_MAXHOST] = {0};
  const socklen_t size = address->sa_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
  if (::getnameinfo(address, size, text, sizeof(text), nullptr, 0, NI_NUMERICHOST) != 0) return "";
  std::string host(text);
  const std::size_t zone = host.find('%');  // link-local IPv6 "fe80::1%eth0"
  return zone == std::string::npos ? host : host.substr(0, zone);
}

std::vector<InterfaceAddress> interface_addresses() {
  ifaddrs* head = nullptr;
  if (::getifaddrs(&head) != 0) throw Error(std::string("getifaddrs failed: ") + std::strerror(errno));
  std::vector<InterfaceAddress> addresses;
  for (ifaddrs* entry = head; entry; entry = entry->ifa_next) {
    if (!entry->ifa_addr) continue;
    addresses.push_back({entry->ifa_name, entry->ifa_addr->sa_family, numeric_host(entry->ifa_addr),
                         (entry->ifa_flags & IFF_UP) != 0, (entry->ifa_flags & IFF_LOOPBACK) != 0});
  }
  ::freeifaddrs(head);
  return addresses;
}

}  // namespace collbench
