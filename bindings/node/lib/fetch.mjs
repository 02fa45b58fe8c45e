// fetch(input, init) over one Client's handle, with WHATWG semantics: the argument
// checks and normalisation are those of the platform's own Request (so a wrong
// argument gets the TypeError Node's fetch throws), abort through the signal, a real
// Response, and network failures as TypeError('fetch failed') with the cause. data:
// and blob: URLs are answered here, without the library (local_fetch.mjs).
import { addon } from './addon.mjs';
import { fetchFailed, isSluiceFailure } from './errors.mjs';
import { requestBody, requestOf } from './request_body.mjs';
import { badPortList, integrityMatches, isBadPort } from './fetch_checks.mjs';
import { isLocalUrl, localResponse } from './local_fetch.mjs';
import { bufferedResponse, makeResponse } from './response.mjs';
import { pumpUpload } from './upload.mjs';

const redirectModes = { manual: 0, follow: 1, error: 2 };

function headerList(request) {
  const list = [];
  for (const [name, value] of request.headers) list.push(name, value);
  if (!request.headers.has('accept')) list.push('accept', '*/*');  // fetch's default
  return list;
}

function specOf(request, body, settings) {
  return {
    method: request.method,
    url: request.url,
    headers: headerList(request),
    body: body.bytes,
    stream: body.stream !== undefined,
    streamLength: body.length,  // undefined: unknown (chunked)
    uploadMark: settings.uploadBuffer,
    version: settings.version,
    redirect: redirectModes[request.redirect],
    maxRedirects: settings.maxRedirects,
    // Node's fetch follows https to http, refuses bad ports on every hop, and fails
    // a 307 or 308 of a body it cannot read again.
    refusedPorts: badPortList,
    resendStream: !body.sourceless,
    // Node's fetch keeps every body for a 307 or 308; this Client lets one over the
    // release threshold go once sent, unless told to keep it (keepBodyForRedirect).
    keepBody: settings.keepBodyForRedirect && request.redirect === 'follow',
    decode: settings.decompress,
    timeouts: settings.timeouts,
    allowance: settings.allowance,
    maxBodySize: settings.maxBodySize,
  };
}

/** With `integrity` set the body is read whole before the Response is given, as the
 * standard says: a mismatch is a network error. */
async function checkedIntegrity(response, metadata) {
  let bytes;
  try {
    bytes = new Uint8Array(await response.arrayBuffer());
  } catch (failure) {
    throw failure instanceof TypeError && failure.message === 'fetch failed'
      ? failure : fetchFailed(failure);
  }
  if (!integrityMatches(metadata, bytes)) {
    throw new TypeError('fetch failed', { cause: new Error('integrity mismatch') });
  }
  return bufferedResponse(response, bytes);
}

/** `owner`: the JS Client, kept reachable by every exchange (and so by every
 * Response body) it made, so that it is collected only when nothing of it is left. */
export async function fetchWith(owner, handle, settings, input, init) {
  const { request, lent } = requestOf(input, init);
  const signal = request.signal;
  if (signal.aborted) throw signal.reason;
  if (isBadPort(request.url)) throw new TypeError('fetch failed', { cause: new Error('bad port') });
  if (isLocalUrl(request.url)) {
    const response = localResponse(request);
    return request.integrity ? checkedIntegrity(response, request.integrity) : response;
  }
  const body = await requestBody(init, request, lent, settings.wholeBodyUpTo);
  if (signal.aborted) throw signal.reason;
  let exchange;
  let head;
  try {
    [exchange, head] = addon.send(handle, specOf(request, body, settings));
  } catch (failure) {
    throw isSluiceFailure(failure) ? fetchFailed(failure) : failure;
  }
  exchange.owner = owner;
  if (body.stream) pumpUpload(exchange, body.stream, settings.uploadBuffer);
  return new Promise((resolve, reject) => {
    let failBody = null;  // set once the head arrived
    const onAbort = () => {
      if (failBody) {
        failBody(signal.reason);
      } else {
        addon.cancel(exchange, 'aborted');
        reject(signal.reason);
      }
    };
    const finished = () => signal.removeEventListener('abort', onAbort);
    signal.addEventListener('abort', onAbort, { once: true });
    head.then((fields) => {
      if (signal.aborted) return;  // rejected already
      try {
        const made = makeResponse(exchange, fields, request.method, finished);
        failBody = made.failWith;
        if (request.integrity) {
          resolve(checkedIntegrity(made.response, request.integrity));
        } else {
          resolve(made.response);
        }
      } catch (failure) {
        finished();
        addon.cancel(exchange, 'the response could not be made');
        reject(fetchFailed(failure));
      }
    }, (failure) => {
      finished();
      reject(signal.aborted ? signal.reason : fetchFailed(failure));
    });
  });
}
