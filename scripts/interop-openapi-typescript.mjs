// A client generated from the served OpenAPI document by a third-party generator
// (openapi-typescript, fetched with npx at a pinned version into a scratch dir, not a dependency)
// types every answer field the API text lists (test/support/spec-answer-fields.json): not
// `unknown`, not `any`, and the enums the text names are exactly the generated union. The check
// is a TypeScript file that the project's tsc compiles against the generated types; each field
// is one line, so a failing field is named. Returns the number of failures.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const GENERATOR = 'openapi-typescript@7.13.0';

/** The TypeScript expression of the object at `path` in the generated `components['schemas']`. */
function objectType(path) {
  let type = `S[${JSON.stringify(path[0])}]`;
  for (const step of path.slice(1))
    type = step === '[]' ? `NonNullable<${type}>[number]` : `NonNullable<${type}>[${JSON.stringify(step)}]`;
  return `NonNullable<${type}>`;
}

function checkFile(objects) {
  const lines = [
    "import type { components } from './api.js';",
    "type S = components['schemas'];",
    'type Typed<T> = 0 extends 1 & T ? false : unknown extends T ? false : true;',
    'type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;',
  ];
  const names = new Map();
  objects.forEach((object, o) => {
    object.fields.forEach((field, f) => {
      names.set(lines.length + 1, `${object.name}.${field} is typed`);
      lines.push(`export const typed_${o}_${f}: Typed<${objectType(object.path)}[${JSON.stringify(field)}]> = true;`);
    });
    Object.entries(object.enums).forEach(([field, values], e) => {
      names.set(lines.length + 1, `${object.name}.${field} is the enum ${values.join('|')}`);
      lines.push(
        `export const enum_${o}_${e}: Same<NonNullable<${objectType(object.path)}[${JSON.stringify(field)}]>, ${values.map((v) => JSON.stringify(v)).join(' | ')}> = true;`,
      );
    });
  });
  return { text: `${lines.join('\n')}\n`, names };
}

export function openapiTypescriptCheck(root, documentFile, scratch) {
  const dir = join(scratch, 'openapi-typescript');
  mkdirSync(dir, { recursive: true });
  const generate = spawnSync('npx', ['--yes', GENERATOR, documentFile, '--output', join(dir, 'api.ts')], {
    encoding: 'utf8',
    cwd: dir,
  });
  if (generate.status !== 0) {
    process.stdout.write(
      `FAIL ${GENERATOR}: generating types from the served document (exit ${generate.status})\n${generate.stdout}${generate.stderr}\n`,
    );
    return 1;
  }
  const { objects } = JSON.parse(readFileSync(join(root, 'test', 'support', 'spec-answer-fields.json'), 'utf8'));
  const { text, names } = checkFile(objects);
  writeFileSync(join(dir, 'check.ts'), text);
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const args = [
    tsc,
    '--noEmit',
    '--strict',
    '--target',
    'es2022',
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--skipLibCheck',
    join(dir, 'check.ts'),
  ];
  const compile = spawnSync(process.execPath, args, { encoding: 'utf8', cwd: dir });
  const failing = new Set();
  for (const match of compile.stdout.matchAll(/check\.ts\((\d+),\d+\): error/g)) failing.add(Number(match[1]));
  if (compile.status !== 0 && failing.size === 0) {
    process.stdout.write(`FAIL ${GENERATOR}: the check did not compile\n${compile.stdout}${compile.stderr}\n`);
    return 1;
  }
  for (const [line, name] of names) {
    if (failing.has(line)) process.stdout.write(`FAIL ${GENERATOR}: ${name}\n`);
  }
  const fields = objects.reduce((sum, object) => sum + object.fields.length, 0);
  if (failing.size === 0)
    process.stdout.write(
      `ok   ${GENERATOR}: all ${fields} answer fields of ${objects.length} objects typed, enums exact\n`,
    );
  return failing.size;
}
