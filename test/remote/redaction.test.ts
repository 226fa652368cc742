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

  it('walks parsed answers without recursion, member names included, keeping __proto__ a member', () => {
    let nested: unknown = 'tok-ABCDEFGHIJKLMNOP';
    for (let i = 0; i < 5000; i += 1) nested = [nested];
    let inner = gate.deep(nested);
    while (Array.isArray(inner)) inner = inner[0] as unknown;
    expect(inner).toBe('[redacted]');
    const answer = JSON.parse('{"tok-ABCDEFGHIJ": "x", "__proto__": {"m": "tok-ABCDEFGHIJKLMNOP"}}') as Record<string, unknown>;
    const redacted = gate.deep(answer);
    expect(Object.keys(redacted)).toEqual(['__proto__', '[redacted]']);
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
  });

  it('finds the record\'s own Password and PIN at any depth; a 4-character PIN is redacted whole only', () => {
    expect(secretsOfPayload({ Password: 'Hunter2-horse', Sittings: [{ Settings: { PIN: '4711' } }] }).sort()).toEqual(['4711', 'Hunter2-horse']);
    const recordGate = withRecordSecrets(gate, ['tok-ABCDEFGHIJKLMNOP'], { Password: 'Hunter2-horse', PIN: '4711' });
    expect(recordGate.text("Password 'Hunter2-horse' too weak; PIN 4711; token tok-ABCDEFGHIJ")).toBe("Password '[redacted]' too weak; PIN [redacted]; token [redacted]");
  });

  it('mayHold: an answer without a backslash and without any secret\'s head needs no walk', () => {
    const recordGate = withRecordSecrets(gate, ['tok-ABCDEFGHIJKLMNOP'], { Password: 'Hunter2-horse' });
    expect(recordGate.mayHold('{"Success":true,"Content":{"User":{}}}')).toBe(false);
    expect(recordGate.mayHold('{"m":"Hunter2-h"}')).toBe(true);
    expect(recordGate.mayHold('{"m":"tok-ABCD\\u0045FGH"}')).toBe(true);
  });
});
