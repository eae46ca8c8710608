#include "report/display_width.hpp"

#include <algorithm>
#include <iterator>

#include "report/utf8.hpp"

namespace prof::report {

namespace {

struct CodePointRange {
  uint32_t first, last;  // inclusive
};

#include "report/display_width_table.inc"

template <size_t N>
bool in_ranges(const CodePointRange (&ranges)[N], uint32_t cp) {
  // The first range that ends at or after cp; cp is in it when it also starts at or before cp.
  const auto ends_before = [](const CodePointRange& r, uint32_t value) { return r.last < value; };
  const auto* it = std::lower_bound(std::begin(ranges), std::end(ranges), cp, ends_before);
  return it != std::end(ranges) && it->first <= cp;
}

// One character (or stray byte) at text[0]: its length in bytes and its columns.
std::pair<size_t, int> next_char(std::string_view text) {
  const size_t length = utf8_sequence_length(text);
  if (length <= 1) return {1, 1};
  return {length, code_point_columns(utf8_code_point(text, length))};
}

}  // namespace

int code_point_columns(uint32_t cp) {
  if (cp < 0x300) return 1;  // ASCII and Latin-1: no wide or zero-width character below U+0300
  if (in_ranges(kZeroWidthRanges, cp)) return 0;
  return in_ranges(kWideRanges, cp) ? 2 : 1;
}

size_t display_columns(std::string_view text) {
  size_t columns = 0;
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++columns, ++i;
      continue;
    }
    const auto [length, width] = next_char(text.substr(i));
    columns += static_cast<size_t>(width);
    i += length;
  }
  return columns;
}

std::string fit_columns(std::string_view text, size_t columns) {
  if (display_columns(text) <= columns) return std::string(text);
  const size_t keep = columns > 3 ? columns - 3 : 0;
  size_t used = 0, cut = 0;
  while (cut < text.size()) {
    const auto [length, width] = next_char(text.substr(cut));
    if (used + static_cast<size_t>(width) > keep) break;
    used += static_cast<size_t>(width);
    cut += length;
  }
  return std::string(text.substr(0, cut)) + "...";
}

std::string pad_right(std::string text, size_t columns) {
  const size_t n = display_columns(text);
  if (n < columns) text.append(columns - n, ' ');
  return text;
}

std::string pad_left(const std::string& text, size_t columns) {
  const size_t n = display_columns(text);
  return n < columns ? std::string(columns - n, ' ') + text : text;
}

}  // namespace prof::report
