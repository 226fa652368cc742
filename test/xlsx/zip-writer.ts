import { crc32, deflateRawSync } from 'node:zlib';

/** One entry of a hand-made zip; the overrides write what a damaged or hostile file declares. */
export interface ZipInput {
  name: string;
  data: string | Buffer;
  /** Stored (method 0) instead of deflated. */
  store?: boolean;
  /** The inflated size the directory declares, when it should lie. */
  declaredSize?: number;
  /** The CRC-32 the directory declares, when it should lie. */
  crc?: number;
}

/**
 * A zip archive as bytes, written by hand so tests can make workbooks no producer would: sizes
 * that lie, a zip64 directory (`zip64`: every size and offset in zip64 records), damaged CRCs.
 */
export function zipBytes(inputs: readonly ZipInput[], options: { zip64?: boolean } = {}): Buffer {
  const locals: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const input of inputs) {
    const data = typeof input.data === 'string' ? Buffer.from(input.data, 'utf8') : input.data;
    const body = input.store === true ? data : deflateRawSync(data);
    const name = Buffer.from(input.name, 'utf8');
    const size = input.declaredSize ?? data.length;
    const crc = input.crc ?? crc32(data);
    const method = input.store === true ? 0 : 8;
    const zip64 = options.zip64 === true;
    const extra = Buffer.alloc(zip64 ? 28 : 0);
    if (zip64) {
      extra.writeUInt16LE(1, 0);
      extra.writeUInt16LE(24, 2);
      extra.writeBigUInt64LE(BigInt(size), 4);
      extra.writeBigUInt64LE(BigInt(body.length), 12);
      extra.writeBigUInt64LE(BigInt(offset), 20);
    }
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(zip64 ? 45 : 20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, body);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(zip64 ? 45 : 20, 4);
    entry.writeUInt16LE(zip64 ? 45 : 20, 6);
    entry.writeUInt16LE(0x0800, 8);
    entry.writeUInt16LE(method, 10);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(zip64 ? 0xffffffff : body.length, 20);
    entry.writeUInt32LE(zip64 ? 0xffffffff : size, 24);
    entry.writeUInt16LE(name.length, 28);
    entry.writeUInt16LE(extra.length, 30);
    entry.writeUInt32LE(zip64 ? 0xffffffff : offset, 42);
    directory.push(entry, name, extra);
    offset += 30 + name.length + body.length;
  }
  const directoryBytes = Buffer.concat(directory);
  const tail: Buffer[] = [];
  if (options.zip64 === true) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeUInt16LE(45, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(BigInt(inputs.length), 24);
    record.writeBigUInt64LE(BigInt(inputs.length), 32);
    record.writeBigUInt64LE(BigInt(directoryBytes.length), 40);
    record.writeBigUInt64LE(BigInt(offset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(offset + directoryBytes.length), 8);
    locator.writeUInt32LE(1, 16);
    tail.push(record, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(options.zip64 === true ? 0xffff : inputs.length, 8);
  end.writeUInt16LE(options.zip64 === true ? 0xffff : inputs.length, 10);
  end.writeUInt32LE(options.zip64 === true ? 0xffffffff : directoryBytes.length, 12);
  end.writeUInt32LE(options.zip64 === true ? 0xffffffff : offset, 16);
  return Buffer.concat([...locals, directoryBytes, ...tail, end]);
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** The parts of a minimal workbook; each may be replaced, and `extra` entries added. */
export interface WorkbookParts {
  /** The `<sheetData>` content of the first sheet (rows), or a whole part with `sheetPart`. */
  rows?: string;
  sheetPart?: string | Buffer;
  /** `<si>` elements of the shared strings table (no part when undefined). */
  sharedStrings?: string;
  /** The `<styleSheet>` content (no part when undefined). */
  styles?: string;
  /** `<workbookPr .../>` and the like, before `<sheets>`. */
  workbookPr?: string;
  sheetName?: string;
  /** Entries replacing the default ones of the same name, or added. */
  entries?: ZipInput[];
  /** Leave the sheet part out (its relationship stays). */
  withoutSheet?: boolean;
}

/** A minimal .xlsx: the parts Excel needs to open it, written as Excel lays them out. */
export function workbookBytes(parts: WorkbookParts, options: { zip64?: boolean } = {}): Buffer {
  const rels = [
    `<Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>`,
    parts.sharedStrings === undefined
      ? ''
      : `<Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>`,
    parts.styles === undefined ? '' : `<Relationship Id="rId3" Type="${REL}/styles" Target="styles.xml"/>`,
  ].join('');
  const entries: ZipInput[] = [
    {
      name: '[Content_Types].xml',
      data: '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>',
    },
    {
      name: '_rels/.rels',
      data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    },
    {
      name: 'xl/workbook.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${MAIN}" xmlns:r="${REL}">${parts.workbookPr ?? ''}<sheets><sheet name="${parts.sheetName ?? 'Sheet1'}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}</Relationships>`,
    },
  ];
  if (parts.withoutSheet !== true) {
    entries.push({
      name: 'xl/worksheets/sheet1.xml',
      data:
        parts.sheetPart ??
        `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${MAIN}"><sheetData>${parts.rows ?? ''}</sheetData></worksheet>`,
    });
  }
  if (parts.sharedStrings !== undefined)
    entries.push({
      name: 'xl/sharedStrings.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="${MAIN}">${parts.sharedStrings}</sst>`,
    });
  if (parts.styles !== undefined)
    entries.push({
      name: 'xl/styles.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="${MAIN}">${parts.styles}</styleSheet>`,
    });
  for (const extra of parts.entries ?? []) {
    const at = entries.findIndex((entry) => entry.name === extra.name);
    if (at === -1) entries.push(extra);
    else entries[at] = extra;
  }
  return zipBytes(entries, options);
}
