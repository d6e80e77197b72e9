#pragma once
/// Process-level control of a run: SIGINT/SIGTERM handling, the memory figures the `--max-memory`
/// budget is checked against, and the two exceptions that end a run early.
///
/// Signals. install_signal_handlers() (called once by main) installs one handler for SIGINT and
/// SIGTERM. Outside a CooperativeInterrupts scope the handler acts at once: it removes every
/// registered temporary (unlink(2)) and calls _exit(128 + signal), so a command that never polls
/// still leaves nothing behind and exits 130 (SIGINT) or 143 (SIGTERM). Inside a scope (the
/// simulation loop of `run`, the recording loop of `record`) the first signal only sets a flag;
/// the loop polls it (interrupt_signal() / throw_if_interrupted()) and unwinds with Interrupted,
/// so destructors remove temporaries and restore tracefs; main maps Interrupted to 128 + signal.
/// A second signal while the flag is pending acts at once, as outside a scope. The handler calls
/// only async-signal-safe functions (kill, close, open, write, rmdir, unlink, _exit) and reads only fixed-size static storage.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace schedsim {

/// Thrown by throw_if_interrupted(); main exits with 128 + signal().
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int sig);
  int signal() const { return sig_; }

 private:
  int sig_;
};

/// A resource budget was exceeded (`--max-memory`). main prints what() and exits 5.
class ResourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Installs the SIGINT/SIGTERM handler (idempotent). A signal ignored at entry stays ignored.
void install_signal_handlers();
/// The first SIGINT/SIGTERM received inside a CooperativeInterrupts scope, or 0.
int interrupt_signal();
/// Throws Interrupted when interrupt_signal() != 0.
void throw_if_interrupted();

/// While alive, the first signal sets the flag instead of exiting (scopes nest).
class CooperativeInterrupts {
 public:
  CooperativeInterrupts();
  ~CooperativeInterrupts();
  CooperativeInterrupts(const CooperativeInterrupts&) = delete;
  CooperativeInterrupts& operator=(const CooperativeInterrupts&) = delete;
};

/// For a host that handles signals itself (the Python module, whose interpreter owns SIGINT): from
/// now on no CooperativeInterrupts scope ever exits the process, and the host asks running
/// simulations to stop with request_interrupt(), which they see at their next poll as if the
/// signal had arrived (Interrupted). install_signal_handlers() is never called in such a process.
void set_signals_hosted();
/// Sets the flag interrupt_signal() reads (a host's Ctrl-C): every run in the process stops at its
/// next poll. clear_interrupt() resets it once they have stopped.
void request_interrupt(int sig);
void clear_interrupt();

/// Blocks SIGINT/SIGTERM while alive (a pending one is delivered at the end), for the few
/// renames that commit a run's outputs together.
class SignalsBlocked {
 public:
  SignalsBlocked();
  ~SignalsBlocked();
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;

 private:
  unsigned char old_[128];  // a sigset_t, kept opaque here
};

/// What the signal handler undoes when it exits at once, in this order of kinds: kill a child
/// (SIGKILL to `arg`), close a descriptor (`arg`), write "0" to a file (tracefs tracing_on),
/// rmdir a directory (a tracefs instance), unlink a file (a temporary).
enum class ExitAction : int { kKill = 0, kClose, kWriteZero, kRmdir, kUnlink };
/// Registers an action; returns a slot for unregister_exit_action() (-1 when all 64 slots are
/// taken: a temporary is then only removed by the stale-temporary cleanup of a later run).
int register_exit_action(ExitAction action, const std::string& path, int arg = 0);
void unregister_exit_action(int slot);
inline int register_temp_path(const std::string& path) { return register_exit_action(ExitAction::kUnlink, path); }
inline void unregister_temp_path(int slot) { unregister_exit_action(slot); }

/// The process's memory budget that poll_resources() checks (0: none) and where it comes from,
/// for the message ("80% of MemAvailable", "--max-memory 3G"). main sets it for every command
/// (SCHEDSIM_MAX_MEMORY, else 80% of MemAvailable); `run --max-memory` replaces it.
void set_memory_budget(uint64_t bytes, const std::string& source);
uint64_t memory_budget();
/// What every long loop outside the engine calls (generators, workload checks, trace readers):
/// throw_if_interrupted(), and at most every 20 ms of wall time the resident set against the
/// budget (ResourceError, exit 5). Cheap enough per task or per few thousand lines; thread-safe.
void poll_resources();
/// The check itself, at once: ResourceError when the resident set is above the budget (none: no
/// check). The message names the budget's source; `where` ("after loading the workload") and
/// `advice` (what to do; a default for any command when empty) complete it.
void check_memory_budget(const std::string& where = "", const std::string& advice = "");

/// "512 B", "1.5 GiB".
std::string format_bytes(uint64_t bytes);

/// Resident set size of this process in bytes (/proc/self/statm), 0 if unknown.
uint64_t resident_bytes();
/// MemAvailable from /proc/meminfo in bytes, 0 if unknown.
uint64_t mem_available_bytes();

}  // namespace schedsim
