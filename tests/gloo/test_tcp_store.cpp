// The rendezvous store on loopback: set/get/wait, waits that end when another client sets the
// key, a get that times out with an error naming the key, and bad addresses refused in one line.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "backends/rendezvous/tcp_store.h"
#include "core/error.h"

namespace collbench::rendezvous {
namespace {

using std::chrono::milliseconds;

std::vector<char> bytes(const std::string& text) { return {text.begin(), text.end()}; }
std::string text(const std::vector<char>& data) { return {data.begin(), data.end()}; }

TEST(TcpStore, ListensOnTheGivenAddressAndAKernelChosenPort) {
  TcpStoreServer server({"127.0.0.1", 0});
  EXPECT_EQ(server.address().host, "127.0.0.1");
  EXPECT_GT(server.address().port, 0);
}

TEST(TcpStore, SetThenGetAndWait) {
  TcpStoreServer server({"127.0.0.1", 0});
  TcpStoreClient client(server.address(), milliseconds(2000));
  client.set("rank_0", bytes("address of rank 0"));
  client.set("empty", {});
  EXPECT_EQ(text(client.get("rank_0", milliseconds(1000))), "address of rank 0");
  EXPECT_TRUE(client.get("empty", milliseconds(1000)).empty());
  client.set("rank_0", bytes("replaced"));
  EXPECT_EQ(text(client.get("rank_0", milliseconds(1000))), "replaced");
  EXPECT_NO_THROW(client.wait({"rank_0", "empty"}, milliseconds(1000)));
}

TEST(TcpStore, LargeValuesArriveWhole) {
  TcpStoreServer server({"127.0.0.1", 0});
  TcpStoreClient client(server.address(), milliseconds(2000));
  std::vector<char> large(3 << 20);
  for (std::size_t i = 0; i < large.size(); ++i) large[i] = static_cast<char>(i * 7);
  client.set("large", large);
  EXPECT_EQ(client.get("large", milliseconds(2000)), large);
}

TEST(TcpStore, GetAndWaitEndWhenAnotherClientSetsTheKey) {
  TcpStoreServer server({"127.0.0.1", 0});
  TcpStoreClient waiter(server.address(), milliseconds(2000));
  std::thread setter([address = server.address()] {
    TcpStoreClient other(address, milliseconds(2000));
    std::this_thread::sleep_for(milliseconds(150));
    other.set("late", bytes("here"));
    other.set("later", bytes("too"));
  });
  EXPECT_EQ(text(waiter.get("late", milliseconds(5000))), "here");
  EXPECT_NO_THROW(waiter.wait({"late", "later"}, milliseconds(5000)));
  setter.join();
}

TEST(TcpStore, AClaimIsWonOnceAndShowsTheWinnerToTheOthers) {
  TcpStoreServer server({"127.0.0.1", 0});
  TcpStoreClient first(server.address(), milliseconds(2000));
  TcpStoreClient second(server.address(), milliseconds(2000));
  EXPECT_FALSE(first.has("rank/1"));
  EXPECT_EQ(text(first.claim("rank/1", bytes("pid 10"))), "pid 10");
  EXPECT_EQ(text(second.claim("rank/1", bytes("pid 20"))), "pid 10");
  EXPECT_TRUE(second.has("rank/1"));
  EXPECT_EQ(text(second.get("rank/1", milliseconds(100))), "pid 10");
}

TEST(TcpStore, AClaimEndsAWaitForItsKey) {
  TcpStoreServer server({"127.0.0.1", 0});
  TcpStoreClient waiter(server.address(), milliseconds(2000));
  std::thread claimer([address = server.address()] {
    TcpStoreClient other(address, milliseconds(2000));
    std::this_thread::sleep_for(milliseconds(100));
    other.claim("claimed", bytes("mine"));
  });
  EXPECT_EQ(text(waiter.get("claimed", milliseconds(5000))), "mine");
  claimer.join();
}

TEST(TcpStore, GetOfAMissingKeyTimesOutWithAClearError) {
  TcpStoreServer server({"127.0.0.1", 0});
  TcpStoreClient client(server.address(), milliseconds(2000));
  const auto start = std::chrono::steady_clock::now();
  try {
    client.get("never_set", milliseconds(200));
    FAIL() << "a get of a key nobody sets returned";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("key 'never_set' was not set within 200 ms"), std::string::npos) << message;
    EXPECT_NE(message.find(server.address().text()), std::string::npos) << message;
    EXPECT_EQ(e.code(), ExitCode::kTimeout);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  // The connection stays usable after a timeout.
  client.set("after", bytes("ok"));
  EXPECT_EQ(text(client.get("after", milliseconds(1000))), "ok");
}

TEST(TcpStore, WaitNamesTheMissingKey) {
  TcpStoreServer server({"127.0.0.1", 0});
  TcpStoreClient client(server.address(), milliseconds(2000));
  client.set("present", bytes("x"));
  try {
    client.wait({"present", "absent"}, milliseconds(100));
    FAIL() << "wait for a key nobody sets returned";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("key 'absent'"), std::string::npos) << e.what();
  }
}

TEST(TcpStore, NoServerMeansAnErrorWithinTheConnectTimeout) {
  StoreAddress unused{"127.0.0.1", 0};
  {
    TcpStoreServer server(unused);
    unused = server.address();
  }  // closed again: nothing listens on that port now
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(TcpStoreClient(unused, milliseconds(300)), Error);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(TcpStore, BadAddressesAreRefusedInOneSentence) {
  EXPECT_THROW(parse_store_address("no-port"), UsageError);
  EXPECT_THROW(parse_store_address("host:"), UsageError);
  EXPECT_THROW(parse_store_address(":29500"), UsageError);
  EXPECT_THROW(parse_store_address("host:65536"), UsageError);
  EXPECT_THROW(parse_store_address("host:12ab"), UsageError);
  EXPECT_THROW(parse_store_address("::1:29500"), UsageError);
  EXPECT_EQ(parse_store_address("[::1]:29500").host, "::1");
  EXPECT_EQ(parse_store_address("node7:29500").port, 29500);
  EXPECT_EQ(parse_store_address("[::1]:29500").text(), "[::1]:29500");
  // An address this host does not have cannot be listened on (RFC 5737 documentation range).
  try {
    TcpStoreServer server({"192.0.2.1", 0});
    FAIL() << "listened on an address this host does not have";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot listen on 192.0.2.1:0"), std::string::npos) << e.what();
  }
}


// Issue 19: the store trusts no one who connects.
TEST(TcpStore, AWrongTokenIsRefusedWithExitCode2) {
  TcpStoreServer server({"127.0.0.1", 0}, "job-7");
  EXPECT_NO_THROW(TcpStoreClient(server.address(), milliseconds(2000), "job-7"));
  for (const std::string wrong : {"", "job-8", "job-77"}) {
    try {
      TcpStoreClient client(server.address(), milliseconds(2000), wrong);
      FAIL() << "token '" << wrong << "' was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
      EXPECT_NE(std::string(e.what()).find("wrong job token"), std::string::npos) << e.what();
    }
  }
}

TEST(TcpStore, TotalsAreBoundedAndTheStoreKeepsServing) {
  StoreLimits limits;
  limits.max_total_bytes = 1 << 20;
  limits.max_keys = 8;
  TcpStoreServer server({"127.0.0.1", 0}, "", limits);
  TcpStoreClient client(server.address(), milliseconds(2000));
  client.set("a", std::vector<char>(600 << 10, 'x'));
  EXPECT_THROW(client.set("b", std::vector<char>(600 << 10, 'x')), Error);  // over the total
  client.set("a", std::vector<char>(10, 'y'));  // replacing frees what it held
  client.set("b", std::vector<char>(600 << 10, 'x'));
  for (int i = 0; i < 6; ++i) client.set("k" + std::to_string(i), bytes("v"));
  EXPECT_THROW(client.set("one-too-many", bytes("v")), Error);  // over the key count
  EXPECT_EQ(text(client.get("k5", milliseconds(1000))), "v");
}

TEST(TcpStore, TooManyConnectionsAreRefusedNotQueued) {
  StoreLimits limits;
  limits.max_connections = 2;
  TcpStoreServer server({"127.0.0.1", 0}, "", limits);
  TcpStoreClient first(server.address(), milliseconds(2000));
  TcpStoreClient second(server.address(), milliseconds(2000));
  EXPECT_THROW(TcpStoreClient(server.address(), milliseconds(2000)), Error);
  first.set("still", bytes("served"));
  EXPECT_EQ(text(second.get("still", milliseconds(1000))), "served");
}


}  // namespace
}  // namespace collbench::rendezvous
