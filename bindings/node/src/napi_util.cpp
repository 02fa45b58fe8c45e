#include "napi_util.hpp"

#include <cmath>
#include <cstring>

namespace sluice_node {

void check(napi_env env, napi_status status) {
  if (status == napi_ok) return;
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (!pending) {
    const napi_extended_error_info* info = nullptr;
    napi_get_last_error_info(env, &info);
    const char* message = info != nullptr && info->error_message != nullptr
                              ? info->error_message
                              : "a Node-API call failed";
    napi_throw_error(env, nullptr, message);
  }
  throw JsThrown{};
}

void throw_type_error(napi_env env, const std::string& message) {
  napi_throw_type_error(env, nullptr, message.c_str());
  throw JsThrown{};
}

void throw_error(napi_env env, const std::string& message) {
  napi_throw_error(env, nullptr, message.c_str());
  throw JsThrown{};
}

CallArgs call_args(napi_env env, napi_callback_info info) {
  CallArgs args;
  check(env, napi_get_cb_info(env, info, &args.argc, args.argv, &args.this_arg, &args.data));
  for (std::size_t i = args.argc; i < CallArgs::kMaxArgs; ++i) args.argv[i] = undefined(env);
  return args;
}

napi_value undefined(napi_env env) {
  napi_value value = nullptr;
  check(env, napi_get_undefined(env, &value));
  return value;
}

napi_value null_value(napi_env env) {
  napi_value value = nullptr;
  check(env, napi_get_null(env, &value));
  return value;
}

napi_value boolean(napi_env env, bool flag) {
  napi_value value = nullptr;
  check(env, napi_get_boolean(env, flag, &value));
  return value;
}

napi_value number(napi_env env, double n) {
  napi_value value = nullptr;
  check(env, napi_create_double(env, n, &value));
  return value;
}

napi_value utf8(napi_env env, std::string_view text) {
  napi_value value = nullptr;
  check(env, napi_create_string_utf8(env, text.data(), text.size(), &value));
  return value;
}

napi_value latin1(napi_env env, std::string_view bytes) {
  napi_value value = nullptr;
  check(env, napi_create_string_latin1(env, bytes.data(), bytes.size(), &value));
  return value;
}

// napi_create_arraybuffer zero-fills its memory before the copy over it (12% of the
// JS thread's time reading a 1 GiB body); a Node Buffer copy allocates without
// filling. The bytes are then handed out as a plain Uint8Array over that memory, as
// Node's fetch gives them, not as a Buffer.
napi_value uint8_array(napi_env env, std::span<const std::uint8_t> bytes) {
  napi_value node_buffer = nullptr;
  void* copied = nullptr;
  check(env, napi_create_buffer_copy(env, bytes.size(), bytes.data(), &copied, &node_buffer));
  napi_typedarray_type type{};
  std::size_t length = 0;
  void* data = nullptr;
  napi_value memory = nullptr;
  std::size_t offset = 0;
  check(env, napi_get_typedarray_info(env, node_buffer, &type, &length, &data, &memory, &offset));
  napi_value array = nullptr;
  check(env, napi_create_typedarray(env, napi_uint8_array, length, memory, offset, &array));
  return array;
}

napi_valuetype type_of(napi_env env, napi_value value) {
  napi_valuetype type = napi_undefined;
  check(env, napi_typeof(env, value, &type));
  return type;
}

bool is_nullish(napi_env env, napi_value value) {
  const napi_valuetype type = type_of(env, value);
  return type == napi_undefined || type == napi_null;
}

napi_value property(napi_env env, napi_value object, const char* name) {
  napi_value value = nullptr;
  check(env, napi_get_named_property(env, object, name, &value));
  return value;
}

void set_property(napi_env env, napi_value object, const char* name, napi_value value) {
  check(env, napi_set_named_property(env, object, name, value));
}

namespace {

void require_type(napi_env env, napi_value value, napi_valuetype wanted, const char* what,
                  const char* type_name) {
  if (type_of(env, value) != wanted) {
    throw_type_error(env, std::string(what) + " must be " + type_name);
  }
}

}  // namespace

std::string string_utf8(napi_env env, napi_value value, const char* what) {
  require_type(env, value, napi_string, what, "a string");
  std::size_t length = 0;
  check(env, napi_get_value_string_utf8(env, value, nullptr, 0, &length));
  std::string text(length, '\0');
  check(env, napi_get_value_string_utf8(env, value, text.data(), length + 1, &length));
  return text;
}

std::string string_latin1(napi_env env, napi_value value, const char* what) {
  require_type(env, value, napi_string, what, "a string");
  std::size_t length = 0;
  check(env, napi_get_value_string_latin1(env, value, nullptr, 0, &length));
  std::string text(length, '\0');
  check(env, napi_get_value_string_latin1(env, value, text.data(), length + 1, &length));
  return text;
}

double number_of(napi_env env, napi_value value, const char* what) {
  require_type(env, value, napi_number, what, "a number");
  double n = 0;
  check(env, napi_get_value_double(env, value, &n));
  return n;
}

std::uint64_t count_of(napi_env env, napi_value value, const char* what, std::uint64_t max) {
  const double n = number_of(env, value, what);
  if (!(n >= 0) || n != std::floor(n) || n > static_cast<double>(max)) {
    throw_type_error(env,
                     std::string(what) + " must be an integer from 0 to " + std::to_string(max));
  }
  return static_cast<std::uint64_t>(n);
}

bool bool_of(napi_env env, napi_value value, const char* what) {
  require_type(env, value, napi_boolean, what, "a boolean");
  bool flag = false;
  check(env, napi_get_value_bool(env, value, &flag));
  return flag;
}

namespace {

std::size_t element_size(napi_typedarray_type type) noexcept {
  switch (type) {
    case napi_int16_array:
    case napi_uint16_array: return 2;
    case napi_int32_array:
    case napi_uint32_array:
    case napi_float32_array: return 4;
    case napi_float64_array:
    case napi_bigint64_array:
    case napi_biguint64_array: return 8;
    default: return 1;
  }
}

}  // namespace

std::span<const std::uint8_t> bytes_of(napi_env env, napi_value value, const char* what) {
  bool is = false;
  void* data = nullptr;
  std::size_t length = 0;
  check(env, napi_is_typedarray(env, value, &is));
  if (is) {
    napi_typedarray_type type{};
    napi_value buffer = nullptr;
    std::size_t offset = 0;
    check(env, napi_get_typedarray_info(env, value, &type, &length, &data, &buffer, &offset));
    // From the engine, never from a script's `byteLength` (a subclass may lie there,
    // or detach the buffer while it runs).
    return {static_cast<const std::uint8_t*>(data), length * element_size(type)};
  }
  check(env, napi_is_dataview(env, value, &is));
  if (is) {
    napi_value buffer = nullptr;
    std::size_t offset = 0;
    check(env, napi_get_dataview_info(env, value, &length, &data, &buffer, &offset));
    return {static_cast<const std::uint8_t*>(data), length};
  }
  check(env, napi_is_arraybuffer(env, value, &is));
  if (is) {
    check(env, napi_get_arraybuffer_info(env, value, &data, &length));
    return {static_cast<const std::uint8_t*>(data), length};
  }
  throw_type_error(env, std::string(what) + " must be an ArrayBuffer or a view of one");
}

void clear_pending_exception(napi_env env) noexcept {
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) == napi_ok && pending) {
    napi_value ignored = nullptr;
    napi_get_and_clear_last_exception(env, &ignored);
  }
}

}  // namespace sluice_node
