// Shared by the suites: the fixture's servers ($SLUICE_TEST_ENV/env, written by
// tests/support/servers/start.sh), in-process HTTP servers for exact answers (one on
// a Unix socket that holds request bodies unread), and a wait for states the library
// reports without an event (its stats).
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { once } from 'node:events';
import { backoff } from './backoff.mjs';

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

/** An HTTP server on a Unix socket that reads each request's body only after
 * `release()`, then answers what it received: { length, sha256, contentLength,
 * transferEncoding } (the two framing headers, or null). `arrived` settles at the
 * first request's head. A Unix socket, not loopback TCP: its kernel buffer is small
 * and known (net.core.wmem_default), where loopback TCP may take in tens of MiB and
 * so hide what the client holds (or reads ahead) while the server does not read.
 * Fetch through it with new Client({ unixSocket: socketPath }). */
export async function heldServer() {
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  let arrive;
  const arrived = new Promise((resolve) => { arrive = resolve; });
  const { socketPath, stop } = await unixServer(async (request, response) => {
    request.pause();
    arrive();
    await released;
    const hash = crypto.createHash('sha256');
    let length = 0;
    try {
      for await (const chunk of request) {
        hash.update(chunk);
        length += chunk.length;
      }
    } catch {
      return;  // the client gave the request up mid-body: nobody to answer
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({
      length,
      sha256: hash.digest('hex'),
      contentLength: request.headers['content-length'] ?? null,
      transferEncoding: request.headers['transfer-encoding'] ?? null,
    }));
  });
  return { socketPath, arrived, release, stop };
}

/** A node http server with `handler` on a Unix socket in a fresh directory:
 * { socketPath, stop }. stop() ends its connections and removes the directory. */
export async function unixServer(handler) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-unix-'));
  const socketPath = path.join(dir, 'server.sock');
  const server = http.createServer(handler);
  server.listen(socketPath);
  await once(server, 'listening');
  const stop = async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { socketPath, stop };
}

/** Answers how a request's body came, in what every client sends alike: { method,
 * url, contentLength, transferEncoding, contentType, body } (the headers or null,
 * the bytes as latin1). */
export function framingHandler(request, response) {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({
      method: request.method,
      url: request.url,
      contentLength: request.headers['content-length'] ?? null,
      transferEncoding: request.headers['transfer-encoding'] ?? null,
      contentType: request.headers['content-type'] ?? null,
      body: Buffer.concat(chunks).toString('latin1'),
    }));
  });
}

/** What the kernel may hold of a Unix stream socket's sent bytes. */
export function socketBuffer() {
  return Number(fs.readFileSync('/proc/sys/net/core/wmem_default', 'utf8'));
}

/** Waits until `condition()` holds (a state the library reports without an event),
 * looking again after pauses that grow from a turn of the loop to 50 ms
 * (backoff.mjs); `deadlineMs` only turns a condition that never holds into a
 * failure. */
export async function eventually(condition, deadlineMs = 20000) {
  const end = Date.now() + deadlineMs;
  for (const pause of backoff()) {
    if (await condition()) return;
    if (Date.now() > end) throw new Error('the condition never held');
    await pause();
  }
}
