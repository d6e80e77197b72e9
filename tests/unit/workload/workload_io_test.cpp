// The native workload format: JSON and CBOR round trips, the hand-writing conveniences, the
// exact error messages, and a 10-million-action streaming read.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "schedsim/base/error.hpp"
#include "schedsim/workload/workload.hpp"

using namespace schedsim;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("schedsim-workload-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

std::string write_text(const std::string& name, const std::string& text) {
  fs::path p = scratch(name);
  std::ofstream(p) << text;
  return p.string();
}

// Two tasks ping-ponging 100 times, plus a forked helper and every attribute set.
Workload sample_workload() {
  Workload w;
  w.name = "sample";
  w.source = "hand-made \"quoted\"";
  w.meta["kernel"] = "6.1.0";
  w.meta["clock"] = "mono";
  TaskSpec a;
  a.name = "ping";
  a.pid = 10;
  a.tgid = 10;
  a.nice = -5;
  a.affinity = CpuMask::of({0, 1, 2, 3, 8});
  a.initial_cpu = 2;
  a.program = {Action::run(Duration::us(15)), Action::wake(TaskId(1), kWakeSync), Action::block(),
               Action::loop(3, 99),          Action::fork(TaskId(2)),             Action::exec(),
               Action::sleep(Duration::ms(1)), Action::exit()};
  TaskSpec b;
  b.name = "pong";
  b.start = StartState::kBlocked;
  b.kthread = true;
  b.start_time = Instant::from_ns(12345);
  // Nested loops: 10 x (2 x (run) + wake).
  b.program = {Action::block(), Action::run(Duration::ns(700)), Action::loop(1, 1), Action::wake(TaskId(0)),
               Action::loop(4, 9)};
  TaskSpec c;
  c.name = "helper";
  c.start = StartState::kForked;
  c.program = {Action::run(Duration::us(3))};
  w.add_task(a);
  w.add_task(b);
  w.add_task(c);
  w.observed.present = true;
  w.observed.wakeups = 200;
  w.observed.migrations = 3;
  w.observed.context_switches = 401;
  w.observed.span = Duration::ms(5);
  w.observed.total_runtime = Duration::ms(3);
  w.observed.nr_cpus = 2;
  w.observed.wakeup_latency_inferred = 1;
  for (int i = 0; i < 100; ++i) w.observed.wakeup_latency.record(1000 + i * 37);
  // Beyond the exact limit the histogram keeps buckets: the file must keep them.
  for (int i = 0; i < 10000; ++i) w.observed.runqueue_wait.record((i * 7919) % 250000);
  return w;
}

void check_same(const Workload& a, const Workload& b) {
  CHECK(a.name == b.name);
  CHECK(a.source == b.source);
  CHECK(a.meta == b.meta);
  REQUIRE(a.tasks.size() == b.tasks.size());
  for (size_t i = 0; i < a.tasks.size(); ++i) {
    const TaskSpec& x = a.tasks[i];
    const TaskSpec& y = b.tasks[i];
    CHECK(x.name == y.name);
    CHECK(x.pid == y.pid);
    CHECK(x.tgid == y.tgid);
    CHECK(x.nice == y.nice);
    CHECK(x.affinity.to_cpulist() == y.affinity.to_cpulist());
    CHECK(x.kthread == y.kthread);
    CHECK(x.background == y.background);
    CHECK(x.start == y.start);
    CHECK(x.start_time == y.start_time);
    CHECK(x.initial_cpu == y.initial_cpu);
    CHECK(x.program == y.program);
  }
  CHECK(a.observed.present == b.observed.present);
  CHECK(a.observed.wakeups == b.observed.wakeups);
  CHECK(a.observed.migrations == b.observed.migrations);
  CHECK(a.observed.context_switches == b.observed.context_switches);
  CHECK(a.observed.span == b.observed.span);
  CHECK(a.observed.total_runtime == b.observed.total_runtime);
  CHECK(a.observed.nr_cpus == b.observed.nr_cpus);
  CHECK(a.observed.wakeup_latency_inferred == b.observed.wakeup_latency_inferred);
  for (auto [h1, h2] : {std::pair{&a.observed.wakeup_latency, &b.observed.wakeup_latency},
                        std::pair{&a.observed.runqueue_wait, &b.observed.runqueue_wait}}) {
    // Everything `run` prints survives exactly.
    CHECK(h1->count() == h2->count());
    CHECK(h1->mean() == h2->mean());
    CHECK(h1->stddev() == Approx(h2->stddev()).epsilon(1e-12));
    CHECK(h1->min() == h2->min());
    CHECK(h1->max() == h2->max());
    for (double q : {50.0, 90.0, 99.0, 99.9}) CHECK(h1->percentile(q) == h2->percentile(q));
  }
}

std::string read_error(const std::string& path) {
  try {
    read_workload(path);
  } catch (const InputError& e) {
    return e.render();
  }
  return "(no error)";
}

// `w` written in `fmt` to a scratch file named STEM.json / STEM.cbor and read back.
Workload round_trip(const Workload& w, const std::string& stem, WorkloadFormat fmt) {
  std::string p = scratch(stem + (fmt == WorkloadFormat::kJson ? ".json" : ".cbor")).string();
  write_workload(w, p, fmt);
  return read_workload(p);
}

}  // namespace

TEST_CASE("JSON round trip keeps tasks, loops and observed stats", "[workload]") {
  Workload w = sample_workload();
  validate_workload(w, "sample");
  std::string p = scratch("rt.json").string();
  write_workload(w, p, WorkloadFormat::kJson);
  CHECK(looks_like_workload(p));
  check_same(w, read_workload(p));
}

TEST_CASE("CBOR round trip keeps tasks, loops and observed stats", "[workload]") {
  Workload w = sample_workload();
  std::string p = scratch("rt.cbor").string();
  write_workload(w, p, WorkloadFormat::kCbor);
  CHECK(looks_like_workload(p));
  check_same(w, read_workload(p));
  // Same schema: the CBOR file decodes to the same document as the JSON one, action codes aside.
  std::ifstream in(p, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() > 3);
  REQUIRE(bytes.size() > 3 + 17);
  // Without the 17-byte integrity trailer (a second CBOR item: a byte string).
  CHECK(bytes[bytes.size() - 17] == 0x50);
  auto doc = nlohmann::json::from_cbor(bytes.begin() + 3, bytes.end() - 17);
  CHECK(doc["schedsim_workload"] == 1);
  CHECK(doc["tasks"][0]["program"][0] == nlohmann::json::array({0, 15000}));
}

TEST_CASE("a workload without observed stats round-trips without them", "[workload]") {
  Workload w;
  w.name = "tiny";
  TaskSpec t;
  t.name = "solo";
  t.program = {Action::run(Duration::us(1))};
  w.add_task(t);
  for (auto fmt : {WorkloadFormat::kJson, WorkloadFormat::kCbor}) {
    Workload r = round_trip(w, "tiny", fmt);
    CHECK_FALSE(r.observed.present);
    check_same(w, r);
  }
}

TEST_CASE("hand-written JSON: durations with units, names as targets, repeat, bare actions", "[workload]") {
  std::string p = write_text("hand.json", R"({
  "schedsim_workload": 1,
  "name": "pingpong",
  "tasks": [
    {"name": "ping", "affinity": "0", "program": [["repeat", 3, [["run", "10us"], ["wake", "pong", "sync"], "block"]], "exit"]},
    {"name": "pong", "start": "blocked", "start_time": "1.5ms",
     "program": [["repeat", 3, ["block", ["run", 2500], ["wake", "ping", "sync"]]], ["repeat", 0, [["run", "1s"]]]]}
  ]
})");
  Workload w = read_workload(p);
  REQUIRE(w.tasks.size() == 2);
  CHECK(w.name == "pingpong");
  CHECK(w.tasks[0].program == std::vector<Action>{Action::run(Duration::us(10)), Action::wake(TaskId(1), kWakeSync),
                                                  Action::block(), Action::loop(3, 2), Action::exit()});
  CHECK(w.tasks[1].start == StartState::kBlocked);
  CHECK(w.tasks[1].start_time == Instant::from_ns(1500000));
  // repeat 0 drops its body.
  CHECK(w.tasks[1].program == std::vector<Action>{Action::block(), Action::run(Duration::ns(2500)),
                                                  Action::wake(TaskId(0), kWakeSync), Action::loop(3, 2)});
  CHECK(w.tasks[0].affinity.to_cpulist() == "0");
  CHECK(w.total_work() == Duration::ns(3 * 10000 + 3 * 2500));
}

TEST_CASE("read errors name the file, line, column and JSON path", "[workload]") {
  auto err = [](const std::string& name, const std::string& text) { return read_error(write_text(name, text)); };
  // Each message is matched exactly after replacing the scratch path.
  auto strip = [](std::string s) {
    std::string dir = scratch("").string();
    for (size_t p; (p = s.find(dir)) != std::string::npos;) s.replace(p, dir.size(), "");
    return s;
  };
  CHECK(strip(err("e1.json", "{\"schedsim_workload\": 1,\n \"tasks\": [{\"name\": \"a\", \"nice\": 99}]}")) ==
        "e1.json:2:34: error: /tasks/0/nice: nice 99 outside -20..19\n"
        " \"tasks\": [{\"name\": \"a\", \"nice\": 99}]}\n"
        "                                 ^");
  CHECK(strip(err("e2.json", "{\"schedsim_workload\": 1, \"tasks\": [{\"program\": [[\"runn\", 5]]}]}")) ==
        "e2.json:1:50: error: /tasks/0/program/0/0: unknown action 'runn'; did you mean 'run'? valid: run, wake, "
        "fork, block, sleep, exit, exec, loop, write, read, repeat\n"
        "{\"schedsim_workload\": 1, \"tasks\": [{\"program\": [[\"runn\", 5]]}]}\n"
        "                                                 ^");
  CHECK(strip(err("e3.json", "{\"schedsim_workload\": 1, \"taks\": []}")) ==
        "e3.json:1:26: error: /taks: unknown top-level key 'taks'; did you mean 'tasks'? valid: schedsim_workload, "
        "name, source, meta, observed, tasks\n"
        "{\"schedsim_workload\": 1, \"taks\": []}\n"
        "                         ^");
  CHECK(strip(err("e4.json", "{\"schedsim_workload\": 1, \"tasks\": [{\"program\": [[\"run\", \"5 parsecs\"]]}]}")) ==
        "e4.json:1:57: error: /tasks/0/program/0/1: bad duration '5 parsecs': expected nanoseconds or a number with "
        "ns, us, ms or s\n"
        "{\"schedsim_workload\": 1, \"tasks\": [{\"program\": [[\"run\", \"5 parsecs\"]]}]}\n"
        "                                                        ^");
  CHECK(strip(err("e5.json", "{\"tasks\": []}")) ==
        "e5.json:1:13: error: not a schedsim workload: the top-level object has no \"schedsim_workload\": 1\n"
        "{\"tasks\": []}\n"
        "            ^");
  CHECK(strip(err("e6.json", "{\"schedsim_workload\": 2}")) ==
        "e6.json:1:23: error: /schedsim_workload: format version 2 is not supported; this schedsim reads version 1\n"
        "{\"schedsim_workload\": 2}\n"
        "                      ^");
  CHECK(strip(err("e7.json", "{\"schedsim_workload\": 1, \"tasks\": [{\"program\": [[\"wake\", \"nobody\"]]}]}")) ==
        "e7.json:1:66: error: /tasks/0/program/0: no task is named 'nobody'\n"
        "{\"schedsim_workload\": 1, \"tasks\": [{\"program\": [[\"wake\", \"nobody\"]]}]}\n"
        "                                                                 ^");
  CHECK(strip(err("e8.json", "{\"schedsim_workload\": 1,\n  \"tasks\": [\n    {\"program\": [[\"run\" 5]]}]}")) ==
        "e8.json:3:25: error: syntax error while parsing array - unexpected number literal; expected ']'\n"
        "    {\"program\": [[\"run\" 5]]}]}\n"
        "                        ^");
  CHECK(strip(err("e9.json", "{\"schedsim_workload\": 1, \"tasks\": [{\"program\": [[\"wake\", 7]]}]}")) ==
        "e9.json: error: task 0 ('task0'), action 0: target task 7 does not exist (workload has 1 tasks)");
  CHECK(strip(err("e10.json", "{\"schedsim_workload\": 1, \"tasks\": [{\"program\": [\"run\"]}]}")) ==
        "e10.json:1:49: error: /tasks/0/program/0: action 'run' needs arguments: write it as a list, e.g. [\"run\", "
        "\"10us\"]\n"
        "{\"schedsim_workload\": 1, \"tasks\": [{\"program\": [\"run\"]}]}\n"
        "                                                ^");
  CHECK(strip(err("e11.txt", "hello")) == "e11.txt: error: not a schedsim workload: expected a JSON object or CBOR data");
  CHECK(strip(read_error(scratch("missing.json").string())) ==
        "missing.json: error: cannot open workload: No such file or directory");
}

TEST_CASE("CBOR errors give a byte offset", "[workload]") {
  Workload w = sample_workload();
  std::string p = scratch("trunc.cbor").string();
  write_workload(w, p, WorkloadFormat::kCbor);
  fs::resize_file(p, fs::file_size(p) - 30);
  std::string e = read_error(p);
  CHECK(e.find("trunc.cbor: error: at byte ") != std::string::npos);
  CHECK(e.find("unexpected end of input") != std::string::npos);
  CHECK(e.find("no integrity trailer: cut short?") != std::string::npos);
}

TEST_CASE("CBOR integrity trailer: any flipped bit is refused, old files without it are read", "[workload]") {
  Workload w = sample_workload();
  std::string p = scratch("crc.cbor").string();
  write_workload(w, p, WorkloadFormat::kCbor);
  const auto size = fs::file_size(p);
  std::string good;
  {
    std::ifstream in(p, std::ios::binary);
    good.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  // Every byte, one bit each: the payload (CRC mismatch) and the trailer itself.
  for (size_t at = 0; at < size; at += std::max<size_t>(1, size / 97)) {
    INFO(at);
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x10);
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bad;
    CHECK_THROWS_AS(read_workload(p), InputError);
  }
  std::ofstream(p, std::ios::binary | std::ios::trunc) << good.substr(0, size - 17);  // an old file
  check_same(w, read_workload(p));
}

TEST_CASE("writing is atomic: a failed write leaves no file", "[workload]") {
  Workload w = sample_workload();
  CHECK_THROWS_AS(write_workload(w, "/nonexistent-dir/x.json", WorkloadFormat::kJson), InputError);
  CHECK_FALSE(looks_like_workload("/nonexistent-dir/x.json"));
  std::string p = scratch("nojson.txt").string();
  std::ofstream(p) << "{\"a\": 1}";
  CHECK_FALSE(looks_like_workload(p));
}

TEST_CASE("a 10-million-action CBOR workload is read without a DOM", "[workload][.slow]") {
  // 100 tasks x 100,000 actions, no loops: 10M actions = 160 MB as Action structs. The reader must
  // not hold more than the result plus a bounded buffer (a DOM would take several GB). The file is
  // written by a child process so that this process's peak RSS measures the read alone.
  std::string p = scratch("big.cbor").string();
  int64_t expected_work = 0;
  for (int t = 0; t < 100; ++t)
    for (int i = 0; i < 50000; ++i) expected_work += 1000 + i % 977;
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    Workload w;
    w.name = "big";
    for (int t = 0; t < 100; ++t) {
      TaskSpec s;
      s.name = "t" + std::to_string(t);
      s.program.reserve(100000);
      for (int i = 0; i < 50000; ++i) {
        s.program.push_back(Action::run(Duration::ns(1000 + i % 977)));
        s.program.push_back(Action::wake(TaskId(static_cast<uint32_t>((t + 1) % 100))));
      }
      w.add_task(std::move(s));
    }
    write_workload(w, p, WorkloadFormat::kCbor);
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  struct rusage before {};
  getrusage(RUSAGE_SELF, &before);
  Workload r = read_workload(p);
  struct rusage after {};
  getrusage(RUSAGE_SELF, &after);
  size_t actions = 0;
  for (const auto& t : r.tasks) actions += t.program.size();
  CHECK(actions == 10000000);
  CHECK(r.total_work() == Duration::ns(expected_work));
  // Peak RSS growth: the 160 MB of actions plus vector-doubling slack, far below a DOM.
  long grown_mb = (after.ru_maxrss - before.ru_maxrss) / 1024;
  INFO("peak RSS grew by " << grown_mb << " MB");
  CHECK(grown_mb < 600);
  fs::remove(p);
}

TEST_CASE("JSON write -> read -> write is byte-identical, and so is CBOR", "[workload]") {
  Workload w = sample_workload();
  for (auto fmt : {WorkloadFormat::kJson, WorkloadFormat::kCbor}) {
    std::string ext = fmt == WorkloadFormat::kJson ? ".json" : ".cbor";
    std::string a = scratch("stable-a" + ext).string(), b = scratch("stable-b" + ext).string();
    write_workload(w, a, fmt);
    write_workload(read_workload(a), b, fmt);
    std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
    std::string sa((std::istreambuf_iterator<char>(fa)), {}), sb((std::istreambuf_iterator<char>(fb)), {});
    CHECK(sa == sb);
  }
}

TEST_CASE("hand-written JSON may carry comments", "[workload]") {
  std::string p = write_text("comments.json", "// a comment\n{\"schedsim_workload\": 1, /* inline */ \"tasks\": []}\n");
  CHECK(read_workload(p).tasks.empty());
}

TEST_CASE("channel actions: write/read round-trip in JSON and CBOR and are validated", "[workload]") {
  Workload w;
  w.name = "chan";
  TaskSpec a;
  a.name = "writer";
  a.program = {Action::write(0, 100), Action::write(7, 4096, kChanSocket), Action::exit()};
  TaskSpec b;
  b.name = "reader";
  b.program = {Action::read(0, 100), Action::read(7, 4096, kChanSocket)};
  w.add_task(a);
  w.add_task(b);
  validate_workload(w, "chan");
  for (auto fmt : {WorkloadFormat::kJson, WorkloadFormat::kCbor}) {
    Workload r = round_trip(w, "chan", fmt);
    REQUIRE(r.tasks.size() == 2);
    CHECK(r.tasks[0].program == w.tasks[0].program);
    CHECK(r.tasks[1].program == w.tasks[1].program);
  }
  Workload mixed = w;
  mixed.tasks[1].program[1] = Action::read(7, 4096);
  CHECK_THROWS_WITH(validate_workload(mixed, "m"),
                    "m: error: task 1 ('reader'), action 1: channel 7 is used both as a pipe and as a socket");
  Workload zero = w;
  zero.tasks[0].program[0] = Action::write(0, 0);
  CHECK_THROWS_WITH(validate_workload(zero, "z"), "z: error: task 0 ('writer'), action 0: a channel operation of 0 bytes");
  auto err = [](const std::string& name, const std::string& text) { return read_error(write_text(name, text)); };
  CHECK(err("c1.json", "{\"schedsim_workload\": 1, \"tasks\": [{\"program\": [[\"write\", 0]]}]}")
            .find("'write' needs a channel and a byte count") != std::string::npos);
  CHECK(err("c2.json", "{\"schedsim_workload\": 1, \"tasks\": [{\"program\": [[\"read\", 0, 100, \"fifo\"]]}]}")
            .find("unknown channel kind 'fifo'") != std::string::npos);
}

TEST_CASE("run actions flagged syscall round-trip in JSON and CBOR and are validated", "[workload]") {
  Workload w;
  w.name = "sc";
  TaskSpec a;
  a.name = "t";
  a.program = {Action::run(Duration::us(3)), Action::run(Duration::us(1), kRunSyscall), Action::run(Duration::ns(0)),
               Action::exit()};
  w.add_task(a);
  validate_workload(w, "sc");
  for (auto fmt : {WorkloadFormat::kJson, WorkloadFormat::kCbor}) {
    Workload r = round_trip(w, "sc", fmt);
    REQUIRE(r.tasks.size() == 1);
    CHECK(r.tasks[0].program == w.tasks[0].program);
  }
  Workload bad = w;
  bad.tasks[0].program[0] = Action::run(Duration::us(3), 2);
  CHECK_THROWS_WITH(validate_workload(bad, "b"), "b: error: task 0 ('t'), action 0: unknown run flags 2");
  Workload sleepy = w;
  sleepy.tasks[0].program[0] = Action{ActionKind::kSleep, kRunSyscall, 0, 0, 1000};
  CHECK_THROWS_WITH(validate_workload(sleepy, "s"), "s: error: task 0 ('t'), action 0: unknown sleep flags 1");
  auto err = [](const std::string& name, const std::string& text) { return read_error(write_text(name, text)); };
  CHECK(err("sc1.json", "{\"schedsim_workload\": 1, \"tasks\": [{\"program\": [[\"run\", 10, \"kernel\"]]}]}")
            .find("unknown run flag 'kernel'") != std::string::npos);
  CHECK(err("sc2.json", "{\"schedsim_workload\": 1, \"tasks\": [{\"program\": [[\"sleep\", 10, \"syscall\"]]}]}")
            .find("too many arguments for 'sleep'") != std::string::npos);
}

TEST_CASE("a task's custom slice round-trips in JSON and CBOR and is range-checked", "[workload]") {
  Workload w;
  w.name = "sl";
  for (int64_t us : {300, 0}) {  // the second has no slice: none written, none read back
    TaskSpec t;
    t.name = us != 0 ? "short" : "base";
    t.slice = Duration::us(us);
    t.program = {Action::run(Duration::us(3)), Action::exit()};
    w.add_task(t);
  }
  validate_workload(w, "sl");
  for (auto fmt : {WorkloadFormat::kJson, WorkloadFormat::kCbor}) {
    Workload r = round_trip(w, "sl", fmt);
    CHECK(r.tasks.at(0).slice == Duration::us(300));
    CHECK(r.tasks.at(1).slice == Duration::zero());
  }
  Workload bad = w;
  bad.tasks[0].slice = Duration::us(99);
  CHECK_THROWS_WITH(validate_workload(bad, "b"), "b: error: task 0 ('short'), action 0: slice 99000 ns outside 100000..100000000 ns");
  auto err = [](const std::string& name, const std::string& text) { return read_error(write_text(name, text)); };
  CHECK(err("sl1.json", "{\"schedsim_workload\": 1, \"tasks\": [{\"slice\": \"101ms\", \"program\": []}]}")
            .find("/tasks/0/slice: slice 101.00ms outside 100.0us..100.00ms") != std::string::npos);
  CHECK(err("sl2.json", "{\"schedsim_workload\": 1, \"tasks\": [{\"slice\": \"100ms\", \"program\": []}]}") == "(no error)");
}

// The writers walk the schema once with a JSON and a CBOR emitter. Their bytes are pinned by
// files the two separate writers they replaced produced for this workload: every attribute,
// both histogram shapes, each action form, and a program long enough to wrap its JSON lines.
TEST_CASE("JSON and CBOR writers emit the pinned bytes", "[workload]") {
  Workload w = sample_workload();
  TaskSpec d;
  d.name = "chatty";
  for (int i = 0; i < 40; ++i) {
    d.program.push_back(Action::write(i % 3, 100 + static_cast<uint32_t>(i), i % 2 ? kChanSocket : 0));
    d.program.push_back(Action::wake(TaskId(0), static_cast<uint8_t>(i % 4 == 0 ? 0 : i % 4 == 1 ? kWakeSync : 6)));
    d.program.push_back(Action::run(Duration::ns(1000 + 37 * i)));
  }
  w.add_task(d);
  for (auto fmt : {WorkloadFormat::kJson, WorkloadFormat::kCbor}) {
    std::string ext = fmt == WorkloadFormat::kJson ? "json" : "cbor";
    std::string p = scratch("pinned." + ext).string();
    write_workload(w, p, fmt);
    auto slurp = [](const std::string& path) {
      std::ifstream f(path, std::ios::binary);
      return std::string((std::istreambuf_iterator<char>(f)), {});
    };
    std::string pinned = std::string(SCHEDSIM_SOURCE_DIR) + "/tests/data/workloads/writer-pinned." + ext;
    INFO(p << " vs " << pinned);
    CHECK(slurp(p) == slurp(pinned));
  }
}

TEST_CASE("first_task_over_bounds names the task where the expanded sums pass the bounds", "[workload]") {
  Workload w;
  auto task = [](const char* name, std::vector<Action> prog) {
    TaskSpec t;
    t.name = name;
    t.program = std::move(prog);
    return t;
  };
  // Each action is within one time value; together they pass kMaxWorkloadTime (10^17 ns) at task 2.
  const Duration big = Duration::ns(kMaxTimeValue);
  w.add_task(task("a", {Action::run(big), Action::loop(1, 49), Action::exit()}));  // 50 x 10^15
  w.add_task(task("b", {Action::sleep(big), Action::loop(1, 49), Action::exit()}));  // 50 x 10^15: at the bound
  CHECK_FALSE(first_task_over_bounds(w));
  w.add_task(task("c", {Action::run(Duration::ns(1)), Action::exit()}));  // one ns over
  CHECK(first_task_over_bounds(w) == std::optional<size_t>(2));
  CHECK_THROWS_WITH(validate_workload(w, "big"), Catch::StartsWith("big: error: task 2 ('c'): with loops expanded"));
  // The action bound: 10^6 x 10^6 + the loop's own action passes 10^12 in task 0.
  Workload many;
  many.add_task(task("m", {Action::run(Duration::ns(0)), Action::loop(1, 999'999), Action::loop(2, 999'999)}));
  CHECK(first_task_over_bounds(many) == std::optional<size_t>(0));
}

TEST_CASE("background: parsed, written only when true, a non-bool is an error, all-background is an error",
          "[workload]") {
  const std::string text =
      "{\"schedsim_workload\": 1, \"tasks\": [{\"name\": \"a\", \"program\": [[\"run\", 5]]},\n"
      " {\"name\": \"rec\", \"background\": true, \"program\": [[\"run\", 5]]},\n"
      " {\"name\": \"c\", \"background\": false}]}";
  Workload w = read_workload(write_text("bg.json", text));
  REQUIRE(w.tasks.size() == 3);
  CHECK_FALSE(w.tasks[0].background);
  CHECK(w.tasks[1].background);
  CHECK_FALSE(w.tasks[2].background);
  CHECK(w.background_count() == 1);
  CHECK(w.total_work() == Duration::ns(10));
  CHECK(w.total_work(/*measured_only=*/true) == Duration::ns(5));
  // Written only for the background task: files without it stay byte-identical.
  const std::string out = scratch("bg-out.json").string();
  write_workload(w, out, WorkloadFormat::kJson);
  std::ifstream in(out);
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t n = 0;
  for (size_t p = 0; (p = written.find("\"background\"", p)) != std::string::npos; ++p) ++n;
  CHECK(n == 1);
  CHECK(read_workload(out).tasks[1].background);
  const std::string cbor = scratch("bg-out.cbor").string();
  write_workload(w, cbor, WorkloadFormat::kCbor);
  Workload back = read_workload(cbor);
  REQUIRE(back.tasks.size() == 3);
  CHECK_FALSE(back.tasks[0].background);
  CHECK(back.tasks[1].background);

  auto strip = [](std::string s) {
    std::string dir = scratch("").string();
    for (size_t p; (p = s.find(dir)) != std::string::npos;) s.replace(p, dir.size(), "");
    return s;
  };
  CHECK(strip(read_error(write_text("bg-e1.json", "{\"schedsim_workload\": 1, \"tasks\": [{\"background\": 1}]}"))) ==
        "bg-e1.json:1:51: error: /tasks/0/background: expected true or false, got an integer\n"
        "{\"schedsim_workload\": 1, \"tasks\": [{\"background\": 1}]}\n"
        "                                                  ^");
  Workload all = w;
  for (auto& t : all.tasks) t.background = true;
  CHECK_THROWS_WITH(validate_workload(all, "all"),
                    "all: error: all 3 tasks are \"background\": true, so nothing would be measured (background tasks "
                    "are load only; leave the field out of the tasks to measure)");
}
