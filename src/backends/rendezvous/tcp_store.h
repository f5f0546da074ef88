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
// (payload: the missing key), 2 a malformed request, 3 refused (a wrong job token, a limit).
//
// The store trusts no one who connects (issue 19): every connection first presents the job's
// token (hello, op 5; COLLBENCH_JOB_TOKEN launched without MPI, "" when none is set); what the
// store holds and queues is bounded in total (StoreLimits), its sockets never block its one
// thread, and a client that goes over a limit is disconnected. The client refuses a reply longer
// than the limit rather than buffering it.
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

// The longest COLLBENCH_JOB_TOKEN: its hello must fit the few KiB the store reads from a
// connection that has not yet presented one. Launches refuse a longer token by name.
inline constexpr std::size_t kMaxJobTokenBytes = 1024;

// What one server holds at most. Rendezvous values are addresses, a few KiB each; the defaults
// leave room for thousands of ranks and keep a hostile client from growing rank 0 without end.
struct StoreLimits {
  std::uint32_t max_message_bytes = 4u << 20;     // one request or reply
  std::size_t max_total_bytes = 64u << 20;       // keys and values held
  std::size_t max_keys = 1u << 18;
  std::size_t max_connections = 4096;
  std::size_t max_queued_bytes = 8u << 20;       // replies a client has not read yet
  std::size_t max_waits_per_connection = 64;
  std::chrono::milliseconds hello_timeout{10'000};  // a connection that never says hello

  // The defaults, raised as far as a world of `world_size` ranks needs: Gloo's full mesh puts
  // every rank's addresses for every peer in the store (about 150 bytes a pair, so 1000 ranks
  // need some 150 MB), and every rank holds one connection. Never above 1 GiB in all.
  static StoreLimits for_world(int world_size);
};

class TcpStoreServer {
 public:
  // Binds `host:port` (only that address) and starts serving. Throws Error with one line when
  // the address does not resolve or cannot be bound. Connections must present `token`.
  explicit TcpStoreServer(const StoreAddress& listen_on, std::string token = "", StoreLimits limits = {});
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
  // than its clients), and presents `token`; all of it within `connect_timeout`. Throws Error
  // with one line on a bad address, when time runs out (exit code 4) or when the server refuses
  // the token (exit code 2). A server that keeps a request's reply longer than its own deadline
  // plus `answer_grace` is taken for gone (exit code 4).
  TcpStoreClient(const StoreAddress& server, std::chrono::milliseconds connect_timeout, const std::string& token = "",
                 std::chrono::milliseconds answer_grace = std::chrono::seconds(10));
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

 private:
  std::vector<char> request(std::uint32_t op, const std::vector<std::string>& fields,
                            std::chrono::milliseconds server_timeout);

  StoreAddress server_;
  std::chrono::milliseconds answer_grace_;
  int socket_ = -1;
};

}  // namespace collbench::rendezvous
