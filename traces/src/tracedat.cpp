// trace.dat through libtracecmd: see tracedat.hpp. libtracecmd needs a file descriptor, so a
// file held in memory (a gzip/zstd-compressed trace.dat, the fuzz target's input) is handed to
// it as a memfd. Events are merged across CPUs and buffers in timestamp order by
// tracecmd_iterate_events_multi().
#include "tracedat.hpp"

#include <fmt/format.h>

#include "schedsim/base/error.hpp"
#include "schedsim/traces/line_reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string_view>
#include <tuple>
#include <vector>

#ifdef SCHEDSIM_HAVE_TRACECMD

// libtracecmd's public header includes tracefs.h, which is not valid C++ (an int passed as an
// enum in an inline function), so the few functions used here are declared from trace-cmd.h
// (libtracecmd 1.3, LGPL-2.1 API) instead of including it. The last two are exported but
// declared only in trace-cmd's private header: the number of CPUs a buffer holds data for, and
// the trace clock the file was recorded with ("local", "global", "mono", "counter", ...).
#include <event-parse.h>
extern "C" {
struct tracecmd_input;
enum { TRACECMD_FL_LOAD_NO_PLUGINS = 1 << 0 };
tracecmd_input* tracecmd_open(const char* file, int flags);
tracecmd_input* tracecmd_open_fd(int fd, int flags);
void tracecmd_close(tracecmd_input* handle);
tep_handle* tracecmd_get_tep(tracecmd_input* handle);
int tracecmd_buffer_instances(tracecmd_input* handle);
const char* tracecmd_buffer_instance_name(tracecmd_input* handle, int indx);
tracecmd_input* tracecmd_buffer_instance_handle(tracecmd_input* handle, int indx);
int tracecmd_iterate_events_multi(tracecmd_input** handles, int nr_handles,
                                  int (*callback)(tracecmd_input* handle, tep_record*, int, void*),
                                  void* callback_data);
void tracecmd_set_loglevel(enum tep_loglevel level);
int tracecmd_cpus(tracecmd_input* handle);
const char* tracecmd_get_trace_clock(tracecmd_input* handle);
int tracecmd_page_size(tracecmd_input* handle);
}
#endif

namespace schedsim::traces {

namespace {
const char* const kFallback = "convert it with 'trace-cmd report -N -i FILE > FILE.txt' and give schedsim the text";

bool write_all(int fd, std::string_view s) {
  while (!s.empty()) {
    ssize_t n = ::write(fd, s.data(), s.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    s.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

#ifndef SCHEDSIM_HAVE_TRACECMD

bool tracedat_supported() { return false; }
const char* tracedat_library_version() { return ""; }

std::string tracedat_to_text(const std::string& path, const std::string_view*) {
  throw InputError(SourceLoc{path, 1},
                   "a trace-cmd binary file (trace.dat), and this schedsim was built without "
                   "libtracecmd: " + std::string(kFallback));
}

#else

bool tracedat_supported() { return true; }
const char* tracedat_library_version() { return SCHEDSIM_TRACECMD_VERSION; }

namespace {

struct HandleCloser {
  void operator()(tracecmd_input* h) const { tracecmd_close(h); }
};

// Clocks whose timestamps are not nanoseconds (Documentation/trace/ftrace.rst "trace_clock").
bool tick_clock(const char* clock) {
  if (!clock) return false;
  std::string_view c(clock);
  return c == "counter" || c == "uptime" || c == "x86-tsc";
}

struct Renderer {
  std::string out;
  trace_seq seq{};
  std::vector<tracecmd_input*> handles;
  std::vector<std::string> prefixes;  // per handle: "" or "NAME: "
  bool ticks = false;
  // Two CPUs whose header entries point at one buffer (a damaged or crafted file) are read
  // silently by libtracecmd: each record comes twice, at the same timestamp, from two CPUs. The
  // merged iteration delivers records in timestamp order, so the copies arrive together: the
  // records of the current timestamp are kept (handle, CPU, hash of the raw bytes), and each
  // later one equal to another CPU's is counted per CPU.
  uint64_t same_ts = UINT64_MAX;
  std::vector<std::tuple<size_t, int, size_t>> at_ts;
  std::map<std::pair<size_t, int>, uint64_t> records, copies;  // per (handle, CPU)
  std::map<std::pair<size_t, int>, int> copy_of;                // a CPU whose records it repeats

  Renderer() { trace_seq_init(&seq); }
  ~Renderer() { trace_seq_destroy(&seq); }
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  std::string_view render(tep_handle* tep, tep_record* rec, const char* what) {
    trace_seq_reset(&seq);
    tep_print_event(tep, &seq, rec, "%s", what);
    trace_seq_terminate(&seq);
    return {seq.buffer, seq.len};
  }

  void event(tracecmd_input* h, tep_record* rec) {
    tep_handle* tep = tracecmd_get_tep(h);
    std::string_view prefix;
    size_t hi = 0;
    for (size_t i = 0; i < handles.size(); ++i)
      if (handles[i] == h) {
        prefix = prefixes[i];
        hi = i;
      }
    if (rec->ts != same_ts) {
      same_ts = rec->ts;
      at_ts.clear();
    }
    const size_t bytes = std::hash<std::string_view>{}(
        std::string_view(static_cast<const char*>(rec->data), rec->data ? static_cast<size_t>(rec->size) : 0));
    ++records[{hi, rec->cpu}];
    for (const auto& [h2, cpu2, bytes2] : at_ts)
      if (h2 == hi && cpu2 != rec->cpu && bytes2 == bytes) {
        ++copies[{hi, rec->cpu}];
        copy_of[{hi, rec->cpu}] = cpu2;
        break;
      }
    at_ts.emplace_back(hi, rec->cpu, bytes);
    if (rec->missed_events != 0) {
      // -1: the buffer says events were lost without a count.
      if (rec->missed_events > 0)
        fmt::format_to(std::back_inserter(out), "{}CPU:{} [LOST {} EVENTS]\n", prefix, rec->cpu, rec->missed_events);
      else
        fmt::format_to(std::back_inserter(out), "{}CPU:{} [LOST EVENTS]\n", prefix, rec->cpu);
    }
    const int pid = tep_data_pid(tep, rec);
    const char* comm = pid == 0 ? "<idle>" : tep_data_comm_from_pid(tep, pid);
    std::string name(render(tep, rec, TEP_PRINT_NAME));
    std::string lat(render(tep, rec, TEP_PRINT_LATENCY));
    // The pid is printed, so a comm the saved cmdlines do not know is only cosmetic.
    fmt::format_to(std::back_inserter(out), "{}{:>16}-{:<5} [{:03}] {} ", prefix, comm ? comm : "<...>", pid,
                   rec->cpu, lat);
    if (ticks)
      fmt::format_to(std::back_inserter(out), "{}", rec->ts);
    else
      fmt::format_to(std::back_inserter(out), "{}.{:09}", rec->ts / 1000000000ull, rec->ts % 1000000000ull);
    std::string_view info = render(tep, rec, TEP_PRINT_INFO);
    fmt::format_to(std::back_inserter(out), ": {}: {}\n", name, info);
  }
};

bool valid_page_size(int64_t ps) { return ps >= 4096 && ps <= (1 << 20) && (ps & (ps - 1)) == 0; }

// trace.dat's fixed header: "\x17\x08\x44tracing", the version as a NUL-terminated string, the
// endianness (0 little), the size of a long, then the page size as 4 bytes. -1 when `head` is
// not such a header (libtracecmd refuses it itself).
int64_t header_page_size(std::string_view head) {
  if (head.substr(0, 10) != std::string_view("\x17\x08\x44tracing", 10)) return -1;
  const size_t nul = head.find('\0', 10);
  if (nul == std::string_view::npos || nul + 7 > head.size()) return -1;
  const bool big = head[nul + 1] != 0;
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    const auto byte = static_cast<uint32_t>(static_cast<unsigned char>(head[nul + 3 + static_cast<size_t>(i)]));
    v |= byte << (big ? 8 * (3 - i) : 8 * i);
  }
  return v;
}

int on_record(tracecmd_input* h, tep_record* rec, int /*cpu*/, void* data) {
  static_cast<Renderer*>(data)->event(h, rec);
  return 0;
}

// In-process rendering; throws InputError. Run in a child process by tracedat_to_text().
std::string render_in_process(const std::string& path, const std::string_view* data) {
  tracecmd_set_loglevel(TEP_LOG_NONE);
  tep_set_loglevel(TEP_LOG_NONE);
  std::unique_ptr<tracecmd_input, HandleCloser> top;
  if (data) {
    int fd = memfd_create("schedsim-trace.dat", MFD_CLOEXEC);
    if (fd < 0) throw InputError(SourceLoc{path}, fmt::format("memfd_create: {}", std::strerror(errno)));
    size_t done = 0;
    while (done < data->size()) {
      ssize_t n = ::write(fd, data->data() + done, data->size() - done);
      if (n <= 0) {
        int e = errno;
        ::close(fd);
        throw InputError(SourceLoc{path}, fmt::format("writing the trace.dat to memory: {}", std::strerror(e)));
      }
      done += static_cast<size_t>(n);
    }
    ::lseek(fd, 0, SEEK_SET);
    top.reset(tracecmd_open_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS));  // closes fd with the handle
    if (!top) ::close(fd);
  } else {
    top.reset(tracecmd_open(path.c_str(), TRACECMD_FL_LOAD_NO_PLUGINS));
  }
  if (!top)
    throw InputError(SourceLoc{path, 1},
                     fmt::format("libtracecmd {} cannot read this trace.dat (damaged, truncated or a newer "
                                 "file version); {}",
                                 SCHEDSIM_TRACECMD_VERSION, kFallback));
  Renderer r;
  std::vector<std::unique_ptr<tracecmd_input, HandleCloser>> instances;
  r.handles.push_back(top.get());
  r.prefixes.emplace_back();
  const int n = tracecmd_buffer_instances(top.get());
  for (int i = 0; i < n; ++i) {
    tracecmd_input* h = tracecmd_buffer_instance_handle(top.get(), i);
    if (!h) continue;
    instances.emplace_back(h);
    const char* name = tracecmd_buffer_instance_name(top.get(), i);
    r.handles.push_back(h);
    r.prefixes.push_back(fmt::format("{}: ", name ? name : "?"));
  }
  // Only buffers that hold CPU data take part; one such buffer needs no prefix.
  std::vector<tracecmd_input*> live;
  std::vector<std::string> live_prefix;
  int cpus = 0;
  for (size_t i = 0; i < r.handles.size(); ++i) {
    const int c = tracecmd_cpus(r.handles[i]);
    if (c <= 0) continue;
    cpus = std::max(cpus, c);
    live.push_back(r.handles[i]);
    live_prefix.push_back(r.prefixes[i]);
  }
  if (live.size() == 1) live_prefix[0].clear();
  r.handles = live;
  r.prefixes = live_prefix;
  if (!live.empty()) r.ticks = tick_clock(tracecmd_get_trace_clock(live[0]));
  r.out = fmt::format("# tracer: nop\n# trace.dat read with libtracecmd {}\ncpus={}\n", SCHEDSIM_TRACECMD_VERSION, cpus);
  // The ring buffer's page: a power of two the size of a kernel page (4 KiB to 64 KiB on the
  // architectures Linux runs on; 1 MiB allows for any). Another value in the file's header
  // misplaces every record; libtracecmd then reports a page size of 0 or reads garbage.
  {
    std::string head(64, '\0');
    if (data) {
      head = std::string(data->substr(0, 64));
    } else if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
      head.resize(std::fread(head.data(), 1, head.size(), f));
      std::fclose(f);
    }
    const int64_t ps = header_page_size(head);
    for (tracecmd_input* h : live)
      if (ps >= 0 ? !valid_page_size(ps) : !valid_page_size(tracecmd_page_size(h)))
        throw InputError(SourceLoc{path, 1},
                         fmt::format("the header's page size is {}: expected a power of two from 4096 to 1048576 "
                                     "(the kernel's page size); the file is damaged; {}",
                                     ps >= 0 ? ps : tracecmd_page_size(h), kFallback));
  }
  if (!live.empty() &&
      tracecmd_iterate_events_multi(live.data(), static_cast<int>(live.size()), on_record, &r) < 0)
    throw InputError(SourceLoc{path},
                     fmt::format("libtracecmd {} failed while reading the events of this trace.dat; {}",
                                 SCHEDSIM_TRACECMD_VERSION, kFallback));
  // Real CPUs share an identical record at an identical nanosecond now and then, never most of
  // their records.
  for (const auto& [key, copied] : r.copies)
    if (copied >= 2 && 2 * copied >= r.records[key])
      throw InputError(SourceLoc{path},
                       fmt::format("{} of the {} records of CPU {} repeat, byte for byte and at the same timestamps, "
                                   "records of CPU {}: the header points two CPUs at one buffer, so the file is "
                                   "damaged; {}",
                                   copied, r.records[key], key.second, r.copy_of[key], kFallback));
  return std::move(r.out);
}

}  // namespace

// libtraceevent 1.7 / libtracecmd 1.3 trust the file: a damaged event format or section can crash
// them (one byte-flipped trace.dat in a few hundred did, inside tracecmd_open's format parser).
// So the file is read in a child process (run_isolated()) that writes the text (or its error) to
// a pipe: a crash there becomes an InputError here, never a crash of schedsim, and a loop there
// ends at the child's CPU-time limit instead of hanging the import.
std::string tracedat_to_text(const std::string& path, const std::string_view* data) {
  uint64_t bytes = 0;
  if (data) {
    bytes = data->size();
  } else {
    std::error_code ec;
    const auto n = std::filesystem::file_size(path, ec);
    if (!ec) bytes = n;
  }
  const long limit = tracedat_cpu_limit_seconds(bytes);
  IsolatedResult r = run_isolated([&] { return render_in_process(path, data); }, limit);
  switch (r.kind) {
    case IsolatedResult::kOk: return std::move(r.text);
    case IsolatedResult::kInputError: throw InputError(SourceLoc{path, 1}, r.text);
    case IsolatedResult::kCpuLimit:
      throw InputError(SourceLoc{path, 1},
                       fmt::format("libtracecmd {} used more than {} s of CPU time reading this trace.dat ({} "
                                   "bytes; the limit is 60 s plus 30 s per MiB): a damaged file can make it "
                                   "loop; {}",
                                   SCHEDSIM_TRACECMD_VERSION, limit, bytes, kFallback));
    case IsolatedResult::kCrashed:
      throw InputError(SourceLoc{path, 1},
                       fmt::format("libtracecmd {} crashed reading this trace.dat ({}): the file is damaged "
                                   "('trace-cmd report' uses the same library and will fail too); record it again",
                                   SCHEDSIM_TRACECMD_VERSION, strsignal(r.signal)));
    case IsolatedResult::kFailed: break;
  }
  throw InputError(SourceLoc{path, 1},
                   fmt::format("reading this trace.dat with libtracecmd {} failed; {}", SCHEDSIM_TRACECMD_VERSION,
                               kFallback));
}

#endif

long tracedat_cpu_limit_seconds(uint64_t bytes) {
  // The Release build renders about 0.75 MB/s (a 152 KB file in 0.2 s), the sanitizer build about
  // 16 times slower (3.3 s): 60 s + 30 s per MiB leaves a margin of 10 or more over both, and
  // still ends a loop on any file in bounded time.
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  const uint64_t mib = bytes / kMiB + (bytes % kMiB != 0 ? 1 : 0);
  return static_cast<long>(60 + 30 * std::min<uint64_t>(mib, uint64_t{1} << 30));
}

IsolatedResult run_isolated(const std::function<std::string()>& body, long cpu_seconds) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw InputError(fmt::format("pipe: {}", std::strerror(errno)));
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) {
    const int e = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw InputError(fmt::format("fork: {}", std::strerror(e)));
  }
  if (child == 0) {
    // The parent's SIGINT/SIGTERM handler would run its clean-up here too: the parent handles
    // the signal; the child just dies (the parent then reports the read as failed).
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    // A crash inside the body must kill the child by its signal, which the parent reports. A
    // sanitizer build installs its own SIGSEGV/SIGBUS/SIGFPE handlers, which would turn the
    // crash into a report of a crash in a library we do not build, and exit 1.
    std::signal(SIGSEGV, SIG_DFL);
    std::signal(SIGBUS, SIG_DFL);
    std::signal(SIGFPE, SIG_DFL);
    std::signal(SIGILL, SIG_DFL);
    std::signal(SIGXCPU, SIG_DFL);
    // RLIMIT_CPU: SIGXCPU at the soft limit, SIGKILL at the hard one (setrlimit(2)). No core
    // file from either, nor from a crash: the parent reports it.
    const rlimit core{0, 0};
    ::setrlimit(RLIMIT_CORE, &core);
    const rlimit cpu{static_cast<rlim_t>(cpu_seconds), static_cast<rlim_t>(cpu_seconds) + 2};
    ::setrlimit(RLIMIT_CPU, &cpu);
    ::close(fds[0]);
    int rc = 0;
    try {
      std::string text = body();
      rc = write_all(fds[1], "T") && write_all(fds[1], text) ? 0 : 1;
    } catch (const InputError& e) {
      rc = write_all(fds[1], "E") && write_all(fds[1], e.message()) ? 0 : 1;
    } catch (...) {
      rc = 1;
    }
    ::_exit(rc);  // no atexit handlers, no flushing of the parent's stdio buffers
  }
  ::close(fds[1]);
  std::string got;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  rusage use{};
  while (::wait4(child, &status, 0, &use) < 0 && errno == EINTR) {
  }
  IsolatedResult r;
  if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
    const long used = use.ru_utime.tv_sec + use.ru_stime.tv_sec;
    const bool over = r.signal == SIGXCPU || (r.signal == SIGKILL && used >= cpu_seconds);
    r.kind = over ? IsolatedResult::kCpuLimit : IsolatedResult::kCrashed;
    return r;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || got.empty()) {
    r.kind = IsolatedResult::kFailed;
    return r;
  }
  r.kind = got[0] == 'E' ? IsolatedResult::kInputError : IsolatedResult::kOk;
  got.erase(0, 1);
  r.text = std::move(got);
  return r;
}

std::optional<std::string> tracedat_text_if_any(const std::string& path, const std::string_view* data,
                                                TraceDatSource* source) {
  if (!data && path == "-") return std::nullopt;  // stdin cannot be peeked; check_text_trace says why
  // trace.dat is binary: its "lines" are arbitrary, so allow long ones (the reader's buffer grows
  // to the longest run without a newline byte, about three times the run). 64 MiB: a trace.dat's
  // header text and its event records hold 0x0a bytes far more often, and every input passes
  // this peek first, so a run of zeros (a bomb) must not cost gigabytes here.
  constexpr size_t kMaxRun = size_t{64} << 20;
  std::optional<LineReader> rd;
  if (data) rd.emplace(*data, path, kMaxRun);
  else rd.emplace(path, kMaxRun);
  std::string_view line;
  if (!rd->next(line) || !line.starts_with(kTraceDatMagic)) return std::nullopt;
  if (rd->compression() == Compression::kNone) {
    if (source) {
      std::error_code ec;
      source->bytes = data ? data->size() : static_cast<uint64_t>(std::filesystem::file_size(path, ec));
    }
    return tracedat_to_text(path, data);
  }
  // Compressed (gzip/zstd around the trace.dat): decompress into memory first.
  std::string bytes = read_whole(*rd, line, path, "trace.dat");
  if (source) *source = TraceDatSource{rd->compression(), bytes.size()};
  const std::string_view view(bytes);
  return tracedat_to_text(path, &view);
}

}  // namespace schedsim::traces
