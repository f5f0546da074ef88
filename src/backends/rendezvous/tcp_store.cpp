#include "backends/rendezvous/tcp_store.h"

#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>

#include "core/error.h"
#include "core/printable.h"
#include "core/sockets.h"

namespace collbench::rendezvous {
namespace {

using Clock = std::chrono::steady_clock;

enum Op : std::uint32_t { kSet = 1, kGet = 2, kWait = 3, kClaim = 4, kHello = 5 };
enum Status : std::uint32_t { kDone = 0, kDeadlinePassed = 1, kMalformed = 2, kRefused = 3 };

// A reply longer than the server may send is refused by the client (a peer that is not the
// store, answering with a 4 GiB length, would otherwise make the rank buffer until bad_alloc).
const std::uint32_t kMaxReplyBytes = StoreLimits::for_world(1 << 20).max_message_bytes + 64;

void append_u32(std::vector<char>& out, std::uint32_t value) {
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<char>((value >> shift) & 0xff));
}

std::uint32_t read_u32(const char* at) {
  std::uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(at[i]);
  return value;
}

std::vector<char> frame(std::uint32_t head, const std::vector<std::string>& fields) {
  std::vector<char> body;
  append_u32(body, head);
  append_u32(body, static_cast<std::uint32_t>(fields.size()));
  for (const std::string& field : fields) {
    append_u32(body, static_cast<std::uint32_t>(field.size()));
    body.insert(body.end(), field.begin(), field.end());
  }
  std::vector<char> message;
  append_u32(message, static_cast<std::uint32_t>(body.size()));
  message.insert(message.end(), body.begin(), body.end());
  return message;
}

std::vector<char> reply_frame(std::uint32_t status, const std::string& payload) {
  std::vector<char> message;
  append_u32(message, static_cast<std::uint32_t>(4 + payload.size()));
  append_u32(message, status);
  message.insert(message.end(), payload.begin(), payload.end());
  return message;
}

// Parses [op][count][fields] of one request body; false when it is malformed.
bool parse_request(const std::vector<char>& body, std::uint32_t& op, std::vector<std::string>& fields) {
  if (body.size() < 8) return false;
  op = read_u32(body.data());
  const std::uint32_t count = read_u32(body.data() + 4);
  std::size_t at = 8;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (body.size() - at < 4) return false;
    const std::uint32_t length = read_u32(body.data() + at);
    at += 4;
    if (body.size() - at < length) return false;
    fields.emplace_back(body.data() + at, length);
    at += length;
  }
  return at == body.size();
}

std::string errno_text() { return std::strerror(errno); }

struct AddressList {
  addrinfo* head = nullptr;
  ~AddressList() {
    if (head) ::freeaddrinfo(head);
  }
};

void resolve(const StoreAddress& address, bool passive, AddressList& list) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  const std::string port = std::to_string(address.port);
  const int status = ::getaddrinfo(address.host.c_str(), port.c_str(), &hints, &list.head);
  if (status != 0) {
    throw Error("rendezvous store address '" + address.text() + "' does not resolve: " + ::gai_strerror(status));
  }
}

}  // namespace

StoreLimits StoreLimits::for_world(int world_size) {
  StoreLimits limits;
  const auto ranks = static_cast<std::size_t>(std::max(1, world_size));
  const std::size_t mesh_bytes = std::min<std::size_t>(ranks * ranks, std::size_t{1} << 32) * 256;
  limits.max_total_bytes = std::clamp<std::size_t>(mesh_bytes + (16u << 20), limits.max_total_bytes, std::size_t{1} << 30);
  limits.max_message_bytes = static_cast<std::uint32_t>(
      std::clamp<std::size_t>(ranks * 256 + (64u << 10), limits.max_message_bytes, std::size_t{64} << 20));
  limits.max_keys = std::max(limits.max_keys, ranks * 8 + 1024);
  limits.max_connections = std::max(limits.max_connections, ranks + 64);
  return limits;
}

std::string StoreAddress::text() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

// Throws UsageError unless `text` is a decimal port 0..65535.
static int parse_port(const std::string& text) {
  const bool digits = !text.empty() && text.size() <= 5 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || std::stoi(text) > 65535) {
    throw UsageError("port '" + text + "' is not a number from 0 to 65535");
  }
  return std::stoi(text);
}

StoreAddress parse_store_address(const std::string& text) {
  std::string host, port;
  if (!text.empty() && text.front() == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      throw UsageError("address '" + text + "' is not [IPv6]:PORT");
    }
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string::npos || text.find(':') != colon) {
      throw UsageError("address '" + text + "' is not HOST:PORT (IPv6 as [ADDR]:PORT)");
    }
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (host.empty()) throw UsageError("address '" + text + "' has no host");
  return {host, parse_port(port)};
}

// The server's event loop: one thread, poll(2) over the listening socket, the clients and a
// wake-up pipe. Waiting requests are kept with their deadlines and answered when a set
// completes them or the deadline passes, so no client ever waits without an end. Every client
// socket is non-blocking and replies queue per client: a client that never reads cannot stall
// the loop, and one whose queue passes the limit is disconnected.
class TcpStoreServer::Loop {
 public:
  Loop(int listener, std::string token, StoreLimits limits)
      : listener_(listener), token_(std::move(token)), limits_(limits) {
    if (::pipe(wake_) != 0) throw Error("rendezvous store: pipe() failed: " + errno_text());
  }
  ~Loop() {
    for (auto& [socket, client] : clients_) ::close(socket);
    ::close(listener_);
    ::close(wake_[0]);
    ::close(wake_[1]);
  }
  void stop() {
    const char byte = 0;
    while (::write(wake_[1], &byte, 1) < 0 && errno == EINTR) {
    }
  }
  void run();

 private:
  struct Client {
    std::vector<char> input;
    std::string output;  // replies not sent yet
    bool greeted = false;  // presented the job's token
    bool closing = false;  // close once `output` is sent (a refused token)
    std::size_t waits = 0;
    Clock::time_point hello_deadline;
  };
  struct Waiter {
    int socket;
    std::uint32_t op;
    std::vector<std::string> keys;
    Clock::time_point deadline;
  };

  void accept_client();
  bool read_from(int socket, Client& client);  // false: close it
  void handle(int socket, Client& client, std::uint32_t op, std::vector<std::string> fields);
  bool store_value(int socket, const std::string& key, std::string value);  // false: over a limit (refused)
  bool try_answer(const Waiter& waiter);  // true when answered
  // The first key `waiter` waits for that is not set yet; nullptr when every one is.
  const std::string* first_missing(const Waiter& waiter) const {
    const auto missing = std::find_if(waiter.keys.begin(), waiter.keys.end(),
                                      [&](const std::string& key) { return values_.count(key) == 0; });
    return missing == waiter.keys.end() ? nullptr : &*missing;
  }
  void answer_ready_and_expired();
  void reply(int socket, std::uint32_t status, const std::string& payload);
  void flush(int socket, Client& client);
  int poll_timeout_ms() const;
  static std::size_t waited_bytes(const Waiter& waiter) {
    std::size_t bytes = sizeof(Waiter);
    for (const std::string& key : waiter.keys) bytes += key.size() + sizeof(std::string);
    return bytes;
  }

  int listener_;
  std::string token_;
  StoreLimits limits_;
  int wake_[2] = {-1, -1};
  std::map<int, Client> clients_;
  std::vector<Waiter> waiters_;
  std::map<std::string, std::string> values_;
  std::size_t held_bytes_ = 0;  // keys and values in values_
  // Requests half read, replies not sent and keys waited for, over every client: bounded as a
  // whole too, so that many connections each under its own limit cannot add up to too much.
  std::size_t buffered_bytes_ = 0;
  Clock::time_point accept_paused_until_{};  // out of file descriptors: accept again later
  std::vector<int> broken_;
};

void TcpStoreServer::Loop::run() {
  for (;;) {
    const bool accepting = Clock::now() >= accept_paused_until_;
    std::vector<pollfd> watched{{wake_[0], POLLIN, 0}, {listener_, static_cast<short>(accepting ? POLLIN : 0), 0}};
    for (const auto& [socket, client] : clients_) {
      watched.push_back({socket, static_cast<short>(POLLIN | (client.output.empty() ? 0 : POLLOUT)), 0});
    }
    const int ready = ::poll(watched.data(), watched.size(), accepting ? poll_timeout_ms() : std::min(poll_timeout_ms() < 0 ? 100 : poll_timeout_ms(), 100));
    if (ready < 0 && errno != EINTR) return;
    if (watched[0].revents) return;  // stop()
    if (watched[1].revents & POLLIN) accept_client();
    for (std::size_t i = 2; i < watched.size(); ++i) {
      if (!watched[i].revents) continue;
      auto found = clients_.find(watched[i].fd);
      if (found == clients_.end()) continue;
      if ((watched[i].revents & POLLOUT) != 0) flush(found->first, found->second);
      if ((watched[i].revents & ~POLLOUT) != 0 && !read_from(found->first, found->second)) broken_.push_back(found->first);
    }
    answer_ready_and_expired();
    const Clock::time_point now = Clock::now();
    for (auto& [socket, client] : clients_) {
      if (!client.greeted && now >= client.hello_deadline) broken_.push_back(socket);
      if (client.closing && client.output.empty()) broken_.push_back(socket);
    }
    for (int socket : broken_) {
      waiters_.erase(std::remove_if(waiters_.begin(), waiters_.end(),
                                    [&](const Waiter& w) {
                                      if (w.socket == socket) buffered_bytes_ -= waited_bytes(w);
                                      return w.socket == socket;
                                    }),
                     waiters_.end());
      auto found = clients_.find(socket);
      if (found == clients_.end()) continue;
      buffered_bytes_ -= found->second.input.size() + found->second.output.size();
      clients_.erase(found);
      ::close(socket);
    }
    broken_.clear();
  }
}

int TcpStoreServer::Loop::poll_timeout_ms() const {
  std::optional<Clock::time_point> soonest;
  for (const Waiter& waiter : waiters_) soonest = std::min(soonest.value_or(waiter.deadline), waiter.deadline);
  for (const auto& [socket, client] : clients_) {
    if (!client.greeted) soonest = std::min(soonest.value_or(client.hello_deadline), client.hello_deadline);
  }
  if (!soonest) return -1;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*soonest - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left + 1, 0, 60'000));
}

void TcpStoreServer::Loop::accept_client() {
  const int socket = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (socket < 0) {
    // Out of descriptors, the pending connection stays readable: without a pause poll would spin.
    if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
      accept_paused_until_ = Clock::now() + std::chrono::milliseconds(100);
    }
    return;  // or the client gave up already; nothing to serve
  }
  if (clients_.size() >= limits_.max_connections) {
    ::close(socket);  // over the limit: refused at once rather than queued
    return;
  }
  set_no_delay(socket);
  clients_[socket].hello_deadline = Clock::now() + limits_.hello_timeout;
}

bool TcpStoreServer::Loop::read_from(int socket, Client& client) {
  char chunk[16384];
  const ssize_t received = ::recv(socket, chunk, sizeof(chunk), 0);
  if (received < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) return true;
  if (received <= 0) return false;
  if (client.closing) return true;  // refused: nothing more it says is read
  if (buffered_bytes_ + static_cast<std::size_t>(received) > limits_.max_total_bytes) return false;
  client.input.insert(client.input.end(), chunk, chunk + received);
  buffered_bytes_ += static_cast<std::size_t>(received);
  const std::size_t input_before = client.input.size();
  std::size_t used = 0;
  while (client.input.size() - used >= 4 && !client.closing) {
    const std::uint32_t length = read_u32(client.input.data() + used);
    // No rendezvous request is that long; before the hello, nothing but a short token is.
    static_assert(kMaxJobTokenBytes + 64 <= 4096u, "a hello with the longest token must fit the pre-hello cap");
    if (length > (client.greeted ? limits_.max_message_bytes : 4096u)) {
      client.input.erase(client.input.begin(), client.input.begin() + static_cast<std::ptrdiff_t>(used));
      buffered_bytes_ -= input_before - client.input.size();
      return false;
    }
    if (client.input.size() - used - 4 < length) break;
    const std::vector<char> body(client.input.begin() + static_cast<std::ptrdiff_t>(used + 4),
                                 client.input.begin() + static_cast<std::ptrdiff_t>(used + 4 + length));
    used += 4 + length;
    std::uint32_t op = 0;
    std::vector<std::string> fields;
    if (!parse_request(body, op, fields)) {
      reply(socket, kMalformed, "malformed request");
      continue;
    }
    handle(socket, client, op, std::move(fields));
  }
  client.input.erase(client.input.begin(), client.input.begin() + static_cast<std::ptrdiff_t>(used));
  buffered_bytes_ -= input_before - client.input.size();
  return client.output.size() <= limits_.max_queued_bytes;  // a client that sends but never reads
}

// A timeout field: decimal milliseconds, at most a day (nothing longer is meant).
static std::optional<long long> parse_timeout_ms(const std::string& text) {
  if (text.empty() || text.size() > 9 || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return std::min(std::stoll(text), 86'400'000LL);
}

void TcpStoreServer::Loop::handle(int socket, Client& client, std::uint32_t op, std::vector<std::string> fields) {
  if (!client.greeted) {
    // Compared in full, so timing tells nothing of how much of the token matched.
    const bool valid = op == kHello && fields.size() == 1 && fields[0].size() == token_.size();
    unsigned char differ = valid ? 0 : 1;
    for (std::size_t i = 0; valid && i < token_.size(); ++i) differ |= static_cast<unsigned char>(fields[0][i] ^ token_[i]);
    if (differ != 0) {
      reply(socket, kRefused, "wrong job token: every rank needs the same COLLBENCH_JOB_TOKEN as rank 0");
      client.closing = true;
      return;
    }
    client.greeted = true;
    reply(socket, kDone, "");
    return;
  }
  if ((op == kSet || op == kClaim) && fields.size() == 2) {
    if (op == kClaim) {
      auto held = values_.find(fields[0]);
      if (held != values_.end()) {
        reply(socket, kDone, held->second);
        return;
      }
    }
    const std::string value = op == kClaim ? fields[1] : std::string();
    if (!store_value(socket, fields[0], std::move(fields[1]))) return;
    reply(socket, kDone, value);
    return;
  }
  const bool get = op == kGet && fields.size() == 2;
  const bool wait = op == kWait && fields.size() >= 2;
  if (!get && !wait) {
    reply(socket, kMalformed, "unknown request");
    return;
  }
  const std::optional<long long> timeout_ms = parse_timeout_ms(fields[0]);
  if (!timeout_ms) {
    reply(socket, kMalformed, "bad timeout");
    return;
  }
  Waiter waiter{socket, op, std::vector<std::string>(fields.begin() + 1, fields.end()),
                Clock::now() + std::chrono::milliseconds(*timeout_ms)};
  if (try_answer(waiter)) return;
  if (client.waits >= limits_.max_waits_per_connection || buffered_bytes_ + waited_bytes(waiter) > limits_.max_total_bytes) {
    reply(socket, kRefused, "too many waiting requests");
    return;
  }
  ++client.waits;
  buffered_bytes_ += waited_bytes(waiter);
  waiters_.push_back(std::move(waiter));
}

bool TcpStoreServer::Loop::store_value(int socket, const std::string& key, std::string value) {
  const auto held = values_.find(key);
  const std::size_t before = held == values_.end() ? 0 : key.size() + held->second.size();
  const std::size_t after = key.size() + value.size();
  if (held == values_.end() && values_.size() >= limits_.max_keys) {
    reply(socket, kRefused, "the store holds its limit of " + std::to_string(limits_.max_keys) + " keys");
    return false;
  }
  if (held_bytes_ - before + after > limits_.max_total_bytes) {
    reply(socket, kRefused, "the store holds its limit of " + std::to_string(limits_.max_total_bytes >> 20) + " MiB");
    return false;
  }
  held_bytes_ = held_bytes_ - before + after;
  values_[key] = std::move(value);
  return true;
}

bool TcpStoreServer::Loop::try_answer(const Waiter& waiter) {
  if (first_missing(waiter)) return false;
  reply(waiter.socket, kDone, waiter.op == kGet ? values_[waiter.keys.front()] : "");
  return true;
}

void TcpStoreServer::Loop::answer_ready_and_expired() {
  const Clock::time_point now = Clock::now();
  std::vector<Waiter> still_waiting;
  for (Waiter& waiter : waiters_) {
    bool answered = try_answer(waiter);
    if (!answered && now >= waiter.deadline) {
      const std::string* missing = first_missing(waiter);
      reply(waiter.socket, kDeadlinePassed, missing ? *missing : "");
      answered = true;
    }
    if (!answered) {
      still_waiting.push_back(std::move(waiter));
      continue;
    }
    buffered_bytes_ -= waited_bytes(waiter);
    auto client = clients_.find(waiter.socket);
    if (client != clients_.end() && client->second.waits > 0) --client->second.waits;
  }
  waiters_ = std::move(still_waiting);
}

void TcpStoreServer::Loop::reply(int socket, std::uint32_t status, const std::string& payload) {
  auto found = clients_.find(socket);
  if (found == clients_.end()) return;
  const std::vector<char> message = reply_frame(status, payload);
  found->second.output.append(message.data(), message.size());
  buffered_bytes_ += message.size();
  flush(socket, found->second);
}

void TcpStoreServer::Loop::flush(int socket, Client& client) {
  while (!client.output.empty()) {
    const ssize_t sent = ::send(socket, client.output.data(), client.output.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;  // the rest when it reads
    if (sent <= 0) {
      broken_.push_back(socket);
      return;
    }
    client.output.erase(0, static_cast<std::size_t>(sent));
    buffered_bytes_ -= static_cast<std::size_t>(sent);
  }
  if (client.output.size() > limits_.max_queued_bytes) broken_.push_back(socket);
}

TcpStoreServer::TcpStoreServer(const StoreAddress& listen_on, std::string token, StoreLimits limits) : address_(listen_on) {
  AddressList list;
  resolve(listen_on, true, list);
  int listener = -1;
  std::string why = "no usable address";
  for (addrinfo* candidate = list.head; candidate && listener < 0; candidate = candidate->ai_next) {
    listener = collbench::listen_on(candidate->ai_addr, candidate->ai_addrlen, 128);
    if (listener < 0) why = errno_text();
  }
  if (listener < 0) throw Error("rendezvous store cannot listen on " + listen_on.text() + ": " + why);
  address_.port = bound_port(listener);
  loop_ = std::make_unique<Loop>(listener, std::move(token), limits);
  thread_ = std::thread([loop = loop_.get()] { loop->run(); });
}

TcpStoreServer::~TcpStoreServer() {
  loop_->stop();
  thread_.join();
}

TcpStoreClient::TcpStoreClient(const StoreAddress& server, std::chrono::milliseconds connect_timeout,
                               const std::string& token, std::chrono::milliseconds answer_grace)
    : server_(server), answer_grace_(answer_grace) {
  AddressList list;
  resolve(server, false, list);
  const Clock::time_point deadline = Clock::now() + connect_timeout;
  const auto left_ms = [&deadline] {
    return std::max<long long>(0, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
  };
  std::string why = "timed out";
  for (;;) {
    for (addrinfo* candidate = list.head; candidate && socket_ < 0; candidate = candidate->ai_next) {
      int error = 0;
      socket_ = connect_within(candidate->ai_addr, candidate->ai_addrlen, std::chrono::milliseconds(left_ms()), &error);
      if (socket_ < 0) why = std::strerror(error);
    }
    if (socket_ >= 0) break;
    if (Clock::now() >= deadline) {
      throw Error("cannot connect to the rendezvous store at " + server.text() + " within " +
                  std::to_string(connect_timeout.count()) + " ms: " + why, ExitCode::kTimeout);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  set_no_delay(socket_);
  // The hello gets what is left of the connect time: something that accepts on the port but
  // never answers (not our store) ends this within the deadline too.
  const std::chrono::milliseconds grace = answer_grace_;
  answer_grace_ = std::chrono::milliseconds(left_ms());
  try {
    request(kHello, {token}, std::chrono::milliseconds(0));
  } catch (...) {
    ::close(socket_);
    socket_ = -1;
    throw;
  }
  answer_grace_ = grace;
}

TcpStoreClient::~TcpStoreClient() {
  if (socket_ >= 0) ::close(socket_);
}

std::vector<char> TcpStoreClient::request(std::uint32_t op, const std::vector<std::string>& fields,
                                          std::chrono::milliseconds server_timeout) {
  const std::vector<char> message = frame(op, fields);
  if (!send_all(socket_, message.data(), message.size())) {
    throw Error("the rendezvous store at " + server_.text() + " closed the connection");
  }
  // The server keeps the deadline; this one only guards against a server that died or stopped.
  const Clock::time_point deadline = Clock::now() + server_timeout + answer_grace_;
  const auto receive = [&](char* bytes, std::size_t size) {
    const Received received = receive_all(socket_, bytes, size, deadline);
    if (received == Received::kTimedOut) {
      throw Error("the rendezvous store at " + server_.text() + " did not answer within " +
                  std::to_string((server_timeout + answer_grace_).count()) + " ms", ExitCode::kTimeout);
    }
    if (received == Received::kClosed) throw Error("the rendezvous store at " + server_.text() + " closed the connection");
  };
  char head[8];
  receive(head, 4);
  const std::uint32_t length = read_u32(head);
  if (length < 4 || length > kMaxReplyBytes) {
    throw Error("the rendezvous store at " + server_.text() + " sent a malformed reply (length " +
                std::to_string(length) + "): is MASTER_ADDR:MASTER_PORT served by collbench's rank 0?");
  }
  receive(head + 4, 4);
  const std::uint32_t status = read_u32(head + 4);
  std::vector<char> payload(length - 4);
  if (!payload.empty()) receive(payload.data(), payload.size());
  const std::string text = printable(std::string(payload.begin(), payload.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(payload.size(), 200))));
  if (status == kDeadlinePassed) {
    throw Error("rendezvous store at " + server_.text() + ": key '" + text + "' was not set within " +
                std::to_string(server_timeout.count()) + " ms", ExitCode::kTimeout);
  }
  if (status == kRefused) {
    throw Error("rendezvous store at " + server_.text() + " refused this process: " + text,
                op == kHello ? ExitCode::kUsage : ExitCode::kRuntimeError);
  }
  if (status != kDone) throw Error("rendezvous store at " + server_.text() + " refused a request: " + text);
  return payload;
}

void TcpStoreClient::set(const std::string& key, const std::vector<char>& value) {
  request(kSet, {key, std::string(value.begin(), value.end())}, std::chrono::milliseconds(0));
}

std::vector<char> TcpStoreClient::get(const std::string& key, std::chrono::milliseconds timeout) {
  return request(kGet, {std::to_string(timeout.count()), key}, timeout);
}

std::vector<char> TcpStoreClient::claim(const std::string& key, const std::vector<char>& value) {
  return request(kClaim, {key, std::string(value.begin(), value.end())}, std::chrono::milliseconds(0));
}

bool TcpStoreClient::has(const std::string& key) {
  try {
    wait({key}, std::chrono::milliseconds(0));
    return true;
  } catch (const Error& e) {
    if (e.code() != ExitCode::kTimeout) throw;
    return false;
  }
}

void TcpStoreClient::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  if (keys.empty()) return;
  std::vector<std::string> fields{std::to_string(timeout.count())};
  fields.insert(fields.end(), keys.begin(), keys.end());
  request(kWait, fields, timeout);
}

}  // namespace collbench::rendezvous
