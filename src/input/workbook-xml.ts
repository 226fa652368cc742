/**
 * A streaming XML tokenizer for .xlsx parts; what it refuses: docs/input-formats.md, limits table.
 * Attributes are read on demand (`XmlAttributes.get`): building all would cost more than the scan.
 */
import { EXCEL_CELL_CHARS } from '../formats/xstring.js';

/** The part is not the XML it should be (the caller names the part and, for a sheet, the row). */
export class XmlSyntaxError extends Error {}

/** The part is XML, but larger than examctl reads (a limit that keeps memory bounded). */
export class XmlLimitError extends Error {}

export interface XmlHandler {
  /** True while the handler wants character data: text outside the elements it reads is skipped undecoded. */
  wantsText: boolean;
  open(name: string, attributes: XmlAttributes, selfClosing: boolean): void;
  close(name: string): void;
  /** Decoded character data (entities resolved, CDATA as is); one text may come in several calls. */
  text(text: string): void;
  /** A fast path: reads the element at `lt` itself when it can, giving the index after it; -1: the tokenizer's. */
  element?(source: string, lt: number): number;
}

/**
 * A handler made of three functions (`close` and `text` default to none): the small parts' handlers are all of
 * this one class, so the tokenizer's calls into a handler see two shapes (this and the sheet's), which V8 keeps fast.
 */
class PartHandler implements XmlHandler {
  wantsText = false;
  constructor(
    readonly open: XmlHandler['open'],
    readonly close: XmlHandler['close'] = () => {},
    readonly text: XmlHandler['text'] = () => {},
  ) {}
}

export function partHandler(spec: Pick<XmlHandler, 'open'> & Partial<Pick<XmlHandler, 'close' | 'text'>>): XmlHandler {
  return new PartHandler(spec.open, spec.close, spec.text);
}

/** Longest tag or run of text held while waiting for its end (a cell holds at most EXCEL_CELL_CHARS). */
const MAX_TOKEN_CHARS = 4 << 20;
/** Deepest nesting of elements (a workbook part nests about ten). */
const MAX_DEPTH = 256;

const GT = 0x3e;
const SLASH = 0x2f;
const QUOTE = 0x22;
const APOS = 0x27;
const COLON = 0x3a;
const EQUALS = 0x3d;

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function isXmlChar(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

/** Resolves the five XML entities and numeric character references, once (`&amp;amp;` is `&amp;`). */
function decodeEntities(raw: string): string {
  let amp = raw.indexOf('&');
  if (amp === -1) return raw;
  let out = '';
  let from = 0;
  while (amp !== -1) {
    const semicolon = raw.indexOf(';', amp);
    if (semicolon === -1 || semicolon - amp > 12)
      throw new XmlSyntaxError(
        `a bare "&" in the text (${JSON.stringify(raw.slice(amp, amp + 12))}); XML writes it &amp;`,
      );
    const name = raw.slice(amp + 1, semicolon);
    let decoded: string | undefined;
    if (name.startsWith('#')) {
      const code = name[1] === 'x' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      const digits = name[1] === 'x' ? /^#x[0-9a-fA-F]+$/ : /^#[0-9]+$/;
      if (!digits.test(name) || !isXmlChar(code))
        throw new XmlSyntaxError(`the character reference &${name}; is not a valid XML character`);
      decoded = String.fromCodePoint(code);
    } else {
      decoded = NAMED_ENTITIES[name];
      if (decoded === undefined)
        throw new XmlSyntaxError(
          `the entity &${name}; is not defined (a workbook part uses only &amp; &lt; &gt; &quot; &apos; and numeric references)`,
        );
    }
    out += raw.slice(from, amp) + decoded;
    from = semicolon + 1;
    amp = raw.indexOf('&', from);
  }
  return out + raw.slice(from);
}

/** XML reads a line break in text as LF, whatever the file has (a CR typed in a cell is written _x000D_ or &#13;). */
function normalizedText(raw: string): string {
  return decodeEntities(raw.indexOf('\r') === -1 ? raw : raw.replace(/\r\n?/g, '\n'));
}

/** Most attributes of one tag examctl looks at (the rest of a longer tag is still checked, then ignored). */
const MAX_ATTRIBUTES = 32;

/** The attributes of the tag being reported, as positions in `source`; valid only during the `open` call. */
export class XmlAttributes {
  source = '';
  count = 0;
  /** Per attribute: local name start, name end, value start, value end. */
  readonly spans = new Int32Array(MAX_ATTRIBUTES * 4);

  /** The decoded value of the attribute of that local name, or undefined. */
  get(name: string): string | undefined {
    const raw = this.raw(name);
    return raw === undefined ? undefined : decodeEntities(raw);
  }

  /** The undecoded value (for values that hold no entity: numbers, cell references). */
  raw(name: string): string | undefined {
    const at = this.find(name);
    return at === -1 ? undefined : this.source.slice(this.spans[at + 2], this.spans[at + 3]);
  }

  /** The attribute of that local name in `spans` (value: `spans[at + 2]` to `spans[at + 3]` in `source`), or -1. */
  find(name: string): number {
    const spans = this.spans;
    const source = this.source;
    for (let i = 0, at = 0; i < this.count; i++, at += 4) {
      const nameStart = spans[at] as number;
      if ((spans[at + 1] as number) - nameStart === name.length && source.startsWith(name, nameStart)) return at;
    }
    return -1;
  }
}

/** A start tag read by `readStartTag`: where its name ends and where it ends. */
interface StartTag {
  nameEnd: number;
  /** Index of its `>`. */
  end: number;
  selfClosing: boolean;
}

export class XmlTokenizer {
  private rest = '';
  /** The open elements' names as written, and as reported (without prefix). */
  private readonly stack: string[] = [];
  private readonly names: string[] = [];
  private readonly attributes = new XmlAttributes();
  private sawRoot = false;
  private readonly tag: StartTag = { nameEnd: 0, end: 0, selfClosing: false };

  constructor(private readonly handler: XmlHandler) {}

  feed(chunk: string): void {
    const source = this.rest.length === 0 ? chunk : this.rest + chunk;
    const handler = this.handler;
    let at = 0;
    const length = source.length;
    while (at < length) {
      const lt = source.indexOf('<', at);
      if (lt === -1) {
        // Text with no tag after it yet: held if wanted (an entity may be cut), else checked and dropped.
        if (handler.wantsText) break;
        this.skippedText(source, at, length);
        at = length;
        break;
      }
      if (lt > at) {
        if (handler.wantsText) handler.text(normalizedText(source.slice(at, lt)));
        else this.skippedText(source, at, lt);
        at = lt;
      }
      const next = source.charCodeAt(lt + 1);
      if (Number.isNaN(next)) break;
      if (next === SLASH) {
        const gt = source.indexOf('>', lt + 2);
        if (gt === -1) break;
        this.closeTag(source, lt + 2, gt);
        at = gt + 1;
        continue;
      }
      if (next === 0x3f /* ? */) {
        const end = source.indexOf('?>', lt + 2);
        if (end === -1) break;
        at = end + 2;
        continue;
      }
      if (next === 0x21 /* ! */) {
        const consumed = this.markup(source, lt);
        if (consumed === -1) break;
        at = consumed;
        continue;
      }
      if (handler.element !== undefined) {
        const after = handler.element(source, lt);
        if (after !== -1) {
          at = after;
          continue;
        }
      }
      const tag = this.readStartTag(source, lt);
      if (tag === undefined) break;
      const qualified = source.slice(lt + 1, tag.nameEnd);
      if (this.stack.length === 0 && this.sawRoot)
        throw new XmlSyntaxError(`a second root element <${qualified}> (the part is not one XML document)`);
      this.sawRoot = true;
      const selfClosing = tag.selfClosing;
      const gt = tag.end;
      // Its local name, without a namespace prefix (`x:sheet` is `sheet`).
      const name = qualified.slice(qualified.indexOf(':') + 1);
      if (!selfClosing) {
        if (this.stack.push(qualified) > MAX_DEPTH)
          throw new XmlLimitError(`elements nested over ${MAX_DEPTH} deep (a workbook part nests about ten)`);
        this.names.push(name);
      }
      handler.open(name, this.attributes, selfClosing);
      if (selfClosing) handler.close(name);
      at = gt + 1;
    }
    this.rest = at >= length ? '' : source.slice(at);
    if (this.rest.length > MAX_TOKEN_CHARS) {
      throw new XmlLimitError(
        `a tag or text of over ${MAX_TOKEN_CHARS.toLocaleString('en-US')} characters (a cell holds at most ${EXCEL_CELL_CHARS.toLocaleString('en-US')})`,
      );
    }
  }

  /** The start tag at `lt`, its attributes split into `this.attributes` in the same pass; undefined past `source`. */
  private readStartTag(source: string, lt: number): StartTag | undefined {
    const length = source.length;
    let at = lt + 1;
    let code = source.charCodeAt(at);
    while (at < length && code !== SLASH && code !== GT && !isSpace(code)) {
      if (code === 0x3c /* < */) throw new XmlSyntaxError(`a "<" inside the tag <${source.slice(lt + 1, at)}`);
      code = source.charCodeAt(++at);
    }
    if (at >= length) return undefined;
    const tag = this.tag;
    tag.nameEnd = at;
    if (at === lt + 1) throw new XmlSyntaxError('a "<" that starts no tag');
    const attributes = this.attributes;
    const spans = attributes.spans;
    attributes.source = source;
    let count = 0;
    for (;;) {
      while (at < length && isSpace(source.charCodeAt(at))) at++;
      if (at >= length) return undefined;
      code = source.charCodeAt(at);
      if (code === GT || code === SLASH) break;
      let nameStart = at;
      while (at < length && code !== EQUALS && !isSpace(code) && code !== GT && code !== 0x3c) {
        if (code === COLON) nameStart = at + 1;
        code = source.charCodeAt(++at);
      }
      const nameEnd = at;
      while (at < length && isSpace(source.charCodeAt(at))) at++;
      if (at >= length) return undefined;
      if (source.charCodeAt(at) !== EQUALS)
        throw new XmlSyntaxError(`a malformed attribute in <${source.slice(lt + 1, Math.min(at + 1, lt + 60))}`);
      at++;
      while (at < length && isSpace(source.charCodeAt(at))) at++;
      if (at >= length) return undefined;
      const quote = source.charCodeAt(at);
      if (quote !== QUOTE && quote !== APOS)
        throw new XmlSyntaxError(
          `an attribute value without quotes in <${source.slice(lt + 1, Math.min(at + 1, lt + 60))}`,
        );
      const valueEnd = source.indexOf(quote === QUOTE ? '"' : "'", at + 1);
      if (valueEnd === -1) return undefined;
      if (count < MAX_ATTRIBUTES) {
        const base = count * 4;
        spans[base] = nameStart;
        spans[base + 1] = nameEnd;
        spans[base + 2] = at + 1;
        spans[base + 3] = valueEnd;
        count++;
      }
      at = valueEnd + 1;
    }
    attributes.count = count;
    if (code === SLASH) {
      if (at + 1 >= length) return undefined;
      if (source.charCodeAt(at + 1) !== GT)
        throw new XmlSyntaxError(`a "/" inside the tag <${source.slice(lt + 1, Math.min(at + 2, lt + 60))}`);
      tag.selfClosing = true;
      tag.end = at + 1;
    } else {
      tag.selfClosing = false;
      tag.end = at;
    }
    return tag;
  }

  /** The end of the part: refuses a part cut short or one that held no XML. */
  end(): void {
    if (this.rest.trim().length > 0) {
      if (this.handler.wantsText || this.rest.trimStart().startsWith('<'))
        throw new XmlSyntaxError('the XML ends inside a tag (the part is cut short)');
      this.skippedText(this.rest, 0, this.rest.length);
    }
    if (!this.sawRoot) throw new XmlSyntaxError('no XML element (the part is empty or not XML)');
    if (this.stack.length > 0)
      throw new XmlSyntaxError(`the XML ends inside <${this.stack[this.stack.length - 1]}> (the part is cut short)`);
  }

  /** `</name>` between `from` and `gt`: it must close the element open last (compared in place, no copy). */
  private closeTag(source: string, from: number, gt: number): void {
    const open = this.stack[this.stack.length - 1];
    let end = from + (open?.length ?? 0);
    const matches =
      open !== undefined && source.startsWith(open, from) && (end === gt || isSpace(source.charCodeAt(end)));
    if (matches) while (end < gt && isSpace(source.charCodeAt(end))) end++;
    if (!matches || end !== gt) {
      const written = source.slice(from, gt).trim();
      throw new XmlSyntaxError(
        open === undefined
          ? `a closing tag </${written}> with no element open`
          : `</${written}> closes <${open}> (the XML is damaged)`,
      );
    }
    this.stack.pop();
    this.handler.close(this.names.pop() as string);
  }

  /** Text nobody reads: outside the root element it must be blank (else the part is not XML). */
  private skippedText(source: string, from: number, to: number): void {
    if (this.stack.length > 0) return;
    for (let i = from; i < to; i++) {
      const code = source.charCodeAt(i);
      if (!isSpace(code) && code !== 0xfeff)
        throw new XmlSyntaxError(
          `text outside the XML root element (${JSON.stringify(source.slice(i, i + 20))}): the part is not XML`,
        );
    }
  }

  /** `<!--`, `<![CDATA[` or `<!DOCTYPE` at `lt`: the index after it, or -1 when more input is needed. */
  private markup(source: string, lt: number): number {
    if (source.length - lt < 9) return -1;
    if (source.startsWith('<!--', lt)) {
      const end = source.indexOf('-->', lt + 4);
      return end === -1 ? -1 : end + 3;
    }
    if (source.startsWith('<![CDATA[', lt)) {
      const end = source.indexOf(']]>', lt + 9);
      if (end === -1) return -1;
      if (this.stack.length === 0) throw new XmlSyntaxError('CDATA outside the XML root element: the part is not XML');
      if (this.handler.wantsText) this.handler.text(source.slice(lt + 9, end).replace(/\r\n?/g, '\n'));
      return end + 3;
    }
    if (source.startsWith('<!DOCTYPE', lt)) {
      throw new XmlSyntaxError(
        'a document type declaration (<!DOCTYPE ...>), which no workbook part has: entity declarations are refused, not expanded',
      );
    }
    throw new XmlSyntaxError(
      `a markup declaration (${JSON.stringify(source.slice(lt, lt + 12))}) that no workbook part has`,
    );
  }
}

/**
 * UTF-8 text of a part's bytes, chunk by chunk (a split character read whole, a leading BOM dropped). Bytes
 * that are not UTF-8 are refused: a binary part is not XML, and a guessed encoding would change values.
 */
export async function* utf8Chunks(chunks: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of chunks) yield decoder.decode(chunk, { stream: true });
    const last = decoder.decode();
    if (last.length > 0) yield last;
  } catch (error) {
    if (error instanceof TypeError && (error as { code?: string }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA') {
      throw new XmlSyntaxError('not UTF-8 text (binary content): the part is not XML');
    }
    throw error;
  }
}

export async function readXmlPart(chunks: AsyncIterable<Buffer>, handler: XmlHandler): Promise<void> {
  const tokenizer = new XmlTokenizer(handler);
  for await (const text of utf8Chunks(chunks)) tokenizer.feed(text);
  tokenizer.end();
}
