// Gloo's rendezvous Store over collbench's TCP store client (backends/rendezvous/tcp_store.h),
// with one deadline on every wait: the Gloo backend (its pairs under mpirun) and the Gloo World
// (ranks launched without MPI) both meet through it.
#pragma once

#include <gloo/common/error.h>
#include <gloo/rendezvous/store.h>

#include <chrono>
#include <exception>
#include <string>
#include <vector>

#include "backends/rendezvous/tcp_store.h"
#include "core/error.h"

namespace collbench {

class TcpStoreForGloo final : public gloo::rendezvous::Store {
 public:
  TcpStoreForGloo(rendezvous::TcpStoreClient& client, std::chrono::milliseconds timeout)
      : client_(client), timeout_(timeout) {}
  void set(const std::string& key, const std::vector<char>& data) override { client_.set(key, data); }
  std::vector<char> get(const std::string& key) override { return client_.get(key, timeout_); }
  void wait(const std::vector<std::string>& keys) override { client_.wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    client_.wait(keys, timeout);
  }

 private:
  rendezvous::TcpStoreClient& client_;
  std::chrono::milliseconds timeout_;
};

// Gloo reports failures (a dead peer, a timeout) as exceptions of its own; say which call failed.
// An I/O failure of a pair (the peer closed its connection, or sent nothing within the timeout)
// is a rank that left or stopped: exit 4, as the watchdog gives for a lost rank. Without it, the
// survivor whose peer gave up first saw "Connection closed by peer" and exited 1 instead of 4
// (bootstrap.hostile.stop_after_join under load, 2026-12-01).
template <typename Body>
void guarded(const char* prefix, const char* what, Body&& body) {
  try {
    body();
  } catch (const Error&) {
    throw;
  } catch (const gloo::IoException& e) {
    throw Error(std::string(prefix) + what + " failed (a rank left or stopped answering): " + e.what(), ExitCode::kTimeout);
  } catch (const std::exception& e) {
    throw Error(std::string(prefix) + what + " failed: " + e.what());
  }
}

}  // namespace collbench
