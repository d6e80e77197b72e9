#pragma once
/// Trace-to-workload extraction (docs/workload-format.md). Fed one event at a time in
/// timestamp order; keeps per-task and per-CPU state only, so memory grows with the number of
/// tasks and the size of the produced programs, never with the trace.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "schedsim/traces/import.hpp"
#include "schedsim/traces/trace_event.hpp"
#include "schedsim/workload/workload.hpp"

namespace schedsim::traces {

class Extractor {
 public:
  /// `path` names the input in errors. `report` must outlive the extractor.
  Extractor(const ExtractOptions& opt, ImportReport& report, std::string path);
  ~Extractor();
  Extractor(const Extractor&) = delete;
  Extractor& operator=(const Extractor&) = delete;

  /// Restricts selection to task lives by creation ordinal (two-pass --comm selection).
  void set_selection(std::vector<bool> by_ordinal);
  /// Ordinals of task lives whose comm ever matched `re` (after a pass with everything selected).
  std::vector<bool> comm_matches() const;
  /// The same for --background-comm: task lives to import as background tasks (unless selected).
  void set_background_selection(std::vector<bool> by_ordinal);
  std::vector<bool> background_comm_matches() const;

  /// The trace names the command it recorded (`schedsim record` header): select its
  /// descendants unless the options already select something or ask for all tasks.
  void set_recorded_root(int64_t pid);

  void on_event(const TraceEvent& ev);
  /// Ring-buffer overrun on `cpu` just before the next event (LOST marker / buffer started).
  void on_lost(int32_t cpu, int64_t count, long line, bool buffer_started);
  /// Ends extraction: closes open intervals, checks conservation, builds the workload.
  Workload finish();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace schedsim::traces
