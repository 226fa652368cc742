import { describe, expect, it } from 'vitest';
import { terminalLine, terminalLines, terminalStdout } from '../../src/formats/terminal-text.js';

describe('terminal text', () => {
  it('turns every C0 and C1 control character but tab and line feed into ?, in both forms', () => {
    for (let cp = 0; cp <= 0x9f; cp += 1) {
      const c = String.fromCharCode(cp);
      const control = cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
      if (!control || c === '\t' || c === '\n' || c === '\r') continue;
      expect(terminalLine(`a${c}b`), `U+${cp.toString(16)}`).toBe('a?b');
      expect(terminalLines(`a${c}b`), `U+${cp.toString(16)}`).toBe('a?b');
    }
  });

  it('turns the bidirectional embeddings, overrides and isolates into ?, and leaves right-to-left text alone', () => {
    for (const cp of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]) {
      expect(terminalLine(`a${String.fromCharCode(cp)}b`)).toBe('a?b');
    }
    expect(terminalLine('שלום Zoë Ødegård 😀')).toBe('שלום Zoë Ødegård 😀');
  });

  it('turns the line and paragraph separators into ?; stdout on a terminal writes what JSON leaves raw as escapes', () => {
    expect(terminalLine('a\u2028b\u2029c')).toBe('a?b?c');
    const written: string[] = [];
    void terminalStdout({ write: (text) => void written.push(text) }).write(
      `${JSON.stringify({ v: 'a\x1b\x7f\x9b\x85\u202e\u2069\u2028\u2029שלום' })}\n\x1b[36m`,
    );
    expect(written).toEqual(['{"v":"a\\u001b\\u007f\\u009b\\u0085\\u202e\\u2069\\u2028\\u2029שלום"}\n\x1b[36m']);
  });

  it('one line: a line break is shown as \\n or \\r, a tab as a space; several lines: they stay, a lone carriage return does not', () => {
    expect(terminalLine('a\r\nb\nc\rd\te')).toBe('a\\r\\nb\\nc\\rd e');
    expect(terminalLine('Hierarchy not found: H-NORTH\nH-SOUTH')).toBe('Hierarchy not found: H-NORTH\\nH-SOUTH');
    expect(terminalLines('a\r\nb\nc\rd\te')).toBe('a\nb\nc?d\te');
  });
});
