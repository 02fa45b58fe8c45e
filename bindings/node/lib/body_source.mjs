// What undici's Request knows of its body and its API does not show: the body's
// source (the string, bytes, Blob or FormData it was made from; null for a stream)
// and its length (null when unknown). Node's fetch keeps both when a Request is
// fetched or made from another Request: the length goes out as Content-Length, and a
// 307 or 308 sends the body again from its source. A FormData body's length, which
// undici computes from the parts, is known only there too.
//
// undici 6 (Node 20 and 22) keeps a Request's state as an own property under a
// symbol described "state"; it is read, never written. Where it is not there (an
// undici that keeps its state private), nothing is known, and the caller treats the
// body as a stream of unknown length, as it would a ReadableStream.

const stateKey = Object.getOwnPropertySymbols(new Request('http://localhost/'))
  .find((symbol) => symbol.description === 'state');

/** { source, length } of `request`'s body, or undefined where undici does not say. */
export function bodySourceOf(request) {
  if (stateKey === undefined) return undefined;
  const body = request[stateKey]?.body;
  if (body === null || typeof body !== 'object' || !('source' in body) || !('length' in body)) {
    return undefined;
  }
  return { source: body.source, length: body.length };
}
