#include "schedsim/base/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "schedsim/base/error.hpp"

namespace schedsim {

AtomicFile::AtomicFile(const std::string& path, const std::string& what) : path_(path), what_(what) {
  if (path.empty() || path == "-") {
    f_ = stdout;
    return;
  }
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(SourceLoc{path}, "cannot write " + what + ": directory '" + dir.string() + "' does not exist");
  if (fs::is_directory(target, ec)) throw InputError(SourceLoc{path}, "cannot write " + what + ": it is a directory");
  // A device or FIFO (/dev/null, /dev/stdout, a named pipe) is written in place: renaming a
  // temporary over it would replace the device node with a regular file (as root, /dev/null).
  if (fs::exists(target, ec) && !fs::is_regular_file(target, ec)) {
    f_ = std::fopen(path.c_str(), "wb");
    if (!f_) throw InputError(SourceLoc{path}, "cannot write " + what + ": " + std::strerror(errno));
    return;
  }
  tmp_ = (dir / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()))).string();
  f_ = std::fopen(tmp_.c_str(), "wb");
  if (!f_)
    throw InputError(SourceLoc{path}, "cannot write " + what + ": cannot create a file in '" + dir.string() +
                                          "': " + std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (f_ && f_ != stdout) {
    std::fclose(f_);
    if (!tmp_.empty()) std::remove(tmp_.c_str());
  }
}

void AtomicFile::fail(const std::string& why) {
  if (f_ && f_ != stdout) std::fclose(f_);
  if (f_ != stdout && !tmp_.empty()) std::remove(tmp_.c_str());
  f_ = nullptr;
  throw InputError(SourceLoc{path_}, "cannot write " + what_ + ": " + why);
}

void AtomicFile::write(std::string_view bytes) {
  if (bytes.empty()) return;
  if (std::fwrite(bytes.data(), 1, bytes.size(), f_) != bytes.size()) fail("write failed (disk full?)");
}

void AtomicFile::commit() {
  if (f_ == stdout) {
    std::fflush(stdout);
    f_ = nullptr;
    return;
  }
  bool ok = std::fflush(f_) == 0;
  ok = std::fclose(f_) == 0 && ok;
  f_ = nullptr;
  if (!ok) {
    if (!tmp_.empty()) std::remove(tmp_.c_str());
    throw InputError(SourceLoc{path_}, "cannot write " + what_ + ": write failed (disk full?)");
  }
  if (tmp_.empty()) return;  // written in place (a device or FIFO)
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    int e = errno;
    std::remove(tmp_.c_str());
    throw InputError(SourceLoc{path_}, "cannot write " + what_ + ": rename failed: " + std::strerror(e));
  }
}

void write_file_atomic(const std::string& path, const std::string& content, const std::string& what) {
  AtomicFile f(path, what);
  f.write(content);
  f.commit();
}

}  // namespace schedsim
