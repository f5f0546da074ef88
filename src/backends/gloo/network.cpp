#include "backends/gloo/network.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <set>

#include "core/error.h"
#include "core/printable.h"
#include "core/sockets.h"

namespace collbench::gloo_backend {
namespace {

// The local source address the kernel picks for `destination`, by connecting a UDP socket
// (connect on UDP only looks up the route; no packet leaves).
std::string source_address_towards(const std::string& destination, const std::string& port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  addrinfo* resolved = nullptr;
  if (::getaddrinfo(destination.c_str(), port.c_str(), &hints, &resolved) != 0) return "";
  std::string source;
  const int probe = ::socket(resolved->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (probe >= 0 && ::connect(probe, resolved->ai_addr, resolved->ai_addrlen) == 0) {
    sockaddr_storage local{};
    socklen_t size = sizeof(local);
    if (::getsockname(probe, reinterpret_cast<sockaddr*>(&local), &size) == 0) {
      source = numeric_host(reinterpret_cast<sockaddr*>(&local));
    }
  }
  if (probe >= 0) ::close(probe);
  ::freeaddrinfo(resolved);
  return source;
}

}  // namespace

std::string interface_address(const std::string& name) {
  std::string ipv6;
  std::set<std::string> names;
  for (const InterfaceAddress& entry : interface_addresses()) {
    names.insert(entry.interface);
    if (name != entry.interface) continue;
    if (entry.family == AF_INET) return entry.address;
    if (entry.family == AF_INET6 && ipv6.empty()) ipv6 = entry.address;
  }
  if (!ipv6.empty()) return ipv6;
  throw UsageError("no such interface with an address here (interfaces: " + joined(names, ", ") + ")");
}

std::string numeric_address(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* resolved = nullptr;
  const int status = ::getaddrinfo(host.c_str(), nullptr, &hints, &resolved);
  if (status != 0) throw UsageError("'" + host + "' does not resolve: " + ::gai_strerror(status));
  std::string chosen;
  for (addrinfo* entry = resolved; entry; entry = entry->ai_next) {
    const std::string text = numeric_host(entry->ai_addr);
    if (chosen.empty() || (entry->ai_family == AF_INET && chosen.find(':') != std::string::npos)) chosen = text;
  }
  ::freeaddrinfo(resolved);
  if (chosen.empty()) throw UsageError("'" + host + "' resolves to no usable address");
  return chosen;
}

std::string source_address_for(const std::string& address) {
  const std::string source = source_address_towards(address, "9");
  if (source.empty()) throw Error("no network route from this host to " + address);
  return source;
}

std::string interface_routing_to(const std::string& address) {
  const std::string source = source_address_towards(address, "9");
  if (source.empty()) throw Error("no network route from this host to " + address + " (choose one with --gloo-iface)");
  for (const InterfaceAddress& entry : interface_addresses()) {
    if (entry.family != AF_INET && entry.family != AF_INET6) continue;
    if (entry.address == source) return entry.interface;
  }
  throw Error("the route to " + address + " leaves from " + source + ", which no interface owns (choose one with --gloo-iface)");
}

std::string outward_address() {
  // A documentation address (RFC 5737): only the routing table is consulted.
  std::string source = source_address_towards("192.0.2.1", "9");
  if (!source.empty()) return source;
  const std::string host = this_host();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* resolved = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &resolved) == 0) {
    source = numeric_host(resolved->ai_addr);
    ::freeaddrinfo(resolved);
  }
  if (source.empty()) throw Error(std::string("cannot find an address of host ") + host + " for the other ranks (use --gloo-iface)");
  return source;
}

}  // namespace collbench::gloo_backend
