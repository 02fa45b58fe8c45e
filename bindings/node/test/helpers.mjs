// Shared by the suites: the fixture's servers ($SLUICE_TEST_ENV/env, written by
// tests/support/servers/start.sh), an in-process HTTP server for exact answers, and
// a wait for states the library reports without an event (its stats).
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import crypto from 'node:crypto';
import { once } from 'node:events';
import { setImmediate as nextTurn } from 'node:timers/promises';

function readEnv() {
  const root = process.env.SLUICE_TEST_ENV;
  if (!root) throw new Error('SLUICE_TEST_ENV is not set: start tests/support/servers/start.sh BUILD');
  const values = {};
  for (const line of fs.readFileSync(path.join(root, 'env'), 'utf8').split('\n')) {
    const at = line.indexOf('=');
    if (at > 0 && !line.startsWith('#')) values[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return values;
}

export const env = readEnv();

export function sha256(bytes) {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

/** The served file's SHA-256, from the fixture's sha256sums. */
export function sha256Of(name) {
  const sums = fs.readFileSync(path.join(env.SLUICE_FILES_DIR, 'sha256sums'), 'utf8');
  for (const line of sums.split('\n')) {
    const [digest, file] = line.split(/\s+/);
    if (file?.replace(/^\*/, '') === name) return digest;
  }
  throw new Error(`no sum for ${name}`);
}

/** An HTTP/1.1 server on loopback running `handler`; returns { server, base }. */
export async function startServer(handler) {
  const server = http.createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, base: `http://127.0.0.1:${server.address().port}` };
}

/** A loopback port nobody listens on now (bound, then closed). */
export async function freePort() {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

export async function stopServer(server) {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
}

/** Answers with a JSON echo of the request: method, url, headers, body (base64). */
export function echoHandler(request, response) {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks);
    const answer = JSON.stringify({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: body.toString('base64'),
      length: body.length,
    });
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(answer);
  });
}

/** Waits, letting the loop run, until `condition()` holds (a state the library
 * reports without an event); throws after `deadlineMs`. */
export async function eventually(condition, deadlineMs = 20000) {
  const end = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('the condition never held');
    await nextTurn();
  }
}
