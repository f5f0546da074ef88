// A small TCP key-value store for rendezvous: ranks publish their addresses under keys and wait
// for each other's, as torch.distributed's TCPStore does.
//
// One rank serves it (TcpStoreServer, one background thread); every rank, the serving one
// included, talks to it through a TcpStoreClient. It knows nothing of Gloo or MPI, so the Gloo
// backend (under mpirun, with the address passed over the World) and a later launch without MPI
// (MASTER_ADDR:MASTER_PORT) can both use it. The server listens only on the address it is given.
//
// Every wait has a deadline, kept by the server: a key that never comes ends the call with an
// Error naming the key and the store, never a hang. Values are opaque bytes.
//
// Wire format, all integers little-endian u32: a request is [length][op][field count][fields],
// each field [length][bytes]; a reply is [length][status][payload]. Ops: set (key, value),
// get (timeout ms, key), wait (timeout ms, key...), claim (key, value: set only when absent;
// the payload is the value the key holds afterwards). Status 0 is done, 1 a deadline passed
// (payload: the missing key), 2 a malformed request.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace collbench::rendezvous {

struct StoreAddress {
  std::string host;  // a name or a numeric IPv4/IPv6 address
  int port = 0;      // 0 to a server: the kernel picks one
  std::string text() const;  // "host:port", "[v6]:port"
};

// "host:port" or "[v6addr]:port"; throws UsageError with one sentence for anything else.
StoreAddress parse_store_address(const std::string& text);
// Throws UsageError unless `text` is a decimal port 0..65535.
int parse_port(const std::string& text);

class TcpStoreServer {
 public:
  // Binds `host:port` (only that address) and starts serving. Throws Error with one line when
  // the address does not resolve or cannot be bound.
  explicit TcpStoreServer(const StoreAddress& listen_on);
  ~TcpStoreServer();
  TcpStoreServer(const TcpStoreServer&) = delete;
  TcpStoreServer& operator=(const TcpStoreServer&) = delete;

  // Where clients connect: the given host and the bound port (the kernel's choice for port 0).
  StoreAddress address() const { return address_; }

 private:
  class Loop;
  StoreAddress address_;
  std::unique_ptr<Loop> loop_;
  std::thread thread_;
};

class TcpStoreClient {
 public:
  // Connects, retrying refused connections until `connect_timeout` (the server may start later
  // than its clients). Throws Error with one line on a bad address or when time runs out.
  TcpStoreClient(const StoreAddress& server, std::chrono::milliseconds connect_timeout);
  ~TcpStoreClient();
  TcpStoreClient(const TcpStoreClient&) = delete;
  TcpStoreClient& operator=(const TcpStoreClient&) = delete;

  void set(const std::string& key, const std::vector<char>& value);
  // Waits until `key` is set, up to `timeout`; throws Error (exit code 4) when it is not.
  std::vector<char> get(const std::string& key, std::chrono::milliseconds timeout);
  // Waits until every key is set, up to `timeout`; throws Error (exit code 4) naming one missing.
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout);
  // Sets `key` to `value` only when no one has set it; returns the value it holds afterwards
  // (`value` when this client was first). Atomic in the server, so two processes claiming one
  // name (a duplicate RANK) cannot both win.
  std::vector<char> claim(const std::string& key, const std::vector<char>& value);
  // Whether `key` is set now (no waiting).
  bool has(const std::string& key);

  const StoreAddress& server() const { return server_; }

 private:
  std::vector<char> request(std::uint32_t op, const std::vector<std::string>& fields,
                            std::chrono::milliseconds server_timeout);

  StoreAddress server_;
  int socket_ = -1;
};

}  // namespace collbench::rendezvous
