// The C API's one-value client options, made from client_option_table.hpp: the typed
// setters sluice.h declares, the table sluice_client_option_next() walks, and the
// setters by name the bindings use.
#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "capi/capi_call.hpp"
#include "capi/capi_handles.hpp"
#include "capi/client_option_table.hpp"

using namespace sluice;
using namespace sluice::capi;

namespace {

enum class Rule { any, header_value, at_least_one };

// Whether a value passes its row's rule; on failure, records the reason and returns
// its code through `code`.
bool passes(const char* function, Rule rule, std::string_view text, sluice_code& code) {
  if (rule != Rule::header_value) return true;
  auto valid = validate_header_value(text);
  if (valid) return true;
  code = invalid(function, valid.error().message());
  return false;
}

bool passes(const char* function, Rule rule, std::uint64_t value, sluice_code& code) {
  if (rule != Rule::at_least_one || value >= 1) return true;
  code = invalid(function, "the value must be at least 1");
  return false;
}

// A row's field: a function from the options to the field (a group's member has no
// pointer-to-member of ClientOptions).
template <class Field>
using Access = Field& (*)(ClientOptions&);

template <class Field>
sluice_code set_text(const char* function, sluice_client_options* options, const char* data,
                     std::size_t len, Access<Field> field, Rule rule) {
  std::string_view text;
  if (!text_argument(data, len, text))
    return invalid(function, "the text is NULL or holds a NUL byte");
  if (sluice_code code{}; !passes(function, rule, text, code)) return code;
  return with_options(function, options, [&](ClientOptions& o) {
    field(o) = std::string(text);  // no_proxy: even "" is a list, of no hosts
    return ok();
  });
}

sluice_code add_text(const char* function, sluice_client_options* options, const char* data,
                     std::size_t len, Access<std::vector<std::string>> field, Rule) {
  std::string_view text;
  if (!text_argument(data, len, text))
    return invalid(function, "the text is NULL or holds a NUL byte");
  return with_options(function, options, [&](ClientOptions& o) {
    field(o).emplace_back(text);
    return ok();
  });
}

sluice_code set_flag(const char* function, sluice_client_options* options, std::uint64_t value,
                     Access<bool> field, Rule) {
  return with_options(function, options, [&](ClientOptions& o) {
    field(o) = value != 0;
    return ok();
  });
}

template <class Field>
sluice_code set_count(const char* function, sluice_client_options* options, std::uint64_t value,
                      Access<Field> field, Rule rule) {
  if (!std::in_range<Field>(value)) {
    return invalid(function, "the value is out of this option's range");
  }
  if (sluice_code code{}; !passes(function, rule, value, code)) return code;
  return with_options(function, options, [&](ClientOptions& o) {
    field(o) = static_cast<Field>(value);
    return ok();
  });
}

template <class Duration>
sluice_code set_duration(const char* function, sluice_client_options* options, std::uint64_t value,
                         Access<Duration> field, Rule rule) {
  // The typed setters take uint32_t; a value by name is held to the same range.
  if (value > std::numeric_limits<std::uint32_t>::max()) {
    return invalid(function, "the value is larger than 4294967295");
  }
  if (sluice_code code{}; !passes(function, rule, value, code)) return code;
  return with_options(function, options, [&](ClientOptions& o) {
    field(o) = Duration(static_cast<typename Duration::rep>(value));
    return ok();
  });
}

// A row's field as an Access: `field` is a path such as tls.ca_file.
#define SLUICE_FIELD(field)           \
  +[](ClientOptions & all) -> auto& { \
    return all.field;                 \
  }

// How a kind is set: its C parameters and the setter above that does it.
#define SLUICE_KIND_TEXT(c_name, field, rule)                                                      \
  sluice_code sluice_client_options_set_##c_name(sluice_client_options* options, const char* data, \
                                                 size_t len) {                                     \
    return set_text("sluice_client_options_set_" #c_name, options, data, len, SLUICE_FIELD(field), \
                    Rule::rule);                                                                   \
  }
#define SLUICE_KIND_TEXT_LIST(c_name, field, rule)                                                 \
  sluice_code sluice_client_options_add_##c_name(sluice_client_options* options, const char* data, \
                                                 size_t len) {                                     \
    return add_text("sluice_client_options_add_" #c_name, options, data, len, SLUICE_FIELD(field), \
                    Rule::rule);                                                                   \
  }
#define SLUICE_KIND_FLAG(c_name, field, rule)                                                 \
  sluice_code sluice_client_options_set_##c_name(sluice_client_options* options, int value) { \
    return set_flag("sluice_client_options_set_" #c_name, options, value != 0,                \
                    SLUICE_FIELD(field), Rule::rule);                                         \
  }
#define SLUICE_KIND_COUNT(c_name, field, rule)                                                   \
  sluice_code sluice_client_options_set_##c_name(sluice_client_options* options, size_t value) { \
    return set_count("sluice_client_options_set_" #c_name, options, value, SLUICE_FIELD(field),  \
                     Rule::rule);                                                                \
  }
#define SLUICE_KIND_MILLISECONDS(c_name, field, rule)                                              \
  sluice_code sluice_client_options_set_##c_name(sluice_client_options* options, uint32_t value) { \
    return set_duration("sluice_client_options_set_" #c_name, options, value, SLUICE_FIELD(field), \
                        Rule::rule);                                                               \
  }
#define SLUICE_KIND_SECONDS SLUICE_KIND_MILLISECONDS

}  // namespace

// Each setter is defined with C linkage against its declaration in sluice.h: a
// declaration of another shape is a conflicting C function, a missing one is caught
// by the static_assert, so the header cannot drift from the table.
extern "C" {
#define SLUICE_SETTER_NAME_TEXT(c_name) sluice_client_options_set_##c_name
#define SLUICE_SETTER_NAME_TEXT_LIST(c_name) sluice_client_options_add_##c_name
#define SLUICE_SETTER_NAME_FLAG SLUICE_SETTER_NAME_TEXT
#define SLUICE_SETTER_NAME_COUNT SLUICE_SETTER_NAME_TEXT
#define SLUICE_SETTER_NAME_MILLISECONDS SLUICE_SETTER_NAME_TEXT
#define SLUICE_SETTER_NAME_SECONDS SLUICE_SETTER_NAME_TEXT
#define SLUICE_DEFINE_SETTER(KIND, c_name, name, field, rule, help) \
  static_assert(sizeof(&SLUICE_SETTER_NAME_##KIND(c_name)) != 0,    \
                "sluice.h declares no setter for " #c_name);        \
  SLUICE_KIND_##KIND(c_name, field, rule)
SLUICE_CLIENT_OPTION_TABLE(SLUICE_DEFINE_SETTER)
#undef SLUICE_DEFINE_SETTER
}  // extern "C"

namespace {

using TextSetter = sluice_code (*)(const char*, sluice_client_options*, const char*, std::size_t);
using NumberSetter = sluice_code (*)(const char*, sluice_client_options*, std::uint64_t);

// The by-name setters of each kind: one of the two is null.
#define SLUICE_BY_NAME_TEXT(field, rule)                                      \
  [](const char* f, sluice_client_options* o, const char* d, std::size_t n) { \
    return set_text(f, o, d, n, SLUICE_FIELD(field), Rule::rule);             \
  },                                                                          \
      nullptr
#define SLUICE_BY_NAME_TEXT_LIST(field, rule)                                 \
  [](const char* f, sluice_client_options* o, const char* d, std::size_t n) { \
    return add_text(f, o, d, n, SLUICE_FIELD(field), Rule::rule);             \
  },                                                                          \
      nullptr
#define SLUICE_BY_NAME_NUMBER(setter, field, rule)                        \
  nullptr, [](const char* f, sluice_client_options* o, std::uint64_t v) { \
    return setter(f, o, v, SLUICE_FIELD(field), Rule::rule);              \
  }
#define SLUICE_BY_NAME_FLAG(field, rule) SLUICE_BY_NAME_NUMBER(set_flag, field, rule)
#define SLUICE_BY_NAME_COUNT(field, rule) SLUICE_BY_NAME_NUMBER(set_count, field, rule)
#define SLUICE_BY_NAME_MILLISECONDS(field, rule) SLUICE_BY_NAME_NUMBER(set_duration, field, rule)
#define SLUICE_BY_NAME_SECONDS SLUICE_BY_NAME_MILLISECONDS

constexpr sluice_option_info kOptions[] = {
#define SLUICE_OPTION_INFO(KIND, c_name, name, field, rule, help) \
  {#name, SLUICE_OPTION_##KIND, help, #field},
    SLUICE_CLIENT_OPTION_TABLE(SLUICE_OPTION_INFO)
#undef SLUICE_OPTION_INFO
};

// Each row's setter and the name its messages give, written out at compile time so
// that a call builds no string unless it fails.
struct BySetter {
  TextSetter text;
  NumberSetter number;
  const char* text_function;
  const char* number_function;
};

const BySetter kSetters[] = {
#define SLUICE_OPTION_SETTERS(KIND, c_name, name, field, rule, help)                \
  {SLUICE_BY_NAME_##KIND(field, rule), "sluice_client_options_set_text(" #name ")", \
   "sluice_client_options_set_number(" #name ")"},
    SLUICE_CLIENT_OPTION_TABLE(SLUICE_OPTION_SETTERS)
#undef SLUICE_OPTION_SETTERS
};

constexpr std::size_t kCount = sizeof kOptions / sizeof kOptions[0];
static_assert(sizeof kSetters / sizeof kSetters[0] == kCount);

// The row named `name`, or kCount.
std::size_t row_of(const char* name) {
  if (name == nullptr) return kCount;
  for (std::size_t i = 0; i < kCount; ++i) {
    if (std::strcmp(kOptions[i].name, name) == 0) return i;
  }
  return kCount;
}

sluice_code unknown(const char* function, const char* name) {
  return invalid(function, name == nullptr
                               ? std::string("name is NULL")
                               : "no client option is named '" + std::string(name) + "'");
}

}  // namespace

extern "C" {

const sluice_option_info* sluice_client_option_next(const sluice_option_info* previous) {
  if (previous == nullptr) return &kOptions[0];
  if (previous < &kOptions[0] || previous >= &kOptions[kCount - 1]) return nullptr;
  return previous + 1;
}

const sluice_option_info* sluice_client_option_by_name(const char* name) {
  const std::size_t row = row_of(name);
  return row < kCount ? &kOptions[row] : nullptr;
}

sluice_code sluice_client_options_set_text(sluice_client_options* options, const char* name,
                                           const char* value, size_t len) {
  constexpr const char* kFunction = "sluice_client_options_set_text";
  return capi_call(kFunction, [&] {
    const std::size_t row = row_of(name);
    if (row == kCount) return unknown(kFunction, name);
    if (kSetters[row].text == nullptr) {
      return invalid(kFunction,
                     std::string(name) + " takes a number: use sluice_client_options_set_number");
    }
    return kSetters[row].text(kSetters[row].text_function, options, value, len);
  });
}

sluice_code sluice_client_options_set_number(sluice_client_options* options, const char* name,
                                             uint64_t value) {
  constexpr const char* kFunction = "sluice_client_options_set_number";
  return capi_call(kFunction, [&] {
    const std::size_t row = row_of(name);
    if (row == kCount) return unknown(kFunction, name);
    if (kSetters[row].number == nullptr) {
      return invalid(kFunction,
                     std::string(name) + " takes text: use sluice_client_options_set_text");
    }
    if (kOptions[row].kind == SLUICE_OPTION_FLAG && value > 1) {
      return invalid(kFunction, std::string(name) + " is a flag: 0 or 1");
    }
    return kSetters[row].number(kSetters[row].number_function, options, value);
  });
}

}  // extern "C"
