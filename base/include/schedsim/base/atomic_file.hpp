#pragma once
/// An output file written under a temporary name in the target's directory and renamed into
/// place by commit(), so nobody ever sees a partial file and a failed run leaves whatever the user
/// had at that path untouched. Destroyed without commit() (an exception, an interrupt), the
/// temporary is removed. "-" writes to stdout directly.
///
/// Temporaries are named `.NAME.schedsim-tmp.PID` and registered with the signal handler
/// (run_control.hpp), which removes them when a signal ends the process. A process killed with
/// SIGKILL (or a crash) cannot remove its own: the first AtomicFile a later run creates in the same
/// directory removes every `.*.schedsim-tmp.PID` there whose PID no longer exists (a PID reused by
/// another live process keeps its file until that process is gone). PIDs are those of this PID
/// namespace: a writer in another container sharing the directory looks dead, loses its
/// temporary and fails loudly at its rename (never a wrong file).
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace schedsim {

/// kByName: a target named "*.gz" is written gzip-compressed (gzip.hpp); stdout never is.
enum class Compress : uint8_t { kNone, kByName };

/// True once an AtomicFile on "-" has thrown for a failed write: the error was reported, so the
/// CLI's last check of standard output (cli/main.cpp) does not report it a second time.
bool stdout_failure_reported();

class AtomicFile {
 public:
  /// `what` names the output in error messages ("cannot write <what>: ..."). Throws InputError
  /// when the directory does not exist, the path is a directory, or the file cannot be created.
  AtomicFile(const std::string& path, const std::string& what, Compress compress = Compress::kNone);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  /// Appends bytes. Throws InputError when the write fails (disk full).
  void write(std::string_view bytes);
  /// Appends the content of the file at `path`, its first `max_bytes` bytes at most (streamed,
  /// constant memory).
  void append_file(const std::string& path, uint64_t max_bytes = UINT64_MAX);
  /// Flushes the stdio buffer to the temporary (so it can be read back by path; of a compressed
  /// output, what the compressor has emitted so far).
  void flush();
  /// Flushes, fsyncs and closes the temporary without renaming it (idempotent). Throws
  /// InputError on failure (the temporary is removed).
  void close();
  /// close(), then renames into place. Throws InputError on failure (the temporary is removed).
  void commit();
  /// The temporary's path ("" for stdout).
  const std::string& temp_path() const { return tmp_; }
  const std::string& path() const { return path_; }
  bool is_stdout() const { return stdout_; }

  /// The suffix every temporary name carries before its PID.
  static constexpr std::string_view kTempTag = ".schedsim-tmp.";

 private:
  friend void commit_together(const std::vector<AtomicFile*>& files);
  [[noreturn]] void fail(const std::string& why);
  void discard();
  void raw_write(const char* p, size_t n);
  struct Gzip;
  void deflate_some(const char* p, size_t n, bool finish);
  std::unique_ptr<Gzip> gz_;  // set when the output is compressed
  std::string path_, tmp_, what_;
  std::FILE* f_ = nullptr;
  bool stdout_ = false, closed_ = false;
  bool direct_ = false;  // the target is not a regular file (/dev/null, a FIFO): written in place
  int slot_ = -1;
};

/// Commits several outputs of one run together: every file is closed (flushed, fsynced) first,
/// then all are renamed one after the other with SIGINT/SIGTERM blocked, then the directories are
/// fsynced. Nothing is renamed unless every file was written completely. The residual window is
/// the renames themselves (microseconds): a SIGKILL or power loss between two renames leaves the
/// first output new and the next one old. Throws InputError.
void commit_together(const std::vector<AtomicFile*>& files);

/// Removes `.*.schedsim-tmp.PID` files of dead processes in `dir` (done once per directory by the
/// first AtomicFile created there). Returns how many were removed.
size_t remove_stale_temporaries(const std::string& dir);

/// Writes `content` to `path` atomically ("-" or "" = stdout).
void write_file_atomic(const std::string& path, const std::string& content, const std::string& what,
                       Compress compress = Compress::kNone);

}  // namespace schedsim
