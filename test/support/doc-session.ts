import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, PINNED_NOW } from './cli.js';

/**
 * Runs the shell sessions a document shows, so that its outputs cannot drift from the tool.
 *
 * The format (docs/tutorial.md): a ```console block holds `$ command` lines, each followed by
 * the output it prints (stdout and stderr as a terminal interleaves them; a command continued
 * with a trailing `\` goes on after the next line). A line `...` in an output matches any number
 * of lines. An HTML comment before a block steers it:
 *   <!-- doc-test: skip (why) -->         the block is not run (installing, a prompt answered by hand)
 *   <!-- doc-test: background port=N -->  its one command keeps running (a server): started with
 *                                          port 0, compared once it printed as many lines as shown;
 *                                          later commands get its real port where they say N
 *   <!-- doc-test: do NAME -->            the test does what the text asks the reader to do by hand
 *                                          (fill a spreadsheet), with its handler NAME, before the next block
 */

export interface DocCommand {
  command: string;
  expected: string[];
  /** 1-based line of the `$` in the document, for messages. */
  line: number;
}

export type DocStep =
  | { kind: 'run'; commands: DocCommand[] }
  | { kind: 'background'; port: number; command: DocCommand }
  | { kind: 'do'; name: string; line: number };

/** The steps of a document, in order. */
export function docSteps(markdown: string): DocStep[] {
  const lines = markdown.split('\n');
  const steps: DocStep[] = [];
  let directive: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    const comment = /^<!-- doc-test: (.+?) -->$/.exec(text.trim());
    if (comment) {
      const [verb, ...rest] = comment[1]!.split(/\s+/);
      if (verb === 'do') steps.push({ kind: 'do', name: rest.join(' '), line: i + 1 });
      else directive = comment[1]!;
      continue;
    }
    if (text !== '```console') continue;
    const body: { text: string; line: number }[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push({ text: lines[i]!, line: i + 1 });
    const commands = sessionCommands(body);
    const steer = directive;
    directive = undefined;
    if (steer !== undefined && /^skip\b/.test(steer)) continue;
    const background = steer === undefined ? null : /^background port=(\d+)$/.exec(steer);
    if (steer !== undefined && background === null)
      throw new Error(`unknown doc-test directive "${steer}" before line ${body[0]?.line ?? i}`);
    if (background) {
      if (commands.length !== 1) throw new Error(`a background block holds one command (line ${body[0]?.line})`);
      steps.push({ kind: 'background', port: Number(background[1]), command: commands[0]! });
    } else steps.push({ kind: 'run', commands });
  }
  return steps;
}

function sessionCommands(body: readonly { text: string; line: number }[]): DocCommand[] {
  const commands: DocCommand[] = [];
  for (let k = 0; k < body.length; k++) {
    const { text, line } = body[k]!;
    if (text.startsWith('$ ')) {
      let command = text.slice(2);
      while (command.endsWith('\\') && k + 1 < body.length) command = `${command}\n${body[++k]!.text}`;
      commands.push({ command: stripComment(command), expected: [], line });
    } else {
      const current = commands.at(-1);
      if (current === undefined) throw new Error(`output before any command at line ${line}`);
      current.expected.push(text);
    }
  }
  return commands;
}

/** `cmd   # says why` -> `cmd`: a trailing comment is for the reader (never inside quotes here). */
function stripComment(command: string): string {
  return command.replace(/\s+#\s[^'"\n]*$/, '');
}

/** Does `actual` read as `expected`, where an expected `...` line stands for any lines? */
export function matchesOutput(expected: readonly string[], actual: readonly string[]): boolean {
  const at = (e: number, a: number): boolean => {
    if (e === expected.length) return a === actual.length;
    if (expected[e]!.trim() === '...') {
      for (let skip = a; skip <= actual.length; skip++) if (at(e + 1, skip)) return true;
      return false;
    }
    return a < actual.length && expected[e] === actual[a] && at(e + 1, a + 1);
  };
  return at(0, 0);
}

export interface SessionOptions {
  /** The directory the session starts in. */
  cwd: string;
  /** HOME of the session (its config and run journals live under it). */
  home: string;
  /** Real prefixes -> what the document shows instead (longest first). */
  paths: [string, string][];
}

/**
 * A shell session: `examctl` on PATH is this checkout's bin/examctl, HOME private, the engine
 * clock pinned, the zone UTC, no terminal and no CI (the plain summary line, no prompts).
 */
export class DocSession {
  private cwd: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly ports = new Map<number, number>();
  private readonly background: ChildProcess[] = [];

  constructor(private readonly options: SessionOptions) {
    this.cwd = options.cwd;
    const binDir = join(options.home, '.doc-test-bin');
    mkdirSync(binDir, { recursive: true });
    symlinkSync(BIN, join(binDir, 'examctl'));
    this.env = {
      PATH: `${binDir}:${process.env.PATH ?? ''}`,
      HOME: options.home,
      EXAMCTL_NOW: PINNED_NOW,
      LANG: 'C.UTF-8',
      TZ: 'UTC',
    };
  }

  get directory(): string {
    return this.cwd;
  }

  /** Runs one command as `sh` would; returns its output lines, normalised. */
  async run(command: string): Promise<string[]> {
    const cwdFile = join(this.options.home, '.doc-test-cwd');
    const script = `exec 2>&1\n${this.withPorts(command)}\nstatus=$?\npwd > '${cwdFile}'\nexit $status\n`;
    const child = spawn('sh', ['-c', script], { cwd: this.cwd, env: this.env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    await new Promise((resolve) => child.on('close', resolve));
    this.cwd = readFileSync(cwdFile, 'utf8').trim();
    return this.normalise(out);
  }

  /** Starts a server with port 0; resolves with its first `lines` output lines once printed. */
  async start(command: string, documentedPort: number, lines: number): Promise<string[]> {
    const started = command.replace(new RegExp(`--port ${documentedPort}\\b`), '--port 0');
    const child = spawn('sh', ['-c', `exec 2>&1\nexec ${started}`], {
      cwd: this.cwd,
      env: this.env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.background.push(child);
    let out = '';
    const printed = await new Promise<string>((resolve, reject) => {
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        if (out.split('\n').length > lines) resolve(out);
      });
      child.on('close', () => reject(new Error(`"${command}" ended before printing ${lines} lines:\n${out}`)));
    });
    const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(printed);
    if (port === null) throw new Error(`"${command}" did not say where it listens:\n${printed}`);
    this.ports.set(documentedPort, Number(port[1]));
    return this.normalise(printed).slice(0, lines);
  }

  async close(): Promise<void> {
    await Promise.all(
      this.background.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const closed = new Promise((resolve) => child.on('close', resolve));
        child.kill('SIGTERM');
        await closed;
      }),
    );
  }

  private withPorts(command: string): string {
    let out = command;
    for (const [documented, real] of this.ports) out = out.replaceAll(`127.0.0.1:${documented}`, `127.0.0.1:${real}`);
    return out;
  }

  private normalise(output: string): string[] {
    // A terminal shows CRLF (CSV files examctl writes end lines so) as it shows LF.
    let text = output.replaceAll('\r\n', '\n');
    for (const [real, shown] of [...this.options.paths].sort(([a], [b]) => b.length - a.length))
      text = text.replaceAll(real, shown);
    for (const [documented, real] of this.ports) text = text.replaceAll(`127.0.0.1:${real}`, `127.0.0.1:${documented}`);
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    return lines.map(normaliseVarying);
  }
}

/** What differs from run to run, in the document and in the output alike: run ids, durations, probe ids. */
export function normaliseVarying(line: string): string {
  return (
    line
      .replace(/\b\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{4}\b/g, '<run id>')
      .replace(/\b\d+ ms\b/g, '<n> ms')
      .replace(/\bexamctl-doctor-[0-9a-f]+\b/g, 'examctl-doctor-<id>')
      .replace(/[+-]\d+ s from ours/g, '<n> s from ours')
      // A sync memory's directory is named by a digest of its target, whose address a session chooses.
      .replace(/\/synced\/[0-9a-f]{16}\b/g, '/synced/<target digest>')
  );
}
