/**
 * The text a spreadsheet shows for a whole number under a format of digit placeholders and
 * literal text, so an id typed so is read as the admin sees it (docs/input-formats.md, ".xlsx",
 * "Cells": the examples, the grammar, and what any other format does).
 */

type FormatPart = { placeholder: '0' | '#' | '?' } | { literal: string };

/** Characters Excel displays without quotes (Excel's help, "Number format codes"). */
const PLAIN_LITERALS: ReadonlySet<string> = new Set([..."$-+/():!^&'~{}<>= "]);

/** A colour section prefix, which changes how the text looks, not what it says. */
const COLOUR = /^\[(?:black|blue|cyan|green|magenta|red|white|yellow|color\s*\d{1,2})]$/i;

/** The format's sections, split on `;` outside quotes and escapes; undefined for an unclosed quote. */
function sectionsOf(numFmt: string): string[] | undefined {
  const sections = [''];
  for (const [token] of numFmt.matchAll(/"[^"]*"|\\[^]?|;|"|[^";\\]+/g)) {
    if (token === '"') return undefined;
    if (token === ';') sections.push('');
    else sections[sections.length - 1] += token;
  }
  return sections;
}

/** A section's placeholders and literal text (quoted, escaped, or shown as it is); undefined for anything else. */
function partsOf(section: string): FormatPart[] | undefined {
  const parts: FormatPart[] = [];
  for (const [token] of section.matchAll(/"[^"]*"|\\[^]?|\[[^\]]*\]?|[^]/g)) {
    if (token === '0' || token === '#' || token === '?') parts.push({ placeholder: token });
    else if (token.startsWith('"')) parts.push({ literal: token.slice(1, -1) });
    else if (token.startsWith('\\') && token.length === 2) parts.push({ literal: token.slice(1) });
    else if (PLAIN_LITERALS.has(token)) parts.push({ literal: token });
    // Anything but a colour (COLOUR) is no format of digits.
    else if (!COLOUR.test(token)) return undefined;
  }
  return parts;
}

/**
 * Which section shows the value (ECMA-376 18.8.31): one serves every number (a minus added); with two, the
 * second shows negatives without a minus; with three or four, the third shows zero.
 */
function chosenSection(sections: readonly string[], value: number): { section: string; minus: boolean } {
  if (sections.length === 1) return { section: sections[0] as string, minus: value < 0 };
  if (value < 0) return { section: sections[1] as string, minus: false };
  if (value === 0 && sections.length >= 3) return { section: sections[2] as string, minus: false };
  return { section: sections[0] as string, minus: false };
}

/**
 * The text shown for a safe integer under `numFmt` (docs/input-formats.md, ".xlsx", "Cells"); undefined when
 * the format is not digit placeholders and literals: the caller keeps the number's own digits.
 */
export function wholeNumberAsShown(value: number, numFmt: string | undefined): string | undefined {
  if (numFmt === undefined || !Number.isSafeInteger(value)) return undefined;
  const sections = sectionsOf(numFmt);
  if (sections === undefined || sections.length > 4) return undefined;
  const { section, minus } = chosenSection(sections, value);
  const parts = partsOf(section);
  if (parts === undefined) return undefined;
  const first = parts.findIndex((part) => 'placeholder' in part);
  if (first === -1) return undefined;
  // Zero has no significant digit: `0` placeholders show it, `#` ones do not.
  const digits = value === 0 ? '' : String(Math.abs(value));
  let next = digits.length;
  let text = '';
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i] as FormatPart;
    if ('literal' in part) {
      text = part.literal + text;
      continue;
    }
    let shown =
      next > 0 ? (digits[--next] as string) : part.placeholder === '0' ? '0' : part.placeholder === '?' ? ' ' : '';
    if (i === first && next > 0) {
      shown = digits.slice(0, next) + shown;
      next = 0;
    }
    text = shown + text;
  }
  if (!/[0-9]/.test(text)) return undefined;
  return minus ? `-${text}` : text;
}
