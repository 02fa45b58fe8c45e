// Failures by kind: network failures reject with TypeError('fetch failed') whose
// cause carries the library's code, category and message. (Wrong arguments and bad
// handles: bad_input.test.mjs; a body read twice: response.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ConnectError, SluiceError, TlsError, fetch } from '../index.mjs';
import { env, freePort } from './helpers.mjs';

test('a refused connection is a ConnectError cause', async () => {
  await assert.rejects(fetch(`http://127.0.0.1:${await freePort()}/`), (error) => {
    assert.ok(error instanceof TypeError);
    assert.equal(error.message, 'fetch failed');
    assert.ok(error.cause instanceof ConnectError && error.cause instanceof SluiceError);
    assert.equal(error.cause.category, 'connect');
    assert.equal(error.cause.errno, 200);
    assert.match(error.cause.message, /refused/);
    return true;
  });
});

test('an untrusted certificate is a TLS cause; insecure accepts it', async () => {
  const strict = new Client();
  await assert.rejects(strict.fetch(`${env.SLUICE_NGINX_HTTPS_URL}/small.txt`), (error) =>
    error.cause instanceof TlsError && error.cause.code === 'tls_certificate');
  strict.close();
  const insecure = new Client({ insecure: true });
  assert.equal((await insecure.fetch(`${env.SLUICE_NGINX_HTTPS_URL}/small.txt`)).status, 200);
  insecure.close();
});

test('redirect modes: follow, manual and error', async () => {
  const base = env.SLUICE_NGINX_HTTP_URL;
  const followed = await fetch(`${base}/redirect-chain/3`);
  assert.equal(followed.status, 200);
  assert.equal(followed.redirected, true);
  assert.equal(followed.url, `${base}/small.txt`);
  await followed.arrayBuffer();

  const manual = await fetch(`${base}/redirect`, { redirect: 'manual' });
  assert.equal(manual.status, 302);
  assert.equal(manual.redirected, false);
  assert.ok(manual.headers.get('location').endsWith('/small.txt'));
  await manual.arrayBuffer();

  await assert.rejects(fetch(`${base}/redirect`, { redirect: 'error' }), (error) =>
    error instanceof TypeError && error.cause?.code === 'redirect_refused');
  await assert.rejects(fetch(`${base}/redirect-loop`), (error) =>
    error instanceof TypeError && error.cause?.code === 'too_many_redirects');
});

test('a header value with CR or LF never reaches the wire', async () => {
  await assert.rejects(fetch(`${env.SLUICE_NGINX_HTTP_URL}/`, { headers: { 'x-a': 'a\r\nx-b: b' } }), TypeError);
});
