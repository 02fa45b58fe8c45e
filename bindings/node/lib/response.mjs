// A real WHATWG Response over an exchange's head and body. The body is a byte
// stream with highWaterMark 0: pull() runs only when a reader asks, and each pull
// takes one piece from the library, so nothing waits on the JavaScript side beyond
// what the reader asked for (an unread body holds the library's allowance only).
import { STATUS_CODES } from 'node:http';
import { addon } from './addon.mjs';
import { bodyFailed } from './errors.mjs';

const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);

/** A ReadableStream over the exchange's body. `finished()` runs once when the body
 * ends, fails or is cancelled; `failWith(reason)` errors it (an abort). */
function bodyStream(exchange, finished) {
  let controller;
  let reason;
  const stream = new ReadableStream({
    type: 'bytes',
    start(c) { controller = c; },
    async pull(c) {
      let piece;
      try {
        piece = await addon.pull(exchange);
      } catch (failure) {
        finished();
        throw reason ?? bodyFailed(failure);
      }
      if (reason !== undefined) return;  // aborted while the pull waited
      if (piece === null) {
        finished();
        c.close();
        // A BYOB read waiting at the end must be answered with an empty view.
        c.byobRequest?.respond(0);
      } else {
        c.enqueue(piece);
      }
    },
    cancel() {
      finished();
      addon.cancel(exchange, 'the response body was cancelled');
    },
  }, { highWaterMark: 0 });
  const failWith = (why) => {
    if (reason !== undefined) return;
    reason = why;
    finished();
    try { controller.error(why); } catch { /* the stream ended already */ }
    addon.cancel(exchange, 'aborted');
  };
  return { stream, failWith };
}

/** The Response, and how to abort its body. `method` decides a HEAD's null body. */
export function makeResponse(exchange, head, method, finished) {
  const nullBody = method === 'HEAD' || nullBodyStatuses.has(head.status);
  let failWith = () => {};
  let body = null;
  if (nullBody) {
    addon.dropBody(exchange);
    finished();
  } else {
    ({ stream: body, failWith } = bodyStream(exchange, finished));
  }
  const headers = [];
  for (let i = 0; i + 1 < head.headers.length; i += 2) headers.push([head.headers[i], head.headers[i + 1]]);
  // The C API gives no reason phrase (and h2 and h3 have none): the standard one.
  const statusText = head.version < 20 ? (STATUS_CODES[head.status] ?? '') : '';
  const response = fetchedResponse(body, { status: head.status, statusText, headers },
    { url: head.url, redirected: head.redirects > 0 });
  return { response, failWith };
}

/** `response` again, its body read whole into `bytes` (a checked integrity). */
export function bufferedResponse(response, bytes) {
  const { status, statusText, headers, url, redirected } = response;
  return fetchedResponse(bytes, { status, statusText, headers }, { url, redirected });
}

/** A Response as fetch gives it: with its url, redirected and type, and any status
 * the server sent. `new Response` takes 200 to 599 only, but undici's fetch, which
 * builds its Responses from the inside, gives a 600 to 999 as it came (not ok):
 * such a Response is made with 200 and shows the real status instead. */
export function fetchedResponse(body, { status, statusText, headers }, { url, redirected }) {
  const constructible = status >= 200 && status <= 599;
  const response = new Response(body, { status: constructible ? status : 200, statusText, headers });
  return withFetchFields(response, { url, redirected, status: constructible ? undefined : status });
}

/** What a Response made by fetch has and one made by `new Response` cannot be given:
 * its url, redirected and type, and a status outside the constructor's range;
 * clone() keeps them (the platform's clone, a tee of the body, would make a Response
 * without them). */
function withFetchFields(response, fields) {
  const { url, redirected, status } = fields;
  Object.defineProperties(response, {
    url: { value: url, enumerable: false },
    redirected: { value: redirected, enumerable: false },
    type: { value: 'basic', enumerable: false },
    clone: {
      value() { return withFetchFields(Response.prototype.clone.call(this), fields); },
      enumerable: false,
    },
  });
  if (status !== undefined) {
    Object.defineProperties(response, {
      status: { value: status, enumerable: false },
      ok: { value: false, enumerable: false },  // only 200 to 299 is ok
    });
  }
  return response;
}
