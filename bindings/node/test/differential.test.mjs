// The same requests through Node's own fetch (undici) and through sluice: status,
// selected headers, bodies and error kinds must agree.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fetch as sluiceFetch } from '../index.mjs';
import { echoHandler, env, startServer, stopServer } from './helpers.mjs';

const nodeFetch = globalThis.fetch;
let echo;
before(async () => { echo = await startServer(echoHandler); });
after(() => stopServer(echo.server));

async function summary(fetchImpl, url, init) {
  try {
    const response = await fetchImpl(url, init);
    const body = Buffer.from(await response.arrayBuffer()).toString('base64');
    return {
      status: response.status,
      statusText: response.statusText,
      ok: response.ok,
      redirected: response.redirected,
      url: response.url,
      type: response.headers.get('content-type'),
      location: response.headers.get('location'),
      body,
    };
  } catch (error) {
    return { error: error.constructor.name, message: error.message, name: error.name };
  }
}

const cases = [
  ['a text file', () => `${env.SLUICE_NGINX_HTTP_URL}/small.txt`, undefined],
  ['a binary file', () => `${env.SLUICE_NGINX_HTTP_URL}/1m.bin`, undefined],
  ['a missing file', () => `${env.SLUICE_NGINX_HTTP_URL}/absent`, undefined],
  ['a followed redirect', () => `${env.SLUICE_NGINX_HTTP_URL}/redirect-chain/3`, undefined],
  ['a manual redirect', () => `${env.SLUICE_NGINX_HTTP_URL}/moved`, { redirect: 'manual' }],
  ['a refused redirect', () => `${env.SLUICE_NGINX_HTTP_URL}/redirect`, { redirect: 'error' }],
  ['a refused connection', () => 'http://127.0.0.1:1/', undefined],
  ['a HEAD', () => `${env.SLUICE_NGINX_HTTP_URL}/1m.bin`, { method: 'HEAD' }],
  ['a bad URL', () => 'not a url', undefined],
  ['a GET with a body', () => `${env.SLUICE_NGINX_HTTP_URL}/`, { body: 'x' }],
];

for (const [name, url, init] of cases) {
  test(`${name}: the same through Node's fetch and sluice`, async () => {
    const theirs = await summary(nodeFetch, url(), init);
    const ours = await summary(sluiceFetch, url(), init);
    assert.deepEqual(ours, theirs);
  });
}

test('an echoed POST: the server sees the same method, type and bytes', async () => {
  const init = () => ({ method: 'POST', body: new URLSearchParams({ a: '1', b: 'two' }),
    headers: { 'x-test': 'yes' } });
  const pick = async (fetchImpl) => {
    const answer = await (await fetchImpl(`${echo.base}/p?q=1`, init())).json();
    return { method: answer.method, url: answer.url, body: answer.body,
      type: answer.headers['content-type'], test: answer.headers['x-test'],
      length: answer.headers['content-length'] };
  };
  assert.deepEqual(await pick(sluiceFetch), await pick(nodeFetch));
});
