// `--log policy=trace`: every placement decision of the chosen module, one line each on stderr.
// PolicyRegistry::make() wraps the placement module in TracedPlacement only when the "policy"
// logger is at trace level, so a normal run pays nothing for it.
#include "placement/traced.hpp"

#include <fmt/format.h>

#include "schedsim/base/log.hpp"

namespace schedsim::placement {

namespace {

const char* kind_name(WakeKind k) {
  switch (k) {
    case WakeKind::kWakeup: return "wakeup";
    case WakeKind::kFork: return "fork";
    case WakeKind::kExec: return "exec";
  }
  return "?";
}

class TracedPlacement final : public PlacementPolicy {
 public:
  TracedPlacement(std::unique_ptr<PlacementPolicy> inner, std::string name)
      : inner_(std::move(inner)), name_(std::move(name)), log_(log::get("policy")) {}
  void attach(const SchedState& s, PlacementWrites& w) override { inner_->attach(s, w); }
  PlacementResult select_task_rq(const SchedState& s, PlacementWrites& w, const WakeContext& ctx) override {
    PlacementResult r = inner_->select_task_rq(s, w, ctx);
    log_->trace("[{}] {}: {} of task {} (waker cpu {}, prev cpu {}{}) -> cpu {} ({}, {} cpu + {} core probes, "
                "scan {}{})",
                s.now, name_, kind_name(ctx.kind), ctx.p.value(), ctx.waker_cpu.value(), ctx.prev_cpu.value(), ctx.sync ? ", sync" : "",
                r.cpu.value(), to_string(r.outcome), r.probes_cpu, r.probes_core, r.scan_cost,
                r.hint_consulted ? (r.hint_value ? ", has_idle_cores yes" : ", has_idle_cores no") : "");
    return r;
  }
  void on_periodic_balance(const SchedState& s, PlacementWrites& w, CpuId cpu, int level) override {
    inner_->on_periodic_balance(s, w, cpu, level);
  }

 private:
  std::unique_ptr<PlacementPolicy> inner_;
  std::string name_;
  std::shared_ptr<spdlog::logger> log_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> traced_if_logging(std::unique_ptr<PlacementPolicy> p, const std::string& name) {
  if (!log::get("policy")->should_log(spdlog::level::trace)) return p;
  return std::make_unique<TracedPlacement>(std::move(p), name);
}

}  // namespace schedsim::placement
