// A fetch body as the addon takes it: bytes (sent with their length, copied once
// into the library) or a stream (pumped through a body writer, length unknown).
// `request` is the WHATWG Request made of the same (input, init): it has already
// refused what fetch refuses (a body on GET, a stream without duplex: 'half') and set
// Content-Type for strings, URLSearchParams, FormData and typed Blobs.

const encoder = new TextEncoder();

/** { bytes } or { stream } or {} for no body. */
export async function requestBody(init, request) {
  const source = init?.body;
  if (source === undefined || source === null) {
    // A Request given as input brings its own body (the new Request took it over).
    return request.body ? { stream: request.body } : {};
  }
  if (typeof source === 'string') return { bytes: encoder.encode(source) };
  if (source instanceof ArrayBuffer) return { bytes: new Uint8Array(source) };
  if (ArrayBuffer.isView(source)) return { bytes: source };
  if (source instanceof Blob) return { bytes: new Uint8Array(await source.arrayBuffer()) };
  if (source instanceof URLSearchParams) return { bytes: encoder.encode(source.toString()) };
  if (source instanceof ReadableStream || typeof source[Symbol.asyncIterator] === 'function') {
    return { stream: request.body };
  }
  // FormData (its multipart bytes, with the boundary Content-Type names), and
  // anything else fetch turns into a string: as the Request serialised it.
  return { bytes: new Uint8Array(await request.arrayBuffer()) };
}
