// start.mjs: runs the TypeScript SDK's own OAuth example server
// (dist/esm/examples/server/simpleStreamableHttp.js --oauth --oauth-strict:
// an MCP server at http://localhost:PORT/mcp behind requireBearerAuth,
// with its own demo authorization server, demoInMemoryOAuthProvider, on a
// second port, whose opaque tokens it checks by introspection) as a lab
// peer of mcpcheck's resource-server checks (issue 29). It trusts no
// issuer but its own, so mcpcheck cannot mint tokens for it: the checks
// that need a token it accepts are untestable; those about the 401
// challenge, the protected resource metadata and refusing a token it did
// not issue are judged.
//
//   MCP_SDK_DIR=.../node_modules/@modelcontextprotocol/sdk \
//     node start.mjs --port PORT [--token-out FILE] [--preload FILE.cjs]
//
// It picks a free loopback port for the demo authorization server, starts
// the example (with --preload, a Node preload keeping every listen() on
// 127.0.0.1, as the example binds every interface), and with --token-out
// gets a token the way a client would: it registers a public client
// (RFC 7591), authorizes with PKCE S256 for the resource
// http://localhost:PORT/mcp (the demo consents at once), redeems the code,
// and writes 'Bearer TOKEN' to FILE. It prints one line when the server is
// ready and ends with the example (SIGINT and SIGTERM end both).
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values: opt } = parseArgs({ options: { port: { type: 'string' }, 'token-out': { type: 'string' }, preload: { type: 'string' } } });
const sdk = process.env.MCP_SDK_DIR;
if (!sdk || !opt.port) {
  console.error('usage: MCP_SDK_DIR=DIR node start.mjs --port PORT [--token-out FILE] [--preload FILE.cjs]');
  process.exit(2);
}

// A free loopback port for the demo authorization server.
const authPort = await new Promise((resolve, reject) => {
  const s = net.createServer();
  s.on('error', reject);
  s.listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});

const example = path.join(sdk, 'dist', 'esm', 'examples', 'server', 'simpleStreamableHttp.js');
// --unhandled-rejections=warn: the example's task demo
// (collect-user-info-task) stores a result for a task that expired when
// the elicitation it sent is not answered within 60 s, from a promise no
// one awaits; by default that ends the process mid-run (a defect of the
// example, not of its authorization), which would leave every later check
// facing a dead server.
const nodeArgs = ['--unhandled-rejections=warn', ...(opt.preload ? ['--require', opt.preload] : []), example];
const child = spawn(process.execPath, [...nodeArgs, '--oauth', '--oauth-strict'], {
  env: { ...process.env, MCP_PORT: opt.port, MCP_AUTH_PORT: String(authPort) },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const stop = () => child.kill('SIGTERM');
process.on('exit', stop);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));
child.on('exit', (code, sig) => {
  console.error(`ts-oauth-example: the example server exited (${code ?? sig})`);
  process.exit(code ?? 1);
});

// Both servers print a line once they listen.
await new Promise((resolve, reject) => {
  let seen = '';
  const timer = setTimeout(() => reject(new Error(`the example did not listen within 60 s: ${seen}`)), 60000);
  child.stdout.on('data', (b) => {
    seen += b;
    process.stderr.write(b);
    if (/MCP Streamable HTTP Server listening/.test(seen) && /OAuth Authorization Server listening/.test(seen)) {
      clearTimeout(timer);
      resolve();
    }
  });
}).catch((e) => {
  console.error(`ts-oauth-example: ${e.message}`);
  process.exit(1);
});
child.stdout.resume();

const mcpURL = `http://localhost:${opt.port}/mcp`;
const asURL = `http://localhost:${authPort}`;

if (opt['token-out']) {
  try {
    writeFileSync(opt['token-out'], 'Bearer ' + (await token()), { mode: 0o600 });
  } catch (e) {
    console.error(`ts-oauth-example: no token from the example's authorization server: ${e.message}`);
    process.exit(1);
  }
}
console.error(`ts-oauth-example: ${mcpURL}, its own authorization server ${asURL}`);

// token runs the authorization code flow with PKCE at the demo server.
async function token() {
  const bounded = (ms) => AbortSignal.timeout(ms);
  const redirect = 'http://localhost:1/callback';
  const reg = await fetch(`${asURL}/register`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, signal: bounded(10000),
    body: JSON.stringify({ client_name: 'mcpcheck interop', redirect_uris: [redirect], token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'], response_types: ['code'] }),
  });
  if (!reg.ok) throw new Error(`register: HTTP ${reg.status} ${await reg.text()}`);
  const client = await reg.json();
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(8).toString('hex');
  const q = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: redirect, code_challenge: challenge,
    code_challenge_method: 'S256', state, scope: 'mcp:tools', resource: mcpURL });
  const authz = await fetch(`${asURL}/authorize?${q}`, { redirect: 'manual', signal: bounded(10000) });
  const loc = authz.headers.get('location');
  if (!loc) throw new Error(`authorize: HTTP ${authz.status}, no redirect: ${await authz.text()}`);
  const back = new URL(loc);
  if (back.searchParams.get('state') !== state || !back.searchParams.get('code')) throw new Error(`authorize: redirected to ${loc}`);
  const form = new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code'), redirect_uri: redirect,
    client_id: client.client_id, code_verifier: verifier, resource: mcpURL });
  const tok = await fetch(`${asURL}/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form, signal: bounded(10000) });
  if (!tok.ok) throw new Error(`token: HTTP ${tok.status} ${await tok.text()}`);
  const t = await tok.json();
  if (!t.access_token) throw new Error('token: no access_token');
  return t.access_token;
}
