// sluice's failures as JS errors: a SluiceError (one subclass per category of the C
// API's codes) is the `cause` of the TypeError('fetch failed') that fetch rejects
// with, as undici's fetch puts its socket error there.

/** A sluice failure: `code` is the code's name ("connect", "tls_certificate"),
 * `errno` the C API's number, `category` its category ("connect", "tls"). */
export class SluiceError extends Error {
  constructor(message, { code, errno, category } = {}) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.errno = errno;
    this.category = category;
  }
}

export class DnsError extends SluiceError {}
export class ConnectError extends SluiceError {}
export class TlsError extends SluiceError {}
export class ProtocolError extends SluiceError {}
export class TimeoutError extends SluiceError {}
export class CancelledError extends SluiceError {}
export class TooLargeError extends SluiceError {}
export class DecodeError extends SluiceError {}
export class LocalIOError extends SluiceError {}
export class UsageError extends SluiceError {}
export class HttpError extends SluiceError {}

const byCategory = {
  dns: DnsError,
  connect: ConnectError,
  tls: TlsError,
  protocol: ProtocolError,
  timeout: TimeoutError,
  cancelled: CancelledError,
  too_large: TooLargeError,
  decode: DecodeError,
  io: LocalIOError,
  usage: UsageError,
  http: HttpError,
};

/** Whether `raw` is an error the addon made from a sluice_code. */
export function isSluiceFailure(raw) {
  return raw instanceof Error && typeof raw.errno === 'number' && typeof raw.category === 'string';
}

/** The SluiceError for an error the addon made. */
export function sluiceError(raw) {
  const Type = byCategory[raw.category] ?? SluiceError;
  return new Type(raw.message, { code: raw.code, errno: raw.errno, category: raw.category });
}

/** What fetch rejects with for a network failure, as undici does. */
export function fetchFailed(raw) {
  return new TypeError('fetch failed', { cause: isSluiceFailure(raw) ? sluiceError(raw) : raw });
}

/** What a body read rejects with when the body fails under way (undici's word). */
export function bodyFailed(raw) {
  return new TypeError('terminated', { cause: isSluiceFailure(raw) ? sluiceError(raw) : raw });
}
