// Fuzz target: the trace line parser alone (traces/src/line_parser.cpp), line by line, with every
// prev_state layout and integer clocks; fast, so it reaches deep into the payload grammar. The
// first input byte chooses the options (bits 0-2 the state layout, bit 3 --clock-hz 1e9).
#include "fuzz_common.hpp"

#include "schedsim/traces/line_parser.hpp"

SCHEDSIM_FUZZ_TARGET(line_parser) {
  using namespace schedsim;
  using namespace schedsim::traces;
  fuzz::quiet_logs();
  std::string_view text = fuzz::as_text(data, size);
  const uint8_t flags = fuzz::take_byte(text);
  ParseOptions po;
  po.layout = static_cast<StateLayout>((flags & 7) % 5);
  po.clock_hz = (flags & 8) ? 1000000000 : 0;
  LineParser parser(po);
  TraceEvent ev;
  for (std::string_view line : fuzz::split_lines(text)) {
    switch (parser.parse(line, ev)) {
      case LineKind::kEvent:
        (void)state_to_string(ev.state);
        (void)classify_state(ev.state);
        (void)event_type_name(ev.type);
        break;
      case LineKind::kError:
        if (parser.error().empty()) fuzz::finding("kError without a message");
        if (parser.error_col() < 1 || static_cast<size_t>(parser.error_col()) > line.size() + 1)
          fuzz::finding("error column outside the line");
        break;
      default: break;
    }
  }
  // The helpers the importer uses on option text.
  StateLayout layout;
  (void)state_layout_for_kernel(std::string(text.substr(0, 16)), layout);
  uint16_t bits = 0;
  (void)decode_letter_state(text.substr(0, 8), bits);
  return 0;
}
