#include "backends/rendezvous/tcp_store.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "core/error.h"

namespace collbench::rendezvous {
namespace {

using Clock = std::chrono::steady_clock;

enum Op : std::uint32_t { kSet = 1, kGet = 2, kWait = 3, kClaim = 4 };
enum Status : std::uint32_t { kDone = 0, kDeadlinePassed = 1, kMalformed = 2 };

// A request larger than this is refused: rendezvous values are addresses, a few KiB at most.
constexpr std::uint32_t kMaxMessageBytes = 64u << 20;

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

// Sends all of `bytes`; false when the peer is gone.
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

}  // namespace

std::string StoreAddress::text() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

int parse_port(const std::string& text) {
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
// completes them or the deadline passes, so no client ever waits without an end.
class TcpStoreServer::Loop {
 public:
  Loop(int listener) : listener_(listener) {
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
  };
  struct Waiter {
    int socket;
    std::uint32_t op;
    std::vector<std::string> keys;
    Clock::time_point deadline;
  };

  void accept_client();
  bool read_from(int socket, Client& client);  // false: close it
  void handle(int socket, std::uint32_t op, std::vector<std::string> fields);
  bool try_answer(const Waiter& waiter);  // true when answered
  void answer_ready_and_expired();
  void reply(int socket, std::uint32_t status, const std::string& payload);
  int poll_timeout_ms() const;

  int listener_;
  int wake_[2] = {-1, -1};
  std::map<int, Client> clients_;
  std::vector<Waiter> waiters_;
  std::map<std::string, std::string> values_;
  std::vector<int> broken_;
};

void TcpStoreServer::Loop::run() {
  for (;;) {
    std::vector<pollfd> watched{{wake_[0], POLLIN, 0}, {listener_, POLLIN, 0}};
    for (const auto& [socket, client] : clients_) watched.push_back({socket, POLLIN, 0});
    const int ready = ::poll(watched.data(), watched.size(), poll_timeout_ms());
    if (ready < 0 && errno != EINTR) return;
    if (watched[0].revents) return;  // stop()
    if (watched[1].revents & POLLIN) accept_client();
    for (std::size_t i = 2; i < watched.size(); ++i) {
      if (!watched[i].revents) continue;
      auto found = clients_.find(watched[i].fd);
      if (found != clients_.end() && !read_from(found->first, found->second)) broken_.push_back(found->first);
    }
    answer_ready_and_expired();
    for (int socket : broken_) {
      waiters_.erase(std::remove_if(waiters_.begin(), waiters_.end(), [socket](const Waiter& w) { return w.socket == socket; }),
                     waiters_.end());
      if (clients_.erase(socket)) ::close(socket);
    }
    broken_.clear();
  }
}

int TcpStoreServer::Loop::poll_timeout_ms() const {
  if (waiters_.empty()) return -1;
  Clock::time_point soonest = waiters_.front().deadline;
  for (const Waiter& waiter : waiters_) soonest = std::min(soonest, waiter.deadline);
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(soonest - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left + 1, 0, 60'000));
}

void TcpStoreServer::Loop::accept_client() {
  const int socket = ::accept(listener_, nullptr, nullptr);
  if (socket < 0) return;  // the client gave up already; nothing to serve
  const int one = 1;
  ::setsockopt(socket, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  clients_[socket];
}

bool TcpStoreServer::Loop::read_from(int socket, Client& client) {
  char chunk[4096];
  const ssize_t received = ::recv(socket, chunk, sizeof(chunk), 0);
  if (received < 0 && errno == EINTR) return true;
  if (received <= 0) return false;
  client.input.insert(client.input.end(), chunk, chunk + received);
  while (client.input.size() >= 4) {
    const std::uint32_t length = read_u32(client.input.data());
    if (length > kMaxMessageBytes) return false;
    if (client.input.size() - 4 < length) break;
    std::vector<char> body(client.input.begin() + 4, client.input.begin() + 4 + length);
    client.input.erase(client.input.begin(), client.input.begin() + 4 + length);
    std::uint32_t op = 0;
    std::vector<std::string> fields;
    if (!parse_request(body, op, fields)) {
      reply(socket, kMalformed, "malformed request");
      continue;
    }
    handle(socket, op, std::move(fields));
  }
  return true;
}

void TcpStoreServer::Loop::handle(int socket, std::uint32_t op, std::vector<std::string> fields) {
  if (op == kSet && fields.size() == 2) {
    values_[fields[0]] = std::move(fields[1]);
    reply(socket, kDone, "");
    return;
  }
  if (op == kClaim && fields.size() == 2) {
    const std::string& held = values_.emplace(std::move(fields[0]), std::move(fields[1])).first->second;
    reply(socket, kDone, held);
    return;
  }
  const bool get = op == kGet && fields.size() == 2;
  const bool wait = op == kWait && fields.size() >= 2;
  if (!get && !wait) {
    reply(socket, kMalformed, "unknown request");
    return;
  }
  long long timeout_ms = 0;
  try {
    timeout_ms = std::stoll(fields[0]);
  } catch (const std::exception&) {
    reply(socket, kMalformed, "bad timeout");
    return;
  }
  Waiter waiter{socket, op, std::vector<std::string>(fields.begin() + 1, fields.end()),
                Clock::now() + std::chrono::milliseconds(std::max(0LL, timeout_ms))};
  if (!try_answer(waiter)) waiters_.push_back(std::move(waiter));
}

bool TcpStoreServer::Loop::try_answer(const Waiter& waiter) {
  for (const std::string& key : waiter.keys) {
    if (values_.count(key) == 0) return false;
  }
  reply(waiter.socket, kDone, waiter.op == kGet ? values_[waiter.keys.front()] : "");
  return true;
}

void TcpStoreServer::Loop::answer_ready_and_expired() {
  const Clock::time_point now = Clock::now();
  std::vector<Waiter> still_waiting;
  for (Waiter& waiter : waiters_) {
    if (try_answer(waiter)) continue;
    if (now >= waiter.deadline) {
      std::string missing;
      for (const std::string& key : waiter.keys) {
        if (values_.count(key) == 0) {
          missing = key;
          break;
        }
      }
      reply(waiter.socket, kDeadlinePassed, missing);
      continue;
    }
    still_waiting.push_back(std::move(waiter));
  }
  waiters_ = std::move(still_waiting);
}

void TcpStoreServer::Loop::reply(int socket, std::uint32_t status, const std::string& payload) {
  const std::vector<char> message = reply_frame(status, payload);
  if (!send_all(socket, message.data(), message.size())) broken_.push_back(socket);
}

TcpStoreServer::TcpStoreServer(const StoreAddress& listen_on) : address_(listen_on) {
  AddressList list;
  resolve(listen_on, true, list);
  int listener = -1;
  std::string why = "no usable address";
  for (addrinfo* candidate = list.head; candidate; candidate = candidate->ai_next) {
    listener = ::socket(candidate->ai_family, candidate->ai_socktype | SOCK_CLOEXEC, candidate->ai_protocol);
    if (listener < 0) {
      why = errno_text();
      continue;
    }
    const int one = 1;
    ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (::bind(listener, candidate->ai_addr, candidate->ai_addrlen) == 0 && ::listen(listener, 128) == 0) break;
    why = errno_text();
    ::close(listener);
    listener = -1;
  }
  if (listener < 0) throw Error("rendezvous store cannot listen on " + listen_on.text() + ": " + why);
  sockaddr_storage bound{};
  socklen_t bound_size = sizeof(bound);
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&bound), &bound_size);
  address_.port = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                              : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  loop_ = std::make_unique<Loop>(listener);
  thread_ = std::thread([loop = loop_.get()] { loop->run(); });
}

TcpStoreServer::~TcpStoreServer() {
  loop_->stop();
  thread_.join();
}

TcpStoreClient::TcpStoreClient(const StoreAddress& server, std::chrono::milliseconds connect_timeout)
    : server_(server) {
  AddressList list;
  resolve(server, false, list);
  const Clock::time_point deadline = Clock::now() + connect_timeout;
  std::string why;
  for (;;) {
    for (addrinfo* candidate = list.head; candidate && socket_ < 0; candidate = candidate->ai_next) {
      const int attempt = ::socket(candidate->ai_family, candidate->ai_socktype | SOCK_CLOEXEC, candidate->ai_protocol);
      if (attempt < 0) {
        why = errno_text();
        continue;
      }
      if (::connect(attempt, candidate->ai_addr, candidate->ai_addrlen) == 0) {
        socket_ = attempt;
      } else {
        why = errno_text();
        ::close(attempt);
      }
    }
    if (socket_ >= 0) break;
    if (Clock::now() >= deadline) {
      throw Error("cannot connect to the rendezvous store at " + server.text() + " within " +
                  std::to_string(connect_timeout.count()) + " ms: " + why, ExitCode::kTimeout);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const int one = 1;
  ::setsockopt(socket_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
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
  // The server keeps the deadline; this one only guards against a server that died.
  const Clock::time_point deadline = Clock::now() + server_timeout + std::chrono::seconds(10);
  std::vector<char> input;
  for (;;) {
    if (input.size() >= 4 && input.size() - 4 >= read_u32(input.data())) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd readable{socket_, POLLIN, 0};
    const int ready = left > 0 ? ::poll(&readable, 1, static_cast<int>(std::min<long long>(left, 60'000))) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0 && Clock::now() >= deadline) {
      throw Error("the rendezvous store at " + server_.text() + " did not answer", ExitCode::kTimeout);
    }
    if (ready <= 0) continue;
    char chunk[4096];
    const ssize_t received = ::recv(socket_, chunk, sizeof(chunk), 0);
    if (received < 0 && errno == EINTR) continue;
    if (received <= 0) throw Error("the rendezvous store at " + server_.text() + " closed the connection");
    input.insert(input.end(), chunk, chunk + received);
  }
  const std::uint32_t length = read_u32(input.data());
  if (length < 4) throw Error("the rendezvous store at " + server_.text() + " sent a malformed reply");
  const std::uint32_t status = read_u32(input.data() + 4);
  std::vector<char> payload(input.begin() + 8, input.begin() + 4 + length);
  const std::string text(payload.begin(), payload.end());
  if (status == kDeadlinePassed) {
    throw Error("rendezvous store at " + server_.text() + ": key '" + text + "' was not set within " +
                std::to_string(server_timeout.count()) + " ms", ExitCode::kTimeout);
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
