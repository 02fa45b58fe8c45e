#include "client_options.hpp"

#include <string>
#include <utility>

#include "js_error.hpp"
#include "napi_util.hpp"

namespace sluice_node {
namespace {

void set_text_list(napi_env env, sluice_client_options* options, const std::string& name,
                   napi_value value) {
  bool is_array = false;
  check(env, napi_is_array(env, value, &is_array));
  if (!is_array) {
    const std::string text = string_utf8(env, value, name.c_str());
    check_sluice(env,
                 sluice_client_options_set_text(options, name.c_str(), text.data(), text.size()));
    return;
  }
  std::uint32_t length = 0;
  check(env, napi_get_array_length(env, value, &length));
  for (std::uint32_t i = 0; i < length; ++i) {
    napi_value entry = nullptr;
    check(env, napi_get_element(env, value, i, &entry));
    const std::string text = string_utf8(env, entry, name.c_str());
    check_sluice(env,
                 sluice_client_options_set_text(options, name.c_str(), text.data(), text.size()));
  }
}

std::uint64_t number_option(napi_env env, const std::string& name, napi_value value,
                            sluice_option_kind kind) {
  if (kind == SLUICE_OPTION_FLAG) return bool_of(env, value, name.c_str()) ? 1 : 0;
  const std::uint64_t max =
      kind == SLUICE_OPTION_COUNT ? (std::uint64_t{1} << 53) : std::uint64_t{UINT32_MAX};
  return count_of(env, value, name.c_str(), max);
}

int tls_version(napi_env env, napi_value value, const char* what) {
  const std::string text = string_utf8(env, value, what);
  if (text == "1.2") return SLUICE_TLS_1_2;
  if (text == "1.3") return SLUICE_TLS_1_3;
  throw_type_error(env, std::string(what) + " must be \"1.2\" or \"1.3\"");
}

// The options that are not one value of the table; true when `name` was one.
bool set_special(napi_env env, sluice_client_options* options, const std::string& name,
                 napi_value object) {
  if (name == "tls_min_version" || name == "tls_max_version") {
    napi_value low = property(env, object, "tls_min_version");
    napi_value high = property(env, object, "tls_max_version");
    const int min = is_nullish(env, low) ? SLUICE_TLS_1_2 : tls_version(env, low, "tlsMinVersion");
    const int max =
        is_nullish(env, high) ? SLUICE_TLS_1_3 : tls_version(env, high, "tlsMaxVersion");
    check_sluice(env, sluice_client_options_set_tls_versions(options, min, max));
    return true;
  }
  if (name == "ip_version") {
    napi_value value = property(env, object, "ip_version");
    check_sluice(env, sluice_client_options_set_ip_version(
                          options, static_cast<int>(count_of(env, value, "ipVersion", 6))));
    return true;
  }
  return false;
}

void set_one(napi_env env, sluice_client_options* options, const std::string& name,
             napi_value object) {
  if (set_special(env, options, name, object)) return;
  const sluice_option_info* info = sluice_client_option_by_name(name.c_str());
  if (info == nullptr || name == "host_dispatch") {
    throw_type_error(env, "unknown Client option: " + name);
  }
  napi_value value = property(env, object, name.c_str());
  if (is_nullish(env, value)) return;
  switch (info->kind) {
    case SLUICE_OPTION_TEXT: {
      const std::string text = string_utf8(env, value, name.c_str());
      check_sluice(env,
                   sluice_client_options_set_text(options, name.c_str(), text.data(), text.size()));
      return;
    }
    case SLUICE_OPTION_TEXT_LIST: set_text_list(env, options, name, value); return;
    default:
      check_sluice(env, sluice_client_options_set_number(
                            options, name.c_str(), number_option(env, name, value, info->kind)));
  }
}

}  // namespace

OptionsPtr client_options_from(napi_env env, napi_value object) {
  sluice_client_options* raw = nullptr;
  check_sluice(env, sluice_client_options_new(&raw));
  OptionsPtr options(raw);
  if (!is_nullish(env, object)) {
    if (type_of(env, object) != napi_object)
      throw_type_error(env, "Client options must be an object");
    napi_value names = nullptr;
    check(env, napi_get_property_names(env, object, &names));
    std::uint32_t count = 0;
    check(env, napi_get_array_length(env, names, &count));
    bool tls_versions_done = false;
    for (std::uint32_t i = 0; i < count; ++i) {
      napi_value key = nullptr;
      check(env, napi_get_element(env, names, i, &key));
      const std::string name = string_utf8(env, key, "an option name");
      const bool tls_pair = name == "tls_min_version" || name == "tls_max_version";
      if (tls_pair && std::exchange(tls_versions_done, true)) continue;  // both set at once
      set_one(env, options.get(), name, object);
    }
  }
  check_sluice(env, sluice_client_options_set_host_dispatch(options.get(), 1));
  return options;
}

}  // namespace sluice_node
