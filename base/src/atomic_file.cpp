#include "schedsim/base/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

#include <zlib.h>

#include "schedsim/base/error.hpp"
#include "schedsim/base/gzip.hpp"
#include "schedsim/base/run_control.hpp"

namespace schedsim {

namespace fs = std::filesystem;

namespace {

fs::path dir_of(const std::string& path) {
  fs::path p = fs::path(path).parent_path();
  return p.empty() ? fs::path(".") : p;
}

// The PID at the end of a temporary's name, or 0 when the name is not one of ours.
long temp_owner(const std::string& name) {
  if (name.size() < 2 || name[0] != '.') return 0;
  size_t tag = name.rfind(AtomicFile::kTempTag);
  if (tag == std::string::npos) return 0;
  const char* b = name.data() + tag + AtomicFile::kTempTag.size();
  const char* e = name.data() + name.size();
  long pid = 0;
  auto r = std::from_chars(b, e, pid);
  if (r.ec != std::errc() || r.ptr != e || pid <= 0) return 0;
  return pid;
}

void fsync_dir(const fs::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);  // best effort: some file systems refuse fsync on directories
  ::close(fd);
}

}  // namespace

size_t remove_stale_temporaries(const std::string& dir) {
  size_t removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    long pid = temp_owner(entry.path().filename().string());
    if (pid == 0 || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to ask)
    std::error_code rec;
    if (fs::remove(entry.path(), rec)) ++removed;
  }
  return removed;
}

struct AtomicFile::Gzip {
  z_stream zs{};
  Bytef out[1 << 16];
  ~Gzip() { deflateEnd(&zs); }
};

AtomicFile::AtomicFile(const std::string& path, const std::string& what, Compress compress)
    : path_(path), what_(what) {
  if (path.empty() || path == "-") {
    f_ = stdout;
    stdout_ = true;
    return;
  }
  if (compress == Compress::kByName && gzip_name(path)) {
    auto gz = std::make_unique<Gzip>();
    // windowBits 15 + 16: a gzip wrapper (RFC 1952) around the deflate stream, level 6 as gzip's.
    if (deflateInit2(&gz->zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw InputError(SourceLoc{path}, "cannot write " + what + ": cannot start the gzip compressor");
    gz_ = std::move(gz);
  }
  std::error_code ec;
  // Through a symlink: replace the file it points to, not the link.
  if (fs::is_symlink(path, ec)) {
    fs::path resolved = fs::weakly_canonical(path, ec);
    if (!ec) path_ = resolved.string();
  }
  // Not a regular file (/dev/null, a FIFO, a terminal): written in place, never renamed over.
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    f_ = std::fopen(path_.c_str(), "wb");
    if (!f_) throw InputError(SourceLoc{path}, "cannot write " + what + ": " + std::strerror(errno));
    direct_ = true;
    return;
  }
  fs::path target(path_);
  fs::path dir = dir_of(path_);
  if (!fs::is_directory(dir, ec))
    throw InputError(SourceLoc{path}, "cannot write " + what + ": directory '" + dir.string() + "' does not exist");
  if (fs::is_directory(target, ec)) throw InputError(SourceLoc{path}, "cannot write " + what + ": it is a directory");
  {
    static std::mutex mu;
    static std::set<std::string> cleaned;
    std::lock_guard<std::mutex> lock(mu);
    std::string key = fs::absolute(dir, ec).lexically_normal().string();
    if (cleaned.insert(key).second) remove_stale_temporaries(dir.string());
  }
  tmp_ = (dir / ("." + target.filename().string() + std::string(kTempTag) + std::to_string(::getpid()))).string();
  slot_ = register_temp_path(tmp_);
  f_ = std::fopen(tmp_.c_str(), "wbx");
  if (!f_ && errno == EEXIST) {  // ours from an earlier output of this process with the same name
    std::remove(tmp_.c_str());
    f_ = std::fopen(tmp_.c_str(), "wbx");
  }
  if (!f_) {
    int e = errno;
    unregister_temp_path(slot_);
    throw InputError(SourceLoc{path}, "cannot write " + what + ": cannot create a file in '" + dir.string() +
                                          "': " + std::strerror(e));
  }
}

AtomicFile::~AtomicFile() {
  if (!stdout_) discard();
}

void AtomicFile::discard() {
  if (f_) std::fclose(f_);
  f_ = nullptr;
  if (!tmp_.empty()) std::remove(tmp_.c_str());
  tmp_.clear();
  unregister_temp_path(slot_);
  slot_ = -1;
}

namespace {
bool g_stdout_failure_reported = false;
}

bool stdout_failure_reported() { return g_stdout_failure_reported; }

void AtomicFile::fail(const std::string& why) {
  if (stdout_) g_stdout_failure_reported = true;
  else discard();
  f_ = nullptr;
  throw InputError(SourceLoc{path_}, "cannot write " + what_ + ": " + why);
}

void AtomicFile::raw_write(const char* p, size_t n) {
  if (n > 0 && std::fwrite(p, 1, n, f_) != n) fail("write failed (disk full?)");
}

void AtomicFile::deflate_some(const char* p, size_t n, bool finish) {
  z_stream& zs = gz_->zs;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(p));
  zs.avail_in = static_cast<uInt>(n);
  int r = Z_OK;
  do {
    zs.next_out = gz_->out;
    zs.avail_out = sizeof gz_->out;
    r = deflate(&zs, finish ? Z_FINISH : Z_NO_FLUSH);
    if (r == Z_STREAM_ERROR) fail("gzip compression failed");
    raw_write(reinterpret_cast<const char*>(gz_->out), sizeof gz_->out - zs.avail_out);
  } while (zs.avail_out == 0 || (finish && r != Z_STREAM_END));
}

void AtomicFile::write(std::string_view bytes) {
  if (bytes.empty()) return;
  if (!f_ || closed_) fail("written after close (a bug)");
  if (gz_) {
    // uInt-sized pieces (zlib counts in 32 bits).
    for (size_t at = 0; at < bytes.size(); at += size_t{1} << 30)
      deflate_some(bytes.data() + at, std::min(bytes.size() - at, size_t{1} << 30), false);
    return;
  }
  raw_write(bytes.data(), bytes.size());
}

void AtomicFile::append_file(const std::string& path, uint64_t max_bytes) {
  std::FILE* in = std::fopen(path.c_str(), "rb");
  if (!in) fail("cannot reopen '" + path + "': " + std::strerror(errno));
  std::string buf(1 << 20, '\0');
  bool ok = true;
  uint64_t left = max_bytes;
  while (size_t n = std::fread(buf.data(), 1, static_cast<size_t>(std::min<uint64_t>(buf.size(), left)), in)) {
    left -= n;
    if (gz_) {
      try {
        write(std::string_view(buf.data(), n));
      } catch (...) {
        std::fclose(in);
        throw;
      }
    } else if (std::fwrite(buf.data(), 1, n, f_) != n) {
      ok = false;
      break;
    }
  }
  ok = ok && !std::ferror(in);
  std::fclose(in);
  if (!ok) fail("copying '" + path + "' failed (disk full?)");
}

void AtomicFile::flush() {
  if (f_ && std::fflush(f_) != 0) fail("write failed (disk full?)");
}

void AtomicFile::close() {
  if (closed_) return;
  if (stdout_) {
    if (std::fflush(stdout) != 0) fail("write to stdout failed");
    closed_ = true;
    return;
  }
  if (!f_) fail("closed twice (a bug)");
  if (gz_) deflate_some(nullptr, 0, true);
  bool ok = std::fflush(f_) == 0;
  if (!direct_) ok = ::fsync(::fileno(f_)) == 0 && ok;  // devices and FIFOs may refuse fsync
  ok = std::fclose(f_) == 0 && ok;
  f_ = nullptr;
  if (!ok) fail("write failed (disk full?)");
  closed_ = true;
}

void AtomicFile::commit() { commit_together({this}); }

void commit_together(const std::vector<AtomicFile*>& files) {
  for (AtomicFile* f : files) f->close();
  throw_if_interrupted();  // a signal that arrived while writing: commit nothing
  std::set<std::string> dirs;
  {
    SignalsBlocked blocked;
    for (AtomicFile* f : files) {
      if (f->is_stdout() || f->direct_) continue;
      if (std::rename(f->tmp_.c_str(), f->path_.c_str()) != 0) f->fail(std::string("rename failed: ") + std::strerror(errno));
      f->tmp_.clear();  // renamed: nothing left to remove
      unregister_temp_path(f->slot_);
      f->slot_ = -1;
      dirs.insert(dir_of(f->path()).string());
    }
  }
  for (const auto& d : dirs) fsync_dir(d);
}

void write_file_atomic(const std::string& path, const std::string& content, const std::string& what,
                       Compress compress) {
  AtomicFile f(path, what, compress);
  f.write(content);
  f.commit();
}

}  // namespace schedsim
