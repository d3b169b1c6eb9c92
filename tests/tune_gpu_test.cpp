// The autotuner on a real GPU (skipped without one): the on-device relative error;
// a sweep of every kernel of every seed model at the small shape, where every config
// is either verified or rejected with a reason and every winner is verified; a run
// that loads the database the sweep wrote and launches the tuned configs (source
// exact) with correct results; forcing configs through lookup scopes; and `tt tune`,
// `tt run --show-configs`, `tt bench --configs both` as a user runs them. Without a
// GPU, `tt tune` must exit with code 3.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "autotune/database.h"
#include "autotune/device_identity.h"
#include "autotune/lookup.h"
#include "autotune/report.h"
#include "core/tensor.h"
#include "models/fixture_check.h"
#include "models/registry.h"
#include "models/tune_model.h"
#include "ops/graph/compile.h"
#include "ops/ops.h"
#include "support/test_util.h"
#if TT_CUDA
#include "autotune/relative_error.h"
#endif

namespace tt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

#if TT_CUDA
using tt::test::read_file;
#endif

test::CommandResult tt(const std::string& args) {
  return test::run_command(std::string("'") + TT_CLI_PATH + "' " + args);
}

// A private cache and database directory per test, so that neither the user's cache
// nor another test's database takes part.
class Tune : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / fmt::format("tt_tune_{}_{}", info->name(), getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    setenv("XDG_CACHE_HOME", (dir_ / "cache").c_str(), 1);
    unsetenv("TT_TUNING_DB");
    autotune::set_database_path("");
    autotune::clear_configs_used();
  }
  void TearDown() override {
    autotune::set_database_path("");
    fs::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(Tune, WithoutAGpuTheCommandExitsWithCode3) {
  if (test::cuda_available()) GTEST_SKIP() << "a CUDA device is present";
  const test::CommandResult r = tt("tune GemmBiasReLU --shape small --db " + path("db.yaml"));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  // The user typed no --device, so the message names the command, not the flag.
  EXPECT_THAT(r.output, HasSubstr("error: tt tune (on cuda:0 by default) needs CUDA"));
  EXPECT_FALSE(fs::exists(path("db.yaml")));
}

#if TT_CUDA

TEST_F(Tune, DeviceRelativeErrorMatchesTheHostMetricAndFlagsNaN) {
  TT_REQUIRE_CUDA();
  const Device gpu = Device::cuda(0);
  const Tensor ref = Tensor::rand({1000, 37}, 1, gpu);
  const Tensor out = Tensor::uniform({1000, 37}, -1e-3, 1e-3, 2, gpu);
  const Tensor near = ops::add(ref, out);
  EXPECT_NEAR(autotune::device_relative_l2_error(near, ref), models::relative_l2_error(near, ref),
              1e-9);
  EXPECT_EQ(autotune::device_relative_l2_error(ref, ref), 0.0);
  const Tensor nan =
      Tensor::full({1000, 37}, std::numeric_limits<double>::quiet_NaN(), DType::F32, gpu);
  EXPECT_TRUE(std::isinf(autotune::device_relative_l2_error(nan, ref)));
  EXPECT_THROW(autotune::device_relative_l2_error(ref, Tensor::rand({10}, 1, gpu)), Error);
}

// Sweeps every seed model at the small shape, checks every measurement, saves the
// database, and runs each model again with it.
TEST_F(Tune, EverySmallModelIsSweptVerifiedSavedAndThenUsed) {
  TT_REQUIRE_CUDA();
  const autotune::DeviceIdentity& device = autotune::current_device_identity(0);
  autotune::Database db;
  std::map<std::string, std::vector<autotune::SweepResult>> swept;
  for (const models::ModelInfo& info : models::registered_models()) {
    models::TuneOptions o;
    o.shape = "small";
    // Generous: a sweep takes seconds, but compute-sanitizer slows it tenfold and a
    // budget that runs out samples the space (asserted against below).
    o.budget_s = 900;
    const models::ModelTuneResult r = models::tune_model(info, o, db);
    ASSERT_EQ(r.error, "") << info.name;
    EXPECT_TRUE(r.saved) << info.name;
    EXPECT_TRUE(r.untuned.empty()) << info.name;
    ASSERT_FALSE(r.kernels.empty()) << info.name;
    EXPECT_LE(r.combined_rel_err, r.tolerance) << info.name;
    for (const autotune::SweepResult& k : r.kernels) {
      const std::string what = info.name + " " + k.kernel + " " + k.problem;
      ASSERT_TRUE(k.has_winner) << what << ": " << k.error;
      EXPECT_FALSE(k.sampled) << what;  // small spaces are swept whole
      int winners = 0;
      for (const autotune::Measurement& m : k.measurements) {
        if (m.ok()) {
          EXPECT_LE(m.rel_err, r.tolerance) << what << " " << m.config.str();
          EXPECT_GT(m.median_ms, 0) << what << " " << m.config.str();
        } else {
          EXPECT_TRUE(m.rejected()) << what << " " << m.config.str() << " " << m.status;
          EXPECT_FALSE(m.reason.empty()) << what << " " << m.config.str();
        }
        if (m.is_winner) {
          ++winners;
          EXPECT_TRUE(m.ok()) << what;
          EXPECT_EQ(m.config, k.winner) << what;
        }
      }
      EXPECT_EQ(winners, 1) << what;
      EXPECT_EQ(k.entry.config, k.winner) << what;
      EXPECT_GT(k.entry.default_ms, 0) << what;
      EXPECT_LE(k.entry.median_ms, k.entry.default_ms) << what;
      EXPECT_EQ(static_cast<size_t>(k.entry.rejected.size()),
                static_cast<size_t>(
                    std::count_if(k.measurements.begin(), k.measurements.end(),
                                  [](const autotune::Measurement& m) { return m.rejected(); })))
          << what;
    }
    swept[info.name] = r.kernels;
  }
  ASSERT_GT(db.entry_count(), 0u);
  autotune::save_database(path("db.yaml"), db);
  const autotune::Database loaded = autotune::load_database(path("db.yaml"));
  EXPECT_EQ(loaded.entry_count(), db.entry_count());

  autotune::set_database_path(path("db.yaml"));
  for (const models::ModelInfo& info : models::registered_models()) {
    const models::ShapePreset& preset = info.small;
    auto cpu_model = models::build_model(info.name, preset.init, 0);
    auto gpu_built = models::build_model(info.name, preset.init, 0);
    gpu_built->to(Device::cuda(0));
    // Tuned compiled: the first forward records, the second replays the fused groups.
    auto gpu_model = tt::compile(gpu_built);
    const std::vector<Tensor> cpu_inputs = models::random_inputs(preset.input_shapes, 0);
    std::vector<Tensor> gpu_inputs;
    for (const Tensor& t : cpu_inputs) gpu_inputs.push_back(t.to(Device::cuda(0)));
    gpu_model->forward(gpu_inputs);
    autotune::clear_configs_used();
    const Tensor out = gpu_model->forward(gpu_inputs).at(0);
    const Tensor ref = cpu_model->forward(cpu_inputs).at(0);
    EXPECT_LE(models::relative_l2_error(out, ref), 1e-5) << info.name;
    const auto used = autotune::configs_used();
    ASSERT_FALSE(used.empty()) << info.name;
    for (const autotune::UsedConfig& u : used) {
      const autotune::TuningEntry* e = loaded.find(device.key(), u.kernel, u.problem);
      ASSERT_NE(e, nullptr) << info.name << " " << u.kernel << " " << u.problem;
      EXPECT_EQ(u.result.source, autotune::ConfigSource::Exact) << u.kernel;
      EXPECT_EQ(u.result.config, e->config) << u.kernel;
      EXPECT_EQ(u.result.database, path("db.yaml"));
    }
  }
}

TEST_F(Tune, ScopesForceTheConfigsAKernelLaunches) {
  TT_REQUIRE_CUDA();
  const models::ModelInfo& info = models::find_model("GemmBiasReLU");
  auto cpu_model = models::build_model(info.name, info.small.init, 3);
  auto gpu_built = models::build_model(info.name, info.small.init, 3);
  gpu_built->to(Device::cuda(0));
  auto gpu_model = tt::compile(gpu_built);  // the replays below run the fused group
  const std::vector<Tensor> inputs = models::random_inputs(info.small.input_shapes, 3);
  const Tensor ref = cpu_model->forward(inputs).at(0);
  const std::vector<Tensor> gpu_inputs = {inputs[0].to(Device::cuda(0))};
  gpu_model->forward(gpu_inputs);
  const std::string own = "impl=own,bm=64,bn=64,bk=8,tm=8,tn=8,vec=4,stages=2";
  {
    autotune::ScopedConfigOverride o("gemm[add_column,relu]", autotune::Config::parse(own));
    autotune::clear_configs_used();
    EXPECT_LE(models::relative_l2_error(gpu_model->forward(gpu_inputs).at(0), ref), 1e-5);
    const auto used = autotune::configs_used();
    ASSERT_EQ(used.size(), 1u);
    EXPECT_EQ(used[0].kernel, "gemm[add_column,relu]");
    EXPECT_EQ(used[0].result.source, autotune::ConfigSource::Override);
    EXPECT_EQ(used[0].result.config.str(), own);
  }
  {
    autotune::ScopedForceDefaults defaults;
    autotune::clear_configs_used();
    gpu_model->forward(gpu_inputs);
    const auto used = autotune::configs_used();
    ASSERT_EQ(used.size(), 1u);
    EXPECT_EQ(used[0].result.source, autotune::ConfigSource::Default);
    EXPECT_EQ(used[0].result.config.str(), "impl=cublaslt,algo=0");
  }
  // A config the kernel's space rejects is an error, not a silent fallback.
  autotune::ScopedConfigOverride bad("gemm[add_column,relu]",
                                     autotune::Config::parse("impl=own,bm=96,bn=64,bk=8,tm=8,"
                                                             "tn=8,vec=4,stages=2"));
  EXPECT_THROW(gpu_model->forward(gpu_inputs), Error);
}

TEST_F(Tune, CommandLineTunesReportsAndTheRunAndBenchUseIt) {
  TT_REQUIRE_CUDA();
  const std::string db = path("db.yaml");
  test::CommandResult r = tt("tune GemmInstanceNormAddMul --shape small --budget 60 --db " + db +
                             " --report " + path("report"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("gemm[add_column]>segment_norm[add_mul]"));
  EXPECT_THAT(r.output, HasSubstr("gemm[add_column]>segment_norm[add_mul].segment"));
  EXPECT_THAT(r.output, HasSubstr("default ms"));
  EXPECT_THAT(r.output, HasSubstr("saved 2 entries to " + db));

  const std::vector<autotune::Measurement> rows =
      autotune::parse_measurements_csv(read_file(path("report") + "/measurements.csv"));
  ASSERT_FALSE(rows.empty());
  std::map<std::string, int> winners;
  for (const autotune::Measurement& m : rows) {
    EXPECT_TRUE(m.ok() || m.rejected()) << m.config.str() << " " << m.status;
    if (!m.ok()) {
      EXPECT_FALSE(m.reason.empty()) << m.config.str();
    }
    winners[m.kernel] += m.is_winner;
  }
  ASSERT_EQ(winners.size(), 2u);
  for (const auto& [kernel, count] : winners) EXPECT_EQ(count, 1) << kernel;
  int charts = 0;
  for (const auto& f : fs::directory_iterator(path("report")))
    charts += f.path().extension() == ".svg";
  EXPECT_EQ(charts, 2);

  r = tt("run GemmInstanceNormAddMul --device cuda --db " + db + " --show-configs");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("gemm[add_column]>segment_norm[add_mul] m=16,n=96,k=64,align=16B,"
                                  "precision=strict -> "));
  EXPECT_THAT(r.output, HasSubstr("(exact from " + db + ")"));

  r = tt("bench GemmInstanceNormAddMul --shape small --reps 5 --db " + db + " --json " +
         path("bench.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("speedup"));
  const nlohmann::json bench = nlohmann::json::parse(read_file(path("bench.json")));
  // Google Benchmark's schema: one aggregate record per (run, statistic).
  const auto aggregate = [&](const std::string& configs, const std::string& stat) {
    for (const nlohmann::json& b : bench.at("benchmarks")) {
      if (b.value("configs", "") == configs && b.value("aggregate_name", "") == stat) return b;
    }
    ADD_FAILURE() << "no " << stat << " record of the " << configs << " run";
    return nlohmann::json();
  };
  const nlohmann::json tuned = aggregate("tuned", "median");
  EXPECT_EQ(tuned.value("run_type", ""), "aggregate");
  EXPECT_EQ(tuned.value("time_unit", ""), "ms");
  EXPECT_GT(tuned.value("real_time", 0.0), 0);
  EXPECT_GT(aggregate("tuned", "p90").value("real_time", 0.0), 0);
  EXPECT_GT(aggregate("default", "median").value("real_time", 0.0), 0);
  ASSERT_TRUE(tuned.contains("configs_used"));
  for (const auto& used : tuned.at("configs_used")) {
    EXPECT_EQ(used.at("source"), "exact") << used.dump();
  }

  // The database lists the entries with provenance.
  r = tt("db show --db " + db);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("gemm[add_column]>segment_norm[add_mul].segment"));
}

#endif  // TT_CUDA

}  // namespace
}  // namespace tt
