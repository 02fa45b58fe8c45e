#pragma once
// A sluice_request from the spec lib/fetch.mjs makes of fetch(input, init): JS
// thread only. The spec is a plain object:
//   method, url: strings; headers: [name, value, name, value ...] (ByteStrings);
//   body: bytes (TypedArray, DataView, ArrayBuffer), lent to the library (see
//     lent_body.hpp), or undefined;
//   stream: true for a body streamed through a writer; streamLength: its length in
//     bytes when known (a Blob, a FormData), else undefined (chunked);
//   uploadMark: bytes the stream may run ahead of the network;
//   version: a sluice_version_policy; redirect: a sluice_redirect_mode;
//   maxRedirects; refusedPorts: the ports no redirect may lead to (an array, or
//   undefined for none); resendStream: false when a 307 or 308 must fail for the
//   streamed body (default true); keepBody: true to keep a lent body past the
//   release threshold until the exchange ends, so a 307 or 308 sends it again;
//   decode: bool; timeouts: {connect, tls, firstByte, idle, total} in
//   ms; allowance: [initial, max] or undefined; maxBodySize: bytes or undefined.

#include <node_api.h>

#include <memory>

#include "sluice/sluice.h"

namespace sluice_node {

struct RequestFree {
  void operator()(sluice_request* request) const noexcept { sluice_request_free(request); }
};
using RequestPtr = std::unique_ptr<sluice_request, RequestFree>;

struct WriterFree {
  void operator()(sluice_body_writer* writer) const noexcept { sluice_body_writer_free(writer); }
};
using WriterPtr = std::unique_ptr<sluice_body_writer, WriterFree>;

struct BuiltRequest {
  RequestPtr request;
  WriterPtr writer;  // set for a streamed body
};

/// Throws a TypeError for a spec of the wrong shape and the library's error for a
/// value it refuses (a header with CR or LF).
BuiltRequest request_from(napi_env env, napi_value spec);

}  // namespace sluice_node
