// InputError rendering and the "did you mean" helpers (exact texts, as ninja tests them).
#include <catch2/catch.hpp>

#include "schedsim/base/error.hpp"

using namespace schedsim;

TEST_CASE("edit_distance", "[base][error]") {
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("abc", "abc") == 0);
  CHECK(edit_distance("flaw", "lawn") == 2);
  CHECK(edit_distance("cfs", "cfss") == edit_distance("cfss", "cfs"));
}

TEST_CASE("closest_match", "[base][error]") {
  std::vector<std::string> policies = {"cfs", "eevdf", "fifo", "rr"};
  CHECK(closest_match("cfss", policies) == "cfs");
  CHECK(closest_match("eevfd", policies) == "eevdf");
  CHECK(closest_match("zzzzzzz", policies).empty());
  CHECK(closest_match("x", {}).empty());
  // Ties go to the first candidate listed.
  CHECK(closest_match("ab", {"aa", "bb"}) == "aa");
  // Case and separator variants, however far by edit distance.
  CHECK(closest_match("SIS_UTIL", {"sis-prop", "sis-util"}) == "sis-util");
  CHECK(closest_match("sis-util", {"SIS_PROP", "SIS_UTIL"}) == "SIS_UTIL");
}

TEST_CASE("unknown_choice_message", "[base][error]") {
  CHECK(unknown_choice_message("policy", "cfss", {"cfs", "eevdf", "fifo", "rr"}) ==
        "unknown policy 'cfss'; did you mean 'cfs'? valid: cfs, eevdf, fifo, rr");
  CHECK(unknown_choice_message("policy", "zzzzzz", {"cfs", "rr"}) == "unknown policy 'zzzzzz'; valid: cfs, rr");
  CHECK(join({"a", "b", "c"}, ", ") == "a, b, c");
  CHECK(join({}, ", ").empty());
}

TEST_CASE("InputError renders GCC-style with a caret", "[base][error]") {
  InputError e(SourceLoc{"trace.txt", 12, 5}, "bad field", "abc defg");
  CHECK(e.render() == "trace.txt:12:5: error: bad field\nabc defg\n    ^");
  CHECK(std::string(e.what()) == e.render());
  CHECK(e.loc().line == 12);
  CHECK(e.message() == "bad field");
  CHECK(InputError(SourceLoc{"f.json"}, "oops").render() == "f.json: error: oops");
  CHECK(InputError(SourceLoc{"f", 3}, "oops").render() == "f:3: error: oops");
  CHECK(InputError("plain").render() == "error: plain");
}

TEST_CASE("error text escapes binary bytes and keeps the caret on its column", "[base][error]") {
  CHECK(printable("ok é\t") == "ok é\t");
  CHECK(printable(std::string("a\0b\x01\xff", 5)) == "a\\x00b\\x01\\xff");
  CHECK(printable("\xc3") == "\\xc3");  // a cut UTF-8 sequence
  InputError e(SourceLoc{"f", 2, 4}, std::string("bad '\x02'"), std::string("\x01\x02x y", 5));
  CHECK(e.render() == "f:2:4: error: bad '\\x02'\n\\x01\\x02x y\n         ^");
}
