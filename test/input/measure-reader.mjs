// Throughput of the input readers against raw csv-parse and whole-file JSON.parse. Not a test:
// run by hand after `npm run build`:
//   node test/input/measure-reader.mjs [rows]
// Each contender runs in its own process (sharing one process lets one contender's JIT state
// slow the next), and rates use process CPU time, which other load on the machine disturbs less
// than wall time. Best of 5 runs per contender.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse';

const header = ['ExternalId', 'FirstName', 'LastName', 'Email', 'UserName', 'Role', 'Company', 'City', 'CountryCode', 'Labels', 'SpecialNeeds', 'DateOfBirth'];
const columns = header.map((name) => ({ name, kind: name === 'Labels' ? 'list' : 'string' }));

const contenders = {
  'raw csv-parse': async ({ csvPath }) => {
    let n = 0;
    for await (const _ of fs.createReadStream(csvPath).pipe(parse({ bom: true }))) n++;
    return n - 1;
  },
  readCsvRecords: async ({ csvPath, input }) => {
    let n = 0;
    for await (const _ of input.readCsvRecords(csvPath, { columns })) n++;
    return n;
  },
  'JSON.parse whole file': async ({ jsonPath }) => JSON.parse(fs.readFileSync(jsonPath, 'utf8')).length,
  readJsonRecords: async ({ jsonPath, input }) => {
    let n = 0;
    for await (const _ of input.readJsonRecords(jsonPath)) n++;
    return n;
  },
};

if (process.argv[2] === '--contender') {
  const [, , , name, csvPath, jsonPath, rows] = process.argv;
  const input = {
    ...(await import(new URL('../../dist/input/csv-reader.js', import.meta.url).href)),
    ...(await import(new URL('../../dist/input/json-reader.js', import.meta.url).href)),
  };
  let best = 0;
  for (let round = 0; round < 5; round++) {
    const before = process.cpuUsage();
    const count = await contenders[name]({ csvPath, jsonPath, input });
    const used = process.cpuUsage(before);
    if (count !== Number(rows)) throw new Error(`${name}: ${count} records, expected ${rows}`);
    best = Math.max(best, (count / (used.user + used.system)) * 1e6);
  }
  process.stdout.write(String(best));
} else {
  const rows = Number(process.argv[2] ?? 200000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'examctl-measure-'));
  const csvPath = path.join(dir, 'users.csv');
  const jsonPath = path.join(dir, 'users.json');
  try {
    const csv = fs.openSync(csvPath, 'w');
    const json = fs.openSync(jsonPath, 'w');
    fs.writeSync(csv, header.join(',') + '\n');
    fs.writeSync(json, '[\n');
    let csvBuf = '';
    let jsonBuf = '';
    for (let i = 0; i < rows; i++) {
      const day = String((i % 28) + 1).padStart(2, '0');
      csvBuf += `u-${i},First${i},"Last, ${i}",user${i}@example.test,user${i},Candidate,Acme Ltd,Springfield,NL,blue|green,${i % 2 ? 'yes' : ''},1990-01-${day}\n`;
      jsonBuf += `${i ? ',\n' : ''}  {"ExternalId":"u-${i}","FirstName":"First${i}","LastName":"Last, ${i}","Email":"user${i}@example.test","UserName":"user${i}","Role":"Candidate","Company":"Acme Ltd","City":"Springfield","CountryCode":"NL","Labels":["blue","green"],"SpecialNeeds":${i % 2 ? 'true' : 'false'},"DateOfBirth":"1990-01-${day}"}`;
      if (csvBuf.length > 1 << 20) { fs.writeSync(csv, csvBuf); csvBuf = ''; }
      if (jsonBuf.length > 1 << 20) { fs.writeSync(json, jsonBuf); jsonBuf = ''; }
    }
    fs.writeSync(csv, csvBuf);
    fs.writeSync(json, jsonBuf + '\n]\n');
    fs.closeSync(csv);
    fs.closeSync(json);
    const rate = {};
    for (const name of Object.keys(contenders)) {
      const script = fileURLToPath(import.meta.url);
      rate[name] = Number(execFileSync(process.execPath, [script, '--contender', name, csvPath, jsonPath, String(rows)], { encoding: 'utf8' }));
      console.log(`${name.padEnd(22)} ${rate[name].toFixed(0).padStart(8)} rows per CPU second (best of 5)`);
    }
    console.log(`readCsvRecords / raw csv-parse = ${((rate.readCsvRecords / rate['raw csv-parse']) * 100).toFixed(0)}%`);
    console.log(`readJsonRecords / JSON.parse whole file = ${((rate.readJsonRecords / rate['JSON.parse whole file']) * 100).toFixed(0)}%`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
