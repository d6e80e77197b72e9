#pragma once
/// An output file written under a temporary name in the target's directory and renamed into
/// place by commit(), so nobody ever sees a partial file and a failed run leaves whatever the user
/// had at that path untouched. Destroyed without commit() (an exception), the temporary is
/// removed. "-" writes to stdout directly.
#include <cstdio>
#include <string>
#include <string_view>

namespace schedsim {

class AtomicFile {
 public:
  /// `what` names the output in error messages ("cannot write <what>: ..."). Throws InputError
  /// when the directory does not exist, the path is a directory, or the file cannot be created.
  AtomicFile(const std::string& path, const std::string& what);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  /// Appends bytes. Throws InputError when the write fails (disk full).
  void write(std::string_view bytes);
  /// Flushes, closes and renames into place. Throws InputError on failure (the temporary is
  /// removed).
  void commit();

 private:
  [[noreturn]] void fail(const std::string& why);
  std::string path_, tmp_, what_;
  std::FILE* f_ = nullptr;
};

/// Writes `content` to `path` atomically ("-" or "" = stdout).
void write_file_atomic(const std::string& path, const std::string& content, const std::string& what);

}  // namespace schedsim
