/**
 * The layer rules of src/ (docs/architecture.md, "The rooms"): each room imports only the rooms it
 * names here, every one of them below it, so data flows one way: input reader -> domain
 * validation -> target -> run report -> renderer. Run by `npm test` (`npm run layers`); a
 * violation fails it with the rule's name. The two root files (defaults.ts, version.ts) import
 * nothing and may be imported by any room.
 */
const MAY_IMPORT = {
  system: [],
  domain: [],
  port: ['domain'],
  formats: ['domain', 'system'],
  input: ['domain', 'formats', 'system'],
  report: ['domain', 'port', 'formats', 'input', 'system'],
  engine: ['domain', 'port', 'input', 'system'],
  api: ['domain', 'port', 'formats', 'system'],
  runs: ['domain', 'input', 'report', 'system'],
  terminal: ['domain', 'port', 'formats', 'report', 'system'],
  flags: ['domain', 'system'],
  context: ['domain', 'port', 'formats', 'input', 'report', 'engine', 'api', 'runs', 'terminal', 'flags', 'system'],
  pipeline: ['domain', 'port', 'formats', 'input', 'report', 'api', 'runs', 'terminal', 'flags', 'context', 'system'],
  sync: ['domain', 'port', 'formats', 'input', 'report', 'runs', 'flags', 'context', 'pipeline', 'system'],
  server: ['domain', 'port', 'formats', 'report', 'engine', 'api', 'system'],
  cli: ['domain', 'port', 'formats', 'input', 'report', 'engine', 'api', 'runs', 'terminal', 'flags', 'context', 'pipeline', 'sync', 'server', 'system'],
};

const ROOMS = Object.keys(MAY_IMPORT);
const rooms = (names) => `^src/(${names.join('|')})/`;
/** The only files at src/ root: facts every room may read. A new one is no room's and fails. */
const ROOT_FILES = '^src/(defaults|version)\\.ts$';

module.exports = {
  forbidden: [
    ...ROOMS.map((room) => ({
      name: `room-${room}`,
      comment: `src/${room}/ may import only ${MAY_IMPORT[room].length === 0 ? 'nothing of src/ but itself and the root files' : MAY_IMPORT[room].map((each) => `src/${each}/`).join(', ')} (docs/architecture.md, "The rooms")`,
      severity: 'error',
      from: { path: `^src/${room}/` },
      to: { path: '^src/', pathNot: [`^src/${room}/`, ROOT_FILES, ...(MAY_IMPORT[room].length === 0 ? [] : [rooms(MAY_IMPORT[room])])] },
    })),
    {
      name: 'no-room-outside-the-plan',
      comment: 'a folder of src/ that is no room of the plan: add it to MAY_IMPORT, with what it may import, and to docs/architecture.md',
      severity: 'error',
      from: { path: '^src/', pathNot: [rooms(ROOMS), ROOT_FILES] },
      to: {},
    },
    {
      name: 'no-import-outside-the-plan',
      comment: 'only the rooms of the plan and the two root files (defaults.ts, version.ts) are imported: a new file at src/ root or a new folder is no room',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: [rooms(ROOMS), ROOT_FILES] },
    },
    {
      name: 'no-orphan-outside-the-plan',
      comment: 'a file of src/ outside the rooms and the two root files, even one that imports nothing and nothing imports',
      severity: 'error',
      from: { path: '^src/', pathNot: [rooms(ROOMS), ROOT_FILES], orphan: true },
      to: {},
    },
    {
      name: 'root-files-import-nothing',
      comment: 'the files at src/ root (defaults.ts, version.ts) are facts every room may read: they import nothing of src/',
      severity: 'error',
      from: { path: '^src/[^/]+\\.ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'no-circular',
      comment: 'no two files import each other, directly or around a circle (type imports and lazy import() included)',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      comment: 'src/domain/ holds rules only: no file system, network, process, console, prompt or terminal library',
      severity: 'error',
      from: { path: '^src/domain/' },
      // Pure libraries only: zod (schemas) and ipaddr.js (address syntax).
      to: { dependencyTypes: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'], pathNot: '(^|/)node_modules/(zod|ipaddr\\.js)/' },
    },
    {
      name: 'undici-public-api-only',
      comment: 'undici through its public entry point only, never lib/ internals',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: 'node_modules/undici/lib/' },
    },
  ],
  options: {
    // A checkout whose node_modules is a link (the Node tier's scratch copy) resolves packages outside it: matched anywhere in the path.
    doNotFollow: { path: '(^|/)node_modules/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^dist/' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
  },
};
