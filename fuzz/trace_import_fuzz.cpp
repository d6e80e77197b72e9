// Fuzz target: the whole trace import with its options varied and compressed input (gzip, zstd,
// concatenated or cut streams). The first input byte chooses the options:
//   bit 0 --strict, bit 1 exclude kthreads, bit 2 all tasks, bit 3 --comm (two passes),
//   bits 4-5 --kernel-version (4.14+, 2.6, 3.9, 4.8), bit 6 --clock-hz 1e9, bit 7 reorder window 4 (else the
// default 4096)
// and the second byte: bit 7 --channels pipe, bit 6 --wake-match recorded, bits 0-5 when not 0 a
// --pid-tree root. The rest is the trace (any format).
#include "fuzz_common.hpp"

SCHEDSIM_FUZZ_TARGET(trace_import) {
  using namespace schedsim;
  fuzz::quiet_logs();
  std::string_view text = fuzz::as_text(data, size);
  const uint8_t flags = fuzz::take_byte(text);
  const uint8_t second = fuzz::take_byte(text);
  const uint8_t root = second & 0x3f;
  traces::ExtractOptions opt;
  opt.strict = (flags & 1) != 0;
  opt.exclude_kthreads = (flags & 2) != 0;
  opt.all_tasks = (flags & 4) != 0;
  if (flags & 8) opt.comm_regex = "^[a-m]|worker";
  static const char* const kKernels[] = {"", "2.6.32", "3.9", "4.8"};
  opt.kernel_version = kKernels[(flags >> 4) & 3];
  if (flags & 64) opt.clock_hz = 1000000000;
  if (flags & 128) opt.reorder_window = 4;
  if (root != 0) opt.descendants_of = root;
  if (second & 0x80) opt.channels = traces::TraceChannels::kPipe;
  if (second & 0x40) opt.wake_match = traces::TraceWakeMatch::kRecorded;
  fuzz::import_and_check(text, opt);
  return 0;
}
