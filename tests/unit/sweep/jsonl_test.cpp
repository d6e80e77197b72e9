// The results file: shards partition the runs, the executor delivers in order for any number of
// jobs, resume scanning accepts a prefix (dropping a partial line) and refuses a changed spec,
// merge checks presence and duplicates.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "schedsim/base/error.hpp"
#include "schedsim/sweep/executor.hpp"
#include "schedsim/sweep/jsonl.hpp"

using namespace schedsim;
using namespace schedsim::sweep;

namespace {

std::string tmpdir(const std::string& name) {
  auto d = std::filesystem::path(SCHEDSIM_BINARY_DIR) / "tests" / "sweep_tmp" / name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

std::string record(uint64_t unit, uint32_t repeat) {
  return fmt::format(R"({{"type":"run","point":{},"rep":{},"value":{}}})", unit / repeat, unit % repeat, unit * 7) + "\n";
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

Spec small() {
  Spec s = spec_from_cli({"placement=a,b,c"}, {});
  s.repeat = 4;
  return s;
}

}  // namespace

TEST_CASE("jsonl: shards partition the runs round robin") {
  Spec s = small();
  std::multiset<uint64_t> all;
  for (uint32_t k = 1; k <= 5; ++k)
    for (uint64_t u : shard_units(s, Shard{k, 5})) all.insert(u);
  REQUIRE(all.size() == 12);
  for (uint64_t u = 0; u < 12; ++u) CHECK(all.count(u) == 1);
  CHECK(shard_units(s, Shard{2, 5}) == std::vector<uint64_t>{1, 6, 11});
  CHECK_THROWS_WITH(parse_shard("0/3", "--shard"), "--shard: error: shard 0/3 is out of range: need 1 <= K <= N <= 1000000");
  CHECK_THROWS_WITH(parse_shard("2", "--shard"), "--shard: error: expected K/N (the K-th of N slices, 1 <= K <= N), got '2'");
}

TEST_CASE("executor: results arrive in order for any number of jobs, errors stop later units") {
  for (unsigned jobs : {1u, 2u, 5u}) {
    std::vector<size_t> got;
    ExecuteOptions o;
    o.jobs = jobs;
    execute_ordered(50, o, [](size_t i) {
      // Later units finish first.
      std::this_thread::sleep_for(std::chrono::microseconds((50 - i) * 20));
      return std::to_string(i);
    }, [&](size_t i, std::string&& s) {
      CHECK(s == std::to_string(i));
      got.push_back(i);
    });
    REQUIRE(got.size() == 50);
    for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == i);
  }
  std::vector<size_t> got;
  ExecuteOptions o;
  o.jobs = 3;
  CHECK_THROWS_WITH(execute_ordered(40, o, [](size_t i) -> std::string {
    if (i == 17) throw InputError("unit 17 failed");
    return "";
  }, [&](size_t i, std::string&&) { got.push_back(i); }), "error: unit 17 failed");
  REQUIRE(got.size() == 17);
  CHECK(got.back() == 16);
}

TEST_CASE("jsonl: the header records every input file's hash, resume refuses a changed, new or missing one") {
  std::string dir = tmpdir("inputs");
  const std::string in = dir + "/w.json", cost = dir + "/c.json";
  write(in, "workload one");
  write(cost, "{}");
  Spec s = small();
  s.fixed.emplace_back("input", in);
  s.fixed.emplace_back("cost", cost + ",rr_op=7us");
  const std::string path = dir + "/r.jsonl";
  const std::string header = header_line(s, Shard{});
  nlohmann::ordered_json h = nlohmann::ordered_json::parse(header);
  REQUIRE(h.contains("inputs"));
  CHECK(h["inputs"].size() == 2);
  CHECK(h["inputs"][in].get<std::string>().size() == 16);
  auto units = shard_units(s, Shard{});
  write(path, header + record(0, s.repeat));
  CHECK(scan_existing(path, header_line(s, Shard{}), s, units).records == 1);
  write(in, "workload two");
  CHECK_THROWS_WITH(scan_existing(path, header_line(s, Shard{}), s, units),
                    Catch::Matchers::Contains("the input '" + in + "' changed since this file was started"));
  write(in, "workload one");
  std::filesystem::remove(cost);
  CHECK_THROWS_WITH(scan_existing(path, header_line(s, Shard{}), s, units),
                    Catch::Matchers::Contains("the input '" + cost + "' this file was started with is gone"));
  // A file written before headers recorded inputs cannot be checked: refused, not trusted.
  write(cost, "{}");
  nlohmann::ordered_json old = h;
  old.erase("inputs");
  write(path, old.dump() + "\n" + record(0, s.repeat));
  CHECK_THROWS_WITH(scan_existing(path, header_line(s, Shard{}), s, units),
                    Catch::Matchers::Contains("records no input hashes"));
}

TEST_CASE("executor: --jobs is bounded by the units and by kMaxJobsPerCpu per usable CPU") {
  CHECK(max_jobs() == kMaxJobsPerCpu * available_cpus());
  CHECK(threads_for(0, 10) == 1);
  CHECK(threads_for(3, 2) == 2);
  CHECK(threads_for(100000, 6) == std::min<unsigned>(6, max_jobs()));
  CHECK(threads_for(4000000000u, 1000000) == max_jobs());
  CHECK(jobs_cap_note(max_jobs()).empty());
  CHECK(jobs_cap_note(100000) == fmt::format("schedsim: note: --jobs 100000: at most {} simulations run at once ({} per "
                                             "CPU this process may use)\n", max_jobs(), kMaxJobsPerCpu));
  // -j 100000 on 6 units: 6 threads at most (it started 100,000 and aborted), results in order.
  std::mutex mu;
  std::set<std::thread::id> seen;
  std::vector<size_t> got;
  ExecuteOptions o;
  o.jobs = 100000;
  execute_ordered(6, o, [&](size_t i) {
    std::lock_guard lk(mu);
    seen.insert(std::this_thread::get_id());
    return std::to_string(i);
  }, [&](size_t i, std::string&&) { got.push_back(i); });
  CHECK(got == std::vector<size_t>{0, 1, 2, 3, 4, 5});
  CHECK(seen.size() <= std::min<size_t>(6, max_jobs()));
}

TEST_CASE("jsonl: resume accepts a prefix, drops a partial last line, refuses a changed spec") {
  std::string dir = tmpdir("resume");
  Spec s = small();
  auto units = shard_units(s, Shard{});
  std::string header = header_line(s, Shard{});
  std::string full = header;
  for (uint64_t u : units) full += record(u, s.repeat);
  std::string path = dir + "/r.jsonl";
  std::string prefix = header + record(0, 4) + record(1, 4);
  write(path, prefix + record(2, 4).substr(0, 10));
  Existing ex = scan_existing(path, header, s, units);
  CHECK(ex.records == 2);
  CHECK(ex.partial_tail);
  CHECK(ex.keep_bytes == prefix.size());
  {
    RecordWriter w(path, header, RecordWriter::Mode::kResume);
    w.resume_at(ex.keep_bytes);
    for (size_t i = ex.records; i < units.size(); ++i) w.append(record(units[i], 4));
    w.close();
  }
  std::ifstream in(path, std::ios::binary);
  std::string back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(back == full);

  // A killed sweep before the header was whole.
  write(path, header.substr(0, 20));
  ex = scan_existing(path, header, s, units);
  CHECK(ex.records == 0);
  CHECK(ex.keep_bytes == 0);

  // A record out of order, a changed spec, another shard.
  write(path, header + record(1, 4));
  CHECK_THROWS_WITH(scan_existing(path, header, s, units),
                    path + ":2: error: expected the record of point 0 rep 0, found point 0 rep 1; refusing to --resume");
  Spec changed = s;
  changed.repeat = 5;
  write(path, header);
  CHECK_THROWS_WITH(scan_existing(path, header_line(changed, Shard{}), changed, shard_units(changed, Shard{})),
                    path + ":1: error: the sweep spec changed since this file was started (/repeat: 4 -> 5); refusing to "
                           "--resume: write to a new file or restore the spec");
  CHECK_THROWS_WITH(scan_existing(path, header_line(s, Shard{1, 2}), s, shard_units(s, Shard{1, 2})),
                    path + ":1: error: this file holds the whole sweep, not shard 1/2; refusing to --resume");
  // Never overwrite: a fresh writer refuses an existing file.
  CHECK_THROWS_WITH(RecordWriter(path, header, RecordWriter::Mode::kCreate),
                    path + ": error: exists; --resume continues that sweep, or remove the file to start over");
}

TEST_CASE("jsonl: a results file has one writer, a second sweep or --resume is refused until it closes") {
  std::string dir = tmpdir("lock");
  Spec s = small();
  std::string header = header_line(s, Shard{});
  std::string path = dir + "/r.jsonl";
  const std::string refused = path + ": error: another schedsim sweep is writing this file (it holds its lock); wait for "
                                     "it to end, then --resume if it did not finish, or write to another file";
  {
    RecordWriter first(path, header, RecordWriter::Mode::kCreate);
    first.append(record(0, s.repeat));
    // flock conflicts between open file descriptions, so a second writer in this process is
    // refused as one in another process would be, and it truncates nothing.
    CHECK_THROWS_WITH(RecordWriter(path, header, RecordWriter::Mode::kResume), refused);
    first.append(record(1, s.repeat));
    first.close();
  }
  std::ifstream in(path, std::ios::binary);
  std::string back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(back == header + record(0, s.repeat) + record(1, s.repeat));
  // Closed (or killed: the lock goes with the descriptor): the next --resume takes it.
  RecordWriter again(path, header, RecordWriter::Mode::kResume);
  again.resume_at(back.size());
  again.close();
}

TEST_CASE("jsonl: merge of shards equals the unsharded file, missing and duplicate records are refused") {
  std::string dir = tmpdir("merge");
  Spec s = small();
  std::string full = header_line(s, Shard{});
  for (uint64_t u : shard_units(s, Shard{})) full += record(u, s.repeat);
  std::vector<std::string> inputs;
  for (uint32_t k = 1; k <= 3; ++k) {
    std::string t = header_line(s, Shard{k, 3});
    for (uint64_t u : shard_units(s, Shard{k, 3})) t += record(u, s.repeat);
    inputs.push_back(fmt::format("{}/s{}.jsonl", dir, k));
    write(inputs.back(), t);
  }
  std::string out = dir + "/all.jsonl";
  merge_results({inputs[2], inputs[0], inputs[1]}, out);
  std::ifstream in(out, std::ios::binary);
  std::string back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(back == full);
  CHECK_THROWS_WITH(merge_results({inputs[0], inputs[1]}, dir + "/x.jsonl"),
                    "error: merge: 4 of 12 records missing (point 0 rep 2, point 1 rep 1, point 2 rep 0, point 2 rep 3); run "
                    "the missing shards (with --resume if they were interrupted)");
  CHECK_THROWS_WITH(merge_results({inputs[0], inputs[1], inputs[2], inputs[1]}, dir + "/x.jsonl"),
                    inputs[1] + ":2: error: point 0 rep 1 is also in " + inputs[1] + ":2; refusing to merge duplicates");
  CHECK(!std::filesystem::exists(dir + "/x.jsonl"));
  // A truncated shard.
  write(dir + "/t.jsonl", header_line(s, Shard{1, 3}) + record(0, 4).substr(0, 9));
  CHECK_THROWS_WITH(merge_results({dir + "/t.jsonl"}, dir + "/x.jsonl"),
                    dir + "/t.jsonl:2: error: truncated last line (the sweep was interrupted; `schedsim sweep --resume` completes it)");
}
