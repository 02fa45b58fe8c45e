// The one-value client options (capi/client_option_table.hpp): every row is walked by
// sluice_client_option_next, found by name, and set both by its typed setter and by
// name into the ClientOptions field it names; a bad name, kind or value is refused
// with a message that says which.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "capi/capi_handles.hpp"
#include "capi/client_option_table.hpp"
#include "sluice/sluice.h"

namespace sluice {
namespace {

constexpr std::size_t kRows = 0
#define SLUICE_COUNT_ROW(KIND, c_name, name, field, rule, help) +1
    SLUICE_CLIENT_OPTION_TABLE(SLUICE_COUNT_ROW);
#undef SLUICE_COUNT_ROW

struct Options {
  Options() { EXPECT_EQ(sluice_client_options_new(&handle), SLUICE_OK); }
  ~Options() { sluice_client_options_free(handle); }
  ClientOptions& get() { return handle->options; }
  sluice_client_options* handle = nullptr;
};

void expect_invalid(sluice_code code, const std::string& words) {
  EXPECT_EQ(code, SLUICE_E_INVALID_ARGUMENT) << sluice_code_name(code);
  EXPECT_NE(std::string(sluice_last_error()).find(words), std::string::npos)
      << "message: " << sluice_last_error();
}

TEST(CapiOptionTable, TheWalkGivesEveryRowOnceAndEachIsFoundByName) {
  std::set<std::string> names;
  std::size_t walked = 0;
  for (const sluice_option_info* info = sluice_client_option_next(nullptr); info != nullptr;
       info = sluice_client_option_next(info)) {
    ++walked;
    names.insert(info->name);
    EXPECT_EQ(sluice_client_option_by_name(info->name), info) << info->name;
    EXPECT_GE(info->kind, SLUICE_OPTION_TEXT);
    EXPECT_LE(info->kind, SLUICE_OPTION_SECONDS);
    EXPECT_GT(std::string(info->help).size(), 10u) << info->name << " has no help";
    EXPECT_FALSE(std::string(info->field).empty()) << info->name << " names no field";
  }
  // The field names the member with its group, as ClientOptions spells it.
  EXPECT_STREQ(sluice_client_option_by_name("tls_session_cache")->field, "tls.session_cache");
  EXPECT_STREQ(sluice_client_option_by_name("proxy")->field, "proxy.url");
  EXPECT_STREQ(sluice_client_option_by_name("user_agent")->field, "user_agent");
  EXPECT_EQ(walked, kRows);
  EXPECT_EQ(names.size(), kRows) << "two rows share a name";
  EXPECT_EQ(sluice_client_option_by_name("no_such_option"), nullptr);
  EXPECT_EQ(sluice_client_option_by_name(nullptr), nullptr);
  const sluice_option_info stranger{"ca_file", SLUICE_OPTION_TEXT, "not the table's",
                                    "tls.ca_file"};
  EXPECT_EQ(sluice_client_option_next(&stranger), nullptr)
      << "an entry not of the table ends the walk";
}

// Text members as a string; an unset optional as "<unset>".
std::string text_of(const std::string& text) { return text; }
std::string text_of(const std::optional<std::string>& text) { return text.value_or("<unset>"); }

TEST(CapiOptionTable, EveryRowSetsItsMemberByNameAndByItsTypedSetter){
#define SLUICE_CHECK_TEXT(c_name, name, field)                                                \
  {                                                                                           \
    Options by_name, typed;                                                                   \
    ASSERT_EQ(sluice_client_options_set_text(by_name.handle, #name, "value-1", 7), SLUICE_OK) \
        << #name << ": " << sluice_last_error();                                              \
    EXPECT_EQ(text_of(by_name.get().field), "value-1") << #name;                              \
    ASSERT_EQ(sluice_client_options_set_##c_name(typed.handle, "value-1", 7), SLUICE_OK);     \
    EXPECT_EQ(text_of(typed.get().field), "value-1") << #name;                                \
  }
#define SLUICE_CHECK_TEXT_LIST(c_name, name, field)                                      \
  {                                                                                      \
    Options by_name, typed;                                                              \
    ASSERT_EQ(sluice_client_options_set_text(by_name.handle, #name, "a", 1), SLUICE_OK); \
    ASSERT_EQ(sluice_client_options_set_text(by_name.handle, #name, "b", 1), SLUICE_OK); \
    EXPECT_EQ(by_name.get().field, (std::vector<std::string>{"a", "b"})) << #name;       \
    ASSERT_EQ(sluice_client_options_add_##c_name(typed.handle, "a", 1), SLUICE_OK);      \
    EXPECT_EQ(typed.get().field, (std::vector<std::string>{"a"})) << #name;              \
  }
#define SLUICE_CHECK_FLAG(c_name, name, field)                                               \
  {                                                                                          \
    Options by_name, typed;                                                                  \
    const bool flipped = !by_name.get().field;                                               \
    ASSERT_EQ(sluice_client_options_set_number(by_name.handle, #name, flipped), SLUICE_OK);  \
    EXPECT_EQ(by_name.get().field, flipped) << #name;                                        \
    ASSERT_EQ(sluice_client_options_set_##c_name(typed.handle, flipped ? 7 : 0), SLUICE_OK); \
    EXPECT_EQ(typed.get().field, flipped) << #name << ": a typed flag takes any non-zero";   \
  }
#define SLUICE_CHECK_NUMBER(c_name, name, field, unit)                                \
  {                                                                                   \
    Options by_name, typed;                                                           \
    ASSERT_EQ(sluice_client_options_set_number(by_name.handle, #name, 37), SLUICE_OK) \
        << #name << ": " << sluice_last_error();                                      \
    EXPECT_EQ(by_name.get().field, unit(37)) << #name;                                \
    ASSERT_EQ(sluice_client_options_set_##c_name(typed.handle, 41), SLUICE_OK);       \
    EXPECT_EQ(typed.get().field, unit(41)) << #name;                                  \
  }
#define SLUICE_CHECK_COUNT(c_name, name, field) \
  SLUICE_CHECK_NUMBER(c_name, name, field,      \
                      std::remove_reference_t<decltype(std::declval<ClientOptions&>().field)>)
#define SLUICE_CHECK_MILLISECONDS(c_name, name, field) \
  SLUICE_CHECK_NUMBER(c_name, name, field, std::chrono::milliseconds)
#define SLUICE_CHECK_SECONDS(c_name, name, field) \
  SLUICE_CHECK_NUMBER(c_name, name, field, std::chrono::seconds)
#define SLUICE_CHECK_ROW(KIND, c_name, name, field, rule, help) \
  SLUICE_CHECK_##KIND(c_name, name, field)
    SLUICE_CLIENT_OPTION_TABLE(SLUICE_CHECK_ROW)
#undef SLUICE_CHECK_ROW
}

TEST(CapiOptionTable, BadNamesKindsAndValuesAreRefusedSayingWhich) {
  Options options;
  expect_invalid(sluice_client_options_set_text(options.handle, "cafile", "x", 1),
                 "no client option is named 'cafile'");
  expect_invalid(sluice_client_options_set_number(options.handle, nullptr, 1), "name is NULL");
  expect_invalid(sluice_client_options_set_number(options.handle, "ca_file", 1),
                 "ca_file takes text");
  expect_invalid(sluice_client_options_set_text(options.handle, "insecure", "1", 1),
                 "insecure takes a number");
  expect_invalid(sluice_client_options_set_number(options.handle, "insecure", 2),
                 "insecure is a flag: 0 or 1");
  expect_invalid(sluice_client_options_set_number(options.handle, "file_threads", 0), "at least 1");
  // A refused value names the by-name setter and the option it was given.
  expect_invalid(sluice_client_options_set_number(options.handle, "file_threads", 0),
                 "sluice_client_options_set_number(file_threads)");
  expect_invalid(sluice_client_options_set_text(options.handle, "ca_file", "a\0b", 3),
                 "sluice_client_options_set_text(ca_file)");
  expect_invalid(sluice_client_options_set_number(options.handle, "file_threads", 1ull << 40),
                 "out of this option's range");
  expect_invalid(sluice_client_options_set_number(options.handle, "pool_idle_timeout", 1ull << 32),
                 "larger than 4294967295");
  expect_invalid(sluice_client_options_set_text(options.handle, "ca_file", "a\0b", 3), "NUL");
  expect_invalid(sluice_client_options_set_text(options.handle, "ca_file", nullptr, 1), "NULL");
  expect_invalid(sluice_client_options_set_text(options.handle, "user_agent", "a\r\nX: y", 8),
                 "sluice_client_options_set_text");
  expect_invalid(sluice_client_options_set_text(nullptr, "ca_file", "x", 1),
                 "options is NULL or not a live options handle");
  expect_invalid(
      sluice_client_options_set_max_connections_per_origin(options.handle, 0),
      "sluice_client_options_set_max_connections_per_origin: the value must be at least 1");
  EXPECT_EQ(options.get().file_threads, ClientOptions{}.file_threads)
      << "a refused value changed it";
  EXPECT_EQ(options.get().tls.ca_file, "");
}

}  // namespace
}  // namespace sluice
