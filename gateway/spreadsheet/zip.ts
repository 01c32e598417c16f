// The ZIP container of an XLSX, read within limits: the central directory (PKWARE APPNOTE 4.3.12,
// 4.3.16) names each part with its sizes; a part is inflated with Node's zlib (raw DEFLATE, or
// stored), stopped as soon as its output passes the limit (a zip bomb costs milliseconds, never
// the memory it claims or hides), and checked against its CRC-32. Encrypted parts, ZIP64 and other
// compression methods are refused: an XLSX written by a spreadsheet program needs none of them.
import { crc32, inflateRawSync } from 'node:zlib';

export class ZipError extends Error {
  constructor(
    readonly code: 'NOT_A_ZIP' | 'DAMAGED' | 'TOO_LARGE' | 'UNSUPPORTED',
    message: string,
    readonly part?: string,
  ) {
    super(message);
  }
}

export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

/** At most this many entries in the central directory (an XLSX has a dozen or two). */
const MAX_ENTRIES = 2000;

export const isZip = (bytes: Buffer) => bytes.length >= 4 && bytes.readUInt32LE(0) === 0x04034b50;

/** The entries of the central directory, by name. */
export function zipEntries(bytes: Buffer): Map<string, ZipEntry> {
  // The end of central directory record: 22 bytes, then a comment of up to 65535.
  let end = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65_535); i--) {
    if (bytes.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new ZipError('NOT_A_ZIP', 'no end of central directory: the file is not a complete ZIP (an XLSX is one); it may have been cut');
  const count = bytes.readUInt16LE(end + 10);
  const size = bytes.readUInt32LE(end + 12);
  const offset = bytes.readUInt32LE(end + 16);
  if (count === 0xffff || offset === 0xffffffff) throw new ZipError('UNSUPPORTED', 'ZIP64 archives are not read');
  if (count > MAX_ENTRIES) throw new ZipError('TOO_LARGE', `${count} entries in the archive; at most ${MAX_ENTRIES} are read`);
  if (offset + size > end) throw new ZipError('DAMAGED', 'the central directory lies outside the file');
  const entries = new Map<string, ZipEntry>();
  let p = offset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > end || bytes.readUInt32LE(p) !== 0x02014b50) throw new ZipError('DAMAGED', `central directory entry ${i + 1} is damaged`);
    const flags = bytes.readUInt16LE(p + 8);
    const nameLength = bytes.readUInt16LE(p + 28);
    const extraLength = bytes.readUInt16LE(p + 30);
    const commentLength = bytes.readUInt16LE(p + 32);
    if (p + 46 + nameLength > end) throw new ZipError('DAMAGED', `central directory entry ${i + 1} is damaged`);
    const name = bytes.subarray(p + 46, p + 46 + nameLength).toString(flags & 0x800 ? 'utf8' : 'latin1');
    entries.set(name, {
      name,
      flags,
      method: bytes.readUInt16LE(p + 10),
      crc: bytes.readUInt32LE(p + 16),
      compressedSize: bytes.readUInt32LE(p + 20),
      size: bytes.readUInt32LE(p + 24),
      localOffset: bytes.readUInt32LE(p + 42),
    });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** A part's bytes, at most `maxBytes` of them; the sizes the archive declares are not trusted. */
export function readEntry(bytes: Buffer, entry: ZipEntry, maxBytes: number): Buffer {
  if (entry.flags & 0x1) throw new ZipError('UNSUPPORTED', 'the part is encrypted (a password-protected workbook is not read)', entry.name);
  if (entry.size > maxBytes) throw new ZipError('TOO_LARGE', `the part declares ${entry.size} bytes; at most ${maxBytes} are read`, entry.name);
  const local = entry.localOffset;
  if (local + 30 > bytes.length || bytes.readUInt32LE(local) !== 0x04034b50) throw new ZipError('DAMAGED', 'the part\'s local header is damaged', entry.name);
  const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
  const stop = start + entry.compressedSize;
  if (stop > bytes.length) throw new ZipError('DAMAGED', 'the part runs past the end of the file', entry.name);
  const raw = bytes.subarray(start, stop);
  let data: Buffer;
  if (entry.method === 0) data = raw;
  else if (entry.method === 8) {
    try {
      data = inflateRawSync(raw, { maxOutputLength: maxBytes });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new ZipError('TOO_LARGE', `the part inflates past ${maxBytes} bytes`, entry.name);
      throw new ZipError('DAMAGED', `the part cannot be inflated (${(err as Error).message})`, entry.name);
    }
  } else throw new ZipError('UNSUPPORTED', `compression method ${entry.method} is not read (only stored and DEFLATE)`, entry.name);
  if (data.length > maxBytes) throw new ZipError('TOO_LARGE', `the part is larger than ${maxBytes} bytes`, entry.name);
  if (data.length !== entry.size || crc32(data) !== entry.crc) throw new ZipError('DAMAGED', 'the part fails its size or CRC-32 check', entry.name);
  return data;
}
