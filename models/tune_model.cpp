// The GPU side of the sweep for one registered model (see the header).
#include "models/tune_model.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "autotune/lookup.h"
#include "autotune/tolerance.h"
#include "core/error.h"
#include "core/precision.h"
#include "models/fixture_check.h"
#include "ops/graph/compile.h"
#include "ops/graph/program.h"
#if TT_CUDA
#include "autotune/device_identity.h"
#include "autotune/relative_error.h"
#include "autotune/space_cache.h"
#include "core/cuda/runtime.h"
#include "core/cuda/stream.h"
#include "core/cuda/stream_marks.h"
#include "core/cuda/timing.h"
#endif

namespace tt::models {

int64_t longest_reduction(const ModelInfo& info, const ShapePreset& preset) {
  return info.longest_reduction(preset);  // each model's rule lives in its registration
}

#if TT_CUDA
namespace {

using autotune::Config;
using Pair = std::pair<std::string, std::string>;  // (kernel, problem)

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The device side of one model's sweeps: forces configs through lookup scopes, runs
// and checks the forward, times it.
class ModelTarget : public autotune::SweepTarget {
 public:
  ModelTarget(Module& model, const std::vector<Tensor>& inputs, Tensor reference,
              std::vector<std::pair<std::string, Tensor>> reference_buffers, int device,
              std::string measured)
      : measured_(std::move(measured)),
        model_(model),
        inputs_(inputs),
        reference_(std::move(reference)),
        reference_buffers_(std::move(reference_buffers)),
        device_(device) {
    for (const auto& named : model_.named_buffers())
      initial_buffers_.push_back(named.second.clone());
  }

  // The pair being swept; nullopt between sweeps.
  void set_current(std::optional<Pair> pair) { current_ = std::move(pair); }
  void set_winner(const Pair& pair, const Config& config) { winners_[pair] = config; }
  const std::map<Pair, Config>& winners() const { return winners_; }

  autotune::VerifyResult verify(const Config& config) override {
    Scopes scopes(*this, &config);
    return check();
  }

  // Every kernel of a model is timed by the model's whole forward (the other kernels at
  // their defaults or the winners so far), which is what a database entry's time is.
  std::string measured() const override { return measured_; }

  std::vector<double> time(const Config& config, int warmup, int reps) override {
    Scopes scopes(*this, &config);
    return time_forward(warmup, reps);
  }

  // One checked forward with the winners forced and every other kernel at its default.
  autotune::VerifyResult check_winners() {
    Scopes scopes(*this, nullptr);
    return check();
  }

  // The (kernel, problem) pairs one forward looks up with the winners forced, GEMM
  // stages first, and the median time of that forward. With `shares`, each pair's share
  // of that forward in GPU time: the forward is cut into segments at each step of a
  // compiled graph (a fused group, or one node) or, for an eager model, at each lookup (an
  // op looks its config up right before it launches); a segment's stream time, up to the
  // next segment, is split evenly between the pairs looked up in it (a fused plan asks for
  // its GEMM and its passes at once).
  std::vector<Pair> discover(double* median_ms, std::map<Pair, double>* shares = nullptr) {
    Scopes scopes(*this, nullptr);
    autotune::clear_configs_used();
    restore_buffers();
    cuda::synchronize(device_);
    cuda::StreamMarks marks(cuda::stream(device_));
    std::vector<std::vector<Pair>> segment_pairs;  // the pairs of each segment, by mark
    struct Observing {
      ~Observing() {
        autotune::set_choice_observer(nullptr);
        graph::set_step_observer(nullptr);
      }
    } observing;
    if (shares) {
      const auto start_segment = [&] {
        marks.mark();
        segment_pairs.emplace_back();
      };
      bool steps = false;
      graph::set_step_observer([&, start_segment](size_t) {
        steps = true;
        start_segment();
      });
      autotune::set_choice_observer(
          [&, start_segment](const std::string& kernel, const std::string& problem) {
            if (!steps || segment_pairs.empty()) start_segment();
            std::vector<Pair>& pairs = segment_pairs.back();
            if (std::find(pairs.begin(), pairs.end(), Pair(kernel, problem)) == pairs.end())
              pairs.push_back({kernel, problem});
          });
    }
    model_.forward(inputs_);
    autotune::set_choice_observer(nullptr);
    graph::set_step_observer(nullptr);
    if (shares) {
      marks.mark();  // the forward's end
      const std::vector<double> ms = marks.intervals_ms();
      shares->clear();
      for (size_t i = 0; i < ms.size(); ++i)
        for (const Pair& p : segment_pairs[i])
          (*shares)[p] += ms[i] / static_cast<double>(segment_pairs[i].size());
    }
    cuda::synchronize(device_);
    std::vector<Pair> pairs;
    for (const autotune::UsedConfig& u : autotune::configs_used())
      pairs.push_back({u.kernel, u.problem});
    const auto gemm_first = [&](const Pair& p) {
      return autotune::space_for(p.first, p.second, device_).swept_first ? 0 : 1;
    };
    std::stable_sort(pairs.begin(), pairs.end(),
                     [&](const Pair& a, const Pair& b) { return gemm_first(a) < gemm_first(b); });
    if (median_ms) {
      const std::vector<double> samples = time_forward(1, 3);
      *median_ms = autotune::summarize(samples).median_ms;
    }
    return pairs;
  }

 private:
  // Every kernel at its default, the winners so far, then the candidate for the pair
  // being swept: the newest scope that matches wins (autotune/lookup.h).
  struct Scopes {
    Scopes(const ModelTarget& t, const Config* candidate) {
      for (const auto& [pair, config] : t.winners_) {
        overrides.push_back(
            std::make_unique<autotune::ScopedConfigOverride>(pair.first, config, pair.second));
      }
      if (candidate && t.current_) {
        overrides.push_back(std::make_unique<autotune::ScopedConfigOverride>(
            t.current_->first, *candidate, t.current_->second));
      }
    }
    autotune::ScopedForceDefaults defaults;
    std::vector<std::unique_ptr<autotune::ScopedConfigOverride>> overrides;
  };

  void restore_buffers() {
    auto buffers = model_.named_buffers();
    for (size_t i = 0; i < buffers.size(); ++i) buffers[i].second.copy_(initial_buffers_[i]);
  }

  // Leaves two NaN-filled blocks of the output's size at the top of the caching
  // allocator's free list, so that the forward's output very likely lands in one: a
  // variant that leaves part of its output unwritten then fails with a NaN instead of
  // passing on the previous variant's values.
  void poison_output_block() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    Tensor a = Tensor::full(reference_.sizes(), nan, DType::F32, reference_.device());
    Tensor b = Tensor::full(reference_.sizes(), nan, DType::F32, reference_.device());
  }

  autotune::VerifyResult check() {
    restore_buffers();
    poison_output_block();
    const Tensor out = model_.forward(inputs_).at(0).contiguous();
    TT_CHECK(out.sizes() == reference_.sizes(), "the output has shape {} but the reference has {}",
             shape_str(out.sizes()), shape_str(reference_.sizes()));
    autotune::VerifyResult r{autotune::device_relative_l2_error(out, reference_), "the output"};
    const auto buffers = model_.named_buffers();
    for (size_t i = 0; i < buffers.size() && i < reference_buffers_.size(); ++i) {
      const DType dtype = buffers[i].second.dtype();
      if (dtype != DType::F32 && dtype != DType::F64) continue;  // counters, not results
      const double e = relative_l2_error(buffers[i].second, reference_buffers_[i].second);
      if (!(e <= r.rel_err)) r = {e, buffers[i].first};
    }
    return r;
  }

  std::vector<double> time_forward(int warmup, int reps) {
    cuda::TimingOptions timing;
    timing.warmup = warmup;
    timing.reps = reps;
    timing.max_total_ms = std::numeric_limits<double>::infinity();
    return cuda::time_gpu([&] { model_.forward(inputs_); }, device_, timing).samples_ms;
  }

  std::string measured_;
  Module& model_;
  const std::vector<Tensor>& inputs_;
  Tensor reference_;
  std::vector<std::pair<std::string, Tensor>> reference_buffers_;
  std::vector<Tensor> initial_buffers_;
  int device_;
  std::optional<Pair> current_;
  std::map<Pair, Config> winners_;
};

// Repetitions sized to the forward's time: short forwards get more samples (their
// noise is relatively larger and each costs little).
void size_repetitions(double forward_ms, autotune::SweepOptions& o) {
  const int reps = forward_ms < 0.1 ? 15 : forward_ms < 1.0 ? 10 : 5;
  o.screen_reps = reps;
  o.final_reps = reps;
}

void run_model(const ModelInfo& info, const TuneOptions& opt, autotune::Database& updates,
               ModelTuneResult& result, std::chrono::steady_clock::time_point start) {
  const auto log = [&](const std::string& line) {
    if (opt.log) opt.log(line);
  };
  const ShapePreset& preset = info.preset(opt.shape);
  const Device gpu = Device::cuda(opt.device);
  // Every forward below (discovery, candidates, the final check) runs in this mode, so
  // the problem keys looked up and saved are this mode's.
  PrecisionGuard precision_scope(parse_precision(opt.precision));
  result.longest_reduction = longest_reduction(info, preset);
  result.tolerance = autotune::verification_tolerance(opt.precision, result.longest_reduction);

  log(fmt::format("{}: building the model and inputs ({} shape, seed {})", info.name, opt.shape,
                  opt.seed));
  std::shared_ptr<Module> gpu_model = build_model(info.name, preset.init, opt.seed);
  gpu_model->train(true);
  gpu_model->to(gpu);
  // Drawn on the GPU (Philox gives the same values on either side) and copied to the
  // host, which is faster than drawing billions of values on the CPU.
  const std::vector<Tensor> inputs = random_inputs(preset.input_shapes, opt.seed, gpu);

  log(fmt::format("{}: computing the CPU reference", info.name));
  Tensor reference;
  std::vector<std::pair<std::string, Tensor>> reference_buffers;
  {
    std::shared_ptr<Module> cpu_model = build_model(info.name, preset.init, opt.seed);
    cpu_model->train(true);
    std::vector<Tensor> cpu_inputs;
    for (const Tensor& t : inputs) cpu_inputs.push_back(t.cpu());
    const Tensor cpu_out = cpu_model->forward(cpu_inputs).at(0);
    cpu_inputs.clear();
    reference = cpu_out.contiguous().to(gpu);
    reference_buffers = cpu_model->named_buffers();
  }
  log(fmt::format("{}: reference ready after {:.1f} s; tolerance {:.2e} (longest reduction {})",
                  info.name, seconds_since(start), result.tolerance, result.longest_reduction));

  // Compiled: the recording forward runs (and looks up) the eager ops, so it happens
  // before discovery, and the buffers it updated are put back.
  std::shared_ptr<Module> tuned_model = gpu_model;
  if (opt.compile) {
    log(fmt::format("{}: compiling (tt::compile; the fused groups are what is tuned)", info.name));
    tuned_model = tt::compile_recorded(gpu_model, inputs);
  }
  ModelTarget target(*tuned_model, inputs, reference, reference_buffers, opt.device,
                     fmt::format("one forward of {}, {} shape", info.name, opt.shape));
  const autotune::DeviceIdentity& identity = autotune::current_device_identity(opt.device);
  std::set<Pair> done;
  while (true) {
    double forward_ms = 0;
    std::map<Pair, double> shares;
    const std::vector<Pair> pairs = target.discover(&forward_ms, &shares);
    std::vector<Pair> pending;
    for (const Pair& p : pairs) {
      if (!done.count(p)) pending.push_back(p);
    }
    if (pending.empty()) break;
    const double left = opt.budget_s - seconds_since(start);
    if (left <= 0) {
      for (const Pair& p : pending) result.untuned.push_back(p.first + " " + p.second);
      break;
    }
    const Pair pair = pending.front();
    const autotune::TunableSpace ts = autotune::space_for(pair.first, pair.second, opt.device);
    // The budget left is split by each pending kernel's share of the forward.
    const auto share_of = [&](const Pair& p) {
      const auto it = shares.find(p);
      return it == shares.end() ? -1.0 : it->second;
    };
    std::vector<double> pending_ms;
    for (const Pair& p : pending) pending_ms.push_back(share_of(p));
    autotune::SweepOptions so;
    so.tolerance = result.tolerance;
    so.budget_s = autotune::budget_share(left, share_of(pair), pending_ms);
    so.seed = opt.seed;
    so.unsupported = ts.unsupported;
    size_repetitions(forward_ms, so);
    if (opt.progress) {
      so.progress = [&](const autotune::SweepProgress& p) { opt.progress(info.name, p); };
    }
    target.set_current(pair);
    const auto sweep_start = std::chrono::steady_clock::now();
    autotune::SweepResult r = autotune::run_sweep(pair.first, pair.second, *ts.space, target, so);
    target.set_current(std::nullopt);
    done.insert(pair);
    if (r.has_winner) target.set_winner(pair, r.winner);
    log(fmt::format(
        "{}: {} {}: {} ({} of {} configs run in {:.1f} of {:.1f} s, {:.3f} ms of the "
        "forward; {})",
        info.name, pair.first, pair.second, r.has_winner ? "winner " + r.winner.str() : r.error,
        r.entry.variants_tried, r.space_size, seconds_since(sweep_start), so.budget_s,
        share_of(pair), r.choice.why));
    result.kernels.push_back(std::move(r));
  }

  // The winners together: each was verified with the others at their winner or
  // default, so this normally passes; it guards what gets saved.
  const std::vector<Pair> used = target.discover(nullptr);
  const autotune::VerifyResult combined = target.check_winners();
  result.combined_rel_err = combined.rel_err;
  if (!(combined.rel_err <= result.tolerance)) {
    result.error = fmt::format(
        "the forward with every winner forced has a relative L2 error of {:.3e} in {} (tolerance "
        "{:.2e}); nothing was saved",
        combined.rel_err, combined.what, result.tolerance);
    return;
  }
  for (autotune::SweepResult& r : result.kernels) {
    if (!r.has_winner) continue;
    if (std::find(used.begin(), used.end(), Pair(r.kernel, r.problem)) == used.end()) continue;
    autotune::TuningEntry entry = r.entry;
    entry.stamp_provenance(identity);
    updates.put(identity, r.kernel, r.problem, std::move(entry));
  }
  result.saved = true;
}

}  // namespace

ModelTuneResult tune_model(const ModelInfo& info, const TuneOptions& options,
                           autotune::Database& updates) {
  TT_CHECK(options.budget_s > 0, "tune: the time budget must be positive but is {} s",
           options.budget_s);
  cuda::check_device(options.device);
  parse_precision(options.precision);  // a bad mode is the caller's error, not the model's
  const auto start = std::chrono::steady_clock::now();
  ModelTuneResult result;
  result.model = info.name;
  result.shape = options.shape;
  result.precision = options.precision;
  try {
    run_model(info, options, updates, result, start);
  } catch (const Error& e) {
    result.error = e.what();
  }
  autotune::clear_configs_used();
  cuda::empty_cache(options.device);
  result.seconds = seconds_since(start);
  return result;
}

#else

ModelTuneResult tune_model(const ModelInfo&, const TuneOptions&, autotune::Database&) {
  TT_FAIL("tune: tensortune was built without CUDA (TT_CUDA=OFF), so there is no GPU to tune");
}

#endif

}  // namespace tt::models
