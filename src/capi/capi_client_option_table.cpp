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

template <class Field>
sluice_code set_text(const char* function, sluice_client_options* options, const char* data,
                     std::size_t len, Field ClientOptions::*member, Rule rule) {
  std::string_view text;
  if (!text_argument(data, len, text))
    return invalid(function, "the text is NULL or holds a NUL byte");
  if (sluice_code code{}; !passes(function, rule, text, code)) return code;
  return with_options(function, options, [&](ClientOptions& o) {
    o.*member = std::string(text);  // no_proxy: even "" is a list, of no hosts
    return ok();
  });
}

sluice_code add_text(const char* function, sluice_client_options* options, const char* data,
                     std::size_t len, std::vector<std::string> ClientOptions::*member, Rule) {
  std::string_view text;
  if (!text_argument(data, len, text))
    return invalid(function, "the text is NULL or holds a NUL byte");
  return with_options(function, options, [&](ClientOptions& o) {
    (o.*member).emplace_back(text);
    return ok();
  });
}

sluice_code set_flag(const char* function, sluice_client_options* options, std::uint64_t value,
                     bool ClientOptions::*member, Rule) {
  return with_options(function, options, [&](ClientOptions& o) {
    o.*member = value != 0;
    return ok();
  });
}

template <class Field>
sluice_code set_count(const char* function, sluice_client_options* options, std::uint64_t value,
                      Field ClientOptions::*member, Rule rule) {
  if (!std::in_range<Field>(value)) {
    return invalid(function, "the value is out of this option's range");
  }
  if (sluice_code code{}; !passes(function, rule, value, code)) return code;
  return with_options(function, options, [&](ClientOptions& o) {
    o.*member = static_cast<Field>(value);
    return ok();
  });
}

template <class Duration>
sluice_code set_duration(const char* function, sluice_client_options* options, std::uint64_t value,
                         Duration ClientOptions::*member, Rule rule) {
  // The typed setters take uint32_t; a value by name is held to the same range.
  if (value > std::numeric_limits<std::uint32_t>::max()) {
    return invalid(function, "the value is larger than 4294967295");
  }
  if (sluice_code code{}; !passes(function, rule, value, code)) return code;
  return with_options(function, options, [&](ClientOptions& o) {
    o.*member = Duration(static_cast<typename Duration::rep>(value));
    return ok();
  });
}

// How a kind is set: its C parameters and the setter above that does it.
#define SLUICE_KIND_TEXT(c_name, member, rule)                                                     \
  sluice_code sluice_client_options_set_##c_name(sluice_client_options* options, const char* data, \
                                                 size_t len) {                                     \
    return set_text("sluice_client_options_set_" #c_name, options, data, len,                      \
                    &ClientOptions::member, Rule::rule);                                           \
  }
#define SLUICE_KIND_TEXT_LIST(c_name, member, rule)                                                \
  sluice_code sluice_client_options_add_##c_name(sluice_client_options* options, const char* data, \
                                                 size_t len) {                                     \
    return add_text("sluice_client_options_add_" #c_name, options, data, len,                      \
                    &ClientOptions::member, Rule::rule);                                           \
  }
#define SLUICE_KIND_FLAG(c_name, member, rule)                                                \
  sluice_code sluice_client_options_set_##c_name(sluice_client_options* options, int value) { \
    return set_flag("sluice_client_options_set_" #c_name, options, value != 0,                \
                    &ClientOptions::member, Rule::rule);                                      \
  }
#define SLUICE_KIND_COUNT(c_name, member, rule)                                                    \
  sluice_code sluice_client_options_set_##c_name(sluice_client_options* options, size_t value) {   \
    return set_count("sluice_client_options_set_" #c_name, options, value, &ClientOptions::member, \
                     Rule::rule);                                                                  \
  }
#define SLUICE_KIND_MILLISECONDS(c_name, member, rule)                                             \
  sluice_code sluice_client_options_set_##c_name(sluice_client_options* options, uint32_t value) { \
    return set_duration("sluice_client_options_set_" #c_name, options, value,                      \
                        &ClientOptions::member, Rule::rule);                                       \
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
#define SLUICE_DEFINE_SETTER(KIND, c_name, member, rule, help)   \
  static_assert(sizeof(&SLUICE_SETTER_NAME_##KIND(c_name)) != 0, \
                "sluice.h declares no setter for " #c_name);     \
  SLUICE_KIND_##KIND(c_name, member, rule)
SLUICE_CLIENT_OPTION_TABLE(SLUICE_DEFINE_SETTER)
#undef SLUICE_DEFINE_SETTER
}  // extern "C"

namespace {

using TextSetter = sluice_code (*)(const char*, sluice_client_options*, const char*, std::size_t);
using NumberSetter = sluice_code (*)(const char*, sluice_client_options*, std::uint64_t);

// The by-name setters of each kind: one of the two is null.
#define SLUICE_BY_NAME_TEXT(member, rule)                                     \
  [](const char* f, sluice_client_options* o, const char* d, std::size_t n) { \
    return set_text(f, o, d, n, &ClientOptions::member, Rule::rule);          \
  },                                                                          \
      nullptr
#define SLUICE_BY_NAME_TEXT_LIST(member, rule)                                \
  [](const char* f, sluice_client_options* o, const char* d, std::size_t n) { \
    return add_text(f, o, d, n, &ClientOptions::member, Rule::rule);          \
  },                                                                          \
      nullptr
#define SLUICE_BY_NAME_NUMBER(setter, member, rule)                       \
  nullptr, [](const char* f, sluice_client_options* o, std::uint64_t v) { \
    return setter(f, o, v, &ClientOptions::member, Rule::rule);           \
  }
#define SLUICE_BY_NAME_FLAG(member, rule) SLUICE_BY_NAME_NUMBER(set_flag, member, rule)
#define SLUICE_BY_NAME_COUNT(member, rule) SLUICE_BY_NAME_NUMBER(set_count, member, rule)
#define SLUICE_BY_NAME_MILLISECONDS(member, rule) SLUICE_BY_NAME_NUMBER(set_duration, member, rule)
#define SLUICE_BY_NAME_SECONDS SLUICE_BY_NAME_MILLISECONDS

constexpr sluice_option_info kOptions[] = {
#define SLUICE_OPTION_INFO(KIND, c_name, member, rule, help) {#member, SLUICE_OPTION_##KIND, help},
    SLUICE_CLIENT_OPTION_TABLE(SLUICE_OPTION_INFO)
#undef SLUICE_OPTION_INFO
};

struct BySetter {
  TextSetter text;
  NumberSetter number;
};

const BySetter kSetters[] = {
#define SLUICE_OPTION_SETTERS(KIND, c_name, member, rule, help) \
  {SLUICE_BY_NAME_##KIND(member, rule)},
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
    const std::string named =
        std::string(kFunction) + "(" + name + ")";  // messages name the option
    return kSetters[row].text(named.c_str(), options, value, len);
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
    const std::string named = std::string(kFunction) + "(" + name + ")";
    return kSetters[row].number(named.c_str(), options, value);
  });
}

}  // extern "C"
