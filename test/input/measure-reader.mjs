// Throughput of the input readers against raw csv-parse (not a test: run by hand after
// `npx tsc -p tsconfig.build.json`):  node test/input/measure-reader.mjs [rows]
// Generates a users CSV and JSON array under os.tmpdir(), reports best-of-5 rows/s.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse';
const { readCsvRecords, readJsonRecords } = await import(new URL('../../dist/input/index.js', import.meta.url).href);

const rows = Number(process.argv[2] ?? 200000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'examctl-measure-'));
const csvPath = path.join(dir, 'users.csv');
const jsonPath = path.join(dir, 'users.json');
const header = ['ExternalId', 'FirstName', 'LastName', 'Email', 'UserName', 'Role', 'Company', 'City', 'CountryCode', 'Labels', 'SpecialNeeds', 'DateOfBirth'];
const columns = header.map((name) => ({ name, kind: name === 'Labels' ? 'list' : 'string' }));
{
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
}

// Rounds interleave the contenders so that load from other processes hits all of them alike.
const contenders = {
  'raw csv-parse': async () => {
    let n = 0;
    for await (const _ of fs.createReadStream(csvPath).pipe(parse({ bom: true }))) n++;
    return n - 1;
  },
  readCsvRecords: async () => {
    let n = 0;
    for await (const _ of readCsvRecords(csvPath, { columns })) n++;
    return n;
  },
  readJsonRecords: async () => {
    let n = 0;
    for await (const _ of readJsonRecords(jsonPath, {})) n++;
    return n;
  },
  'JSON.parse whole file': async () => JSON.parse(fs.readFileSync(jsonPath, 'utf8')).length,
};
const rate = {};
try {
  for (let round = 0; round < 7; round++) {
    for (const [name, run] of Object.entries(contenders)) {
      const start = performance.now();
      const count = await run();
      if (count !== rows) throw new Error(`${name}: ${count} records, expected ${rows}`);
      rate[name] = Math.max(rate[name] ?? 0, (count / (performance.now() - start)) * 1000);
    }
  }
  for (const [name, best] of Object.entries(rate)) console.log(`${name.padEnd(22)} ${best.toFixed(0).padStart(8)} rows/s (best of 7)`);
  console.log(`readCsvRecords / raw csv-parse = ${((rate.readCsvRecords / rate['raw csv-parse']) * 100).toFixed(0)}%`);
  console.log(`readJsonRecords / JSON.parse whole file = ${((rate.readJsonRecords / rate['JSON.parse whole file']) * 100).toFixed(0)}%`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
