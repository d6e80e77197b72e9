// Generators: structure (task counts, fan-out, message counts by expanding actions), token
// balance under a zero-time replay (no deadlock, no spare token), determinism, option errors.
#include <filesystem>
#include <fstream>
#include <map>

#include <catch2/catch.hpp>

#include "schedsim/base/error.hpp"
#include "schedsim/workload/generators.hpp"
#include "token_interpreter.hpp"

using namespace schedsim;

namespace {

// Expanded wake counts of one task's program, by target task.
std::map<uint32_t, uint64_t> wakes_by_target(const std::vector<Action>& prog) {
  std::map<uint32_t, uint64_t> out;
  Workload one;
  TaskSpec t;
  t.program = prog;
  // Expand by walking the loops the same way the engine does.
  struct Frame {
    size_t at;
    int64_t left;
  };
  std::vector<Frame> stack;
  size_t pc = 0;
  while (pc < prog.size()) {
    const Action& a = prog[pc];
    if (a.kind != ActionKind::kLoop) {
      if (a.kind == ActionKind::kWake) ++out[a.task().value()];
      ++pc;
      continue;
    }
    if (!stack.empty() && stack.back().at == pc) {
      if (--stack.back().left < 0) {
        stack.pop_back();
        ++pc;
        continue;
      }
    } else {
      if (a.arg <= 0) {
        ++pc;
        continue;
      }
      stack.push_back({pc, a.arg - 1});
    }
    pc -= a.body;
  }
  return out;
}

uint64_t count_kind(const Workload& w, ActionKind k) { return w.expanded_action_counts()[static_cast<size_t>(k)]; }

void check_balanced(const Workload& w) {
  testing::TokenReplay r = testing::replay_tokens(w);
  CHECK(r.all_exited);
  CHECK(r.leftover_tokens == 0);
}

std::string error_of(const std::string& kind, const std::vector<std::string>& args) {
  try {
    generate_workload(kind, args);
  } catch (const InputError& e) {
    return e.render();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("messaging --group 4 --nr_loops 100 --pipe --thread: 160 tasks + main, 20x20 fan-out", "[workload]") {
  Workload w = generate_workload("messaging", {"--group", "4", "--nr_loops", "100", "--pipe", "--thread"});
  // Task 0 is the main task that forks everyone, runs the start barrier and reaps.
  REQUIRE(w.tasks.size() == 1 + 160);
  CHECK(w.tasks[0].name == "msg-main");
  const uint32_t F = 20, L = 100;
  uint64_t messages = 0;
  for (uint32_t g = 0; g < 4; ++g) {
    for (uint32_t s = 0; s < F; ++s) {
      uint32_t sender = 1 + g * 2 * F + F + s;
      REQUIRE(w.tasks[sender].name == "msg-g" + std::to_string(g) + "-send" + std::to_string(s));
      CHECK(w.tasks[sender].tgid == w.tasks[0].pid);  // threads share the main's tgid
      auto wakes = wakes_by_target(w.tasks[sender].program);
      // Every receiver of its own group, L times each; plus main twice (ready, and exit).
      REQUIRE(wakes.size() == F + 1);
      for (uint32_t r = 0; r < F; ++r) CHECK(wakes[1 + g * 2 * F + r] == L);
      CHECK(wakes[0] == 2);
      for (uint32_t r = 0; r < F; ++r) messages += wakes[1 + g * 2 * F + r];
      // Compact: the program holds rounds, not messages.
      CHECK(w.tasks[sender].program.size() < 400);
    }
    for (uint32_t r = 0; r < F; ++r) {
      const auto& prog = w.tasks[1 + g * 2 * F + r].program;
      Workload one;
      one.tasks.push_back(w.tasks[1 + g * 2 * F + r]);
      for (auto& a : one.tasks[0].program)
        if (a.kind == ActionKind::kWake) a.arg = 0;  // count only
      // One block per message plus the start barrier.
      CHECK(one.expanded_action_counts()[static_cast<size_t>(ActionKind::kBlock)] == F * L + 1);
      CHECK(prog.size() < 400);
    }
  }
  CHECK(messages == 4 * F * F * L);
  CHECK(w.meta.at("messages") == "160000");
  // The start barrier: main wakes all 160 children from one pass.
  CHECK(wakes_by_target(w.tasks[0].program).size() == 160);
  check_balanced(w);
}

TEST_CASE("messaging token balance holds across options", "[workload]") {
  auto args = GENERATE(std::vector<std::string>{}, std::vector<std::string>{"-g", "1", "-l", "1"},
                       std::vector<std::string>{"-g", "2", "-l", "37", "-p"},
                       std::vector<std::string>{"-g", "1", "-l", "1000", "--capacity", "50"},
                       std::vector<std::string>{"-g", "3", "-f", "7", "-l", "333", "--capacity", "13"},
                       std::vector<std::string>{"-g", "1", "-f", "1", "-l", "10", "--capacity", "1"},
                       std::vector<std::string>{"-g", "2", "-l", "100", "--no-main"},
                       std::vector<std::string>{"-g", "1", "-l", "500", "-t", "-s", "4000"});
  INFO("args: " << join(args, " "));
  Workload w = generate_workload("messaging", args);
  check_balanced(w);
}

TEST_CASE("messaging defaults: 10 groups, 400 children, 400,000 messages, sockets and processes", "[workload]") {
  Workload w = generate_workload("messaging", {});
  CHECK(w.tasks.size() == 401);
  CHECK(w.meta.at("messages") == "400000");
  CHECK(w.tasks[1].tgid != w.tasks[2].tgid);
  CHECK(w.meta.at("capacity") == "277");  // floor(212992 / (100 + 668))
}

TEST_CASE("pipe: strict ping-pong, 2 sync wakeups per loop", "[workload]") {
  Workload w = generate_workload("pipe", {"--loops", "1000"});
  REQUIRE(w.tasks.size() == 2);
  CHECK(count_kind(w, ActionKind::kWake) == 2000);
  CHECK(count_kind(w, ActionKind::kBlock) == 2000);
  for (const auto& t : w.tasks)
    for (const auto& a : t.program)
      if (a.kind == ActionKind::kWake) CHECK(a.flags == kWakeSync);
  Workload big = generate_workload("pipe", {});
  CHECK(count_kind(big, ActionKind::kWake) == 2000000);
  CHECK(big.tasks[0].program.size() < 10);
  check_balanced(w);
}

TEST_CASE("schbench: message threads wake all their workers per pass", "[workload]") {
  Workload w = generate_workload("schbench", {"-m", "2", "-t", "8", "--requests", "50"});
  REQUIRE(w.tasks.size() == 2 * 9);
  auto wakes = wakes_by_target(w.tasks[0].program);
  CHECK(wakes.size() == 8);
  for (auto [t, n] : wakes) CHECK(n == 50);
  CHECK(count_kind(w, ActionKind::kSleep) == 2 * 8 * 50);
  check_balanced(w);
  // -F 256: N = floor(sqrt(256*1024/24)) = 104; work = 5 * 104^3 * 1 ns.
  CHECK(w.meta.at("work_per_request_ns") == std::to_string(5 * 104 * 104 * 104));

  Workload old1 = generate_workload("schbench", {"--old", "-r", "3", "--seed", "1"});
  Workload old2 = generate_workload("schbench", {"--old", "-r", "3", "--seed", "1"});
  Workload old3 = generate_workload("schbench", {"--old", "-r", "3", "--seed", "2"});
  REQUIRE(old1.tasks.size() == 2 * 17);
  CHECK(old1.tasks[0].program == old2.tasks[0].program);
  CHECK(old1.tasks[0].program != old3.tasks[0].program);
  check_balanced(old1);
}

TEST_CASE("fork: children wake the parent before exit, exec is its own action", "[workload]") {
  Workload w = generate_workload("fork", {"exec", "-n", "20", "-P", "3"});
  REQUIRE(w.tasks.size() == 3 * 21);
  CHECK(count_kind(w, ActionKind::kFork) == 60);
  CHECK(count_kind(w, ActionKind::kExec) == 60);
  const auto& child = w.tasks[1].program;
  REQUIRE(child.size() >= 2);
  CHECK(child[child.size() - 2].kind == ActionKind::kWake);
  CHECK(child.back().kind == ActionKind::kExit);
  check_balanced(w);
  Workload sh = generate_workload("fork", {"shell", "-n", "5"});
  CHECK(sh.tasks.size() == 1 + 2 * 5);
  CHECK(count_kind(sh, ActionKind::kExec) == 10);
  check_balanced(sh);
}

TEST_CASE("periodic: loops without jitter, seeded jitter with it", "[workload]") {
  Workload w = generate_workload("periodic", {"-n", "3", "--period", "1ms", "--run", "250us", "--duration", "1s"});
  REQUIRE(w.tasks.size() == 3);
  CHECK(w.tasks[0].program.size() == 4);  // run, sleep, loop, exit
  CHECK(w.total_work() == Duration::us(3 * 1000 * 250));
  Workload j1 = generate_workload("periodic", {"--jitter", "20%", "--count", "100"});
  Workload j2 = generate_workload("periodic", {"--jitter", "0.2", "--count", "100"});
  Workload j3 = generate_workload("periodic", {"--jitter", "20%", "--count", "100", "--seed", "9"});
  CHECK(j1.tasks[0].program == j2.tasks[0].program);
  CHECK(j1.tasks[0].program != j3.tasks[0].program);
  for (const auto& a : j1.tasks[0].program)
    if (a.kind == ActionKind::kRun) {
      CHECK(a.arg >= 1600000);
      CHECK(a.arg <= 2400000);
    }
}

TEST_CASE("rr: N request/response pairs, 2 sync wakeups per transaction, main joins the clients", "[workload]") {
  Workload w = generate_workload("rr", {"--pairs", "3", "--loops", "500"});
  REQUIRE(w.tasks.size() == 7);  // main + 3 clients + 3 servers
  CHECK(w.tasks[0].name == "rr-main");
  CHECK(w.tasks[1].name == "rr-client0");
  CHECK(w.tasks[2].name == "rr-server0");
  // 2 wakes per transaction, plus each client's wake of main at its end.
  CHECK(count_kind(w, ActionKind::kWake) == 3 * 500 * 2 + 3);
  CHECK(count_kind(w, ActionKind::kBlock) == 3 * 500 * 2 + 3);
  for (size_t i = 1; i < w.tasks.size(); ++i) {
    // A client's server and a server's client are its only wake targets.
    const auto wakes = wakes_by_target(w.tasks[i].program);
    const uint32_t peer = static_cast<uint32_t>(i % 2 == 1 ? i + 1 : i - 1);
    CHECK(wakes.at(peer) == 500);
    CHECK(wakes.size() == (i % 2 == 1 ? 2U : 1U));
  }
  CHECK(w.meta.at("benchmark_timer") == "0");
  CHECK(w.meta.at("benchmark_ops") == "1500");
  CHECK(w.meta.at("gen_cost_params") == "rr_op");
  check_balanced(w);
  // The real programs' names work too; the pair count multiplies into the task count.
  CHECK(generate_workload("netperf", {"-n", "2"}).tasks.size() == 5);
  CHECK(generate_workload("tbench", {"--clients", "4"}).tasks.size() == 9);
  CHECK_THROWS_AS(generate_workload("rr", {"--pairs", "0"}), InputError);
}

TEST_CASE("every generator is deterministic", "[workload]") {
  for (const auto& g : list_generators()) {
    if (g.name == "mix") continue;
    Workload a = generate_workload(g.name, {});
    Workload b = generate_workload(g.name, {});
    REQUIRE(a.tasks.size() == b.tasks.size());
    for (size_t i = 0; i < a.tasks.size(); ++i) CHECK(a.tasks[i].program == b.tasks[i].program);
    CHECK(a.source == "gen " + g.name);
  }
}

TEST_CASE("generator option errors name the option and the allowed range", "[workload]") {
  CHECK(error_of("messaging", {"--group", "0"}) == "error: gen messaging: --group 0 is out of range; allowed 1..100000");
  CHECK(error_of("messaging", {"--group", "x"}) == "error: gen messaging: --group: 'x' is not an integer");
  CHECK(error_of("messaging", {"--loop", "3"}) ==
        "error: gen messaging: unknown option '--loop'; did you mean '--loops'? (schedsim gen messaging --help "
        "lists the options)");
  CHECK(error_of("pipe", {"--cost-op", "3 lightyears"}) ==
        "error: gen pipe: --cost-op: '3 lightyears' is not a duration; write a number with ns, us, ms or s (e.g. "
        "10us)");
  CHECK(error_of("periodic", {"--run", "20ms"}) == "error: gen periodic: --run 20.00ms exceeds --period 10.00ms");
  CHECK(error_of("periodic", {"--jitter", "150%"}) ==
        "error: gen periodic: --jitter 150% is out of range; allowed 0%..100%");
  CHECK(error_of("fork", {"vfork"}) ==
        "error: gen fork: unknown --mode value 'vfork'; did you mean 'fork'? valid: fork, exec, shell");
  CHECK(error_of("schbench", {"--old", "-F", "64"}) ==
        "error: gen schbench: --footprint applies to the new schbench only, not with --old");
  // The list of kinds comes from the registry, so a new generator needs no edit here.
  std::string kinds;
  for (const auto& g : list_generators()) kinds += (kinds.empty() ? "" : ", ") + g.name;
  CHECK(error_of("mesaging", {}) == "error: unknown generator 'mesaging'; did you mean 'messaging'? valid: " + kinds);
  CHECK(generate_workload("hackbench", {"-g", "1"}).tasks.size() == 41);  // the real programs' names work too
}

TEST_CASE("specs split like a shell, a JSON mix combines generators", "[workload]") {
  CHECK(split_command_line("messaging  --group 2 'a b' \"c\\\"d\" e\\ f") ==
        std::vector<std::string>{"messaging", "--group", "2", "a b", "c\"d", "e f"});
  CHECK_THROWS_AS(split_command_line("x 'unterminated"), InputError);
  Workload w = generate_workload_from_spec("messaging --group 2 --pipe");
  CHECK(w.tasks.size() == 81);
  CHECK(w.source == "gen messaging --group 2 --pipe");

  auto dir = std::filesystem::temp_directory_path() / ("schedsim-gen-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string mix = (dir / "mix.json").string();
  std::ofstream(mix) << R"({"schedsim_mix": 1, "name": "both", "parts": [
      {"gen": "pipe --loops 10"},
      {"kind": "periodic", "args": ["-n", "2", "--count", "5"], "start": "5ms", "count": 2}]})";
  Workload m = generate_workload_from_spec(mix);
  REQUIRE(m.tasks.size() == 2 + 2 * 2);
  CHECK(m.name == "both");
  // The pipe's wake targets stay inside the pipe part; periodic tasks start 5 ms later.
  CHECK(m.tasks[0].program[2].task().value() == 1);
  CHECK(m.tasks[2].start_time >= Instant::from_ns(5000000));
  check_balanced(m);
  std::ofstream(mix) << R"({"schedsim_mix": 1, "parts": [{"gen": "pipe --lops 10"}]})";
  try {
    generate_workload_from_spec(mix);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.message() ==
          "/parts/0: gen pipe: unknown option '--lops'; did you mean '--loops'? (schedsim gen pipe --help lists the "
          "options)");
  }
}

TEST_CASE("the examples read, validate and balance their tokens", "[workload]") {
  Workload p = read_workload(std::string(SCHEDSIM_SOURCE_DIR) + "/examples/pingpong.json");
  REQUIRE(p.tasks.size() == 2);
  CHECK(p.expanded_action_counts()[static_cast<size_t>(ActionKind::kWake)] == 2000);
  CHECK(p.total_work() == Duration::us(4000));
  check_balanced(p);
  Workload m = generate_workload_from_spec(std::string(SCHEDSIM_SOURCE_DIR) + "/examples/mix.json");
  CHECK(m.tasks.size() == 81 + 4 + 2 * 2);
  check_balanced(m);
  // Each part numbers its tasks from the same first pid; the mix shifts later parts past the ids
  // earlier parts used, so every pid is distinct and a thread group stays within its part.
  std::map<int64_t, std::string> pid_of;
  std::map<int64_t, int64_t> group_part;  // tgid -> index of the first task using it
  for (size_t i = 0; i < m.tasks.size(); ++i) {
    const TaskSpec& t = m.tasks[i];
    CHECK(pid_of.emplace(t.pid, t.name).second);
    group_part.emplace(t.tgid, static_cast<int64_t>(i));
  }
  CHECK(m.tasks[0].pid == 1000);  // the first part keeps its own ids
  CHECK(m.tasks[81].pid > m.tasks[80].pid);
  CHECK(m.tasks[81].tgid != m.tasks[0].tgid);  // not in messaging's thread group
}

TEST_CASE("messaging --channel-model pipe: one channel per receiver, every message a write and a read", "[workload]") {
  Workload w = generate_workload("messaging", {"-g", "2", "-l", "30", "--pipe", "--channel-model", "pipe"});
  validate_workload(w, "gen");
  // 2 groups x 20 senders x 20 receivers x 30 loops.
  CHECK(count_kind(w, ActionKind::kWrite) == 24000);
  CHECK(count_kind(w, ActionKind::kRead) == 24000);
  CHECK(w.meta.at("channel_model") == "pipe");
  CHECK(w.meta.count("credit_window") == 0);
  // No credits: the only wakes and blocks left are the barrier, the ready pipe and the join.
  CHECK(count_kind(w, ActionKind::kWake) == 80 + 80 + 80);
  int64_t max_chan = -1;
  bool any_socket = false;
  for (const auto& t : w.tasks)
    for (const auto& a : t.program)
      if (a.kind == ActionKind::kWrite || a.kind == ActionKind::kRead) {
        max_chan = std::max(max_chan, a.arg);
        any_socket |= (a.flags & kChanSocket) != 0;
        CHECK(a.body == 100);
      }
  CHECK(max_chan == 39);
  CHECK_FALSE(any_socket);
  Workload sk = generate_workload("messaging", {"-g", "1", "-l", "2", "--channel-model", "pipe"});
  CHECK(sk.meta.at("channel_model") == "pipe (socket rules)");
  CHECK(error_of("messaging", {"--channel-model", "pipe", "--capacity", "5"}).find("--capacity sets the token") !=
        std::string::npos);
}
