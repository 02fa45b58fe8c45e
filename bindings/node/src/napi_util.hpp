#pragma once
// Small helpers over node_api.h for the addon's own frames. JS thread only.
//
// Inside the addon a failed N-API call, or an argument of the wrong type, throws
// JsThrown after making sure a JS exception is pending; the entry trampolines
// (js_entry) catch it and return to Node, so no C++ exception ever crosses a C frame.

#include <node_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace sluice_node {

/// Thrown inside the addon when a JS exception is pending; caught by js_entry.
struct JsThrown {};

/// Throws JsThrown unless `status` is napi_ok (with an Error pending if none is).
void check(napi_env env, napi_status status);
[[noreturn]] void throw_type_error(napi_env env, const std::string& message);
[[noreturn]] void throw_error(napi_env env, const std::string& message);

/// The arguments of a call: at most `kMaxArgs`, missing ones are `undefined`.
struct CallArgs {
  static constexpr std::size_t kMaxArgs = 4;
  napi_value argv[kMaxArgs] = {};
  std::size_t argc = kMaxArgs;
  napi_value this_arg = nullptr;
  void* data = nullptr;
};
CallArgs call_args(napi_env env, napi_callback_info info);

napi_value undefined(napi_env env);
napi_value null_value(napi_env env);
napi_value boolean(napi_env env, bool value);
napi_value number(napi_env env, double value);
napi_value utf8(napi_env env, std::string_view text);
/// Header names and values are ByteStrings: one JS char per byte.
napi_value latin1(napi_env env, std::string_view bytes);
/// A fresh Uint8Array holding a copy of `bytes`.
napi_value uint8_array(napi_env env, std::span<const std::uint8_t> bytes);

napi_valuetype type_of(napi_env env, napi_value value);
bool is_nullish(napi_env env, napi_value value);
/// The property `name` of `object` (undefined when absent).
napi_value property(napi_env env, napi_value object, const char* name);
void set_property(napi_env env, napi_value object, const char* name, napi_value value);

/// Typed reads that throw a TypeError naming `what` for a value of another type.
std::string string_utf8(napi_env env, napi_value value, const char* what);
std::string string_latin1(napi_env env, napi_value value, const char* what);
double number_of(napi_env env, napi_value value, const char* what);
/// A non-negative integer no larger than `max`.
std::uint64_t count_of(napi_env env, napi_value value, const char* what, std::uint64_t max);
bool bool_of(napi_env env, napi_value value, const char* what);
/// The bytes of a TypedArray, DataView or ArrayBuffer, as the engine knows them (no
/// script runs here): valid while `value` lives and until a script runs next (one
/// could detach the buffer).
std::span<const std::uint8_t> bytes_of(napi_env env, napi_value value, const char* what);

/// Runs `body` for a JS-callable function: JsThrown returns to Node with the
/// exception pending; any other exception becomes a JS Error.
template <class Body>
napi_value js_entry(napi_env env, Body&& body) noexcept {
  try {
    return body();
  } catch (const JsThrown&) {
    return nullptr;
  } catch (const std::exception& failure) {
    napi_throw_error(env, nullptr, failure.what());
    return nullptr;
  } catch (...) {
    napi_throw_error(env, nullptr, "sluice: unexpected failure in the addon");
    return nullptr;
  }
}

/// In a library callback (no JS frame to return to): drops a pending exception, so
/// that the next N-API call works. Callbacks only settle promises, so this is for
/// out-of-memory and environment teardown, where nobody can be told anyway.
void clear_pending_exception(napi_env env) noexcept;

}  // namespace sluice_node
