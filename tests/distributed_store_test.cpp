// The distributed layer without a GPU (issue 23): the TCP and file stores (several
// processes at once, deadlines, refused connections), the launcher's environment
// with its error sentences, the sharding arithmetic, and the CPU process group.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "distributed/distributed.h"
#include "support/test_util.h"

namespace tt::distributed {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using tt::test::error_of;
using namespace std::chrono_literals;

// A port nobody listens on: the kernel gives a free one to a server that then closes.
int free_port() {
  TCPStore probe("127.0.0.1", 0, /*is_server=*/true, 1s);
  return probe.port();
}

std::string temp_path(const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() /
                 fmt::format("tt_dist_{}_{}", name, static_cast<long>(::getpid()));
  std::filesystem::remove(p);
  return p.string();
}

TEST(TCPStore, SetGetAddCheckInOneProcess) {
  TCPStore server("127.0.0.1", 0, true, 5s);
  TCPStore client("127.0.0.1", server.port(), false, 5s);
  server.set("a", std::string("x\0y", 3));
  EXPECT_EQ(client.get("a"), std::string("x\0y", 3));
  EXPECT_EQ(client.add("n", 2), 2);
  EXPECT_EQ(server.add("n", 3), 5);
  EXPECT_TRUE(client.check({"a", "n"}));
  EXPECT_FALSE(client.check({"a", "missing"}));
  client.set("a", "");  // an empty value is a value
  EXPECT_EQ(server.get("a"), "");
  EXPECT_EQ(error_of([&] { client.add("a2", 1), client.set("s", "word"), client.add("s", 1); }),
            fmt::format("TCPStore 127.0.0.1:{}: 'add 's'' needs an integer counter, but the key "
                        "holds another value.",
                        server.port()));
}

TEST(TCPStore, GetWaitsForALaterSet) {
  TCPStore server("127.0.0.1", 0, true, 5s);
  std::thread late([port = server.port()] {
    TCPStore c("127.0.0.1", port, false, 5s);
    std::this_thread::sleep_for(100ms);
    c.set("late", "here");
  });
  EXPECT_EQ(server.get("late"), "here");
  late.join();
}

TEST(TCPStore, GetTimesOutWithASentence) {
  TCPStore server("127.0.0.1", 0, true, 200ms);
  EXPECT_EQ(error_of([&] { server.get("never"); }),
            fmt::format("TCPStore 127.0.0.1:{}: waited 0.2 s for the key 'never', which no "
                        "process set; did every rank start (WORLD_SIZE) and reach the same "
                        "point? (TT_DIST_TIMEOUT_S sets the wait)",
                        server.port()));
  EXPECT_THAT(error_of([&] { server.wait({"a", "b"}, 50ms); }), HasSubstr("the keys 'a', 'b'"));
}

TEST(TCPStore, RefusedConnectionIsASentenceAfterTheDeadline) {
  const int port = free_port();
  EXPECT_EQ(error_of([&] { TCPStore("127.0.0.1", port, false, 200ms); }),
            fmt::format("TCPStore could not connect to 127.0.0.1:{} within 0.2 s: Connection "
                        "refused; is rank 0 running, and do MASTER_ADDR and MASTER_PORT name it?",
                        port));
}

TEST(TCPStore, ClientStartedBeforeTheServerConnects) {
  const int port = free_port();
  std::thread server_thread([port] {
    std::this_thread::sleep_for(150ms);
    TCPStore server("127.0.0.1", port, true, 5s);
    server.wait({"done"});
  });
  TCPStore client("127.0.0.1", port, false, 5s);
  client.set("done", "1");
  server_thread.join();
}

TEST(TCPStore, PortInUseAndBadArguments) {
  TCPStore server("127.0.0.1", 0, true, 1s);
  EXPECT_EQ(error_of([&] { TCPStore("127.0.0.1", server.port(), true, 1s); }),
            fmt::format("TCPStore (rank 0) could not listen on port {}: Address already in use; "
                        "pick another MASTER_PORT (tt launch --master-port) or stop the process "
                        "that holds it.",
                        server.port()));
  EXPECT_EQ(error_of([] { TCPStore("127.0.0.1", 70000, false, 1s); }),
            "TCPStore expects a port in 0..65535, but got 70000.");
  EXPECT_THAT(error_of([] { TCPStore("no-such-host.invalid", 1234, false, 1s); }),
              StartsWith("TCPStore could not resolve the address 'no-such-host.invalid' "
                         "(MASTER_ADDR): "));
}

TEST(TCPStore, ServerGoneIsASentence) {
  auto server = std::make_unique<TCPStore>("127.0.0.1", 0, true, 1s);
  TCPStore client("127.0.0.1", server->port(), false, 1s);
  client.set("k", "v");
  server.reset();
  EXPECT_THAT(error_of([&] { client.set("k", "v"), client.get("k"); }),
              ::testing::AnyOf(HasSubstr("did rank 0 exit?"), HasSubstr("no answer")));
}

// Eight processes count into one server and publish a key each; the parent sees all.
TEST(TCPStore, SeveralProcessesMeet) {
  TCPStore server("127.0.0.1", 0, true, 10s);
  const int port = server.port();
  std::vector<std::string> keys;
  for (int i = 0; i < 8; ++i) keys.push_back("rank" + std::to_string(i));
  // The parent releases the children once all eight have published their key.
  std::thread releaser([&] {
    TCPStore c("127.0.0.1", port, false, 10s);
    c.wait(keys);
    c.set("go", "");
  });
  const int failed = tt::test::run_in_processes(8, [port](int i) {
    TCPStore c("127.0.0.1", port, false, 10s);
    c.add("count", 1);
    c.set("rank" + std::to_string(i), std::to_string(i * i));
    c.wait({"go"});
  });
  releaser.join();
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(server.add("count", 0), 8);
  EXPECT_EQ(server.get("rank7"), "49");
}

TEST(FileStore, SetGetAddAcrossProcesses) {
  const std::string path = temp_path("filestore");
  {
    FileStore store(path, 10s);
    EXPECT_EQ(tt::test::run_in_processes(6,
                                         [&](int i) {
                                           FileStore s(path, 10s);
                                           s.add("count", 1);
                                           s.set("k" + std::to_string(i), std::string(i, 'x'));
                                         }),
              0);
    EXPECT_EQ(store.add("count", 0), 6);
    EXPECT_EQ(store.get("k5"), "xxxxx");
    EXPECT_EQ(store.get("k0"), "");
    store.set("k5", "new");
    EXPECT_EQ(store.get("k5"), "new");
    store.set_timeout(100ms);
    EXPECT_EQ(error_of([&] { store.get("never"); }),
              "FileStore " + path +
                  ": waited 0.1 s for the key 'never', which no process set; did every rank "
                  "start (WORLD_SIZE) and reach the same point? (TT_DIST_TIMEOUT_S sets the wait)");
  }
  std::filesystem::remove(path);
  EXPECT_EQ(error_of([] { FileStore("/nonexistent-dir/x", 1s); }),
            "FileStore could not open /nonexistent-dir/x: No such file or directory.");
}

TEST(DefaultTimeout, ReadsTheEnvironment) {
  ::unsetenv("TT_DIST_TIMEOUT_S");
  EXPECT_EQ(default_timeout(), 300s);
  ::setenv("TT_DIST_TIMEOUT_S", "2.5", 1);
  EXPECT_EQ(default_timeout(), 2500ms);
  ::setenv("TT_DIST_TIMEOUT_S", "soon", 1);
  EXPECT_EQ(error_of([] { default_timeout(); }),
            "TT_DIST_TIMEOUT_S must be a positive number of seconds, but it is 'soon'.");
  ::unsetenv("TT_DIST_TIMEOUT_S");
}

class LaunchEnvTest : public ::testing::Test {
 protected:
  void SetUp() override { set_all("1", "2", "1", "127.0.0.1", "29511"); }
  void TearDown() override {
    for (const char* n : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"})
      ::unsetenv(n);
  }
  static void set_all(const char* rank, const char* world, const char* local, const char* addr,
                      const char* port) {
    ::setenv("RANK", rank, 1);
    ::setenv("WORLD_SIZE", world, 1);
    ::setenv("LOCAL_RANK", local, 1);
    ::setenv("MASTER_ADDR", addr, 1);
    ::setenv("MASTER_PORT", port, 1);
  }
};

TEST_F(LaunchEnvTest, ReadsTorchrunsNames) {
  const LaunchEnv env = read_launch_env();
  EXPECT_EQ(env.rank, 1);
  EXPECT_EQ(env.world_size, 2);
  EXPECT_EQ(env.local_rank, 1);
  EXPECT_EQ(env.master_addr, "127.0.0.1");
  EXPECT_EQ(env.master_port, 29511);
}

TEST_F(LaunchEnvTest, MissingAndMalformedValuesAreSentences) {
  const std::string how =
      "start the program with `tt launch -n N` or torchrun, which set RANK, WORLD_SIZE, "
      "LOCAL_RANK, MASTER_ADDR and MASTER_PORT.";
  // One variable made wrong at a time (nullptr: unset), then put right again (nullptr:
  // left wrong, for init() below).
  struct Case {
    const char* name;
    const char* wrong;
    const char* right;
    std::string message;
  };
  const Case cases[] = {
      {"RANK", nullptr, "2",
       "tt::distributed::init() needs the environment variable RANK, but it is not set; " + how},
      {"RANK", "2", "0",
       "The environment variable RANK must be an integer in 0..1 (WORLD_SIZE is 2), but it is "
       "'2'."},
      {"WORLD_SIZE", "two", "2",
       "The environment variable WORLD_SIZE must be a positive integer, but it is 'two'."},
      {"MASTER_PORT", "0", "29500",
       "The environment variable MASTER_PORT must be a port number in 1..65535, but it is '0'."},
      {"MASTER_ADDR", "", nullptr,
       "tt::distributed::init() needs the environment variable MASTER_ADDR, but it is empty; " +
           how},
  };
  for (const Case& c : cases) {
    if (c.wrong) {
      ::setenv(c.name, c.wrong, 1);
    } else {
      ::unsetenv(c.name);
    }
    EXPECT_EQ(error_of([] { read_launch_env(); }), c.message);
    if (c.right) ::setenv(c.name, c.right, 1);
  }
  EXPECT_EQ(error_of([] { init(); }),
            error_of([] { read_launch_env(); }));  // init() reads the same way
}

TEST(Sharding, EvenSplitsAndRefusals) {
  EXPECT_EQ(even_shard(12, 0, 4, "x").start, 0);
  const Shard s = even_shard(12, 3, 4, "x");
  EXPECT_EQ(s.start, 9);
  EXPECT_EQ(s.length, 3);
  EXPECT_EQ(even_shard(7, 0, 1, "x").length, 7);
  EXPECT_EQ(error_of([] { even_shard(10, 0, 4, "ColumnParallelLinear's out_features"); }),
            "ColumnParallelLinear's out_features (10) does not split evenly over 4 ranks (10 % 4 "
            "= 2); tensor parallelism needs a multiple of the world size.");
  EXPECT_EQ(error_of([] { even_shard(8, 2, 2, "x"); }),
            "x: the rank must be in 0..1, but it is 2.");
  EXPECT_EQ(error_of([] { even_shard(8, 0, 0, "x"); }),
            "x: the world size must be at least 1, but it is 0.");
}

TEST(Sharding, TensorsAndBlocks) {
  const Tensor full = Tensor::arange(24).to(DType::F32).reshape({6, 4});
  const Tensor rows = shard_tensor(full, 0, 1, 3, "w");
  EXPECT_EQ(rows.to_vector<float>(), std::vector<float>({8, 9, 10, 11, 12, 13, 14, 15}));
  const Tensor cols = shard_tensor(full, -1, 1, 2, "w");
  EXPECT_EQ(cols.sizes(), Shape({6, 2}));
  EXPECT_EQ(cols.to_vector<float>()[0], 2.0f);
  // Three blocks of two rows (q, k, v), rank 1 of 2: rows 1, 3, 5.
  const Tensor qkv = shard_blocks(full, 0, 3, 1, 2, "qkv");
  EXPECT_EQ(qkv.to_vector<float>(),
            std::vector<float>({4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23}));
  EXPECT_EQ(error_of([&] { shard_blocks(full, 0, 3, 0, 4, "qkv.weight"); }),
            "qkv.weight (2) does not split evenly over 4 ranks (2 % 4 = 2); tensor parallelism "
            "needs a multiple of the world size.");
}

TEST(CpuGroup, OneRankIsTheIdentity) {
  auto g = make_cpu_group(0, 1, nullptr, 1s);
  EXPECT_EQ(g->describe(), "rank 0 of 1 on cpu");
  const Tensor t = Tensor::arange(6).to(DType::F32);
  g->all_reduce(t, ReduceOp::Max);
  EXPECT_EQ(t.to_vector<float>(), std::vector<float>({0, 1, 2, 3, 4, 5}));
  const auto parts = g->all_gather(t);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].to_vector<float>(), t.to_vector<float>());
  const Tensor out = Tensor::zeros({6});
  g->reduce_scatter(out, t);
  EXPECT_EQ(out.to_vector<float>(), t.to_vector<float>());
  g->broadcast(t, 0);
  g->barrier();
  EXPECT_EQ(error_of([&] {
              g->all_reduce(t.view({2, 3}).t());
            }),
            "all_reduce expects a contiguous input tensor (collectives read and write memory in "
            "order), but got one with sizes 3x2 and strides 1x3; call .contiguous() first.");
  EXPECT_EQ(error_of([&] { g->all_gather_into_tensor(Tensor::zeros({5}), t); }),
            "all_gather expects an output of 1 ranks x 6 = 6 elements, but got 5.");
  EXPECT_EQ(error_of([&] { g->reduce_scatter(Tensor::zeros({6}, DType::I64), t); }),
            "reduce_scatter expects the output's dtype to be the input's (float32), but got "
            "int64.");
  EXPECT_EQ(error_of([&] { g->broadcast(t, 1); }),
            "broadcast expects a source rank in 0..0, but got 1.");
  EXPECT_EQ(error_of([&] { g->all_reduce(Tensor::zeros({2}, DType::Bool)); }),
            "all_reduce with sum expects a numeric tensor, but got bool; use max for a logical "
            "or.");
}

TEST(CpuGroup, SeveralRanksMeetButRefuseData) {
  TCPStore server("127.0.0.1", 0, true, 5s);
  const int port = server.port();
  std::vector<std::string> errors(3);
  std::vector<std::thread> ranks;
  for (int r = 0; r < 3; ++r)
    ranks.emplace_back([&, r] {
      auto store = std::make_shared<TCPStore>("127.0.0.1", port, false, 5s);
      auto g = make_cpu_group(r, 3, store, 5s);
      g->barrier();
      g->barrier();
      errors[r] = error_of([&] { g->all_reduce(Tensor::zeros({2})); });
    });
  for (auto& t : ranks) t.join();
  EXPECT_EQ(errors[2],
            "all_reduce on the CPU needs a group of one rank (the CPU has no NCCL), but this "
            "group has 3 ranks; run each rank on its own CUDA device.");
}

TEST(CpuGroup, BarrierTimesOutWhenARankNeverComes) {
  // The store's own deadline bounds rank 0's exit handshake at the end.
  auto store = std::make_shared<TCPStore>("127.0.0.1", 0, true, 300ms);
  auto g = make_cpu_group(0, 2, store, 200ms);
  EXPECT_EQ(error_of([&] { g->barrier(); }),
            "barrier: rank 0 waited 0.2 s but only 1 of 2 ranks arrived; did a rank stop or take "
            "another path? (TT_DIST_TIMEOUT_S sets the wait)");
}

TEST(Init, DefaultGroupLifecycle) {
  EXPECT_FALSE(is_initialized());
  EXPECT_EQ(error_of([] { default_group(); }),
            "No process group: call tt::distributed::init() (under tt launch or torchrun) first.");
  init(0, 1, nullptr, Device::cpu());
  EXPECT_TRUE(is_initialized());
  EXPECT_EQ(default_group()->size(), 1);
  EXPECT_EQ(error_of([] { init(0, 1, nullptr, Device::cpu()); }),
            "tt::distributed::init() was already called in this process (rank 0 of 1 on cpu); "
            "call tt::distributed::destroy() first.");
  destroy();
  EXPECT_FALSE(is_initialized());
}

}  // namespace
}  // namespace tt::distributed
