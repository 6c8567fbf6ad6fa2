// A persistent Node.js session, run inside the sandbox by the CodeExec server (see codexec_mcp/repl.py).
//
// Reads one JSON request per line, runs its code in this process's own global context (so top-level `let`,
// `const`, functions and `require`d modules persist between requests, as in the node prompt), prints the value
// of the last expression, then writes the end marker with a status on stdout and stderr. Code that uses
// top-level `await` runs inside an async function instead: its declarations do not persist, and only a lone
// expression shows its value.
'use strict';

const path = require('node:path');
const readline = require('node:readline');
const util = require('node:util');
const vm = require('node:vm');
const { createRequire } = require('node:module');

globalThis.require = createRequire(path.join(process.cwd(), '[session]'));

const TIMED_OUT = Symbol('timed out');

function withTimeout(promise, ms) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(TIMED_OUT), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

// The frames below the user's code are this driver's and Node's own: not the user's business.
function userStack(err) {
  const text = String((err && err.stack) || err);
  return text
    .split('\n')
    .filter((line) => !/^\s+at .*node:/.test(line) && !line.includes(__filename))
    .join('\n');
}

function evaluate(code, ms) {
  const options = { filename: 'session', timeout: ms, displayErrors: false };
  try {
    return vm.runInThisContext(code, options);
  } catch (err) {
    if (!(err instanceof SyntaxError && /await/.test(String(err.message)))) throw err;
  }
  // Top-level await: a single expression keeps its value; statements run as the body of an async function.
  try {
    const expression = code.trim().replace(/;$/, '');
    return vm.runInThisContext(`(async () => { return (\n${expression}\n) })()`, options);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    return vm.runInThisContext(`(async () => {\n${code}\n})()`, options);
  }
}

async function run(request) {
  const status = { ok: true };
  const ms = Math.max(1, Math.round(Number(request.timeout) * 1000));
  try {
    let value = evaluate(request.code, ms);
    if (value && typeof value.then === 'function') {
      value = await withTimeout(value, ms);
    }
    if (value !== undefined) {
      process.stdout.write(util.inspect(value, { depth: 4 }) + '\n');
    }
  } catch (err) {
    status.ok = false;
    if (err === TIMED_OUT || (err && err.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT')) {
      status.timed_out = true;
      process.stderr.write(`TimeoutError: the code ran longer than ${request.timeout} s and was interrupted\n`);
    } else {
      process.stderr.write(userStack(err) + '\n');
    }
  }
  process.stdout.write('\n' + request.marker + JSON.stringify(status) + '\n');
  process.stderr.write('\n' + request.marker + '\n');
}

const queue = [];
let busy = false;
let closed = false;

async function drain() {
  if (busy) return;
  busy = true;
  while (queue.length > 0) {
    await run(queue.shift());
  }
  busy = false;
  if (closed) process.exit(0);
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  queue.push(JSON.parse(line));
  drain();
});
lines.on('close', () => {
  closed = true;
  if (!busy) process.exit(0);
});
