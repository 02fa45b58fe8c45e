// fetch for the URL schemes that undici's fetch answers without the network: data:
// (the URL's own bytes) and blob: (a Blob registered with URL.createObjectURL, found
// through node:buffer's resolveObjectURL). The library is never asked: these are the
// fetch standard's "scheme fetch", done here as undici does it.
import { resolveObjectURL } from 'node:buffer';
import { processDataUrl, withoutFragment } from './data_url.mjs';
import { fetchedResponse } from './response.mjs';

/** Whether fetch answers `url` (serialised, so its scheme is lowercase) here. */
export const isLocalUrl = (url) => url.startsWith('data:') || url.startsWith('blob:');

/** A network error as undici gives it for these schemes: its message on a plain Error. */
const networkError = (message) => new TypeError('fetch failed', { cause: new Error(message) });

function dataAnswer(request) {
  const data = processDataUrl(request.url);
  if (data === null) throw networkError('failed to fetch the data URL');
  return { status: 200, statusText: 'OK', headers: [['content-type', data.mimeType]], body: data.body };
}

// A single "bytes=START-END" range, spaces and tabs allowed around its parts, either
// number left out but not both (the fetch standard's "simple range header value").
const simpleRange = /^bytes[\t ]*=[\t ]*(\d*)[\t ]*-[\t ]*(\d*)$/;

/** { start, end } (inclusive; either may be null), or null for a value that is not a
 * simple range. */
function parseRange(value) {
  const match = simpleRange.exec(value);
  if (match === null || (match[1] === '' && match[2] === '')) return null;
  const start = match[1] === '' ? null : Number(match[1]);
  const end = match[2] === '' ? null : Number(match[2]);
  if (start !== null && end !== null && start > end) return null;
  return { start, end };
}

/** The 206 for a Range request to a blob: URL, as the standard says: a suffix range
 * ("bytes=-N") is the last N bytes, an end past the blob is its last byte. */
function rangeAnswer(blob, value) {
  const range = parseRange(value);
  if (range === null) throw networkError('failed to fetch the data URL');
  let { start, end } = range;
  if (start === null) {
    start = Math.max(0, blob.size - end);
    end = blob.size - 1;
  } else {
    if (start >= blob.size) throw networkError('Range start is greater than the blob\'s size.');
    if (end === null || end >= blob.size) end = blob.size - 1;
  }
  const part = blob.slice(start, end + 1, blob.type);
  return {
    status: 206,
    statusText: 'Partial Content',
    headers: [['content-length', String(part.size)], ['content-type', blob.type],
      ['content-range', `bytes ${start}-${end}/${blob.size}`]],
    body: part,
  };
}

function blobAnswer(request) {
  const url = new URL(request.url);
  if (url.search !== '') throw networkError('NetworkError when attempting to fetch resource.');
  const blob = resolveObjectURL(url.href);
  if (request.method !== 'GET' || !(blob instanceof Blob)) throw networkError('invalid method');
  const range = request.headers.get('range');
  if (range !== null) return rangeAnswer(blob, range);
  return {
    status: 200,
    statusText: 'OK',
    headers: [['content-length', String(blob.size)], ['content-type', blob.type]],
    body: blob,
  };
}

/** The Response for a data: or blob: `request`, or the TypeError('fetch failed')
 * undici rejects with. Its body is never read: undici ignores a body sent to these. */
export function localResponse(request) {
  const answer = request.url.startsWith('data:') ? dataAnswer(request) : blobAnswer(request);
  const body = request.method === 'HEAD' ? null : answer.body;
  return fetchedResponse(body, answer, { url: withoutFragment(request.url), redirected: false });
}
