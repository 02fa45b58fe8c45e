#include "js_error.hpp"

#include <string>

#include "napi_util.hpp"

namespace sluice_node {

napi_value sluice_error(napi_env env, sluice_code code, std::string_view message) {
  const std::string name = sluice_code_name(code);
  napi_value error = nullptr;
  check(env, napi_create_error(env, nullptr, utf8(env, message.empty() ? name : message), &error));
  set_property(env, error, "errno", number(env, static_cast<double>(code)));
  set_property(env, error, "code", utf8(env, name));
  set_property(env, error, "category", utf8(env, sluice_category_name(code)));
  return error;
}

void throw_sluice_error(napi_env env, sluice_code code) {
  const std::string message = sluice_last_error();  // copied before the next sluice call
  check(env, napi_throw(env, sluice_error(env, code, message)));
  throw JsThrown{};
}

void check_sluice(napi_env env, sluice_code code) {
  if (code != SLUICE_OK) throw_sluice_error(env, code);
}

}  // namespace sluice_node
