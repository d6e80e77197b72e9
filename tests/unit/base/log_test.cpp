// Notes and warnings: the headline / detail split that stderr shortens and --explain restores.
#include <catch2/catch.hpp>

#include "schedsim/base/log.hpp"

namespace slog = schedsim::log;

TEST_CASE("log: a note's headline is the text up to its first newline") {
  CHECK(slog::headline("warning: 76% banked:\n(a banked wake ...)") == "warning: 76% banked:");
  CHECK(slog::headline("note: one line") == "note: one line");
  CHECK(slog::headline("").empty());
}

TEST_CASE("log: flat joins headline and detail with a space, the full sentence") {
  CHECK(slog::flat("note: a\nb\nc") == "note: a b c");
  CHECK(slog::flat("note: one line") == "note: one line");
}

TEST_CASE("log: brief shows the headline and says where the rest is, --explain shows all") {
  slog::set_explain(false);
  CHECK(slog::brief("warning: 76% banked:\n(why)") == "warning: 76% banked [--explain]");
  CHECK(slog::brief("note: x;\nmore") == "note: x [--explain]");
  CHECK(slog::brief("note: x,\nmore") == "note: x [--explain]");
  // Nothing left out: no hint.
  CHECK(slog::brief("note: one line") == "note: one line");
  slog::set_explain(true);
  CHECK(slog::explain());
  CHECK(slog::brief("warning: 76% banked:\n(why)") == "warning: 76% banked: (why)");
  CHECK(slog::brief("note: one line") == "note: one line");
  slog::set_explain(false);
}

TEST_CASE("log: wrap_words breaks at spaces within the width, indents the rest, keeps a long word") {
  CHECK(slog::wrap_words("usage: a bb ccc", 12, 7) == "usage: a bb\n       ccc");
  CHECK(slog::wrap_words("usage: averyveryverylongword x", 10, 7) == "usage: averyveryverylongword\n       x");
  // A line break in the text starts the column count again (topology's three usage lines).
  CHECK(slog::wrap_words("usage: a\n       b c", 12, 7) == "usage: a\n       b c");
  CHECK(slog::wrap_words("", 10, 2).empty());
}
