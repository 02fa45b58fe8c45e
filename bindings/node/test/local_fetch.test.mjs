// data: and blob: URLs are answered without the network, as Node's fetch answers
// them: each URL here goes through both, and what a script sees (status, statusText,
// headers, bytes, url, or how it failed) must agree. A Range request to a blob: URL
// is answered as the fetch standard says (undici 6 refuses an open-ended "bytes=7-"
// and leaves the last byte of a range out of the body its Content-Range names).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { Client } from '../index.mjs';

const client = new Client();
after(() => client.close());
const ours = (url, init) => client.fetch(url, init);
const theirs = globalThis.fetch;

/** What a script sees of one fetch: its answer, or the failure's kind and cause. */
async function seen(fetchImpl, url, init) {
  try {
    const response = await fetchImpl(url, init);
    return {
      status: response.status,
      statusText: response.statusText,
      ok: response.ok,
      url: response.url,
      redirected: response.redirected,
      type: response.type,
      headers: [...response.headers],
      body: response.body === null ? null : Buffer.from(await response.arrayBuffer()).toString('hex'),
    };
  } catch (error) {
    return { failed: error.constructor.name, message: error.message, cause: error.cause?.message };
  }
}

const dataUrls = [
  'data:,plain%20text', 'data:text/plain;charset=utf-8,h%C3%A9llo', 'data:text/html,<b>bold</b>',
  'data:application/octet-stream;base64,AAECAwQ=', 'data:;base64,aGk', 'data:text/plain;BASE64 ,aGk=',
  'data:text/plain ;  base64,aGk=', 'data: TEXT/Plain ; Charset="UTF-8" ; x=y ,a', 'data:a/b c,x',
  'data:x,%zz%41', 'data:text/plain;base64;x=y,aGk=', 'data:,x#fragment', 'data:,x#',
  'data:image/svg+xml;utf8,<svg/>', 'data:,€',
  // failures: no comma, base64 that does not decode
  'data:text/plain', 'data:;base64,a', 'data:;base64,aGk====',
];

for (const url of dataUrls) {
  test(`${url}: the same through Node's fetch and sluice`, async () => {
    assert.deepEqual(await seen(ours, url), await seen(theirs, url));
  });
}

test('a data: URL ignores the method and body, a HEAD has a null body, integrity is checked', async () => {
  const url = 'data:text/plain,abc';
  for (const init of [{ method: 'POST', body: 'ignored' }, { method: 'HEAD' }, { method: 'PUT', body: new Blob(['x']) }]) {
    assert.deepEqual(await seen(ours, url, init), await seen(theirs, url, init), JSON.stringify(init));
  }
  const digest = crypto.createHash('sha256').update('abc').digest('base64');
  for (const integrity of [`sha256-${digest}`, `sha256-${'A'.repeat(43)}=`]) {
    assert.deepEqual(await seen(ours, url, { integrity }), await seen(theirs, url, { integrity }), integrity);
  }
});

test('a blob: URL gives its Blob\'s bytes, size and type; other methods, a query and a revoked URL fail', async () => {
  const typed = URL.createObjectURL(new Blob(['blob ', 'bytes'], { type: 'text/x-blob' }));
  const untyped = URL.createObjectURL(new Blob([new Uint8Array([0, 1, 2, 255])]));
  const revoked = URL.createObjectURL(new Blob(['gone']));
  URL.revokeObjectURL(revoked);
  const cases = [[typed], [untyped], [`${typed}#fragment`], [`${typed}?query`], [revoked],
    ['blob:nodedata:no-such-id'], [typed, { method: 'POST', body: 'x' }], [typed, { method: 'HEAD' }]];
  for (const [url, init] of cases) {
    assert.deepEqual(await seen(ours, url, init), await seen(theirs, url, init), `${url} ${JSON.stringify(init)}`);
  }
  URL.revokeObjectURL(typed);
  URL.revokeObjectURL(untyped);
});

test('a Range request to a blob: URL is a 206 of the bytes the standard says', async () => {
  const url = URL.createObjectURL(new Blob(['0123456789'], { type: 'text/plain' }));
  const ranged = async (range) => {
    const response = await ours(url, { headers: { range } });
    return [response.status, response.statusText, response.headers.get('content-range'),
      response.headers.get('content-length'), response.headers.get('content-type'), await response.text()];
  };
  assert.deepEqual(await ranged('bytes=2-4'), [206, 'Partial Content', 'bytes 2-4/10', '3', 'text/plain', '234']);
  assert.deepEqual(await ranged('bytes = 7 -'), [206, 'Partial Content', 'bytes 7-9/10', '3', 'text/plain', '789']);
  assert.deepEqual(await ranged('bytes=-3'), [206, 'Partial Content', 'bytes 7-9/10', '3', 'text/plain', '789']);
  assert.deepEqual(await ranged('bytes=8-100'), [206, 'Partial Content', 'bytes 8-9/10', '2', 'text/plain', '89']);
  for (const range of ['bytes=10-', 'bytes=5-2', 'bytes=-', 'items=1-2', 'bytes=1-2,4-5']) {
    await assert.rejects(ours(url, { headers: { range } }), (error) => error instanceof TypeError &&
      error.message === 'fetch failed' && error.cause instanceof Error, range);
  }
  URL.revokeObjectURL(url);
});
