// How a front-end op reports itself to tt::compile's capture (core/capture.h): the op
// opens a RecordScope first (ops it calls inside stay unreported), computes its result,
// then returns scope.done(result, inputs, attrs). Without an active recorder done() only
// returns the result. Private to ops/.
#pragma once

#include <utility>
#include <vector>

#include "core/capture.h"
#include "ops/op_kind.h"

namespace tt::ops::detail {

class RecordScope {
 public:
  explicit RecordScope(OpKind kind, int sub = 0) : kind_(kind), sub_(sub) {}
  Tensor done(Tensor out, const std::vector<Tensor>& inputs, capture::Attrs attrs = {}) const {
    if (capture::Recorder* r = scope_.recorder())
      r->op(static_cast<int>(kind_), sub_, inputs, attrs, {out});
    return out;
  }
  std::vector<Tensor> done(std::vector<Tensor> outs, const std::vector<Tensor>& inputs,
                           capture::Attrs attrs = {}) const {
    if (capture::Recorder* r = scope_.recorder())
      r->op(static_cast<int>(kind_), sub_, inputs, attrs, outs);
    return outs;
  }
  // An op without a fusion rule (constructed with OpKind::kOther): its name and how to
  // run it again on new inputs, e.g.
  //   return record.done(out, {x, index}, "index_select",
  //                      [dim](const auto& in) { return index_select(in[0], dim, in[1]); });
  template <typename Fn>
  Tensor done(Tensor out, const std::vector<Tensor>& inputs, const char* name, Fn replay) const {
    if (capture::Recorder* r = scope_.recorder()) {
      capture::Attrs attrs;
      attrs.text = name;
      attrs.replay = [replay](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{replay(in)};
      };
      r->op(static_cast<int>(kind_), sub_, inputs, attrs, {out});
    }
    return out;
  }

 private:
  capture::OpScope scope_;
  OpKind kind_;
  int sub_;
};

}  // namespace tt::ops::detail
