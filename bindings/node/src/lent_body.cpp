#include "lent_body.hpp"

#include <v8.h>

#include <cstring>
#include <memory>

#include "js_error.hpp"
#include "napi_util.hpp"

// The one place the addon uses V8's own API. N-API can keep a JS object alive, not
// its memory: a buffer the script transfers (structuredClone or postMessage with a
// transfer list) is detached, its memory moves to the new owner and is freed when
// that one is collected, while the library may still be reading it. V8's BackingStore
// is that memory, shared: holding it keeps the bytes valid whatever the script does.
// A napi_value is a v8::Local<v8::Value> of the same size and bits in every Node
// that has Node-API (the build pins the headers of the node that runs the tests).

namespace sluice_node {
namespace {

v8::Local<v8::Value> v8_value(napi_value value) {
  v8::Local<v8::Value> local;
  static_assert(sizeof local == sizeof value, "a napi_value is a v8::Local");
  std::memcpy(static_cast<void*>(&local), &value, sizeof value);
  return local;
}

/// What the library borrows: the buffer's memory, held until its release.
struct Loan {
  std::shared_ptr<v8::BackingStore> memory;
};

void give_back(void* user_data) { delete static_cast<Loan*>(user_data); }

}  // namespace

void lend_body(napi_env env, sluice_request* request, napi_value value) {
  const v8::Local<v8::Value> local = v8_value(value);
  v8::Local<v8::ArrayBuffer> buffer;
  std::size_t offset = 0;
  std::size_t length = 0;
  if (local->IsArrayBufferView()) {
    const auto view = local.As<v8::ArrayBufferView>();
    buffer = view->Buffer();
    offset = view->ByteOffset();
    length = view->ByteLength();
  } else if (local->IsArrayBuffer()) {
    buffer = local.As<v8::ArrayBuffer>();
    length = buffer->ByteLength();
  } else {
    throw_type_error(env, "spec.body must be an ArrayBuffer, a typed array or a DataView");
  }
  if (buffer->WasDetached()) throw_type_error(env, "the request body's ArrayBuffer is detached");
  auto loan = std::make_unique<Loan>(Loan{buffer->GetBackingStore()});
  const auto* bytes = static_cast<const std::uint8_t*>(loan->memory->Data());
  if (loan->memory->IsResizableByUserJavaScript()) {
    // It may shrink while the library reads it: those bytes are copied.
    check_sluice(env, sluice_request_set_body_bytes(request, bytes + offset, length));
    return;
  }
  check_sluice(env, sluice_request_set_body_lent(request, length == 0 ? nullptr : bytes + offset,
                                                 length, give_back, loan.get()));
  (void)loan.release();  // the library's now: give_back frees it
}

}  // namespace sluice_node
