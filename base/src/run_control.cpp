#include "schedsim/base/run_control.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>

namespace schedsim {

namespace {

constexpr int kSlots = 64;
constexpr size_t kPathMax = 4096;

// Read by the handler: fixed storage only; a slot is published by setting used after the path.
char g_paths[kSlots][kPathMax];
int g_kind[kSlots];
int g_arg[kSlots];
volatile sig_atomic_t g_used[kSlots];
volatile sig_atomic_t g_signal = 0;
volatile sig_atomic_t g_cooperative = 0;
volatile sig_atomic_t g_hosted = 0;
bool g_installed = false;

void exit_now(int sig) {
  for (int kind = 0; kind <= static_cast<int>(ExitAction::kUnlink); ++kind)
    for (int i = kSlots - 1; i >= 0; --i) {
      if (!g_used[i] || g_kind[i] != kind) continue;
      switch (static_cast<ExitAction>(kind)) {
        case ExitAction::kKill: ::kill(g_arg[i], SIGKILL); break;
        case ExitAction::kClose: ::close(g_arg[i]); break;
        case ExitAction::kWriteZero: {
          int fd = ::open(g_paths[i], O_WRONLY | O_CLOEXEC);
          if (fd >= 0) {
            [[maybe_unused]] ssize_t r = ::write(fd, "0", 1);
            ::close(fd);
          }
          break;
        }
        case ExitAction::kRmdir: ::rmdir(g_paths[i]); break;
        case ExitAction::kUnlink: ::unlink(g_paths[i]); break;
      }
    }
  ::_exit(128 + sig);
}

extern "C" void on_signal(int sig) {
  if (g_cooperative > 0 && g_signal == 0) {
    g_signal = sig;
    return;
  }
  exit_now(g_signal != 0 ? g_signal : sig);
}

static_assert(sizeof(sigset_t) <= 128, "SignalsBlocked::old_ too small");

}  // namespace

Interrupted::Interrupted(int sig)
    : std::runtime_error(sig == SIGINT ? "interrupted (SIGINT)" : sig == SIGTERM ? "terminated (SIGTERM)" : "interrupted"),
      sig_(sig) {}

void install_signal_handlers() {
  if (g_installed) return;
  g_installed = true;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGINT, SIGTERM}) {
    // A signal ignored at entry stays ignored (a background job of a non-interactive shell, nohup).
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
  }
}

int interrupt_signal() { return g_signal; }

void throw_if_interrupted() {
  if (int s = g_signal) throw Interrupted(s);
}

CooperativeInterrupts::CooperativeInterrupts() { g_cooperative = g_cooperative + 1; }

CooperativeInterrupts::~CooperativeInterrupts() {
  g_cooperative = g_cooperative - 1;
  // Leaving the last scope with a signal pending that nobody acted on: act on it now. (An
  // Interrupted exception in flight has already removed what it owned on its way out.)
  if (g_cooperative == 0 && g_signal != 0 && !g_hosted && std::uncaught_exceptions() == 0) exit_now(g_signal);
}

void set_signals_hosted() { g_hosted = 1; }
void request_interrupt(int sig) { g_signal = sig; }
void clear_interrupt() { g_signal = 0; }

SignalsBlocked::SignalsBlocked() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  ::sigprocmask(SIG_BLOCK, &s, reinterpret_cast<sigset_t*>(old_));
}

SignalsBlocked::~SignalsBlocked() { ::sigprocmask(SIG_SETMASK, reinterpret_cast<sigset_t*>(old_), nullptr); }

int register_exit_action(ExitAction action, const std::string& path, int arg) {
  if (path.size() >= kPathMax) return -1;
  for (int i = 0; i < kSlots; ++i)
    if (!g_used[i]) {
      std::memcpy(g_paths[i], path.c_str(), path.size() + 1);
      g_kind[i] = static_cast<int>(action);
      g_arg[i] = arg;
      std::atomic_signal_fence(std::memory_order_seq_cst);  // the slot is complete before it is visible
      g_used[i] = 1;
      return i;
    }
  return -1;
}

void unregister_exit_action(int slot) {
  if (slot >= 0 && slot < kSlots) g_used[slot] = 0;
}

namespace {
std::atomic<uint64_t> g_budget{0};
std::mutex g_budget_mu;
std::string g_budget_source;  // guarded by g_budget_mu

}  // namespace

std::string format_bytes(uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

void set_memory_budget(uint64_t bytes, const std::string& source) {
  std::lock_guard lk(g_budget_mu);
  g_budget_source = source;
  g_budget = bytes;
}

uint64_t memory_budget() { return g_budget; }

void poll_resources() {
  throw_if_interrupted();
  if (g_budget == 0) return;
  // The clock only every 64 calls, statm only every 20 ms: a per-task call stays in the noise.
  thread_local uint32_t calls = 0;
  thread_local std::chrono::steady_clock::time_point last{};
  if (++calls % 64 != 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last < std::chrono::milliseconds(20)) return;
  last = now;
  check_memory_budget();
}

void check_memory_budget(const std::string& where, const std::string& advice) {
  const uint64_t budget = g_budget;
  if (budget == 0) return;
  const uint64_t rss = resident_bytes();
  if (rss <= budget) return;
  std::string source;
  {
    std::lock_guard lk(g_budget_mu);
    source = g_budget_source;
  }
  throw ResourceError("memory budget exceeded" + (where.empty() ? "" : " " + where) + ": resident memory " +
                      format_bytes(rss) + " is above the budget " + format_bytes(budget) + " (" + source + "); " +
                      (advice.empty() ? "give the command less to hold (a smaller workload, grid or trace "
                                        "selection), or raise the budget (SCHEDSIM_MAX_MEMORY=SIZE|none, or run's "
                                        "--max-memory)"
                                      : advice));
}

uint64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long size = 0, resident = 0;
  int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  if (n != 2) return 0;
  long page = ::sysconf(_SC_PAGESIZE);
  return resident * static_cast<uint64_t>(page > 0 ? page : 4096);
}

uint64_t mem_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  unsigned long long kb = 0;
  std::string unit;
  while (in >> key >> kb) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kb * 1024ull;
  }
  return 0;
}

}  // namespace schedsim
