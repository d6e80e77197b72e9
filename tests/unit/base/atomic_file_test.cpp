// AtomicFile writes a device or FIFO in place: renaming a temporary over it would replace the
// node with a regular file (`schedsim run -o /dev/null` as root once turned /dev/null into one).
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "schedsim/base/atomic_file.hpp"

using namespace schedsim;

TEST_CASE("atomic_file: a FIFO is written in place and stays a FIFO") {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(SCHEDSIM_BINARY_DIR) / "tests" / "atomic_file_tmp";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string fifo = (dir / "pipe").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string got;
  std::thread reader([&] {
    std::ifstream in(fifo, std::ios::binary);
    got.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  });
  write_file_atomic(fifo, "hello\n", "test output");
  reader.join();
  CHECK(got == "hello\n");
  CHECK(fs::is_fifo(fifo));
  // Nothing else was left in the directory (no temporary).
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().filename() != "pipe";
  CHECK(n == 0);
}

TEST_CASE("atomic_file: a regular file is replaced whole") {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(SCHEDSIM_BINARY_DIR) / "tests" / "atomic_file_tmp2";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string path = (dir / "out.txt").string();
  std::ofstream(path) << "old contents that are longer\n";
  write_file_atomic(path, "new\n", "test output");
  std::ifstream in(path);
  std::string back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(back == "new\n");
}
