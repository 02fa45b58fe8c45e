// Client: one sluice client (its own HTTP thread, pool and options), driven by the
// Node loop; fetch() through it is WHATWG fetch.
import { addon } from './addon.mjs';
import { UsageError, isSluiceFailure, sluiceError } from './errors.mjs';
import { fetchWith } from './fetch.mjs';

const versions = { 'auto': 0, '1.1': 1, '2': 2, '2-prior-knowledge': 3, '3': 4, '3-only': 5, '1.0': 6 };
const ownKeys = new Set(['http', 'timeouts', 'timeout', 'allowance', 'decompress', 'maxRedirects',
  'uploadBuffer', 'maxBodySize', 'tlsMinVersion', 'tlsMaxVersion', 'ipVersion', 'keepBodyForRedirect']);

const snakeCase = (name) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

const timeoutNames = new Set(['connect', 'tls', 'firstByte', 'idle', 'total']);

/** A non-negative integer up to `max`, or a TypeError naming the option. */
function count(name, value, max = Number.MAX_SAFE_INTEGER) {
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new TypeError(`Client option ${name} must be an integer from 0 to ${max}`);
  }
  return value;
}

const optional = (name, value, max) => (value === undefined ? undefined : count(name, value, max));

function timeoutsOf(options) {
  const given = options.timeouts ?? {};
  if (typeof given !== 'object') throw new TypeError('Client option timeouts must be an object');
  const timeouts = {};
  for (const [name, ms] of Object.entries(given)) {
    if (!timeoutNames.has(name)) {
      throw new TypeError(`Client option timeouts.${name} is not one of ${[...timeoutNames].join(', ')}`);
    }
    timeouts[name] = optional(`timeouts.${name}`, ms, 2 ** 32 - 1);
  }
  if (options.timeout !== undefined) timeouts.total = count('timeout', options.timeout, 2 ** 32 - 1);
  return timeouts;
}

function allowanceOf(allowance) {
  if (allowance === undefined) return undefined;
  const pair = Array.isArray(allowance) ? allowance : [allowance, allowance];
  if (pair.length !== 2) throw new TypeError('Client option allowance must be a number or [initial, max]');
  return pair.map((bytes) => count('allowance', bytes, 2 ** 40));
}

/** What each fetch of the client sends with its request; checked here, so a wrong
 * option fails at `new Client`, not at the first fetch. */
function settingsOf(options) {
  const http = options.http ?? 'auto';
  if (typeof http !== 'string' || !Object.hasOwn(versions, http)) {
    throw new TypeError(`Client option http must be one of ${Object.keys(versions).join(', ')}`);
  }
  const decompress = options.decompress ?? true;
  if (typeof decompress !== 'boolean') throw new TypeError('Client option decompress must be a boolean');
  const keepBodyForRedirect = options.keepBodyForRedirect ?? false;
  if (typeof keepBodyForRedirect !== 'boolean') {
    throw new TypeError('Client option keepBodyForRedirect must be a boolean');
  }
  return {
    version: versions[http],
    timeouts: timeoutsOf(options),
    allowance: allowanceOf(options.allowance),
    decompress,
    keepBodyForRedirect,
    maxRedirects: count('maxRedirects', options.maxRedirects ?? 20, 1000),
    uploadBuffer: count('uploadBuffer', options.uploadBuffer ?? 256 * 1024, 2 ** 40),
    maxBodySize: optional('maxBodySize', options.maxBodySize, Number.MAX_SAFE_INTEGER),
    // A Blob or FormData body up to the library's release threshold (its option, 512
    // KiB by default) is lent whole, a larger one streamed (request_body.mjs).
    wholeBodyUpTo: typeof options.releaseThreshold === 'number' ? options.releaseThreshold : 512 * 1024,
  };
}

const defaultPoolIdleTimeout = 4000;

/** The library's own options, by their names in its option table (camelCase here). */
function libraryOptions(options) {
  const table = {};
  for (const [key, value] of Object.entries(options)) {
    if (!ownKeys.has(key)) table[snakeCase(key)] = value;
  }
  if (options.tlsMinVersion !== undefined) table.tls_min_version = options.tlsMinVersion;
  if (options.tlsMaxVersion !== undefined) table.tls_max_version = options.tlsMaxVersion;
  if (options.ipVersion !== undefined) table.ip_version = options.ipVersion;
  // Node's fetch (undici) closes a connection idle for 4 s (its keepAliveTimeout), so
  // a burst's connections do not stay open, and resident, for the library's 60 s. So
  // does this Client, unless told otherwise.
  if (options.poolIdleTimeout === undefined) table.pool_idle_timeout = defaultPoolIdleTimeout;
  return table;
}

export class Client {
  #handle;
  #settings;
  #closed = false;

  /**
   * `options`:
   *  - http: 'auto' (ALPN: h2 or h1 over TLS, h1 on plain TCP, h3 once announced),
   *    '1.1', '2', '2-prior-knowledge', '3' (HTTP/3 first, TCP if QUIC fails), '3-only',
   *    '1.0' (HTTP/1.0 request lines, never h2 or h3)
   *  - timeouts: { connect, tls, firstByte, idle, total } in ms; timeout: total in ms
   *  - allowance: bytes an unread response may hold, or [initial, max] (the library's
   *    default: 64 KiB growing to 32 MiB while the reader keeps up)
   *  - decompress (true), maxRedirects (20), uploadBuffer (256 KiB: what a streamed
   *    body may run ahead of the network), maxBodySize
   *  - keepBodyForRedirect (false): a byte body over the release threshold stays
   *    leased until the response when redirect is 'follow', so a 307 or 308 sends it
   *    again, as Node's fetch does (by default it is let go once sent)
   *  - tlsMinVersion / tlsMaxVersion ('1.2', '1.3'), ipVersion (4 or 6)
   *  - every option of the library's table in camelCase: caFile, caPath, insecure,
   *    proxy, proxyUser, noProxy, proxyInsecure, userAgent, resolve, connectTo,
   *    unixSocket, dnsServers, poolIdleTimeout (ms; 4000 here, as undici),
   *    maxConnectionsPerOrigin,
   *    stagedBytesBudget ... (sluice.h lists them).
   */
  constructor(options = {}) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError('Client options must be an object');
    }
    this.#settings = settingsOf(options);
    try {
      this.#handle = addon.clientNew(libraryOptions(options));
    } catch (failure) {
      // A value the library refuses (an unreadable CA file, a proxy that is not a
      // URL): its own error, as a SluiceError.
      throw isSluiceFailure(failure) ? sluiceError(failure) : failure;
    }
  }

  /** WHATWG fetch through this client. On a closed client it rejects as a network
   * failure does: TypeError('fetch failed') whose cause is a UsageError. */
  fetch(input, init = undefined) {
    if (this.#closed) {
      return Promise.reject(new TypeError('fetch failed', {
        // As the addon reports a use after close: SLUICE_E_USAGE.
        cause: new UsageError('the client is closed', { code: 'usage', errno: 1000, category: 'usage' }),
      }));
    }
    return fetchWith(this, this.#handle, this.#settings, input, init);
  }

  /** What the client holds now: inFlight, stagedBytes, allowanceBytes, connections ... */
  stats() {
    return addon.clientStats(this.#handle);
  }

  /** Ends what is in flight (fetches reject, bodies fail) and frees the client. */
  close() {
    this.#closed = true;
    addon.clientClose(this.#handle);
  }
}
