// The fetch standard's data: URL processor (https://fetch.spec.whatwg.org/#data-urls),
// which undici's fetch runs for a data: URL: the MIME type before the first comma, the
// body after it, percent-decoded, and base64-decoded when the type ends in ";base64".
// The MIME type is parsed and serialised by the platform's WHATWG parser (util.MIMEType).
import { MIMEType } from 'node:util';

const asciiWhitespace = /^[\t\n\f\r ]+|[\t\n\f\r ]+$/g;
const base64Marker = /;[ ]*base64$/i;
const isHexDigit = (byte) => (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) ||
  (byte >= 0x61 && byte <= 0x66);

/** `url` serialised without its fragment (the URL serializer's "exclude fragment"). */
export function withoutFragment(url) {
  const parsed = new URL(url);
  const hashAt = parsed.href.indexOf('#');
  return hashAt === -1 ? parsed.href : parsed.href.slice(0, hashAt);
}

/** The bytes of `text` (ASCII: the text of a serialised URL) with %XX sequences
 * decoded; a % not followed by two hex digits stays as it is. */
function percentDecode(text) {
  const input = new TextEncoder().encode(text);
  const output = new Uint8Array(input.length);
  let length = 0;
  for (let i = 0; i < input.length; i += 1) {
    if (input[i] === 0x25 && isHexDigit(input[i + 1]) && isHexDigit(input[i + 2])) {
      output[length++] = Number.parseInt(String.fromCharCode(input[i + 1], input[i + 2]), 16);
      i += 2;
    } else {
      output[length++] = input[i];
    }
  }
  return output.subarray(0, length);
}

/** The standard's forgiving-base64 decode: whitespace ignored, padding optional,
 * anything else outside the alphabet a failure (null). */
function forgivingBase64(text) {
  let data = text.replace(/[\t\n\f\r ]/g, '');
  if (data.length % 4 === 0) data = data.replace(/={1,2}$/, '');
  if (data.length % 4 === 1 || /[^+/0-9A-Za-z]/.test(data)) return null;
  return new Uint8Array(Buffer.from(data, 'base64'));
}

/** The serialised MIME type, or US-ASCII text where `text` is not one. */
function serialisedMimeType(text) {
  try {
    return String(new MIMEType(text));
  } catch {
    return 'text/plain;charset=US-ASCII';
  }
}

/** { mimeType, body } of a data: URL, or null where the standard says failure (no
 * comma, or base64 that does not decode). */
export function processDataUrl(url) {
  const input = withoutFragment(url).slice('data:'.length);
  const comma = input.indexOf(',');
  if (comma === -1) return null;
  let mimeType = input.slice(0, comma).replace(asciiWhitespace, '');
  let body = percentDecode(input.slice(comma + 1));
  if (base64Marker.test(mimeType)) {
    body = forgivingBase64(Buffer.from(body).toString('latin1'));
    if (body === null) return null;
    mimeType = mimeType.replace(base64Marker, '');
  }
  if (mimeType.startsWith(';')) mimeType = `text/plain${mimeType}`;
  return { mimeType: serialisedMimeType(mimeType), body };
}
