// A fetch body as the addon takes it: bytes, lent to the library where they are (the
// script's own ArrayBuffer or view, or the encoding of a string), or a stream pumped
// through a body writer, with its length where that is known (Content-Length) and
// chunked where not.
//
// A BufferSource never goes through the WHATWG Request: its constructor copies the
// bytes (the body is "a copy of the bytes held by" the source), and a 1 MiB upload
// would cost a second MiB. requestOf() makes the Request without that body and
// checks here what the Request would have checked.
//
// A Blob, a FormData and the body of a Request given as input have a length undici
// knows (and sends as Content-Length) without holding the bytes. Up to `wholeUpTo`
// bytes (the client's release threshold) they are read whole and lent: the library
// can then send them again for a 307 or 308 or an authentication retry, as undici
// sends such a body again from its source. A larger one is streamed with its length:
// the library lets go of a large lent body once it is sent, so it could not go again
// either way, and the stream keeps it out of memory.
import { bodySourceOf } from './body_source.mjs';

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

/** Read whole and lent up to `wholeUpTo` bytes (or when undici does not say how
 * long it is), else streamed with its length. */
async function knownLengthBody(request, length, wholeUpTo) {
  if (length === null || length === undefined || length <= wholeUpTo) {
    return { bytes: new Uint8Array(await request.arrayBuffer()) };
  }
  return { stream: request.body, length };
}

/** The body of a Request given as input, which the new Request took over: from the
 * source it was made from, as undici keeps it. */
async function inheritedBody(request, wholeUpTo) {
  if (request.body === null) return {};
  const known = bodySourceOf(request);
  // Made from a stream, or undici does not say: a stream of unknown length.
  if (known === undefined || known.source === null || known.length === null) {
    return { stream: request.body, sourceless: true };
  }
  if (typeof known.source === 'string') {
    // A string (or URLSearchParams, kept as its string): its encoding lent, and the
    // stream over it left unread. (Bytes are not lent from the source: undici's
    // stream over them took their buffer when it was first read.)
    request.body.cancel().catch(() => {});
    return { bytes: encoder.encode(known.source) };
  }
  return knownLengthBody(request, known.length, wholeUpTo);
}

/** { bytes }, { stream, length }, { stream, sourceless } (chunked; nothing to send
 * again from, so a 307 or 308 fails as the standard says) or {} for no body. `lent`:
 * what requestOf() kept back. `wholeUpTo`: see the top of this file. */
export async function requestBody(init, request, lent, wholeUpTo) {
  if (lent !== undefined) return { bytes: lent };
  const source = init?.body;
  if (source === undefined || source === null) return inheritedBody(request, wholeUpTo);
  if (typeof source === 'string') return { bytes: encoder.encode(source) };
  if (source instanceof URLSearchParams) return { bytes: encoder.encode(source.toString()) };
  if (source instanceof Blob) return knownLengthBody(request, source.size, wholeUpTo);
  if (source instanceof ReadableStream || typeof source[Symbol.asyncIterator] === 'function') {
    return { stream: request.body, sourceless: true };
  }
  // FormData (its multipart bytes, with the boundary Content-Type names, and the
  // length undici computed from the parts), and anything else fetch turns into a
  // string: as the Request serialised it.
  return knownLengthBody(request, bodySourceOf(request)?.length, wholeUpTo);
}
