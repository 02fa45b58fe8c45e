// What WHATWG fetch refuses or checks that the library has no reason to: ports a
// browser may not reach (the fetch standard's "bad port" list, which Node's fetch
// applies too, so a script behaves the same on either), and subresource integrity.
import crypto from 'node:crypto';

// The fetch standard's list (https://fetch.spec.whatwg.org/#port-blocking).
const badPorts = new Set([1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69,
  77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139,
  143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556,
  563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 5060, 5061, 6000,
  6566, 6665, 6666, 6667, 6668, 6669, 6697, 10080]);

/** The list, for the library to refuse on every redirect hop (the first URL is
 * checked here, before the library is asked). */
export const badPortList = Object.freeze([...badPorts]);

/** True when fetch must refuse `url` for its port (http and https only). */
export function isBadPort(url) {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  return parsed.port !== '' && badPorts.has(Number(parsed.port));
}

const strength = { sha256: 1, sha384: 2, sha512: 3 };

/** Whether `bytes` match `metadata` ("sha384-BASE64 sha512-BASE64 ..."): the
 * strongest algorithm named decides; metadata naming none we know passes, as the
 * standard says. */
export function integrityMatches(metadata, bytes) {
  const entries = [];
  for (const token of metadata.trim().split(/\s+/)) {
    const match = /^(sha256|sha384|sha512)-([A-Za-z0-9+/=_-]+)(\?.*)?$/.exec(token);
    if (match) entries.push({ algorithm: match[1], digest: match[2] });
  }
  if (entries.length === 0) return true;
  const best = Math.max(...entries.map((entry) => strength[entry.algorithm]));
  const normal = (digest) => digest.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  return entries.filter((entry) => strength[entry.algorithm] === best).some((entry) => {
    const actual = crypto.createHash(entry.algorithm).update(bytes).digest('base64');
    return normal(actual) === normal(entry.digest);
  });
}
