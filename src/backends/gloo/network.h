// Which network interface and address the Gloo backend uses, found from the kernel's own tables
// (getifaddrs, and the route a UDP socket would take), never by sending anything.
#pragma once

#include <string>

namespace collbench::gloo_backend {

// The first IPv4 (else IPv6) address of interface `name`; throws UsageError naming the
// interfaces that exist when there is no such interface or it has no address (the caller says
// which setting named it).
std::string interface_address(const std::string& name);

// `host` (a name or a numeric address) as a numeric address, IPv4 preferred; throws UsageError
// when it does not resolve.
std::string numeric_address(const std::string& host);

// The local address the kernel would use as source to reach numeric `address`; throws Error when
// no route exists.
std::string source_address_for(const std::string& address);

// The interface whose address the kernel would use as source to reach `address` (numeric).
// For a local address that is its own interface ("lo" for 127.0.0.1). Throws Error when no
// route exists.
std::string interface_routing_to(const std::string& address);

// An address of this host that other hosts can reach: the source address of the default route,
// else the address the host name resolves to. Throws Error when neither exists.
std::string outward_address();

}  // namespace collbench::gloo_backend
