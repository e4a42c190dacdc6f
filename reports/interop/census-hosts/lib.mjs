// Shared by the census host drivers (cmd/interop drive node-script): load
// a package from the npm prefix the census installed it in ($CENSUS_PKG),
// and read the server the driver was given (--url URL, or -- COMMAND...).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

function pick(target) {
  if (typeof target === 'string') return target;
  if (Array.isArray(target)) return pick(target[0]);
  if (target && typeof target === 'object') {
    for (const c of ['import', 'node', 'module', 'default', 'require']) {
      if (c in target) {
        const got = pick(target[c]);
        if (got) return got;
      }
    }
  }
  return undefined;
}

// load imports NAME (or NAME/SUBPATH) as installed under $CENSUS_PKG.
export async function load(name, subpath = '.') {
  const root = process.env.CENSUS_PKG;
  if (!root) throw new Error('CENSUS_PKG is not set');
  const dir = join(root, 'node_modules', name);
  const pj = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  let file;
  if (pj.exports) {
    const exp = typeof pj.exports === 'string' || !Object.keys(pj.exports).some((k) => k.startsWith('.'))
      ? { '.': pj.exports } : pj.exports;
    file = pick(exp[subpath]);
    for (const key of Object.keys(exp)) {
      const star = key.indexOf('*');
      if (file || star < 0) continue;
      const [pre, post] = [key.slice(0, star), key.slice(star + 1)];
      if (subpath.startsWith(pre) && subpath.endsWith(post)) {
        const target = pick(exp[key]);
        if (target) file = target.replace('*', subpath.slice(pre.length, subpath.length - post.length));
      }
    }
  }
  if (!file && subpath === '.') file = pj.module || pj.main || 'index.js';
  if (!file) throw new Error(`${name} exports no ${subpath}`);
  return import(pathToFileURL(join(dir, file)).href);
}

// server returns {url} or {command, args} from the command line.
export function server(argv = process.argv.slice(2)) {
  const i = argv.indexOf('--url');
  if (i >= 0) return { url: argv[i + 1] };
  const dd = argv.indexOf('--');
  const cmd = dd >= 0 ? argv.slice(dd + 1) : argv;
  if (cmd.length === 0) throw new Error('no server: give --url URL or -- COMMAND...');
  return { command: cmd[0], args: cmd.slice(1) };
}

// bounded ends the process if fn has not settled within ms.
export async function bounded(ms, fn) {
  const t = setTimeout(() => { console.error(`census driver: no end within ${ms} ms`); process.exit(3); }, ms);
  try {
    await fn();
  } finally {
    clearTimeout(t);
  }
}
