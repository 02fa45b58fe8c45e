// Fuzz target: the C API's client option table (src/capi/capi_client_option_table:
// sluice_client_options_set_text / _set_number by name, the typed setters it makes,
// sluice_client_option_next / _by_name), set the way a binding sets options: any
// name, any bytes, the wrong kind of value, NULL pointers, numbers out of range.
// Input: a sequence of calls. Each is an op byte (bits 0-1: by-name text, by-name
// number, typed setter, a name not in the table; bit 2: NULL data; bit 3: a NULL
// options handle), a row byte (which option, by its place in the table), then a
// length byte and that much text, then 8 bytes of number (little-endian).
// Invariants checked: the table walks to as many rows as it has, each found by its
// name; every call returns SLUICE_OK or an error code with a message, and an error
// for a known option names it; a value is accepted exactly when its kind, text
// (no NUL; a header value for user_agent) and range (flags 0 or 1, durations 32-bit,
// "at least one" rules) allow; an accepted value is what the option then holds.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "capi/capi_handles.hpp"
#include "capi/client_option_table.hpp"
#include "fuzz_input.hpp"
#include "sluice/headers.hpp"
#include "sluice/sluice.h"

namespace {

using sluice::ClientOptions;
using sluice::fuzz::check;
using sluice::fuzz::FuzzInput;

enum class Rule { any, header_value, at_least_one };

using TextHolds = bool (*)(const ClientOptions&, std::string_view);
using NumberHolds = bool (*)(const ClientOptions&, std::uint64_t);
using TypedSetter = sluice_code (*)(sluice_client_options*, const char*, std::size_t,
                                    std::uint64_t);

// One row of the table as this target sees it: how to read the field back, and its
// typed setter called with the text or the number (whichever its kind takes).
struct Row {
  const char* name;
  sluice_option_kind kind;
  Rule rule;
  TextHolds text_holds;
  NumberHolds number_holds;
  TypedSetter typed;
  std::uint64_t typed_max;  // what the typed setter's parameter holds
  std::uint64_t field_max;  // what an integer field holds
};

template <class Field>
constexpr std::uint64_t field_max() {
  if constexpr (std::is_integral_v<Field>) {
    return static_cast<std::uint64_t>(std::numeric_limits<Field>::max());
  } else {
    return std::numeric_limits<std::uint64_t>::max();
  }
}

#define FUZZ_HOLDS_TEXT(field) \
  [](const ClientOptions& o, std::string_view t) { return o.field == t; }, nullptr
#define FUZZ_HOLDS_TEXT_LIST(field)                 \
  [](const ClientOptions& o, std::string_view t) {  \
    return !o.field.empty() && o.field.back() == t; \
  },                                                \
      nullptr
#define FUZZ_HOLDS_FLAG(field) \
  nullptr, [](const ClientOptions& o, std::uint64_t v) { return o.field == (v != 0); }
#define FUZZ_HOLDS_COUNT(field)                          \
  nullptr, [](const ClientOptions& o, std::uint64_t v) { \
    return static_cast<std::uint64_t>(o.field) == v;     \
  }
#define FUZZ_HOLDS_MILLISECONDS(field)                       \
  nullptr, [](const ClientOptions& o, std::uint64_t v) {     \
    return static_cast<std::uint64_t>(o.field.count()) == v; \
  }
#define FUZZ_HOLDS_SECONDS FUZZ_HOLDS_MILLISECONDS

#define FUZZ_TYPED_TEXT(c_name)                                               \
  [](sluice_client_options* o, const char* d, std::size_t n, std::uint64_t) { \
    return sluice_client_options_set_##c_name(o, d, n);                       \
  },                                                                          \
      std::numeric_limits<std::uint64_t>::max()
#define FUZZ_TYPED_TEXT_LIST(c_name)                                          \
  [](sluice_client_options* o, const char* d, std::size_t n, std::uint64_t) { \
    return sluice_client_options_add_##c_name(o, d, n);                       \
  },                                                                          \
      std::numeric_limits<std::uint64_t>::max()
#define FUZZ_TYPED_FLAG(c_name)                                             \
  [](sluice_client_options* o, const char*, std::size_t, std::uint64_t v) { \
    return sluice_client_options_set_##c_name(o, static_cast<int>(v));      \
  },                                                                        \
      static_cast<std::uint64_t>(1)
#define FUZZ_TYPED_COUNT(c_name)                                               \
  [](sluice_client_options* o, const char*, std::size_t, std::uint64_t v) {    \
    return sluice_client_options_set_##c_name(o, static_cast<std::size_t>(v)); \
  },                                                                           \
      static_cast<std::uint64_t>(std::numeric_limits<std::size_t>::max())
#define FUZZ_TYPED_MILLISECONDS(c_name)                                          \
  [](sluice_client_options* o, const char*, std::size_t, std::uint64_t v) {      \
    return sluice_client_options_set_##c_name(o, static_cast<std::uint32_t>(v)); \
  },                                                                             \
      static_cast<std::uint64_t>(std::numeric_limits<std::uint32_t>::max())
#define FUZZ_TYPED_SECONDS FUZZ_TYPED_MILLISECONDS

const Row kRows[] = {
#define FUZZ_ROW(KIND, c_name, name, field, rule, help) \
  {#name,                                               \
   SLUICE_OPTION_##KIND,                                \
   Rule::rule,                                          \
   FUZZ_HOLDS_##KIND(field),                            \
   FUZZ_TYPED_##KIND(c_name),                           \
   field_max<std::remove_cvref_t<decltype(std::declval<ClientOptions&>().field)>>()},
    SLUICE_CLIENT_OPTION_TABLE(FUZZ_ROW)
#undef FUZZ_ROW
};
constexpr std::size_t kRowCount = sizeof kRows / sizeof kRows[0];

bool takes_text(const Row& row) {
  return row.kind == SLUICE_OPTION_TEXT || row.kind == SLUICE_OPTION_TEXT_LIST;
}

void check_code(sluice_code code, const char* name) {
  check(code == SLUICE_OK || code >= 100, "an option call returned a state where only errors are");
  if (code == SLUICE_OK) return;
  const std::string_view message = sluice_last_error();
  check(!message.empty(), "an option error came without a message");
  if (name != nullptr)
    check(message.find(name) != std::string_view::npos, "an error names its option");
}

bool text_allowed(const Row& row, const char* data, std::string_view text) {
  if (data == nullptr && !text.empty()) return false;
  if (text.find('\0') != std::string_view::npos) return false;
  return row.rule != Rule::header_value || sluice::validate_header_value(text).ok();
}

bool number_allowed(const Row& row, std::uint64_t value, bool by_name) {
  if (row.kind == SLUICE_OPTION_FLAG) return !by_name || value <= 1;
  if (value > row.field_max) return false;
  if (row.kind == SLUICE_OPTION_MILLISECONDS || row.kind == SLUICE_OPTION_SECONDS) {
    if (value > std::numeric_limits<std::uint32_t>::max()) return false;
  }
  return row.rule != Rule::at_least_one || value >= 1;
}

void check_table_walk() {
  std::size_t count = 0;
  for (const sluice_option_info* info = sluice_client_option_next(nullptr); info != nullptr;
       info = sluice_client_option_next(info)) {
    check(count < kRowCount && std::strcmp(info->name, kRows[count].name) == 0,
          "the table walks its rows in order");
    check(sluice_client_option_by_name(info->name) == info, "a row is found by its name");
    ++count;
  }
  check(count == kRowCount, "the table walks every row");
}

// One call; `options` is null when the op asks for a NULL handle.
void run_one(FuzzInput& in, sluice_client_options* handle) {
  const std::uint8_t op = in.byte();
  const Row& row = kRows[in.byte() % kRowCount];
  const std::string_view text = in.take(in.byte());
  std::uint64_t number = 0;
  for (int i = 0; i < 8; ++i) number |= std::uint64_t{in.byte()} << (8 * i);
  const char* data = (op & 4) != 0 ? nullptr : text.data();
  sluice_client_options* options = (op & 8) != 0 ? nullptr : handle;
  sluice_code code = SLUICE_OK;
  bool allowed = options != nullptr;
  bool as_text = takes_text(row);
  switch (op % 4) {
    case 0:
      code = sluice_client_options_set_text(options, row.name, data, text.size());
      allowed = allowed && as_text && text_allowed(row, data, text);
      break;
    case 1:
      code = sluice_client_options_set_number(options, row.name, number);
      allowed = allowed && !as_text && number_allowed(row, number, true);
      break;
    case 2:
      if (!as_text) number &= row.typed_max;  // as the parameter's type holds it
      code = row.typed(options, data, text.size(), number);
      allowed =
          allowed && (as_text ? text_allowed(row, data, text) : number_allowed(row, number, false));
      break;
    default: {
      // A name not in the table (the text, NUL-terminated, if it is no row's name).
      const std::string name(text.substr(0, text.find('\0')));
      if (sluice_client_option_by_name(name.c_str()) != nullptr) return;
      code = sluice_client_options_set_text(options, name.c_str(), data, text.size());
      check(code != SLUICE_OK, "an unknown option was set");
      check_code(code, nullptr);
      return;
    }
  }
  check_code(code, options == nullptr ? nullptr : row.name);
  check((code == SLUICE_OK) == allowed, "an option call's result disagrees with its rules");
  if (code != SLUICE_OK) return;
  const ClientOptions& held = handle->options;
  check(as_text ? row.text_holds(held, text) : row.number_holds(held, number),
        "an accepted value is what the option holds");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check_table_walk();
  FuzzInput in(data, size);
  sluice_client_options* options = nullptr;
  check(sluice_client_options_new(&options) == SLUICE_OK, "no options handle");
  while (!in.empty()) run_one(in, options);
  sluice_client_options_free(options);
  return 0;
}
