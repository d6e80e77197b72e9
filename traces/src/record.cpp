// Recording through tracefs (Documentation/trace/ftrace.rst): a per-run instance under
// instances/, events enabled in that instance only, the command forked and held on a pipe until
// tracing is on, trace_pipe drained while it runs, per-CPU overruns read from
// per_cpu/cpuN/stats, the instance removed on every exit path.
#include "schedsim/traces/record.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>
#include <zlib.h>

#include <fmt/format.h>

#include "schedsim/base/atomic_file.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/base/run_control.hpp"

namespace schedsim::traces {

namespace fs = std::filesystem;

namespace {

bool file_exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

void write_file(const std::string& path, const std::string& value) {
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) throw InputError(SourceLoc{path}, fmt::format("cannot open for writing: {}", std::strerror(errno)));
  ssize_t r = ::write(fd, value.data(), value.size());
  int err = errno;
  ::close(fd);
  if (r < 0 || static_cast<size_t>(r) != value.size())
    throw InputError(SourceLoc{path}, fmt::format("cannot write '{}': {}", value, std::strerror(err)));
}

std::string find_tracefs() {
  for (const char* p : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"})
    if (file_exists(std::string(p) + "/instances")) return p;
  // Not mounted: mount it where the kernel documents it (needs CAP_SYS_ADMIN).
  if (::mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr) == 0 &&
      file_exists("/sys/kernel/tracing/instances"))
    return "/sys/kernel/tracing";
  throw InputError(fmt::format(
      "tracefs is unavailable: /sys/kernel/tracing is not mounted and mounting it failed ({}); "
      "the kernel needs CONFIG_FTRACE, and containers need CAP_SYS_ADMIN",
      std::strerror(errno)));
}

// The file execvp() would run for `name`, checked before anything is created (tracefs instance,
// output file): a command that cannot be started is an error naming it, not a recorded trace of
// a shell's exit code 127. Searches PATH as execvp() does when `name` has no '/'. The child
// execs the returned path with execv(), which (unlike execvp) does not retry a file the kernel
// refuses (ENOEXEC) through /bin/sh: an exec failure is reported, not recorded.
std::string check_command_runnable(const std::string& name) {
  auto runnable = [](const std::string& p, int& err) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) {
      err = errno;
      return false;
    }
    if (!S_ISREG(st.st_mode)) {
      err = EACCES;
      return false;
    }
    if (::access(p.c_str(), X_OK) != 0) {
      err = errno;
      return false;
    }
    return true;
  };
  int err = ENOENT;
  if (name.find('/') != std::string::npos) {
    if (!runnable(name, err))
      throw InputError(fmt::format("record: cannot run command '{}': {}", name, std::strerror(err)));
    return name;
  }
  const char* env = std::getenv("PATH");
  std::string path = env && *env ? env : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (dir.empty()) dir = ".";
    int e = 0;
    if (!name.empty() && runnable(dir + "/" + name, e)) return dir + "/" + name;
    start = end + 1;
  }
  throw InputError(fmt::format("record: cannot run command '{}': not found in PATH", name));
}

// Output sink: plain or gzip-compressed text written through an AtomicFile, so the target is
// replaced only by a complete trace (commit()); every write and the compressor's end are checked.
class Sink {
 public:
  Sink(const std::string& path, bool gzip) : file_(path, "the trace"), path_(path), gz_(gzip) {
    if (gz_) {
      // windowBits 15 + 16: a gzip wrapper (RFC 1952) around the deflate stream, level 6 as gzip's.
      if (deflateInit2(&zs_, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw InputError(SourceLoc{path}, "cannot start the gzip compressor");
      zinit_ = true;
    }
  }
  ~Sink() {
    if (zinit_) deflateEnd(&zs_);
  }
  void write(const char* p, size_t n) {
    bytes_ += n;
    if (!gz_) file_.write(std::string_view(p, n));
    else deflate_chunk(p, n, Z_NO_FLUSH);
  }
  /// Ends the gzip stream, closes the temporary and renames it into place.
  void commit() {
    if (gz_) deflate_chunk(nullptr, 0, Z_FINISH);
    file_.commit();
  }
  uint64_t bytes() const { return bytes_; }

 private:
  void deflate_chunk(const char* p, size_t n, int flush) {
    zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(p));
    zs_.avail_in = static_cast<uInt>(n);
    int r = Z_OK;
    do {
      zs_.next_out = out_;
      zs_.avail_out = sizeof(out_);
      r = deflate(&zs_, flush);
      if (r == Z_STREAM_ERROR) throw InputError(SourceLoc{path_}, "gzip compression failed");
      file_.write(std::string_view(reinterpret_cast<const char*>(out_), sizeof(out_) - zs_.avail_out));
    } while (zs_.avail_out == 0 || (flush == Z_FINISH && r != Z_STREAM_END));
  }
  AtomicFile file_;
  std::string path_;
  bool gz_ = false, zinit_ = false;
  z_stream zs_{};
  Bytef out_[1 << 16];
  uint64_t bytes_ = 0;
};

// Turns an instance's tracing off and removes it (rmdir works only once its files are idle);
// true when it is gone. Async-signal-safe calls only: the watchdog runs it after fork().
bool tracing_off_and_remove(const std::string& dir) {
  int fd = ::open((dir + "/tracing_on").c_str(), O_WRONLY | O_CLOEXEC);
  if (fd >= 0) {
    [[maybe_unused]] ssize_t r = ::write(fd, "0", 1);
    ::close(fd);
  }
  return ::rmdir(dir.c_str()) == 0;
}

// Removes the instance (rmdir works only once its files are idle; tracing is turned off first).
// The same two steps are registered with the signal handler for an exit at once.
struct InstanceGuard {
  std::string dir;
  int slots[2] = {-1, -1};
  void set(const std::string& d) {
    dir = d;
    slots[0] = register_exit_action(ExitAction::kRmdir, dir);
    slots[1] = register_exit_action(ExitAction::kWriteZero, dir + "/tracing_on");
  }
  ~InstanceGuard() {
    if (dir.empty()) return;
    for (int s : slots) unregister_exit_action(s);
    if (!tracing_off_and_remove(dir))
      log::get("traces")->warn("could not remove tracefs instance {}: {}", dir, std::strerror(errno));
  }
};

// Instances left by a recorder killed with SIGKILL (instances/schedsim-PID of a dead PID): tracing
// off, removed. Returns how many.
size_t remove_stale_instances(const std::string& root) {
  size_t removed = 0;
  std::error_code ec;
  for (const auto& d : fs::directory_iterator(root + "/instances", ec)) {
    std::string name = d.path().filename().string();
    if (name.rfind("schedsim-", 0) != 0) continue;
    long pid = 0;
    const char* b = name.data() + 9;
    const char* e = name.data() + name.size();
    auto r = std::from_chars(b, e, pid);
    if (r.ec != std::errc() || r.ptr != e || pid <= 0 || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    if (tracing_off_and_remove(d.path().string())) {
      log::get("traces")->warn("removed the tracefs instance {} left by a recorder that no longer runs", name);
      ++removed;
    }
  }
  return removed;
}

// The parent of a pid, from /proc/PID/stat (the field after the state, which follows the last
// ')' since a comm may hold one); 0 when it cannot be read.
pid_t parent_of(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[512];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  const char* close = std::strrchr(buf, ')');
  int ppid = 0;
  char state = 0;
  if (!close || std::sscanf(close + 1, " %c %d", &state, &ppid) != 2) return 0;
  return static_cast<pid_t>(ppid);
}

// Every descendant of root that is still alive (root's children are reparented once it dies, so
// this is called while root lives or on a tree already stopped).
std::vector<pid_t> descendants_of(pid_t root) {
  std::vector<std::pair<pid_t, pid_t>> procs;  // (pid, ppid)
  std::error_code ec;
  for (const auto& d : fs::directory_iterator("/proc", ec)) {
    const std::string name = d.path().filename().string();
    pid_t pid = 0;
    auto r = std::from_chars(name.data(), name.data() + name.size(), pid);
    if (r.ec != std::errc() || r.ptr != name.data() + name.size() || pid <= 0) continue;
    procs.emplace_back(pid, parent_of(pid));
  }
  std::vector<pid_t> tree{root};
  for (size_t i = 0; i < tree.size(); ++i)
    for (const auto& [pid, ppid] : procs)
      if (ppid == tree[i] && std::find(tree.begin(), tree.end(), pid) == tree.end()) tree.push_back(pid);
  tree.erase(tree.begin());
  return tree;
}

// Stops the recorded command and every process it started (hackbench's groups are its
// children): SIGSTOP first, until no new descendant appears (a stopped process cannot fork),
// then SIGKILL to all. Returns how many were killed.
size_t kill_tree(pid_t root) {
  std::vector<pid_t> all{root};
  ::kill(root, SIGSTOP);
  for (int round = 0; round < 100; ++round) {
    size_t before = all.size();
    for (pid_t p : descendants_of(root))
      if (std::find(all.begin(), all.end(), p) == all.end()) {
        ::kill(p, SIGSTOP);
        all.push_back(p);
      }
    if (all.size() == before) break;
  }
  size_t killed = 0;
  for (pid_t p : all)
    if (::kill(p, SIGKILL) == 0) ++killed;
  return killed;
}

// A watchdog for the one exit the recorder cannot clean up after: SIGKILL (or a crash). Forked
// before the command, it blocks on a pipe whose only writer is the recorder. The recorder sends
// the command's pid once it is forked and a 0 when it is done (its guards then clean up); an
// end of file without that 0 means the recorder died: the watchdog stops the command and its
// descendants, turns tracing off and removes the instance, and says so on stderr.
struct Watchdog {
  pid_t pid = -1;
  int fd = -1;  // the write end, held by the recorder only (close-on-exec)

  void start(const std::string& inst) {
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) throw InputError(fmt::format("pipe: {}", std::strerror(errno)));
    const pid_t recorder = ::getpid();
    pid = ::fork();
    if (pid < 0) {
      int err = errno;
      ::close(p[0]);
      ::close(p[1]);
      throw InputError(fmt::format("fork: {}", std::strerror(err)));
    }
    if (pid > 0) {
      ::close(p[0]);
      fd = p[1];
      return;
    }
    // The watchdog: outlives the recorder's signals, holds no descriptor but the pipe and stderr.
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) ::signal(sig, SIG_IGN);
    ::close(p[1]);
    for (int f = 3; f < 1024; ++f)
      if (f != p[0]) ::close(f);
    pid_t command = 0;
    bool done = false;
    for (;;) {
      int32_t v = 0;
      ssize_t n = ::read(p[0], &v, sizeof v);
      if (n < 0 && errno == EINTR) continue;
      if (n != static_cast<ssize_t>(sizeof v)) break;
      if (v == 0) {
        done = true;
        break;
      }
      command = static_cast<pid_t>(v);
    }
    if (done) ::_exit(0);
    size_t killed = command > 0 ? kill_tree(command) : 0;
    bool removed = tracing_off_and_remove(inst);
    if (killed > 0 || removed) {
      std::string msg = fmt::format(
          "schedsim record: the recorder (pid {}) ended without cleaning up (killed by SIGKILL, or it crashed): {}{}{}\n", recorder,
          killed > 0 ? fmt::format("stopped the command and its descendants ({} process(es))", killed) : "",
          killed > 0 && removed ? " and " : "", removed ? fmt::format("removed the tracefs instance {}", inst) : "");
      [[maybe_unused]] ssize_t w = ::write(STDERR_FILENO, msg.data(), msg.size());
    }
    ::_exit(0);
  }

  void watch(pid_t command) const {
    int32_t v = static_cast<int32_t>(command);
    [[maybe_unused]] ssize_t w = ::write(fd, &v, sizeof v);
  }

  ~Watchdog() {
    if (pid <= 0) return;
    int32_t zero = 0;
    [[maybe_unused]] ssize_t w = ::write(fd, &zero, sizeof zero);
    ::close(fd);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
};

// The recorded command: killed and reaped if recording ends early (an error, an interrupt).
struct ChildGuard {
  pid_t pid = -1;
  bool reaped = false;
  int slot = -1;
  void set(pid_t p) {
    pid = p;
    slot = register_exit_action(ExitAction::kKill, "", static_cast<int>(p));
  }
  void mark_reaped() {
    reaped = true;
    unregister_exit_action(slot);
  }
  ~ChildGuard() {
    if (pid <= 0 || reaped) return;
    kill_tree(pid);  // its descendants too: hackbench's groups outlive a killed parent
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    unregister_exit_action(slot);
  }
};

// A descriptor closed on every exit path (trace_pipe must be closed before the instance's rmdir).
struct FdGuard {
  int fd = -1;
  int slot = -1;
  void set(int f) {
    fd = f;
    slot = register_exit_action(ExitAction::kClose, "", f);
  }
  ~FdGuard() {
    if (fd < 0) return;
    unregister_exit_action(slot);
    ::close(fd);
  }
};

}  // namespace

std::vector<std::string> default_record_events() {
  return {"sched_switch",       "sched_waking",       "sched_wakeup",       "sched_wakeup_new",
          "sched_process_fork", "sched_process_exit", "sched_process_exec", "sched_migrate_task"};
}

std::vector<std::string> record_extra_groups() { return {"idle", "ipi", "irq", "syscalls"}; }

namespace {
// The tracefs event directories (relative to events/) of an extra group; "ipi" is the whole
// group (its events differ by architecture and kernel: ipi_raise, ipi_send_cpu(mask), ...).
std::vector<std::string> extra_event_dirs(const std::string& group) {
  if (group == "idle") return {"power/cpu_idle"};
  if (group == "ipi") return {"ipi"};
  // x86's IPI and timer vectors (arch/x86/include/asm/trace/irq_vectors.h): where the target
  // takes the reschedule IPI (docs/traces.md "The reschedule IPI measured from the trace").
  if (group == "irq")
    return {"irq_vectors/reschedule_entry",           "irq_vectors/reschedule_exit",
            "irq_vectors/local_timer_entry",          "irq_vectors/local_timer_exit",
            "irq_vectors/call_function_single_entry", "irq_vectors/call_function_single_exit"};
  if (group == "syscalls")
    return {"syscalls/sys_enter_read", "syscalls/sys_exit_read", "syscalls/sys_enter_write", "syscalls/sys_exit_write",
            "syscalls/sys_enter_close"};
  throw InputError(unknown_choice_message("--extra-events group", group, record_extra_groups()));
}
}  // namespace

namespace {

// Refuses what cannot be recorded before anything runs; returns the command's executable.
std::string check_recordable(const RecordOptions& opt) {
  for (const auto& g : opt.extra) extra_event_dirs(g);  // refuse a wrong name before anything runs
  if (opt.command.empty()) throw InputError("record: no command given (schedsim record -o FILE -- COMMAND ARGS)");
  std::string exe = check_command_runnable(opt.command[0]);
  if (::geteuid() != 0)
    throw InputError("record needs root: tracefs (/sys/kernel/tracing) is writable only by root; "
                     "run it with sudo");
  return exe;
}

// Enables the sched events (or those asked for) and the extra groups in the instance `inst`.
void enable_events(const std::string& inst, const RecordOptions& opt, RecordResult& res) {
  std::vector<std::string> events = opt.events.empty() ? default_record_events() : opt.events;
  for (const auto& e : events) {
    std::string name = e.rfind("sched:", 0) == 0 ? e.substr(6) : e;
    std::string en = inst + "/events/sched/" + name + "/enable";
    if (!file_exists(en)) {
      if (!opt.events.empty()) {
        // A user-chosen event that does not exist is a typo or a kernel without it: say so.
        std::vector<std::string> avail;
        std::error_code ec;
        for (const auto& d : fs::directory_iterator(inst + "/events/sched", ec))
          if (d.is_directory()) avail.push_back(d.path().filename().string());
        std::sort(avail.begin(), avail.end());
        throw InputError(unknown_choice_message("sched event", name, avail));
      }
      res.skipped_events.push_back(name);  // a default event this kernel lacks (sched_waking < 4.3)
      continue;
    }
    write_file(en, "1");
  }
  // Events of the private instance are switched off with it (the instance is removed at the
  // end), so the machine's own tracing state is never touched.
  for (const auto& g : opt.extra)
    for (const auto& dir : extra_event_dirs(g)) {
      std::string en = inst + "/events/" + dir + "/enable";
      if (!file_exists(en)) {
        res.skipped_extra.push_back(dir);  // this kernel lacks it (no CONFIG_FTRACE_SYSCALLS, ...)
        continue;
      }
      // The recorder's own reads of trace_pipe and writes of the output would trace themselves
      // without end: leave its pid out.
      if (g == "syscalls") write_file(inst + "/events/" + dir + "/filter", fmt::format("common_pid != {}", ::getpid()));
      write_file(en, "1");
    }
  // fds belong to a process's fd table, which its threads share: the TGID column lets the
  // importer's --channels key an fd by its table (docs/traces.md "Channels from syscalls").
  if (std::find(opt.extra.begin(), opt.extra.end(), "syscalls") != opt.extra.end() &&
      file_exists(inst + "/options/record-tgid"))
    write_file(inst + "/options/record-tgid", "1");
}

// Forks the command, held until `go` is closed. The child waits on `go` so tracing is on before
// its first instruction; if its exec fails it sends errno on `failed` (close-on-exec: a
// successful exec closes it, the parent reads EOF). Returns the child's pid, with go[1] and
// failed[0] left open in the parent.
pid_t fork_command(const std::string& exe, const RecordOptions& opt, int (&go)[2], int (&failed)[2]) {
  if (::pipe2(go, O_CLOEXEC) != 0 || ::pipe2(failed, O_CLOEXEC) != 0)
    throw InputError(fmt::format("pipe: {}", std::strerror(errno)));
  std::vector<char*> argv;  // built before fork(): the child only calls async-signal-safe functions
  for (const auto& a : opt.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t child = ::fork();
  if (child < 0) throw InputError(fmt::format("fork: {}", std::strerror(errno)));
  if (child == 0) {
    ::close(go[1]);
    ::close(failed[0]);
    char c;
    while (::read(go[0], &c, 1) < 0 && errno == EINTR) {
    }
    ::execv(exe.c_str(), argv.data());
    int err = errno;
    [[maybe_unused]] ssize_t w = ::write(failed[1], &err, sizeof err);
    ::_exit(127);
  }
  ::close(go[0]);
  ::close(failed[1]);
  return child;
}

// The trace's header: ftrace's first lines, then what the recording was.
std::string trace_header(pid_t child, const RecordOptions& opt) {
  // The online CPU count, as ftrace's own "#P:" header gives it (num_online_cpus()), which
  // trace_pipe output lacks: without it run and calibrate judge whether a trace comes from
  // another machine by the CPUs that show events, and a CPU that stayed idle makes the machine
  // look smaller.
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  return fmt::format(
      "# tracer: nop\n#\n# schedsim record: root_pid={} command={}\n{}# schedsim recorder: pid={} class={}\n#\n", child,
      fmt::join(opt.command, " "), online > 0 ? fmt::format("# schedsim record: cpus={}\n", online) : "", ::getpid(),
      opt.idle_class ? "SCHED_IDLE" : "SCHED_OTHER");
}

// Exec failed after the PATH check (EACCES on a noexec mount, ENOEXEC for a file that is not
// an executable format, ETXTBSY...): an error, no trace written; the guards kill and reap the
// child, remove the temporary output and the tracefs instance.
void check_exec(int failed_fd, const RecordOptions& opt, const std::string& exe) {
  int exec_errno = 0;
  ssize_t got;
  while ((got = ::read(failed_fd, &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  if (got == static_cast<ssize_t>(sizeof exec_errno))
    throw InputError(fmt::format("record: cannot run command '{}': {} (exec of {} failed{})", opt.command[0],
                                 std::strerror(exec_errno), exe,
                                 exec_errno == ENOEXEC ? "; a script needs a #! line, or record 'sh FILE'" : ""));
}

// Copies trace_pipe to the sink until the command exits, turns tracing off and drains the
// rest; counts LOST markers. Returns the command's wait status.
int copy_until_exit(int pipe_fd, Sink& sink, pid_t child, ChildGuard& child_guard, const std::string& inst,
                    RecordResult& res) {
  std::vector<char> buf(1 << 20);
  auto pump = [&]() -> bool {  // true if data was read
    ssize_t n = ::read(pipe_fd, buf.data(), buf.size());
    if (n <= 0) return false;
    sink.write(buf.data(), static_cast<size_t>(n));
    std::string_view v(buf.data(), static_cast<size_t>(n));
    for (size_t p = v.find("[LOST "); p != std::string_view::npos; p = v.find("[LOST ", p + 1)) ++res.lost_markers;
    return true;
  };
  int status = 0;
  bool done = false;
  while (!done) {
    // Sleep instead of poll(): a poll waiter on trace_pipe is woken through irq_work for
    // every new page, which would fill the trace with wakeups of the recorder itself.
    ::usleep(20000);
    if (interrupt_signal()) break;  // the guards stop the command and clean up
    while (pump()) {
    }
    pid_t r = ::waitpid(child, &status, WNOHANG);
    if (r == child) {
      done = true;
      child_guard.mark_reaped();
    }
  }
  throw_if_interrupted();
  write_file(inst + "/tracing_on", "0");
  // Drain what is left (non-blocking read returns EAGAIN once empty).
  for (int idle = 0; idle < 3;) {
    if (pump()) idle = 0;
    else {
      ++idle;
      ::usleep(20000);
    }
  }
  throw_if_interrupted();
  return status;
}

// Overruns per CPU (ring_buffer_overrun_cpu) and dropped events (overwrite=0 mode).
void add_overruns(const std::string& inst, RecordResult& res) {
  for (int cpu = 0;; ++cpu) {
    std::ifstream st(fmt::format("{}/per_cpu/cpu{}/stats", inst, cpu));
    if (!st) break;
    std::string line;
    while (std::getline(st, line)) {
      unsigned long long v = 0;
      if (std::sscanf(line.c_str(), "overrun: %llu", &v) == 1 ||
          std::sscanf(line.c_str(), "dropped events: %llu", &v) == 1)
        res.overruns += v;
    }
  }
}

}  // namespace

RecordResult record_trace(const RecordOptions& opt) {
  const std::string exe = check_recordable(opt);
  const std::string root = find_tracefs();
  remove_stale_instances(root);
  RecordResult res;
  // A signal ends the recording at the loop's next poll: the command is stopped, tracing turned
  // off, the instance and the temporary output removed (destructors, in reverse order).
  CooperativeInterrupts interrupts;
  InstanceGuard guard;
  const std::string inst = fmt::format("{}/instances/schedsim-{}", root, ::getpid());
  if (::mkdir(inst.c_str(), 0755) != 0)
    throw InputError(SourceLoc{inst}, fmt::format("cannot create a tracefs instance: {}", std::strerror(errno)));
  guard.set(inst);
  Watchdog watchdog;  // destroyed after the command's guard, before the instance's
  watchdog.start(inst);
  write_file(inst + "/tracing_on", "0");
  write_file(inst + "/buffer_size_kb", std::to_string(opt.buffer_kb));
  enable_events(inst, opt, res);
  Sink sink(opt.output,
            opt.gzip || (opt.output.size() > 3 && opt.output.compare(opt.output.size() - 3, 3, ".gz") == 0));

  int go[2], failed[2];
  pid_t child = fork_command(exe, opt, go, failed);
  // After fork(): the command keeps the recorder's original policy. As SCHED_IDLE the recorder
  // neither delays the command's tasks (a normal wakee preempts it at once) nor repels their
  // wakeups (select_idle_sibling() takes a CPU running only SCHED_IDLE tasks like an idle one
  // since v5.4: 3c29e651e16d "sched/fair: Fall back to sched-idle CPU if idle CPU isn't found").
  // Opt-in (--recorder-class idle): on the 2-vCPU guest it shortened hackbench but made `perf
  // bench sched pipe` 1.2-2.8x longer, the kernel moving the ping-pong onto the recorder's CPU
  // (docs/traces.md, "Recording").
  if (opt.idle_class) {
    sched_param sp{};
    sp.sched_priority = 0;
    if (::sched_setscheduler(0, SCHED_IDLE, &sp) != 0)
      throw InputError(
          fmt::format("record: cannot make the recorder SCHED_IDLE: {} (--recorder-class normal "
                      "records without it)",
                      std::strerror(errno)));
  }
  FdGuard failed_guard;
  failed_guard.set(failed[0]);
  ChildGuard child_guard;
  child_guard.set(child);
  watchdog.watch(child);
  res.root_pid = child;

  std::string header = trace_header(child, opt);
  sink.write(header.data(), header.size());
  FdGuard pipe_guard;
  int pipe_fd = ::open((inst + "/trace_pipe").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (pipe_fd < 0)
    throw InputError(SourceLoc{inst + "/trace_pipe"}, fmt::format("cannot open: {}", std::strerror(errno)));
  pipe_guard.set(pipe_fd);
  write_file(inst + "/tracing_on", "1");
  ::close(go[1]);  // release the child
  check_exec(failed[0], opt, exe);

  const int status = copy_until_exit(pipe_fd, sink, child, child_guard, inst, res);
  res.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  add_overruns(inst, res);
  res.bytes = sink.bytes();
  sink.commit();
  return res;
}

}  // namespace schedsim::traces
