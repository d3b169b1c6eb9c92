// The search of autotune/sweep.h: default first, all or a sample of the rest
// screened within the budget, contenders re-measured interleaved, winner chosen.
#include "autotune/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <set>
#include <string>

#include "core/error.h"

namespace tt::autotune {
namespace {

double steady_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

class Sweep {
 public:
  Sweep(const std::string& kernel, const std::string& problem, const ParamSpace& space,
        SweepTarget& target, const SweepOptions& options)
      : space_(space), target_(target), opt_(options) {
    now_ = opt_.now_s ? opt_.now_s : steady_seconds;
    result_.kernel = kernel;
    result_.problem = problem;
  }

  SweepResult run() {
    const double start = now_();
    deadline_ = start + opt_.budget_s;
    const double screen_deadline = start + opt_.budget_s * (1.0 - opt_.final_share);
    const std::vector<Config> all = space_.enumerate();
    const Config& default_config = space_.default_config();
    result_.space_size = all.size();

    std::vector<Config> rest;
    for (const Config& c : all) {
      if (c != default_config) rest.push_back(c);
    }
    // The default first: it is the baseline, and its cost sizes the plan.
    size_t total = 1 + rest.size();
    screen(default_config, true, 1, total);
    const double cost = std::max(now_() - start, 1e-6);
    const double left = screen_deadline - now_();
    const auto affordable = static_cast<size_t>(std::max(0.0, std::floor(left / cost)));
    std::vector<Config> plan = rest;
    if (affordable < rest.size()) {
      result_.sampled = true;
      plan.clear();
      for (Config& c : space_.sample(affordable + 1, opt_.seed)) {
        if (c != default_config && plan.size() < affordable) plan.push_back(std::move(c));
      }
    }
    result_.planned = 1 + plan.size();
    total = result_.planned;
    bool reached_deadline = false;
    for (size_t i = 0; i < plan.size(); ++i) {
      if (now_() > screen_deadline) {
        reached_deadline = true;
        for (size_t j = i; j < plan.size(); ++j) {
          Measurement m = blank(plan[j], false);
          m.status = kStatusSkipped;
          m.reason = "not reached within the time budget";
          skipped_.push_back(std::move(m));
        }
        break;
      }
      screen(plan[i], false, i + 2, total);
    }
    // The default's first run carries one-time costs (module loading, first-launch
    // setup), so the sample it sized can finish early: while screening time is left,
    // draw a larger sample of the same seed and screen what it adds.
    if (result_.sampled && !reached_deadline) {
      std::set<std::string> done = {default_config.str()};
      for (const Config& c : plan) done.insert(c.str());
      size_t want = 2 * done.size();
      while (now_() < screen_deadline && done.size() < all.size()) {
        want = std::min(want, all.size());
        for (const Config& c : space_.sample(want, opt_.seed)) {
          if (now_() >= screen_deadline) break;
          if (!done.insert(c.str()).second) continue;
          ++result_.planned;
          screen(c, false, result_.planned, result_.planned);
        }
        if (want == all.size()) break;
        want *= 2;
      }
    }
    remeasure_and_choose();
    finish();
    return std::move(result_);
  }

 private:
  Measurement blank(const Config& config, bool is_default) const {
    Measurement m;
    m.kernel = result_.kernel;
    m.problem = result_.problem;
    m.config = config;
    m.is_default = is_default;
    return m;
  }

  void report(const char* phase, size_t index, size_t total, const Config& config) {
    if (!opt_.progress) return;
    SweepProgress p;
    p.kernel = result_.kernel;
    p.problem = result_.problem;
    p.phase = phase;
    p.index = index;
    p.total = total;
    p.config = config;
    if (const Measurement* best = best_so_far()) {
      p.best_ms = best->median_ms;
      p.best_config = best->config;
    }
    p.seconds_left = std::max(0.0, deadline_ - now_());
    opt_.progress(p);
  }

  const Measurement* best_so_far() const {
    const Measurement* best = nullptr;
    for (const Measurement& m : tried_) {
      if (m.ok() && (best == nullptr || m.median_ms < best->median_ms)) best = &m;
    }
    return best;
  }

  void screen(const Config& config, bool is_default, size_t index, size_t total) {
    report("screen", index, total, config);
    Measurement m = blank(config, is_default);
    try {
      const VerifyResult v = target_.verify(config);
      m.rel_err = v.rel_err;
      if (!(v.rel_err <= opt_.tolerance)) {
        m.status = kStatusWrongResult;
        m.reason = fmt::format("relative L2 error {:.3e} of {} exceeds the tolerance {:.2e}",
                               v.rel_err, v.what.empty() ? "the output" : v.what, opt_.tolerance);
      }
    } catch (const Error& e) {
      m.status = kStatusLaunchFailed;
      m.reason = e.what();
    }
    if (m.status.empty()) {
      try {
        const Timing t = summarize(target_.time(config, opt_.screen_warmup, opt_.screen_reps));
        TT_CHECK(t.reps > 0, "the timing returned no samples");
        set_timing(m, t);
        m.status = kStatusOk;
      } catch (const Error& e) {
        m.status = kStatusLaunchFailed;
        m.reason = fmt::format("it ran once but failed when timed: {}", e.what());
      }
    }
    tried_.push_back(std::move(m));
  }

  static void set_timing(Measurement& m, const Timing& t) {
    m.median_ms = t.median_ms;
    m.p10_ms = t.p10_ms;
    m.p90_ms = t.p90_ms;
    m.reps = t.reps;
  }

  static Timing timing_of(const Measurement& m) {
    Timing t;
    t.median_ms = m.median_ms;
    t.p10_ms = m.p10_ms;
    t.p90_ms = m.p90_ms;
    t.reps = m.reps;
    return t;
  }

  void remeasure_and_choose() {
    std::vector<double> medians;
    for (const Measurement& m : tried_) medians.push_back(m.ok() ? m.median_ms : NAN);
    const std::optional<size_t> default_at =
        tried_.front().ok() ? std::optional<size_t>(0) : std::nullopt;
    std::vector<size_t> contenders =
        select_contenders(medians, opt_.contender_window, opt_.max_contenders, default_at);
    if (contenders.empty()) return;
    if (contenders.size() > 1) {
      std::vector<std::vector<double>> pooled(contenders.size());
      std::vector<bool> failed(contenders.size(), false);
      const size_t n = contenders.size();
      for (int round = 0; round < opt_.final_rounds; ++round) {
        if (round > 0 && now_() > deadline_) break;
        for (size_t j = 0; j < n; ++j) {
          const size_t c = (j + static_cast<size_t>(round)) % n;
          if (failed[c]) continue;
          Measurement& m = tried_[contenders[c]];
          report("re-measure", static_cast<size_t>(round) * n + j + 1,
                 n * static_cast<size_t>(opt_.final_rounds), m.config);
          try {
            const std::vector<double> s = target_.time(m.config, 1, opt_.final_reps);
            pooled[c].insert(pooled[c].end(), s.begin(), s.end());
          } catch (const Error& e) {
            failed[c] = true;
            m.status = kStatusLaunchFailed;
            m.reason = fmt::format("it failed when re-measured: {}", e.what());
          }
        }
      }
      std::vector<size_t> kept;
      for (size_t c = 0; c < n; ++c) {
        if (failed[c]) continue;
        if (!pooled[c].empty()) {
          set_timing(tried_[contenders[c]], summarize(pooled[c]));
          tried_[contenders[c]].remeasured = true;
        }
        kept.push_back(contenders[c]);
      }
      contenders = kept;
      if (contenders.empty()) return;
    }
    std::vector<Timing> timings;
    std::optional<size_t> default_pos;
    for (size_t i = 0; i < contenders.size(); ++i) {
      timings.push_back(timing_of(tried_[contenders[i]]));
      if (tried_[contenders[i]].is_default) default_pos = i;
    }
    result_.choice = choose_winner(timings, default_pos);
    const size_t winner = contenders[result_.choice.index];
    tried_[winner].is_winner = true;
    result_.has_winner = true;
    result_.winner = tried_[winner].config;
  }

  void finish() {
    TuningEntry& e = result_.entry;
    e.measured = target_.measured();
    for (const Measurement& m : tried_) {
      ++e.variants_tried;
      if (m.rejected()) e.add_rejected(m.config, m.status, m.reason);
      if (m.is_winner) {
        e.config = m.config;
        e.median_ms = m.median_ms;
        e.p10_ms = m.p10_ms;
        e.p90_ms = m.p90_ms;
      }
      if (m.is_default) e.default_config = m.config;
      if (m.is_default && m.ok()) e.default_ms = m.median_ms;
    }
    for (const RejectedVariant& u : opt_.unsupported) {
      Measurement m = blank(u.config, false);
      m.status = kStatusUnsupported;
      m.reason = u.detail.empty() ? u.reason : u.detail;
      e.add_rejected(u.config, kStatusUnsupported, m.reason);
      skipped_.push_back(std::move(m));
    }
    if (!result_.has_winner) {
      const Measurement& d = tried_.front();
      result_.error = fmt::format(
          "no config of {} for {} could be verified; the default {} was rejected ({}: {})",
          result_.kernel, result_.problem, d.config.str(), d.status, d.reason);
    }
    result_.measurements = std::move(tried_);
    for (Measurement& m : skipped_) result_.measurements.push_back(std::move(m));
  }

  const ParamSpace& space_;
  SweepTarget& target_;
  const SweepOptions& opt_;
  std::function<double()> now_;
  double deadline_ = 0;
  SweepResult result_;
  std::vector<Measurement> tried_;    // in the order run; the default first
  std::vector<Measurement> skipped_;  // not run: budget, then device limits
};

}  // namespace

double budget_share(double left_s, double next_ms, const std::vector<double>& pending_ms) {
  TT_CHECK(!pending_ms.empty(), "tune: no pending kernel to share the budget between");
  double measured = 0;
  int count = 0;
  for (double ms : pending_ms) {
    if (ms >= 0) measured += ms, ++count;
  }
  const double mean = count > 0 && measured > 0 ? measured / count : 1.0;
  const auto known = [&](double ms) { return ms >= 0 && count > 0 && measured > 0 ? ms : mean; };
  double total = 0;
  for (double ms : pending_ms) total += known(ms);
  const double floor = 0.25 * total / static_cast<double>(pending_ms.size());
  double weights = 0;
  for (double ms : pending_ms) weights += std::max(known(ms), floor);
  return left_s * std::max(known(next_ms), floor) / weights;
}

SweepResult run_sweep(const std::string& kernel, const std::string& problem,
                      const ParamSpace& space, SweepTarget& target, const SweepOptions& options) {
  TT_CHECK(options.budget_s > 0, "sweep: the time budget must be positive but is {} s",
           options.budget_s);
  TT_CHECK(options.screen_reps >= 1 && options.final_reps >= 1 && options.final_rounds >= 1,
           "sweep: the repetition counts must be at least 1");
  return Sweep(kernel, problem, space, target, options).run();
}

}  // namespace tt::autotune
