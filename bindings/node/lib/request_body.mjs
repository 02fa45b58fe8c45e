// A fetch body as the addon takes it: bytes, lent to the library where they are (the
// script's own ArrayBuffer or view, or the encoding of a string), or a stream pumped
// through a body writer (length unknown).
//
// A BufferSource never goes through the WHATWG Request: its constructor copies the
// bytes (the body is "a copy of the bytes held by" the source), and a 1 MiB upload
// would cost a second MiB. requestOf() makes the Request without that body and
// checks here what the Request would have checked.

const encoder = new TextEncoder();

const isShared = (value) => typeof SharedArrayBuffer === 'function' &&
  (value instanceof SharedArrayBuffer ||
   (ArrayBuffer.isView(value) && value.buffer instanceof SharedArrayBuffer));

/** An ArrayBuffer or a view over one: lent as is. */
function isLendable(source) {
  return (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) && !isShared(source);
}

/** The WHATWG Request for (input, init), without a lendable body's copy; that body,
 * or undefined. Throws what Node's fetch throws for a body on GET or HEAD. */
export function requestOf(input, init) {
  const body = init?.body;
  if (!isLendable(body)) return { request: new Request(input, init), lent: undefined };
  // init as the prototype: every member it has, read as Request reads them (getters
  // included), but the body.
  const request = new Request(input, Object.create(init, { body: { value: undefined } }));
  if (request.method === 'GET' || request.method === 'HEAD') {
    throw new TypeError('Request with GET/HEAD method cannot have body.');
  }
  return { request, lent: body };
}

/** { bytes } or { stream } or {} for no body. `lent`: what requestOf() kept back. */
export async function requestBody(init, request, lent) {
  if (lent !== undefined) return { bytes: lent };
  const source = init?.body;
  if (source === undefined || source === null) {
    // A Request given as input brings its own body (the new Request took it over).
    return request.body ? { stream: request.body } : {};
  }
  if (typeof source === 'string') return { bytes: encoder.encode(source) };
  if (source instanceof Blob) return { bytes: new Uint8Array(await source.arrayBuffer()) };
  if (source instanceof URLSearchParams) return { bytes: encoder.encode(source.toString()) };
  if (source instanceof ReadableStream || typeof source[Symbol.asyncIterator] === 'function') {
    return { stream: request.body };
  }
  // FormData (its multipart bytes, with the boundary Content-Type names), and
  // anything else fetch turns into a string: as the Request serialised it.
  return { bytes: new Uint8Array(await request.arrayBuffer()) };
}
