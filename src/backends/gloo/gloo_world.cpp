#include "backends/gloo/gloo_world.h"

#include <fcntl.h>
#include <gloo/allgather.h>
#include <gloo/allgatherv.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/config.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "backends/gloo/io_thread.h"
#include "backends/gloo/network.h"
#include "backends/gloo/tcp_store_for_gloo.h"
#include "backends/rendezvous/tcp_store.h"
#include "core/error.h"
#include "core/process_threads.h"
#include "core/printable.h"

namespace collbench {
namespace {

using Clock = std::chrono::steady_clock;
using Milliseconds = std::chrono::milliseconds;

std::string seconds_text(Milliseconds duration) { return formatted("%g s", static_cast<double>(duration.count()) / 1000.0); }

std::vector<char> bytes_of(const std::string& text) { return {text.begin(), text.end()}; }
std::string text_of(const std::vector<char>& bytes) { return {bytes.begin(), bytes.end()}; }

// The store the ranks meet in, as the join needs it: the TCP store served by rank 0, or Gloo's
// FileStore in a shared directory. Gloo's own rendezvous goes through gloo_store().
class JoinStore {
 public:
  virtual ~JoinStore() = default;
  virtual void set(const std::string& key, const std::string& value) = 0;
  // Waits up to `timeout`; throws Error (exit code 4) when the key is not set by then.
  virtual std::string get(const std::string& key, Milliseconds timeout) = 0;
  virtual bool has(const std::string& key) = 0;
  // Sets `key` unless someone did first; returns the value it holds (ours when we were first).
  virtual std::string claim(const std::string& key, const std::string& value) = 0;
  virtual gloo::rendezvous::Store& gloo_store() = 0;
  virtual std::string description() const = 0;  // "the TCP store at 127.0.0.1:29500"
  // What else a RANK claimed twice can mean with this store.
  virtual std::string stale_hint() const { return ""; }
  // After a normal end, when no rank reads the store any more.
  virtual void clean_up() {}
};

class TcpJoinStore final : public JoinStore {
 public:
  TcpJoinStore(const StoreLaunch& launch, const std::string& master) {
    const rendezvous::StoreAddress address{master, launch.master_port};
    if (launch.rank == 0) {
      try {
        server_ = std::make_unique<rendezvous::TcpStoreServer>(address, launch.job_token,
                                                               rendezvous::StoreLimits::for_world(launch.world_size));
      } catch (const Error& e) {
        const std::string hint = launch.torchrun_agent_store
                                     ? "torchrun's agent serves MASTER_PORT itself (TORCHELASTIC_USE_AGENT_STORE=True): "
                                       "start the ranks with the variables by hand, or with --rendezvous file:DIR"
                                     : "MASTER_ADDR must be an address of rank 0's host and MASTER_PORT a free port";
        throw UsageError("rank 0 cannot serve the rendezvous store on MASTER_ADDR:MASTER_PORT " + address.text() + " (" +
                         e.what() + "); " + hint);
      }
    }
    try {
      // A store that stops answering is given no longer than the join itself (-T).
      client_ = std::make_unique<rendezvous::TcpStoreClient>(address, launch.join_timeout, launch.job_token,
                                                             std::min<Milliseconds>(launch.join_timeout, std::chrono::seconds(10)));
    } catch (const Error& e) {
      if (e.code() == ExitCode::kUsage) throw UsageError(e.what());  // refused: a wrong COLLBENCH_JOB_TOKEN
      throw UsageError("cannot reach the rendezvous store on MASTER_ADDR:MASTER_PORT " + address.text() + " within " +
                       seconds_text(launch.join_timeout) + ": is rank 0 running, and is MASTER_ADDR its address? (" +
                       e.what() + ")");
    }
    description_ = "the TCP store at " + address.text();
    gloo_store_ = std::make_unique<TcpStoreForGloo>(*client_, launch.join_timeout);
  }
  void set(const std::string& key, const std::string& value) override { client_->set(key, bytes_of(value)); }
  std::string get(const std::string& key, Milliseconds timeout) override { return text_of(client_->get(key, timeout)); }
  bool has(const std::string& key) override { return client_->has(key); }
  std::string claim(const std::string& key, const std::string& value) override {
    return text_of(client_->claim(key, bytes_of(value)));
  }
  gloo::rendezvous::Store& gloo_store() override { return *gloo_store_; }
  std::string description() const override { return description_; }

 private:
  std::unique_ptr<rendezvous::TcpStoreServer> server_;  // rank 0; outlives every client's use
  std::unique_ptr<rendezvous::TcpStoreClient> client_;
  std::unique_ptr<TcpStoreForGloo> gloo_store_;
  std::string description_;
};

// Gloo's FileStore, with its presence check opened up and its waits given the join's deadline.
class FileStoreForGloo final : public gloo::rendezvous::FileStore {
 public:
  FileStoreForGloo(const std::string& directory, Milliseconds timeout) : FileStore(directory), timeout_(timeout) {}
  using FileStore::check;
  using FileStore::wait;
  void wait(const std::vector<std::string>& keys) override { FileStore::wait(keys, timeout_); }

 private:
  Milliseconds timeout_;
};

// collbench's own keys are files named after the key ("collbench-join-rank-1"), written whole
// under a private name first: rename(2) publishes a set, link(2) a claim (it fails when the name
// exists, atomically, on local and network filesystems alike). Gloo's keys go to its FileStore.
class FileJoinStore final : public JoinStore {
 public:
  explicit FileJoinStore(const StoreLaunch& launch) : directory_(launch.file_directory) {
    if (::mkdir(directory_.c_str(), 0777) != 0 && errno != EEXIST) {
      throw UsageError("--rendezvous file:" + directory_ + ": cannot create the directory: " + std::strerror(errno));
    }
    struct stat status {};
    if (::stat(directory_.c_str(), &status) != 0 || !S_ISDIR(status.st_mode) || ::access(directory_.c_str(), W_OK) != 0) {
      throw UsageError("--rendezvous file:" + directory_ + " is not a directory this process can write");
    }
    try {
      store_ = std::make_unique<FileStoreForGloo>(directory_, launch.join_timeout);
    } catch (const std::exception& e) {
      throw UsageError("--rendezvous file:" + directory_ + ": " + e.what());
    }
  }
  void set(const std::string& key, const std::string& value) override {
    const std::string draft = write_draft(key, value);
    if (::rename(draft.c_str(), path_of(key).c_str()) != 0) {
      const int error = errno;
      ::unlink(draft.c_str());
      throw Error("--rendezvous file:" + directory_ + ": cannot write " + path_of(key) + ": " + std::strerror(error));
    }
    made_.push_back(path_of(key));
  }
  std::string get(const std::string& key, Milliseconds timeout) override {
    const Clock::time_point deadline = Clock::now() + timeout;
    while (!has(key)) {
      if (Clock::now() >= deadline) {
        throw Error("file store in " + directory_ + ": key '" + key + "' was not set within " + seconds_text(timeout),
                    ExitCode::kTimeout);
      }
      std::this_thread::sleep_for(Milliseconds(10));
    }
    // Anyone who can write the directory wrote this: read no more than any record needs.
    std::ifstream in(path_of(key), std::ios::binary);
    std::string value(64 * 1024, '\0');
    in.read(value.data(), static_cast<std::streamsize>(value.size()));
    value.resize(static_cast<std::size_t>(in.gcount()));
    return value;
  }
  bool has(const std::string& key) override { return ::access(path_of(key).c_str(), F_OK) == 0; }
  std::string claim(const std::string& key, const std::string& value) override {
    const std::string draft = write_draft(key, value);
    const bool first = ::link(draft.c_str(), path_of(key).c_str()) == 0;
    const int link_error = errno;
    ::unlink(draft.c_str());
    if (first) {
      made_.push_back(path_of(key));
      return value;
    }
    if (link_error != EEXIST) {
      throw UsageError("--rendezvous file:" + directory_ + ": cannot create " + path_of(key) + ": " + std::strerror(link_error));
    }
    return get(key, Milliseconds(0));
  }
  gloo::rendezvous::Store& gloo_store() override { return *store_; }
  std::string description() const override { return "the file store in " + directory_; }
  std::string stale_hint() const override {
    return " (or --rendezvous file:" + directory_ + " holds files of an earlier run that did not end cleanly: give every run an empty directory)";
  }
  // Each rank removes the files it made, so the directory is empty again after a clean run.
  void clean_up() override {
    for (const std::string& path : store_->getAllKeyFilePaths()) ::unlink(path.c_str());
    for (const std::string& path : made_) ::unlink(path.c_str());
  }

 private:
  std::string path_of(const std::string& key) const {
    std::string name = key;
    std::replace(name.begin(), name.end(), '/', '-');
    return directory_ + "/" + name;
  }
  // Written whole or not at all: on any failure (a full disk, a quota) the draft is removed and
  // the line says why.
  std::string write_draft(const std::string& key, const std::string& value) const {
    const std::string draft = directory_ + "/." + path_of(key).substr(directory_.size() + 1) + "." +
                              std::to_string(::getpid()) + "." + std::to_string(std::random_device{}());
    const int fd = ::open(draft.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    int error = fd < 0 ? errno : 0;
    for (std::size_t done = 0; error == 0 && done < value.size();) {
      const ssize_t wrote = ::write(fd, value.data() + done, value.size() - done);
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote <= 0) error = wrote < 0 ? errno : EIO;
      else done += static_cast<std::size_t>(wrote);
    }
    if (fd >= 0 && ::close(fd) != 0 && error == 0) error = errno;  // NFS reports a full disk at close
    if (error != 0) {
      if (fd >= 0) ::unlink(draft.c_str());
      throw UsageError("--rendezvous file:" + directory_ + ": cannot write " + draft + ": " + std::strerror(error));
    }
    return draft;
  }

  std::string directory_;
  std::unique_ptr<FileStoreForGloo> store_;
  std::vector<std::string> made_;
};

// What each rank publishes when it joins.
struct JoinRecord {
  int world_size = 0;
  std::string host;
  long long pid = 0;
  std::string text() const { return std::to_string(world_size) + '\n' + host + '\n' + std::to_string(pid); }
  // Another process wrote `text` (over the network, or in a shared directory): anything but
  // "SIZE\nHOST\nPID" with sane values is one UsageError line naming `where`, never a crash.
  static JoinRecord parse(const std::string& text, const std::string& where) {
    const auto bad = [&](const std::string& why) {
      return UsageError("a malformed join record for " + where + " (" + why + "): '" + printable(text.substr(0, 120)) +
                        "'; every rank must run the same collbench, and a --rendezvous file: directory must be this run's own");
    };
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    if (text.size() > 4096 || lines.size() != 3) throw bad("not three lines");
    const auto number = [&](const std::string& field, long long highest) {
      const bool digits = !field.empty() && field.size() <= 10 &&
                          std::all_of(field.begin(), field.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!digits || std::stoll(field) > highest) throw bad("'" + printable(field.substr(0, 20)) + "' is not a number up to " + std::to_string(highest));
      return std::stoll(field);
    };
    JoinRecord record;
    record.world_size = static_cast<int>(number(lines[0], 1 << 20));
    record.host = lines[1];
    const bool host_ok = !record.host.empty() && record.host.size() <= 255 &&
                         std::all_of(record.host.begin(), record.host.end(), [](char c) {
                           return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
                         });
    if (!host_ok) throw bad("the host name has characters no host name has");
    record.pid = number(lines[2], 1LL << 32);
    return record;
  }
  std::string who() const { return "pid " + std::to_string(pid) + " on " + host; }
};

constexpr const char* kVerdictKey = "collbench/join/verdict";

// The line another process left for every rank: whoever could reach the store wrote it, so it is
// printed as one line of plain text, never as the terminal control it might hold.
std::string read_verdict(JoinStore& store, Milliseconds timeout) { return printable(store.get(kVerdictKey, timeout).substr(0, 1000)); }

std::string rank_key(int rank) { return "collbench/join/rank/" + std::to_string(rank); }

// Says `problem` to every rank still joining, then to this one.
[[noreturn]] void fail_join(JoinStore& store, const std::string& problem) {
  try {
    store.claim(kVerdictKey, problem);
  } catch (const std::exception&) {
    // The store is gone as well; this rank's own line is all that can be said.
  }
  throw UsageError(problem);
}

// Every rank's record, once all WORLD_SIZE ranks have joined. Ends with one line when a rank
// disagrees on WORLD_SIZE, another rank failed its join, or the world does not fill up in time.
std::vector<JoinRecord> meet(JoinStore& store, const StoreLaunch& launch, const JoinRecord& mine) {
  const std::string my_text = mine.text();
  const std::string holder = store.claim(rank_key(launch.rank), my_text);
  if (holder != my_text) {
    fail_join(store, "RANK " + std::to_string(launch.rank) + " was given to two processes (" +
                         JoinRecord::parse(holder, "RANK " + std::to_string(launch.rank)).who() +
                         " and " + mine.who() + "): every process needs its own RANK from 0 to WORLD_SIZE-1" +
                         store.stale_hint());
  }
  std::vector<JoinRecord> records(static_cast<std::size_t>(launch.world_size));
  std::vector<bool> seen(records.size(), false);
  records[static_cast<std::size_t>(launch.rank)] = mine;
  seen[static_cast<std::size_t>(launch.rank)] = true;
  const Clock::time_point deadline = Clock::now() + launch.join_timeout;
  for (Milliseconds pause(5);; pause = std::min(pause * 2, Milliseconds(100))) {
    if (store.has(kVerdictKey)) throw UsageError(read_verdict(store, Milliseconds(0)));
    // One store round trip per rank: with a large WORLD_SIZE a pass is long, so the deadline is
    // kept inside it too.
    for (int rank = 0; rank < launch.world_size && Clock::now() < deadline; ++rank) {
      const auto index = static_cast<std::size_t>(rank);
      if (seen[index] || !store.has(rank_key(rank))) continue;
      records[index] = JoinRecord::parse(store.get(rank_key(rank), Milliseconds(0)), "RANK " + std::to_string(rank));
      seen[index] = true;
      if (records[index].world_size != launch.world_size) {
        fail_join(store, "ranks disagree on WORLD_SIZE: rank " + std::to_string(rank) + " (" + records[index].who() +
                             ") has " + std::to_string(records[index].world_size) + ", rank " + std::to_string(launch.rank) +
                             " (" + mine.who() + ") has " + std::to_string(launch.world_size));
      }
    }
    if (std::all_of(seen.begin(), seen.end(), [](bool joined) { return joined; })) return records;
    if (Clock::now() >= deadline) {
      std::string missing;
      int count = 0;
      for (std::size_t rank = 0; rank < seen.size(); ++rank) {
        if (seen[rank]) continue;
        if (++count <= 8) missing += (missing.empty() ? "" : ", ") + std::to_string(rank);
      }
      if (count > 8) missing += " and " + std::to_string(count - 8) + " more";
      throw UsageError("WORLD_SIZE=" + std::to_string(launch.world_size) + " did not fill up within " +
                       seconds_text(launch.join_timeout) + " (-T, or the default join timeout): rank(s) " + missing +
                       " never joined " + store.description());
    }
    std::this_thread::sleep_for(pause);
  }
}

// A failure after this rank had met the others may have a cause another rank already named: a
// late duplicate, or (file store) a record of an earlier run taken for a live rank. Its line,
// when there is one, is the better one to leave with.
void throw_verdict_if_any(JoinStore& store) {
  std::string verdict;
  try {
    if (store.has(kVerdictKey)) verdict = read_verdict(store, Milliseconds(0));
  } catch (const std::exception&) {
    return;  // the store is gone too; the caller says what failed
  }
  if (!verdict.empty()) throw UsageError(verdict);
}

// The store failed under a rank that was still joining: rank 0 ended (a verdict of its own, or a
// late duplicate's) or its host went away.
[[noreturn]] void lost_store(const JoinStore& store, const Error& e) {
  throw UsageError("lost " + store.description() + " while joining (rank 0 serves it; if it ended, its own line says why): " +
                   e.what());
}

// The address this rank's Gloo pairs listen on: GLOO_SOCKET_IFNAME's address; else MASTER_ADDR
// on rank 0 and, on the others, the local address that routes to it; else (a file store on
// one host) loopback.
std::string choose_bind_address(const StoreLaunch& launch, const std::string& master,
                                const std::vector<JoinRecord>& records) {
  if (!launch.interface.empty()) {
    try {
      return gloo_backend::interface_address(launch.interface);
    } catch (const UsageError& e) {
      throw UsageError("GLOO_SOCKET_IFNAME=" + launch.interface + ": " + e.what());
    }
  }
  if (!master.empty()) {
    if (launch.rank == 0) return master;
    try {
      return gloo_backend::source_address_for(master);
    } catch (const Error& e) {
      throw UsageError("MASTER_ADDR " + launch.master_address + ": " + e.what());
    }
  }
  const bool one_host = std::all_of(records.begin(), records.end(), [&](const JoinRecord& r) { return r.host == records[0].host; });
  if (!one_host) {
    throw UsageError("ranks on several hosts met in --rendezvous file:" + launch.file_directory +
                     ": set GLOO_SOCKET_IFNAME to the interface to use, or MASTER_ADDR to rank 0's address");
  }
  return "127.0.0.1";
}

using Reduction = void (*)(void*, const void*, const void*, std::size_t);

class GlooWorld final : public World {
 public:
  GlooWorld(const StoreLaunch& launch, std::unique_ptr<JoinStore> store, const std::vector<JoinRecord>& records,
            const std::string& bind_address)
      : store_(std::move(store)),
        rank_(launch.rank),
        size_(launch.world_size),
        host_(records[static_cast<std::size_t>(launch.rank)].host),
        bind_address_(bind_address),
        operation_timeout_(launch.operation_timeout) {
    local_rank_ = launch.local_rank;
    if (local_rank_ < 0) {
      local_rank_ = static_cast<int>(std::count_if(records.begin(), records.begin() + rank_,
                                                   [&](const JoinRecord& r) { return r.host == host_; }));
    }
    const Clock::time_point connect_start = Clock::now();
    const std::string connections = "the control plane's Gloo connections through " + store_->description();
    const std::string no_answer = " got no answer from some rank within " + seconds_text(launch.join_timeout) +
                                  " (-T, or the default join timeout; a rank stopped or frozen after joining?): ";
    try {
      gloo::transport::tcp::attr attributes;
      attributes.hostname = bind_address_;
      const std::set<int> threads_before = threads_of_this_process();
      std::shared_ptr<gloo::transport::Device> device = gloo::transport::tcp::CreateDevice(attributes);
      gloo_backend::calm_new_io_threads(threads_before, kGlooControlIoThreadName);  // the control plane's I/O thread too: io_thread.h
      auto context = std::make_shared<gloo::rendezvous::Context>(rank_, size_);
      context->setTimeout(launch.join_timeout);
      gloo::rendezvous::PrefixStore prefixed("collbench/control", store_->gloo_store());
      context->connectFullMesh(prefixed, device);
      context->setTimeout(operation_timeout_);
      context_ = std::move(context);
    } catch (const Error& e) {
      throw_verdict_if_any(*store_);
      // Only the store throws collbench's errors here: a key that never came is a rank that
      // stopped answering after joining (exit 4, see below); anything else, the store is gone.
      if (e.code() != ExitCode::kTimeout) lost_store(*store_, e);
      throw Error(connections + no_answer + e.what(), ExitCode::kTimeout);
    } catch (const std::exception& e) {
      throw_verdict_if_any(*store_);
      // Every rank had joined, so a connection that never came is a rank that stopped answering
      // (stopped, frozen) since: a timeout, exit 4, as when it stops later under the watchdog.
      const bool timed_out = Clock::now() - connect_start >= launch.join_timeout;
      throw Error(connections + " from " + bind_address_ + (timed_out ? no_answer : " failed: ") + e.what(),
                  timed_out ? ExitCode::kTimeout : ExitCode::kRuntimeError);
    }
    description_ = "gloo " + std::to_string(GLOO_VERSION_MAJOR) + "." + std::to_string(GLOO_VERSION_MINOR) + "." +
                   std::to_string(GLOO_VERSION_PATCH) + " over " + store_->description();
  }

  ~GlooWorld() override {
    // Every rank ends here together on a normal end; after the barrier nobody reads the store.
    if (ending_without_others_) return;
    try {
      gloo::BarrierOptions options(context_);
      options.setTimeout(operation_timeout_);  // rank 0 may still be writing its report
      gloo::barrier(options);
      store_->clean_up();
    } catch (const std::exception&) {
      // A rank left early; it has said why. Leave the files for the user to see.
    }
    context_.reset();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  std::string host() const override { return host_; }
  ControlPlane control_plane() const override { return ControlPlane::kGloo; }
  std::string listen_address() const override { return bind_address_; }
  std::string library_version() const override { return description_; }

  void barrier() override {
    guarded("gloo control plane: ", "barrier", [&] {
      gloo::BarrierOptions options(context_);
      gloo::barrier(options);
    });
  }

  void combine(std::vector<double>& values, Combine how) override {
    if (values.empty() || size_ == 1) return;
    const Reduction reduction = how == Combine::kMax   ? static_cast<Reduction>(&gloo::max<double>)
                                : how == Combine::kMin ? static_cast<Reduction>(&gloo::min<double>)
                                                       : static_cast<Reduction>(&gloo::sum<double>);
    guarded("gloo control plane: ", "allreduce", [&] {
      gloo::AllreduceOptions options(context_);
      options.setOutput(values.data(), values.size());
      options.setReduceFunction(reduction);
      gloo::allreduce(options);
    });
  }

  std::int64_t sum(std::int64_t value) override {
    if (size_ == 1) return value;
    guarded("gloo control plane: ", "allreduce", [&] {
      gloo::AllreduceOptions options(context_);
      options.setOutput(&value, 1);
      options.setReduceFunction(static_cast<Reduction>(&gloo::sum<std::int64_t>));
      gloo::allreduce(options);
    });
    return value;
  }

  std::vector<std::string> gather_strings(const std::string& mine) override {
    if (size_ == 1) return {mine};
    // One marker byte ahead of each string, so that no rank contributes an empty buffer.
    const std::string sent = '.' + mine;
    std::int64_t length = static_cast<std::int64_t>(sent.size());
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(size_));
    std::string all;
    guarded("gloo control plane: ", "allgather", [&] {
      gloo::AllgatherOptions sizes(context_);
      sizes.setInput(&length, 1);
      sizes.setOutput(lengths.data(), lengths.size());
      gloo::allgather(sizes);
      std::vector<std::size_t> elements(lengths.begin(), lengths.end());
      std::size_t total = 0;
      for (std::size_t each : elements) total += each;
      all.assign(total, '\0');
      gloo::AllgathervOptions strings(context_);
      strings.setInput(const_cast<char*>(sent.data()), sent.size());
      strings.setOutput(all.data(), elements);
      gloo::allgatherv(strings);
    });
    std::vector<std::string> out;
    std::size_t offset = 0;
    for (std::int64_t each : lengths) {
      out.push_back(all.substr(offset + 1, static_cast<std::size_t>(each) - 1));
      offset += static_cast<std::size_t>(each);
    }
    return out;
  }

  // Through the store rather than Gloo: rank 0 needs no size exchange, and what it shares (an
  // NCCL unique id, where to send heartbeats) is in the store for every rank to read.
  std::string broadcast_string(const std::string& from_rank_zero) override {
    const std::string key = "collbench/broadcast/" + std::to_string(broadcasts_++);
    if (size_ == 1) return from_rank_zero;
    if (rank_ == 0) {
      // Claimed, not set: a value already there was written by a process outside this job (a
      // shared MASTER_PORT, a stray client), and the others may have read it.
      if (store_->claim(key, from_rank_zero) != from_rank_zero) {
        throw Error("another process wrote collbench's key '" + key + "' into " + store_->description() +
                    " before rank 0 did: is MASTER_PORT used by another job? (COLLBENCH_JOB_TOKEN keeps others out)");
      }
      return from_rank_zero;
    }
    return store_->get(key, operation_timeout_);
  }

  bool has_verdict() { return store_->has(kVerdictKey); }
  // Whether any rank found a verdict, decided together under the join's deadline rather than the
  // longer one of later calls: a rank stopped since it joined is a timeout within -T (exit 4).
  bool any_rank_has_verdict(Milliseconds join_timeout) {
    const bool mine = has_verdict();
    context_->setTimeout(join_timeout);
    const Clock::time_point start = Clock::now();
    try {
      const bool any = sum(mine ? 1 : 0) > 0;
      context_->setTimeout(operation_timeout_);
      return any;
    } catch (const Error& e) {
      ending_without_others_ = true;  // no barrier on the way out: a rank is not answering
      if (Clock::now() - start < join_timeout) throw;
      throw Error("a rank stopped answering after joining: no answer within " + seconds_text(join_timeout) +
                      " (-T, or the default join timeout): " + e.what(),
                  ExitCode::kTimeout);
    }
  }
  std::string verdict() { return read_verdict(*store_, operation_timeout_); }

  [[noreturn]] void abort(int exit_code) override {
    // No launcher to end the others: they see this rank's connections close (or, with -T, its
    // heartbeats stop) and end with their own line.
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(exit_code);
  }

 private:
  std::unique_ptr<JoinStore> store_;  // outlives the context: rank 0 serves it to the others
  std::shared_ptr<gloo::Context> context_;
  int rank_;
  int size_;
  int local_rank_ = 0;
  std::string host_;
  std::string bind_address_;
  Milliseconds operation_timeout_;
  std::string description_;
  std::uint64_t broadcasts_ = 0;
  bool ending_without_others_ = false;
};

}  // namespace

std::unique_ptr<World> join_gloo_world(const StoreLaunch& launch, const std::function<void()>& on_met) {
  std::string master;  // MASTER_ADDR as a numeric address
  if (!launch.master_address.empty()) {
    try {
      master = gloo_backend::numeric_address(launch.master_address);
    } catch (const UsageError& e) {
      throw UsageError("MASTER_ADDR " + std::string(e.what()));
    }
  }
  std::unique_ptr<JoinStore> store;
  if (launch.file_directory.empty()) store = std::make_unique<TcpJoinStore>(launch, master);
  else store = std::make_unique<FileJoinStore>(launch);
  JoinRecord mine{launch.world_size, this_host(), static_cast<long long>(::getpid())};
  std::vector<JoinRecord> records;
  try {
    records = meet(*store, launch, mine);
  } catch (const UsageError&) {
    // Rank 0 serves the TCP store: it stays a moment, so that the others read the verdict
    // rather than a closed connection.
    if (launch.rank == 0 && launch.file_directory.empty()) std::this_thread::sleep_for(std::chrono::seconds(1));
    throw;
  } catch (const Error& e) {
    lost_store(*store, e);
  }
  if (on_met) on_met();
  const std::string bind_address = choose_bind_address(launch, master, records);
  auto world = std::make_unique<GlooWorld>(launch, std::move(store), records, bind_address);
  // A process that found its RANK taken after the others had met (a late duplicate) left its
  // verdict; every rank leaves with it, decided together.
  if (world->any_rank_has_verdict(launch.join_timeout)) throw UsageError(world->verdict());
  return world;
}

}  // namespace collbench
