// The PROF_* variables the preload library reads, each described once with its range: the library
// (which must never change the program) warns once and uses the default for a bad value, the cli
// refuses it before launching anything (docs/design-launch.md lists the variables). No allocation,
// no exceptions: the preload library uses this from its constructor.
// Each variable's `help` is its one line in prof --help, prof.1 and README.md (cli/help_format.cpp
// writes all three from these tables); nullptr marks one prof sets itself from an option.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace prof {

struct EnvNumber {
  const char* name;
  uint64_t min;
  uint64_t max;
  uint64_t fallback;
  const char* help;
};

// A ring of 2^28 records is 16 GiB: more than any run needs, and every ring location still halves
// it to 1/64 of its free space (interpose/thread_buffer.cpp).
inline constexpr EnvNumber kEnvBufferRecords{
    "PROF_BUFFER_RECORDS", 1, uint64_t{1} << 28, uint64_t{1} << 16,
    "the most records a thread's ring grows to, rounded up to a power of two"};
inline constexpr EnvNumber kEnvBufferWaitMs{
    // at most an hour
    "PROF_BUFFER_WAIT_MS", 0, 3'600'000, 10'000,
    "how long a thread whose ring is full waits for prof, in ms"};
// --no-device-timing.
inline constexpr EnvNumber kEnvDeviceTiming{"PROF_DEVICE_TIMING", 0, 1, 1, nullptr};
inline constexpr EnvNumber kEnvSelfMove{
    "PROF_SELF_MOVE", 0, 1, 1,
    "0: a thread whose ring is full waits for prof, not moving its records"};
// 1: a runtime that reports each op's device times itself (HIP's activity callback; MUPTI, CNPAPI,
// MSPTI) is timed by those reports; 0: by events around each call, as a runtime without them.
inline constexpr EnvNumber kEnvDeviceActivity{
    "PROF_DEVICE_ACTIVITY", 0, 1, 1,
    "0: time kernels and copies by events around each call, not the runtime's own reports"};
// Delays and windows up to 100 days, in ns: far from overflowing when added to a start time.
// --delay and --duration.
inline constexpr uint64_t kMaxCaptureNs = 8'640'000'000'000'000;
inline constexpr EnvNumber kEnvCaptureDelayNs{"PROF_CAPTURE_DELAY_NS", 0, kMaxCaptureNs, 0,
                                              nullptr};
inline constexpr EnvNumber kEnvCaptureDurationNs{"PROF_CAPTURE_DURATION_NS", 0, kMaxCaptureNs, 0,
                                                 nullptr};

inline constexpr EnvNumber kEnvNumbers[] = {
    kEnvBufferRecords,  kEnvBufferWaitMs,      kEnvDeviceTiming,  kEnvSelfMove,
    kEnvCaptureDelayNs, kEnvCaptureDurationNs, kEnvDeviceActivity};

// Variables with a fixed set of words ("" = unset or empty is always allowed).
struct EnvWord {
  const char* name;
  const char* allowed[3];  // nullptr-terminated
  const char* help;
};
inline constexpr EnvWord kEnvWords[] = {
    {"PROF_CAPTURE", {"api", nullptr, nullptr}, nullptr},  // --trace-start off
    {"PROF_HOOK_CLOCK",
     {"clock_gettime", nullptr, nullptr},
     "the hooks read clock_gettime instead of the CPU's time-stamp counter"},
};

// Variables read as they are (set or not, a path, a count the simulator clamps), listed here
// for the help only. Their readers: cli/main.cpp, sim/device.cpp, sim/truth.cpp,
// cli/run_directory.cpp, spdlog, cli/help_format.cpp. The cli sets PROF_RUN_DIR,
// PROF_RUN_DIR_FALLBACK and PROF_RUNTIMES for the library, and PROF_TEST_* are the tests' own.
struct EnvText {
  const char* name;
  const char* value;  // the placeholder the help shows
  const char* help;
};
inline constexpr EnvText kEnvTexts[] = {
    {"PROF_KEEP_RUN_DIR", "1", "keep the run directory (rings, journal) after the run"},
    {"PROF_SIM_DEVICES", "N", "with --sim: how many devices (default 2, at most 64)"},
    {"PROF_SIM_TRUTH", "FILE", "with --sim: append every op's simulated device times to FILE"},
    {"TMPDIR", "DIR", "run directories go to /dev/shm, else here, else /tmp"},
    {"SPDLOG_LEVEL", "LEVEL", "prof's own log level: debug, info, warn (default), error, off"},
    {"COLUMNS", "N", "the width prof --help wraps to (default the terminal's, at most 100)"},
};

// Copies `text` into `out` (always terminated) with control characters and DEL written as \xNN,
// so a value or a name printed to a terminal cannot move its cursor or change its title.
inline void escape_control(const char* text, char* out, size_t out_size) noexcept {
  if (out_size == 0) return;
  size_t at = 0;
  for (const unsigned char* p = reinterpret_cast<const unsigned char*>(text); *p; ++p) {
    const bool control = *p < 0x20 || *p == 0x7f;
    const size_t need = control ? 4 : 1;
    if (at + need + 1 > out_size) break;
    if (control) {
      static const char kHex[] = "0123456789abcdef";
      out[at++] = '\\';
      out[at++] = 'x';
      out[at++] = kHex[*p >> 4];
      out[at++] = kHex[*p & 15];
    } else {
      out[at++] = static_cast<char>(*p);
    }
  }
  out[at] = '\0';
}

// Decimal digits only (no sign, no blanks, no suffix) within [min, max]. Unset or empty: the
// default, true. Otherwise false with `why` set to one line naming the variable and what is wrong
// with it.
inline bool read_env_number(const EnvNumber& v, const char* text, uint64_t& value, char* why,
                            size_t why_size) noexcept {
  value = v.fallback;
  if (text == nullptr || *text == '\0') return true;
  uint64_t x = 0;
  bool overflow = false;
  const char* p = text;
  for (; *p >= '0' && *p <= '9'; ++p) {
    const uint64_t digit = static_cast<uint64_t>(*p - '0');
    if (x > (UINT64_MAX - digit) / 10) overflow = true;
    x = overflow ? UINT64_MAX : x * 10 + digit;
  }
  char shown[96];
  escape_control(text, shown, sizeof shown);
  if (*p != '\0' || p == text) {
    std::snprintf(why, why_size, "%s=%s: not a whole number (expected %llu to %llu)", v.name, shown,
                  static_cast<unsigned long long>(v.min), static_cast<unsigned long long>(v.max));
    return false;
  }
  if (overflow || x < v.min || x > v.max) {
    std::snprintf(why, why_size, "%s=%s: out of range (expected %llu to %llu)", v.name, shown,
                  static_cast<unsigned long long>(v.min), static_cast<unsigned long long>(v.max));
    return false;
  }
  value = x;
  return true;
}

// True when `text` is unset, empty or one of the allowed words; otherwise `why` names them.
inline bool read_env_word(const EnvWord& v, const char* text, char* why, size_t why_size) noexcept {
  if (text == nullptr || *text == '\0') return true;
  char expected[96] = {};
  for (const char* const* w = v.allowed; *w; ++w) {
    if (std::strcmp(text, *w) == 0) return true;
    if (expected[0]) std::strncat(expected, " or ", sizeof expected - std::strlen(expected) - 1);
    std::strncat(expected, *w, sizeof expected - std::strlen(expected) - 1);
  }
  char shown[96];
  escape_control(text, shown, sizeof shown);
  std::snprintf(why, why_size, "%s=%s: not a known value (expected %s, or unset)", v.name, shown,
                expected);
  return false;
}

// PROF_TEST_CLOCK_SKEW=<rank>:<ns> (tests only): digits, a colon, an optionally signed number.
inline bool read_env_clock_skew(const char* text, long& rank, long long& skew_ns, char* why,
                                size_t why_size) noexcept {
  rank = -1;
  skew_ns = 0;
  if (text == nullptr || *text == '\0') return true;
  const char* p = text;
  long r = 0;
  for (; *p >= '0' && *p <= '9' && r < 100'000'000; ++p) r = r * 10 + (*p - '0');
  bool ok = p != text && *p == ':';
  long long ns = 0;
  if (ok) {
    const char* q = p + 1;
    const bool negative = *q == '-';
    if (negative) ++q;
    const char* digits = q;
    // Under an hour either way: a skew is a test's, never a real offset of years.
    for (; *q >= '0' && *q <= '9' && ns <= 3'600'000'000'000LL; ++q) ns = ns * 10 + (*q - '0');
    ok = q != digits && *q == '\0' && ns <= 3'600'000'000'000LL;
    if (negative) ns = -ns;
  }
  if (!ok) {
    char shown[96];
    escape_control(text, shown, sizeof shown);
    std::snprintf(why, why_size,
                  "PROF_TEST_CLOCK_SKEW=%s: expected <rank>:<ns> (|ns| under an hour)", shown);
    return false;
  }
  rank = r;
  skew_ns = ns;
  return true;
}

}  // namespace prof
