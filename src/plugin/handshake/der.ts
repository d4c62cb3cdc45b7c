// Just enough DER (X.690) to write one self-signed certificate. Node has no X.509 writer,
// and the only library that has one (@peculiar/x509) costs ~50 ms of start-up, which core
// pays 3–5 times per command. Each helper returns complete TLV bytes.

export function tlv(tag: number, content: Uint8Array): Buffer {
  const len = content.length;
  let header: number[];
  if (len < 0x80) header = [tag, len];
  else if (len < 0x100) header = [tag, 0x81, len];
  else if (len < 0x10000) header = [tag, 0x82, len >> 8, len & 0xff];
  else throw new RangeError('DER value too long for this writer');
  return Buffer.concat([Buffer.from(header), content]);
}

export const sequence = (...items: Uint8Array[]) => tlv(0x30, Buffer.concat(items));
export const set = (...items: Uint8Array[]) => tlv(0x31, Buffer.concat(items));
export const explicit = (n: number, inner: Uint8Array) => tlv(0xa0 + n, inner);
export const octetString = (b: Uint8Array) => tlv(0x04, b);
export const utf8String = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));
export const booleanTrue = () => Buffer.from([0x01, 0x01, 0xff]);
export const bitString = (b: Uint8Array, unusedBits = 0) => tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), b]));

/** A non-negative INTEGER from big-endian magnitude bytes, minimally encoded. */
export function integer(magnitude: Uint8Array): Buffer {
  let i = 0;
  while (i < magnitude.length - 1 && magnitude[i] === 0) i++;
  let body = Buffer.from(magnitude.subarray(i));
  if (body[0]! & 0x80) body = Buffer.concat([Buffer.from([0]), body]);
  return tlv(0x02, body);
}

export function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map((p) => parseInt(p, 10));
  const out: number[] = [parts[0]! * 40 + parts[1]!];
  for (const part of parts.slice(2)) {
    const stack: number[] = [part & 0x7f];
    let rest = part >>> 7;
    while (rest > 0) {
      stack.unshift((rest & 0x7f) | 0x80);
      rest >>>= 7;
    }
    out.push(...stack);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime (YYMMDDHHMMSSZ); valid for years 1950–2049, which covers a certificate's life here. */
export function utcTime(date: Date): Buffer {
  const p = (n: number) => String(n).padStart(2, '0');
  const text =
    p(date.getUTCFullYear() % 100) +
    p(date.getUTCMonth() + 1) +
    p(date.getUTCDate()) +
    p(date.getUTCHours()) +
    p(date.getUTCMinutes()) +
    p(date.getUTCSeconds()) +
    'Z';
  return tlv(0x17, Buffer.from(text, 'ascii'));
}
