// AtomicFile: temporaries named .NAME.schedsim-tmp.PID, removed when not committed; stale ones of
// dead processes removed by the next AtomicFile in the directory; commit_together renames only
// complete files.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "schedsim/base/atomic_file.hpp"
#include "schedsim/base/error.hpp"

using namespace schedsim;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("schedsim-atomic-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> hidden(const fs::path& d) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(d))
    if (e.path().filename().string()[0] == '.') out.push_back(e.path().filename().string());
  return out;
}

// A PID that certainly does not exist now: a child that has exited and been reaped.
pid_t dead_pid() {
  pid_t p = ::fork();
  if (p == 0) ::_exit(0);
  ::waitpid(p, nullptr, 0);
  return p;
}

}  // namespace

TEST_CASE("AtomicFile names its temporary .NAME.schedsim-tmp.PID and removes it unless committed", "[base][atomic]") {
  fs::path d = fresh_dir("name");
  {
    AtomicFile f((d / "out.txt").string(), "output");
    CHECK(fs::path(f.temp_path()).filename().string() == ".out.txt.schedsim-tmp." + std::to_string(::getpid()));
    f.write("partial");
    CHECK(fs::exists(f.temp_path()));
  }
  CHECK(hidden(d).empty());
  CHECK(!fs::exists(d / "out.txt"));
  write_file_atomic((d / "out.txt").string(), "complete\n", "output");
  CHECK(slurp(d / "out.txt") == "complete\n");
  CHECK(hidden(d).empty());
  fs::remove_all(d);
}

TEST_CASE("stale temporaries of dead processes are removed, others kept", "[base][atomic]") {
  fs::path d = fresh_dir("stale");
  std::string dead = ".r.json" + std::string(AtomicFile::kTempTag) + std::to_string(dead_pid());
  std::string alive = ".t.txt" + std::string(AtomicFile::kTempTag) + "1";  // init is alive
  std::string foreign = ".r.json.tmp.123";                                   // not our naming
  std::string not_pid = ".x" + std::string(AtomicFile::kTempTag) + "12ab";
  for (const auto& n : {dead, alive, foreign, not_pid}) std::ofstream(d / n) << "x";
  CHECK(remove_stale_temporaries(d.string()) == 1);
  CHECK(!fs::exists(d / dead));
  CHECK(fs::exists(d / alive));
  CHECK(fs::exists(d / foreign));
  CHECK(fs::exists(d / not_pid));
  fs::remove_all(d);
}

TEST_CASE("the first AtomicFile in a directory cleans it", "[base][atomic]") {
  fs::path d = fresh_dir("first");
  std::string dead = ".big.ftrace" + std::string(AtomicFile::kTempTag) + std::to_string(dead_pid());
  std::ofstream(d / dead) << "300 MB of a killed run";
  write_file_atomic((d / "r.txt").string(), "new", "output");
  CHECK(hidden(d).empty());
  fs::remove_all(d);
}

TEST_CASE("commit_together renames every file, only after all are complete", "[base][atomic]") {
  fs::path d = fresh_dir("together");
  std::ofstream(d / "a") << "old a";
  std::ofstream(d / "b") << "old b";
  {
    AtomicFile a((d / "a").string(), "a"), b((d / "b").string(), "b");
    a.write("new a");
    b.write("new b");
    a.close();  // written, closed, not yet visible
    CHECK(slurp(d / "a") == "old a");
    commit_together({&a, &b});
  }
  CHECK(slurp(d / "a") == "new a");
  CHECK(slurp(d / "b") == "new b");
  CHECK(hidden(d).empty());
  fs::remove_all(d);
}

TEST_CASE("append_file copies a file into the output", "[base][atomic]") {
  fs::path d = fresh_dir("append");
  std::string big(3 << 20, 'x');  // several copy chunks
  big += "end\n";
  std::ofstream(d / "src", std::ios::binary) << big;
  AtomicFile f((d / "dst").string(), "dst");
  f.write("head\n");
  f.append_file((d / "src").string());
  f.commit();
  CHECK(slurp(d / "dst") == "head\n" + big);
  fs::remove_all(d);
}

TEST_CASE("a target that is not a regular file is written in place, never renamed over", "[base][atomic]") {
  // `-o /dev/null` once replaced /dev/null with a regular file; a FIFO shows the same case
  // without touching the machine.
  fs::path d = fresh_dir("fifo");
  fs::path fifo = d / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  write_file_atomic(fifo.string(), "through the pipe", "output");
  reader.join();
  CHECK(got == "through the pipe");
  CHECK(fs::is_fifo(fifo));
  CHECK(hidden(d).empty());
  fs::remove_all(d);
}

TEST_CASE("through a symlink the linked file is replaced and the link kept", "[base][atomic]") {
  fs::path d = fresh_dir("symlink");
  fs::create_directories(d / "real");
  std::ofstream(d / "real" / "r.txt") << "old";
  fs::create_symlink(d / "real" / "r.txt", d / "link.txt");
  write_file_atomic((d / "link.txt").string(), "new", "output");
  CHECK(fs::is_symlink(d / "link.txt"));
  CHECK(slurp(d / "real" / "r.txt") == "new");
  CHECK(hidden(d / "real").empty());
  fs::remove_all(d);
}
