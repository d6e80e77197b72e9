#include "schedsim/topology/cpu_mask.hpp"

#include <cctype>
#include <vector>

namespace schedsim {

std::string CpuMask::to_cpulist() const {
  std::string out;
  uint32_t c = first();
  while (c < kMaxCpus) {
    uint32_t end = c;
    while (end + 1 < kMaxCpus && test(end + 1)) ++end;
    if (!out.empty()) out += ',';
    out += std::to_string(c);
    if (end > c) out += '-' + std::to_string(end);
    c = next(end);
  }
  return out;
}

std::string CpuMask::to_hex_mask(uint32_t nr_cpus) const {
  // Like the kernel's bitmap_print_to_pagebuf: 32-bit groups, most significant first; the
  // leading group is as wide as the CPUs it holds need, the others are 8 digits.
  SCHEDSIM_ASSERT(nr_cpus <= kMaxCpus, "to_hex_mask: nr_cpus {} > kMaxCpus", nr_cpus);
  SCHEDSIM_ASSERT(next_from(nr_cpus) == kMaxCpus, "to_hex_mask: mask {} has CPUs >= nr_cpus {}",
                  to_cpulist(), nr_cpus);
  uint32_t groups = nr_cpus == 0 ? 1 : (nr_cpus + 31) / 32;
  uint32_t lead_width = nr_cpus == 0 ? 1 : (nr_cpus % 32 == 0 ? 8 : (nr_cpus % 32 + 3) / 4);
  std::string out;
  for (uint32_t g = groups; g-- > 0;) {
    uint32_t v = static_cast<uint32_t>(word_or_zero(g / 2) >> ((g % 2) * 32));
    out += fmt::format("{:0{}x}", v, g + 1 == groups ? lead_width : 8u);
    if (g) out += ',';
  }
  return out;
}

namespace {
bool parse_uint(const std::string& s, size_t& i, uint32_t& out) {
  size_t start = i;
  uint64_t v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    v = v * 10 + static_cast<uint64_t>(s[i] - '0');
    if (v > 0xffffffffu) return false;
    ++i;
  }
  out = static_cast<uint32_t>(v);
  return i > start;
}
}  // namespace

std::optional<CpuMask> CpuMask::parse_cpulist(const std::string& raw, std::string* error) {
  auto fail = [&](const std::string& msg) -> std::optional<CpuMask> {
    if (error) *error = msg;
    return std::nullopt;
  };
  std::string text = raw;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  CpuMask m;
  if (text.empty()) return m;
  size_t i = 0;
  while (i < text.size()) {
    uint32_t a, b;
    if (!parse_uint(text, i, a)) return fail("expected a CPU number at offset " + std::to_string(i));
    b = a;
    if (i < text.size() && text[i] == '-') {
      ++i;
      if (!parse_uint(text, i, b)) return fail("expected a CPU number after '-' at offset " + std::to_string(i));
      if (b < a) return fail("range " + std::to_string(a) + "-" + std::to_string(b) + " is descending");
    }
    if (b >= kMaxCpus)
      return fail("CPU " + std::to_string(b) + " exceeds the supported maximum of " +
                  std::to_string(kMaxCpus - 1));
    for (uint32_t c = a; c <= b; ++c) m.set(c);
    if (i < text.size()) {
      if (text[i] != ',') return fail(std::string("unexpected character '") + text[i] + "' at offset " + std::to_string(i));
      ++i;
      if (i == text.size()) return fail("trailing ','");
    }
  }
  return m;
}

std::optional<CpuMask> CpuMask::parse_hex_mask(const std::string& raw, std::string* error) {
  auto fail = [&](const std::string& msg) -> std::optional<CpuMask> {
    if (error) *error = msg;
    return std::nullopt;
  };
  std::string text;
  for (char ch : raw)
    if (!std::isspace(static_cast<unsigned char>(ch))) text += ch;
  if (text.rfind("0x", 0) == 0 || text.rfind("0X", 0) == 0) text = text.substr(2);
  if (text.empty()) return fail("empty hex mask");
  // sysfs (bitmap_print_to_pagebuf) prints 32-bit groups separated by commas, most significant
  // first; a group may be shorter than 8 digits, so each group is placed by its index, not by
  // counting digits across commas. Without commas the text is one long hex number.
  std::vector<std::string> groups;
  bool has_commas = text.find(',') != std::string::npos;
  if (has_commas) {
    size_t start = 0;
    while (true) {
      size_t comma = text.find(',', start);
      groups.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  } else {
    groups.push_back(text);
  }
  CpuMask m;
  uint32_t base = 0;
  for (size_t g = groups.size(); g-- > 0; base += 32) {
    const std::string& grp = groups[g];
    if (grp.empty()) return fail("empty group in hex mask");
    if (has_commas && grp.size() > 8) return fail("hex mask group '" + grp + "' has more than 8 digits");
    uint32_t bit = base;
    for (size_t k = grp.size(); k-- > 0;) {
      char ch = grp[k];
      int v;
      if (ch >= '0' && ch <= '9') v = ch - '0';
      else if (ch >= 'a' && ch <= 'f') v = ch - 'a' + 10;
      else if (ch >= 'A' && ch <= 'F') v = ch - 'A' + 10;
      else return fail(std::string("unexpected character '") + ch + "' in hex mask");
      for (int b = 0; b < 4; ++b, ++bit) {
        if ((v >> b) & 1) {
          if (bit >= kMaxCpus)
            return fail("hex mask sets a CPU beyond the supported maximum of " + std::to_string(kMaxCpus - 1));
          m.set(bit);
        }
      }
    }
  }
  return m;
}

}  // namespace schedsim
