import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor, secretsOfPayload, withRecordSecrets } from '../../src/api/redaction.js';

describe('the redaction gate', () => {
  const gate = createRedactor(['tok-ABCDEFGHIJKLMNOP']);

  it('removes the secret, and any run of 8+ characters that begins like it, wherever it is', () => {
    expect(gate.text('bad token tok-ABCDEFGHIJKLMNOP!')).toBe('bad token [redacted]!');
    expect(gate.text('cut: tok-ABCD…')).toBe('cut: [redacted]…');
    expect(gate.text('short tok-ABC stays')).toBe('short tok-ABC stays');
    expect(gate.text('twice tok-ABCDEFGH and tok-ABCDEFGHIJKLMNOPQ')).toBe('twice [redacted] and [redacted]Q');
  });

  it('removes any 8+ piece of a secret, head, middle or tail, in any case, also split over two texts', () => {
    const token = 'Qz7KxTokenSecretW9pLmN3vB8rT5yH2';
    const tokenGate = createRedactor([token]);
    for (const [left, right] of [
      [token.slice(0, 13), token.slice(13)],
      [token.slice(0, 8), token.slice(8)],
    ]) {
      const shown = `${tokenGate.text(`a ${left}`)} ${tokenGate.text(right!)}`;
      expect(shown).not.toContain(right!.slice(0, 8));
      for (let at = 0; at + 8 <= token.length; at += 1) expect(shown).not.toContain(token.slice(at, at + 8));
    }
    expect(tokenGate.text(`upper ${token.toUpperCase()} mid ${token.slice(9, 20)} tail ${token.slice(-12)}`)).toBe(
      'upper [redacted] mid [redacted] tail [redacted]',
    );
    const pinGate = createRedactor(['4711']);
    expect(pinGate.text('PIN 4711 and 47112')).toBe('PIN [redacted] and [redacted]2');
    // Pieces shorter than 8 that a token happens to share with ordinary words stay.
    expect(tokenGate.text('Token secret expired')).toBe('Token secret expired');
  });

  it('walks parsed answers without recursion, member names included, keeping __proto__ a member', () => {
    let nested: unknown = 'tok-ABCDEFGHIJKLMNOP';
    for (let i = 0; i < 5000; i += 1) nested = [nested];
    let inner = gate.deep(nested);
    while (Array.isArray(inner)) inner = inner[0] as unknown;
    expect(inner).toBe('[redacted]');
    const answer = JSON.parse('{"tok-ABCDEFGHIJ": "x", "__proto__": {"m": "tok-ABCDEFGHIJKLMNOP"}}') as Record<
      string,
      unknown
    >;
    const redacted = gate.deep(answer);
    expect(Object.keys(redacted)).toEqual(['__proto__', '[redacted]']);
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
  });

  it("finds the record's own Password and PIN at any depth; a 4-character PIN is redacted whole only", () => {
    expect(secretsOfPayload({ Password: 'Hunter2-horse', Sittings: [{ Settings: { PIN: '4711' } }] }).sort()).toEqual([
      '4711',
      'Hunter2-horse',
    ]);
    const recordGate = withRecordSecrets(gate, { Password: 'Hunter2-horse', PIN: '4711' });
    expect(recordGate.text("Password 'Hunter2-horse' too weak; PIN 4711; token tok-ABCDEFGHIJ")).toBe(
      "Password '[redacted]' too weak; PIN [redacted]; token [redacted]",
    );
  });

  it("finds every sitting's PIN of a schedule of 6,000 sittings, not only those of its first 10,000 objects", () => {
    const payload = {
      ExternalId: 'S-1',
      Sittings: Array.from({ length: 6000 }, (_, i) => ({
        ExternalId: `x-${i}`,
        Settings: { PIN: String(100_000 + i) },
      })),
    };
    expect(secretsOfPayload(payload)).toHaveLength(6000);
    expect(withRecordSecrets(gate, payload, JSON.stringify(payload)).text('PIN 105999 and 100000 refused')).toBe(
      'PIN [redacted] and [redacted] refused',
    );
  });

  it("mayHold: an answer without a backslash and without any secret's head needs no walk", () => {
    const recordGate = withRecordSecrets(gate, { Password: 'Hunter2-horse' });
    expect(recordGate.mayHold('{"Success":true,"Content":{"User":{}}}')).toBe(false);
    expect(recordGate.mayHold('{"m":"Hunter2-h"}')).toBe(true);
    expect(recordGate.mayHold('{"m":"tok-ABCD\\u0045FGH"}')).toBe(true);
  });

  it("each record's gate redacts its own secrets, whether its password was seen before (the memo of 64) or not", () => {
    const passwords = Array.from(
      { length: 70 },
      (_, i) => `Init-${i}-${Buffer.from(String(i * 7919)).toString('hex')}`,
    );
    // Twice round 70 distinct passwords (past the memo's bound), then one shared by every record.
    for (const password of [...passwords, ...passwords, 'Welcome-2026!', 'Welcome-2026!']) {
      const recordGate = withRecordSecrets(gate, { Password: password });
      expect(recordGate.text(`password ${password} refused`)).toBe('password [redacted] refused');
      expect(recordGate.mayHold(`{"m":"${password.slice(-8)}"}`)).toBe(true);
    }
    // Another record's password is not this record's secret.
    expect(withRecordSecrets(gate, { Password: passwords[1] }).text(`${passwords[2]}`)).toBe(passwords[2]);
  });

  it("given the payload's JSON text, a record without a secret field keeps the client's gate; one with it, at any depth or letter case, gets its own", () => {
    const payloads: [unknown, boolean][] = [
      [{ ExternalId: 'u-1', Labels: ['a'], Hierarchies: [{ ExternalId: 'h' }] }, false],
      [{ ExternalId: 'u-1', Note: '{"Password":"Hunter2-horse"}', Passwords: 'not-a-secret-field' }, false],
      [['u-1', 'u-2'], false],
      [{ Password: 'Hunter2-horse' }, true],
      [{ password: 'Hunter2-horse' }, true],
      [{ Sittings: [{ Settings: { pIn: '4711' } }] }, true],
      [{ Pin: '12' }, true], // shorter than 4: a secret too, redacted where it stands as a whole token
    ];
    for (const [payload, own] of payloads) {
      const text = JSON.stringify(payload);
      expect(withRecordSecrets(gate, payload, text) !== gate, text).toBe(own);
      // The same answer as the walk alone.
      expect(withRecordSecrets(gate, payload) !== gate, text).toBe(own);
    }
  });

  it('a secret holding punctuation or characters beyond ASCII is found by every 8-character piece, in every answer that holds one', () => {
    // The scan hashes only runs of the secrets' own characters: these secrets' runs cross `:`, `{`, `"`-free punctuation and é/ß.
    const secrets = ['pw:{Çé-ß}x9!Tq', 'Zürich#2026;Grüße'];
    const wide = withRecordSecrets(gate, { Password: secrets[0], Users: [{ password: secrets[1] }] });
    for (const secret of secrets) {
      for (let at = 0; at + 8 <= secret.length; at += 1) {
        const piece = secret.slice(at, at + 8);
        const answer = JSON.stringify({ Success: true, Content: { Note: `echo:${piece}.` } });
        expect(wide.mayHold(answer), piece).toBe(true);
        expect(JSON.stringify(wide.deep(JSON.parse(answer))), piece).not.toContain(piece);
      }
    }
    // Seven characters of one, or eight that no secret holds in that order, need no walk.
    expect(wide.mayHold(JSON.stringify({ Content: { Note: 'pw:{Çé-', Other: 'ß}x9!Tq pw:{Çé-x' } }))).toBe(false);
  });

  it('a piece is found wherever it sits: after a run of the alphabet of any length, at either end, beside punctuation', () => {
    // The scan steps over a window whose end back holds a character no piece does: every window it steps over is one.
    const secret = 'tok-ABCDEFGHIJKLMNOP';
    const filler = fc.string({
      unit: fc.constantFrom(...'tok-ABCDEFGHIJKLMNOPxyz019":{},[] é'.split('')),
      maxLength: 30,
    });
    fc.assert(
      fc.property(filler, fc.nat({ max: secret.length - 8 }), filler, (before, at, after) => {
        const piece = secret.slice(at, at + 8);
        const text = `${before}${piece}${after}`;
        expect(gate.mayHold(text)).toBe(true);
        expect(gate.text(text)).not.toContain(piece);
      }),
      { numRuns: 2_000 },
    );
    // Pieces of seven, each cut off by a character no piece holds: none is whole.
    expect(gate.mayHold('"tok-ABC"DEFGHIJ"KLMNOP"')).toBe(false);
  });
});

describe('encoded tokens: the token as a server would re-encode it', () => {
  const token = 'Qz7K/xT+ok en"Se\\cretW9pLmN3vB8rT5yH2';
  const gate = createRedactor([token]);
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const b64url = (text: string) => Buffer.from(text).toString('base64url');
  const leaks = (shown: string, form: string) => {
    for (let at = 0; at + 8 <= form.length; at += 1) expect(shown).not.toContain(form.slice(at, at + 8));
  };

  it('base64 and base64url of the token inside any larger string, at each of the three byte alignments', () => {
    for (const before of ['', 'B', 'Be', 'Bearer ', 'user:', 'x'.repeat(11)]) {
      for (const after of ['', '!', '?&']) {
        for (const encode of [b64, b64url]) {
          const form = encode(`${before}${token}${after}`);
          const shown = gate.text(`the server says ${form} is wrong`);
          expect(shown).toContain('[redacted]');
          // What is left of the form is only the characters holding bits of the neighbours.
          const left = shown.replace('the server says ', '').replace(' is wrong', '').split('[redacted]').join('');
          expect(left.length).toBeLessThanOrEqual(Math.ceil((8 * before.length) / 6) + 12);
          leaks(shown, encode(token).slice(4, -4));
        }
      }
    }
  });

  it('a base64/base64url echo is redacted whole: no last quantum (`[redacted]NDU=`) or first one is left', () => {
    const secret = 'tok-0123456789012345';
    const tokenGate = createRedactor([secret]);
    const record = withRecordSecrets(tokenGate, { Password: 'Hunter2-correct-horse45' });
    for (const [redactor, value] of [
      [tokenGate, secret],
      [record, 'Hunter2-correct-horse45'],
    ] as const) {
      for (const before of ['', 'B', 'Be', 'Bearer ', 'user:']) {
        for (const encode of [b64, b64url]) {
          const form = encode(`${before}${value}`);
          // The message as the server sent it, and inside a parsed answer (the other sinks' path).
          expect(redactor.text(`echo ${form} end`)).toBe('echo [redacted] end');
          expect(redactor.deep({ Errors: [{ Message: `"${form}"` }] })).toEqual({
            Errors: [{ Message: '"[redacted]"' }],
          });
        }
      }
    }
    // The bug this pins: the last quantum decoded to the secret's last characters.
    const shown = tokenGate.text(b64(secret));
    expect(shown).toBe('[redacted]');
    expect(Buffer.from(shown.replace('[redacted]', ''), 'base64').toString()).toBe('');
  });

  it('percent-encoded (encodeURIComponent, + for a space) and JSON-escaped', () => {
    const percent = encodeURIComponent(token);
    for (const form of [
      percent,
      percent.replace(/%20/g, '+'),
      percent.toLowerCase(),
      JSON.stringify(token).slice(1, -1),
      JSON.stringify(token).slice(1, -1).replace(/\//g, '\\/'),
    ]) {
      const shown = gate.text(`bad ${form} here`);
      expect(shown).toBe('bad [redacted] here');
    }
  });

  it('every byte percent-encoded (letters and digits too), in upper or lower hex, and hex of the token', () => {
    const allBytes = [...Buffer.from(token)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
    const hex = Buffer.from(token).toString('hex');
    for (const form of [allBytes, allBytes.toUpperCase(), hex, hex.toUpperCase()]) {
      const shown = gate.text(`bad ${form} here`);
      expect(shown).toBe('bad [redacted] here');
    }
    const record = withRecordSecrets(gate, { Password: 'Hunter2-correct-horse' });
    expect(record.text(`echo ${Buffer.from('Hunter2-correct-horse').toString('hex').toUpperCase()}`)).toBe(
      'echo [redacted]',
    );
  });

  it("a short secret's base64 and base64url (with and without padding) and its every-byte %XX form are matched whole", () => {
    const pin = withRecordSecrets(gate, { Pin: '7391' });
    for (const form of ['NzM5MQ==', 'NzM5MQ', '%37%33%39%31', '%37%33%39%31'.toLowerCase()]) {
      expect(pin.text(`PIN ${form} refused`)).toBe('PIN [redacted] refused');
      expect(pin.mayHold(`{"Message":"PIN ${form}"}`)).toBe(true);
    }
    const short = withRecordSecrets(gate, { Password: 'Zq9#Wx' });
    expect(Buffer.from('Zq9#Wx').toString('base64')).toBe('WnE5I1d4');
    expect(short.text('password WnE5I1d4 is weak')).toBe('password [redacted] is weak');
    const urlSafe = withRecordSecrets(gate, { Password: '~~~>?' });
    expect(Buffer.from('~~~>?').toString('base64')).toBe('fn5+Pj8=');
    expect(urlSafe.text('as fn5-Pj8 and fn5+Pj8=')).toBe('as [redacted] and [redacted]');
    // Whole only: a piece of the form is no secret.
    expect(pin.text('NzM5 stays')).toBe('NzM5 stays');
  });

  it('a proxy password and a record password are covered the same way; a PIN is matched whole only', () => {
    const proxyGate = createRedactor(['prox-Pass/word+1']);
    expect(proxyGate.text(`auth ${b64('alice:prox-Pass/word+1')}`)).not.toContain(
      b64('alice:prox-Pass/word+1').slice(8, 16),
    );
    const record = withRecordSecrets(gate, { Password: 'Hunter2-correct-horse' });
    const form = b64url('Hunter2-correct-horse');
    expect(record.mayHold(`{"Message":"${form}"}`)).toBe(true);
    expect(record.text(form)).not.toContain(form.slice(4, 12));
  });
});

describe('HTML-escaped tokens: a server echoing the token as character references', () => {
  const TOKEN = 'Tk+S3cr3t/zz=9Qw';
  const gate = createRedactor([TOKEN]);
  const each = (format: (code: number) => string): string =>
    [...TOKEN].map((char) => format(char.charCodeAt(0))).join('');
  const leaked = {
    decimal: each((code) => `&#${code};`),
    hex: each((code) => `&#x${code.toString(16)};`),
    upperHex: each((code) => `&#X${code.toString(16).toUpperCase()}`),
    partial: 'Tk&#43;S3cr3t&#47;zz&#61;9Qw',
    partialHex: 'Tk&#x2b;S3cr3t&#x2F;zz&#x3d;9Qw',
    named: 'Tk&plus;S3cr3t&sol;zz&equals;9Qw',
    doubled: 'Tk&amp;#43;S3cr3t&amp;#47;zz&amp;#61;9Qw',
    zeroPadded: each((code) => `&#000000000000${code};`),
    base64: Buffer.from(TOKEN)
      .toString('base64')
      .replace(/\+/g, '&#43;')
      .replace(/\//g, '&sol;')
      .replace(/=/g, '&equals;'),
    percent: encodeURIComponent(TOKEN).replace(/%/g, '&percnt;'),
  };

  for (const [kind, form] of Object.entries(leaked)) {
    it(`${kind}: the whole escaped token goes, the text around it stays`, () => {
      expect(gate.text(`bad token <${form}> given`)).toBe('bad token <[redacted]> given');
      expect(gate.mayHold(JSON.stringify({ Message: form }))).toBe(true);
      expect(gate.deep({ m: [form] })).toEqual({ m: ['[redacted]'] });
    });
  }

  it('named references of the punctuation a token may hold, any case, and a 10-character prefix; ordinary escaped text stays', () => {
    const punct = createRedactor(['a#b%c_d-e.f:g!h?i@j~k&l<m>n"o\'p']);
    const named =
      'a&num;b&percnt;c&lowbar;d&hyphen;e&period;f&colon;g&excl;h&quest;i&commat;j&tilde;k&amp;l&lt;m&gt;n&quot;o&apos;p';
    expect(punct.text(`x ${named} y`)).toBe('x [redacted] y');
    expect(punct.text('x a&NUM;b&Percnt;c&LOWBAR;d&dash;e y')).toBe('x [redacted] y');
    expect(gate.text(`cut: ${leaked.partial.slice(0, 17)}…`)).toBe('cut: [redacted]…');
    // A text over 1 MiB holding it behind references loses only the references that spell it, escaped twice too.
    expect(gate.text(`${'&amp;'.repeat(220_000)} ${leaked.partial} ${leaked.doubled}.`)).toBe(
      `${'&amp;'.repeat(220_000)} [redacted] [redacted].`,
    );
    // Ordinary escaped text stays as it is, and an answer without a reference is not walked for one.
    expect(gate.text('Tom &amp; Jerry &lt;b&gt; &#43; &unknown; &#xZZ;')).toBe(
      'Tom &amp; Jerry &lt;b&gt; &#43; &unknown; &#xZZ;',
    );
    expect(gate.mayHold('{"Success":true,"m":"a & b"}')).toBe(false);
  });
});

describe('JSON-escaped secrets: a server echoing them as \\uXXXX escapes, wholly or partly', () => {
  const TOKEN = 'Tk+S3cr3t/zz=9Qw';
  const PASSWORD = 'Pa55-word"horse';
  const gate = withRecordSecrets(createRedactor([TOKEN]), { Password: PASSWORD, Sittings: [{ PIN: '4711' }] });
  // Each UTF-16 unit of a character as `\uXXXX` (a surrogate pair as two escapes).
  const units = (char: string, upper: boolean): string =>
    Array.from({ length: char.length }, (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`)
      .map((hex) => (upper ? `\\u${hex.slice(2).toUpperCase()}` : hex))
      .join('');
  const escape = (text: string, which: (at: number) => boolean = () => true, upper = false): string =>
    [...text].map((char, at) => (which(at) ? units(char, upper) : char)).join('');

  it('every character escaped, some of them, in upper- or lower-case hex: the escapes that spell it go, the text around stays', () => {
    for (const secret of [TOKEN, PASSWORD]) {
      for (const form of [
        escape(secret),
        escape(secret, (at) => at % 2 === 0),
        escape(secret, (at) => at % 3 !== 1, true),
        escape(secret, () => true, true),
      ]) {
        expect(gate.text(`bad <${form}> given`)).toBe('bad <[redacted]> given');
        expect(gate.mayHold(JSON.stringify({ Message: form }))).toBe(true);
        expect(gate.deep({ m: [form] })).toEqual({ m: ['[redacted]'] });
      }
    }
    // The short escapes too (`\"`, `\/`), mixed with \u ones and HTML references.
    expect(gate.text(`x Pa55-word\\"horse y`)).toBe('x [redacted] y');
    expect(gate.text(`x Tk+S3cr3t\\/zz\\u003d9Qw y`)).toBe('x [redacted] y');
    expect(gate.text(`x Tk&#43;S3cr3t\\u002Fzz&equals;9Qw y`)).toBe('x [redacted] y');
  });

  it('an 8-character piece escaped, a 4-digit PIN escaped, a character beyond the BMP as a surrogate pair; ordinary escapes stay', () => {
    expect(gate.text(`cut: ${escape(TOKEN.slice(5, 13))}…`)).toBe('cut: [redacted]…');
    expect(gate.text(`PIN ${escape('4711')} refused`)).toBe('PIN [redacted] refused');
    expect(gate.text(`PIN ${escape('47112')} refused`)).toBe('PIN [redacted]\\u0032 refused');
    const wide = createRedactor(['ab😀cdefghij']);
    expect(escape('😀')).toBe('\\ud83d\\ude00');
    expect(wide.text(`echo ${escape('ab😀cdefghij')}!`)).toBe('echo [redacted]!');
    expect(wide.text('echo ab\\uD83D\\uDE00cdef!')).toBe('echo [redacted]!');
    // Escaped twice (`\\u0050`: a backslash, then u0050) is decoded in the next round.
    expect(gate.text(`x ${escape(TOKEN).replace(/\\/g, '\\\\')} y`)).toBe('x [redacted] y');
    // A run of backslashes halves each round, in one match: 2 MiB of them and an escaped token lose only the token.
    expect(gate.text(`${'\\'.repeat(2 ** 21)} ${escape(TOKEN)} \\\\\\u0041`)).toBe(
      `${'\\'.repeat(2 ** 21)} [redacted] \\\\\\u0041`,
    );
    expect(gate.text('C:\\new\\table \\u0041BC "\\/" \\x41 \\u12')).toBe('C:\\new\\table \\u0041BC "\\/" \\x41 \\u12');
  });
});
