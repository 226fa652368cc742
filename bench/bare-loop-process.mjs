// The bare undici loop of remote-bench.mjs started as a process of its own, as the CLI is: its
// start-up and JIT warm-up are in its figures, as they are in the CLI's (cold against cold).
// Spawned by spawnedBareLoop with the CPU probe preloaded:  node bare-loop-process.mjs <url> <token> <users> <concurrency> <prefix>
import { bareLoop } from './remote-bench.mjs';

const [url, token, users, concurrency, prefix] = process.argv.slice(2);
await bareLoop({ url, token }, Number(users), Number(concurrency), prefix);
