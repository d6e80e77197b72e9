// run --slice REGEX=DURATION: which tasks get which custom slice.
#include <catch2/catch.hpp>

#include "schedsim/driver/run.hpp"
#include "schedsim/base/error.hpp"

using namespace schedsim;

namespace {
Workload named(std::initializer_list<const char*> names) {
  Workload w;
  for (const char* n : names) {
    TaskSpec t;
    t.name = n;
    w.add_task(t);
  }
  return w;
}
}  // namespace

TEST_CASE("run --slice: a regex search over task names, the later spec wins", "[cli]") {
  Workload w = named({"lat0", "lat1", "hog0", "ui-lat"});
  driver::apply_slices(w, {"^lat=300us", "lat1=2ms"});
  CHECK(w.tasks[0].slice == Duration::us(300));
  CHECK(w.tasks[1].slice == Duration::ms(2));
  CHECK(w.tasks[2].slice == Duration::zero());
  CHECK(w.tasks[3].slice == Duration::zero());
  // The last '=' splits, so a regex may hold one; bounds are inclusive.
  Workload v = named({"a=b"});
  driver::apply_slices(v, {"a=b=100us"});
  CHECK(v.tasks[0].slice == Duration::us(100));
  driver::apply_slices(v, {"a=100ms"});
  CHECK(v.tasks[0].slice == Duration::ms(100));
  for (const char* bad : {"a", "=1ms", "a=", "a=99us", "a=101ms", "a=-1ms", "a=soon", "(=1ms", "zzz=1ms"})
    CHECK_THROWS_AS(driver::apply_slices(v, {bad}), InputError);
  CHECK(v.tasks[0].slice == Duration::ms(100));
}

TEST_CASE("check_slices with a workload: every regex must match a task (sweep's validation)", "[cli]") {
  const Workload w = named({"lat0", "hog0"});
  CHECK_NOTHROW(driver::check_slices({"^lat=300us", "hog=1ms"}, w));
  CHECK_THROWS_WITH(driver::check_slices({"^lat=300us", "^ui=1ms"}, w), Catch::Contains("no task name matches /^ui/"));
  CHECK_THROWS_WITH(driver::check_slices({"(=1ms"}, w), Catch::Contains("bad regex"));
}

TEST_CASE("custom_slice_note counts the slices children inherit down the fork tree", "[cli]") {
  // parent (slice) forks child, child forks grandchild; "other" has none and forks nothing.
  Workload w = named({"parent", "child", "grandchild", "other"});
  w.tasks[0].slice = Duration::us(300);
  w.tasks[1].start = StartState::kForked;
  w.tasks[2].start = StartState::kForked;
  w.tasks[0].program = {Action::fork(TaskId(1)), Action::exit()};
  w.tasks[1].program = {Action::fork(TaskId(2)), Action::exit()};
  RunConfig cfs;
  cfs.modules["queue"] = "cfs";
  auto note = driver::custom_slice_note(w, cfs);
  REQUIRE(note);
  CHECK_THAT(*note, Catch::StartsWith("note: 3 task(s) have a custom slice"));
  RunConfig eevdf;
  eevdf.modules["queue"] = "eevdf-6.18";
  eevdf.provenance.kernel = "6.18";
  CHECK_FALSE(driver::custom_slice_note(w, eevdf));
  w.tasks[0].slice = Duration::zero();
  CHECK_FALSE(driver::custom_slice_note(w, cfs));
}
