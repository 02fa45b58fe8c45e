// The addon's entry: the functions lib/*.mjs calls, over NodeClient and Exchange.
// JS thread only. Handles are plain objects wrapping a heap shared_ptr, each type
// tagged (napi_type_tag_object), so a handle of one kind passed where another is
// expected, or any other object, is a TypeError, never a wrong cast.

#include <node_api.h>

#include <memory>
#include <string>

#include "exchange.hpp"
#include "js_error.hpp"
#include "napi_util.hpp"
#include "node_abi.hpp"
#include "node_client.hpp"
#include "request_spec.hpp"

namespace sluice_node {
namespace {

constexpr napi_type_tag kClientTag = {0x736c756963652d63ULL, 0x6c69656e74000001ULL};
constexpr napi_type_tag kExchangeTag = {0x736c756963652d65ULL, 0x786368616e670001ULL};

template <class T>
napi_value wrap(napi_env env, std::shared_ptr<T> object, const napi_type_tag& tag,
                napi_finalize finalize) {
  napi_value handle = nullptr;
  check(env, napi_create_object(env, &handle));
  auto* holder = new std::shared_ptr<T>(std::move(object));
  const napi_status status = napi_wrap(env, handle, holder, finalize, nullptr, nullptr);
  if (status != napi_ok) {
    delete holder;
    check(env, status);
  }
  check(env, napi_type_tag_object(env, handle, &tag));
  return handle;
}

template <class T>
T& unwrap(napi_env env, napi_value handle, const napi_type_tag& tag, const char* what) {
  bool tagged = false;
  if (type_of(env, handle) == napi_object)
    check(env, napi_check_object_type_tag(env, handle, &tag, &tagged));
  if (!tagged) throw_type_error(env, std::string("not a sluice ") + what + " handle");
  void* holder = nullptr;
  check(env, napi_unwrap(env, handle, &holder));
  return **static_cast<std::shared_ptr<T>*>(holder);
}

// A Client handle that nobody can reach: its client closes (what is in flight ends
// with an error through the callbacks) and the reference goes.
void finalize_client(napi_env, void* data, void*) {
  auto* holder = static_cast<std::shared_ptr<NodeClient>*>(data);
  (*holder)->close();
  delete holder;
}

void finalize_exchange(napi_env, void* data, void*) {
  auto* holder = static_cast<std::shared_ptr<Exchange>*>(data);
  (*holder)->abandon();
  delete holder;
}

NodeClient& client_arg(napi_env env, napi_value handle) {
  return unwrap<NodeClient>(env, handle, kClientTag, "Client");
}

Exchange& exchange_arg(napi_env env, napi_value handle) {
  return unwrap<Exchange>(env, handle, kExchangeTag, "exchange");
}

napi_value client_new(napi_env env, napi_callback_info info) {
  return js_entry(env, [&] {
    const CallArgs args = call_args(env, info);
    return wrap(env, NodeClient::create(env, args.argv[0]), kClientTag, finalize_client);
  });
}

napi_value client_close(napi_env env, napi_callback_info info) {
  return js_entry(env, [&] {
    client_arg(env, call_args(env, info).argv[0]).close();
    return undefined(env);
  });
}

napi_value client_stats(napi_env env, napi_callback_info info) {
  return js_entry(env, [&] { return client_arg(env, call_args(env, info).argv[0]).stats(env); });
}

// send(client, spec) -> [exchange, head promise]
napi_value send(napi_env env, napi_callback_info info) {
  return js_entry(env, [&] {
    const CallArgs args = call_args(env, info);
    NodeClient& client = client_arg(env, args.argv[0]);
    if (!client.open()) throw_error(env, "the client is closed");
    BuiltRequest built = request_from(env, args.argv[1]);
    auto exchange = std::make_shared<Exchange>(client.shared_from_this());
    napi_value handle = wrap(env, exchange, kExchangeTag, finalize_exchange);
    napi_value head = exchange->send(env, built.request.get(), built.writer.release());
    napi_value pair = nullptr;
    check(env, napi_create_array_with_length(env, 2, &pair));
    check(env, napi_set_element(env, pair, 0, handle));
    check(env, napi_set_element(env, pair, 1, head));
    return pair;
  });
}

napi_value cancel(napi_env env, napi_callback_info info) {
  return js_entry(env, [&] {
    const CallArgs args = call_args(env, info);
    Exchange& exchange = exchange_arg(env, args.argv[0]);
    const std::string reason = is_nullish(env, args.argv[1])
                                   ? std::string("cancelled")
                                   : string_utf8(env, args.argv[1], "reason");
    exchange.cancel(reason);
    return undefined(env);
  });
}

napi_value pull(napi_env env, napi_callback_info info) {
  return js_entry(env,
                  [&] { return exchange_arg(env, call_args(env, info).argv[0]).body().pull(env); });
}

napi_value drop_body(napi_env env, napi_callback_info info) {
  return js_entry(env, [&] {
    exchange_arg(env, call_args(env, info).argv[0]).drop_body();
    return undefined(env);
  });
}

napi_value when_writable(napi_env env, napi_callback_info info) {
  return js_entry(env, [&] {
    return exchange_arg(env, call_args(env, info).argv[0]).upload().when_writable(env);
  });
}

napi_value write(napi_env env, napi_callback_info info) {
  return js_entry(env, [&] {
    const CallArgs args = call_args(env, info);
    Exchange& exchange = exchange_arg(env, args.argv[0]);
    return boolean(env, exchange.upload().write(env, bytes_of(env, args.argv[1], "chunk")));
  });
}

napi_value close_body(napi_env env, napi_callback_info info) {
  return js_entry(env, [&] {
    exchange_arg(env, call_args(env, info).argv[0]).upload().close(env);
    return undefined(env);
  });
}

napi_value abort_body(napi_env env, napi_callback_info info) {
  return js_entry(env, [&] {
    const CallArgs args = call_args(env, info);
    Exchange& exchange = exchange_arg(env, args.argv[0]);
    exchange.upload().abort(string_utf8(env, args.argv[1], "reason"));
    return undefined(env);
  });
}

napi_value version(napi_env env, napi_callback_info) {
  return js_entry(env, [&] { return utf8(env, sluice_version()); });
}

napi_value init(napi_env env, napi_value exports) {
  return js_entry(env, [&] {
    require_node_built_for(env);
    const napi_property_descriptor functions[] = {
        {"clientNew", nullptr, client_new, nullptr, nullptr, nullptr, napi_default, nullptr},
        {"clientClose", nullptr, client_close, nullptr, nullptr, nullptr, napi_default, nullptr},
        {"clientStats", nullptr, client_stats, nullptr, nullptr, nullptr, napi_default, nullptr},
        {"send", nullptr, send, nullptr, nullptr, nullptr, napi_default, nullptr},
        {"cancel", nullptr, cancel, nullptr, nullptr, nullptr, napi_default, nullptr},
        {"pull", nullptr, pull, nullptr, nullptr, nullptr, napi_default, nullptr},
        {"dropBody", nullptr, drop_body, nullptr, nullptr, nullptr, napi_default, nullptr},
        {"whenWritable", nullptr, when_writable, nullptr, nullptr, nullptr, napi_default, nullptr},
        {"write", nullptr, write, nullptr, nullptr, nullptr, napi_default, nullptr},
        {"closeBody", nullptr, close_body, nullptr, nullptr, nullptr, napi_default, nullptr},
        {"abortBody", nullptr, abort_body, nullptr, nullptr, nullptr, napi_default, nullptr},
        {"version", nullptr, version, nullptr, nullptr, nullptr, napi_default, nullptr},
    };
    check(env,
          napi_define_properties(env, exports, sizeof functions / sizeof functions[0], functions));
    return exports;
  });
}

}  // namespace
}  // namespace sluice_node

NAPI_MODULE(NODE_GYP_MODULE_NAME, sluice_node::init)
