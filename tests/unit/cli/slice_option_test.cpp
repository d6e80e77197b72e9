// run --slice REGEX=DURATION: which tasks get which custom slice.
#include <catch2/catch.hpp>

#include "run_request.hpp"
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
  cli::apply_slices(w, {"^lat=300us", "lat1=2ms"});
  CHECK(w.tasks[0].slice == Duration::us(300));
  CHECK(w.tasks[1].slice == Duration::ms(2));
  CHECK(w.tasks[2].slice == Duration::zero());
  CHECK(w.tasks[3].slice == Duration::zero());
  // The last '=' splits, so a regex may hold one; bounds are inclusive.
  Workload v = named({"a=b"});
  cli::apply_slices(v, {"a=b=100us"});
  CHECK(v.tasks[0].slice == Duration::us(100));
  cli::apply_slices(v, {"a=100ms"});
  CHECK(v.tasks[0].slice == Duration::ms(100));
  for (const char* bad : {"a", "=1ms", "a=", "a=99us", "a=101ms", "a=-1ms", "a=soon", "(=1ms", "zzz=1ms"})
    CHECK_THROWS_AS(cli::apply_slices(v, {bad}), InputError);
  CHECK(v.tasks[0].slice == Duration::ms(100));
}
