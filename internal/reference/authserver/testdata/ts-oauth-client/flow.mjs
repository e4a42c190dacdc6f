// flow.mjs: the TypeScript SDK's OAuth client (auth() of
// @modelcontextprotocol/sdk/client/auth) completes an authorization code +
// PKCE flow against an mcpcheck authserver, for an MCP server that trusts
// it, then calls the server with the token it got. A third-party client
// for 'mcpcheck authserver' (issue 29); see run.sh.
//
//   MCP_SDK_DIR=.../node_modules/@modelcontextprotocol/sdk node flow.mjs MCP_URL
//
// It prints one JSON line saying what each step saw and exits 0 only when
// the flow ended with a token the MCP server accepted.
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const sdk = process.env.MCP_SDK_DIR;
const serverUrl = process.argv[2];
if (!sdk || !serverUrl) {
  console.error('usage: MCP_SDK_DIR=DIR node flow.mjs MCP_URL');
  process.exit(2);
}
const load = (p) => import(pathToFileURL(path.join(sdk, 'dist/esm', p)).href);
const { auth } = await load('client/auth.js');
const { Client } = await load('client/index.js');
const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js');

const redirect = 'http://127.0.0.1/ts-oauth-client/callback';
const out = { steps: [] };
const store = {};
let authorizationUrl;
const provider = {
  get redirectUrl() { return redirect; },
  get clientMetadata() {
    return { client_name: 'mcpcheck ts-oauth-client', redirect_uris: [redirect], token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] };
  },
  state() { return store.state = 'ts-' + Math.random().toString(36).slice(2); },
  clientInformation() { return store.client; },
  saveClientInformation(c) { store.client = c; out.steps.push({ registered: c.client_id }); },
  tokens() { return store.tokens; },
  saveTokens(t) { store.tokens = t; },
  redirectToAuthorization(u) { authorizationUrl = u; },
  saveCodeVerifier(v) { store.verifier = v; },
  codeVerifier() { return store.verifier; },
};

function fail(why) {
  out.ok = false;
  out.error = String(why);
  console.log(JSON.stringify(out));
  process.exit(1);
}

try {
  const first = await auth(provider, { serverUrl });
  out.steps.push({ auth: first });
  if (first !== 'REDIRECT' || !authorizationUrl) fail('auth() did not ask for a redirect: ' + first);
  const q = authorizationUrl.searchParams;
  out.steps.push({ authorize: { code_challenge_method: q.get('code_challenge_method'), resource: q.get('resource'), scope: q.get('scope'), state: !!q.get('state') } });
  const r = await fetch(authorizationUrl, { redirect: 'manual' });
  const loc = r.headers.get('location');
  if (r.status < 300 || r.status >= 400 || !loc) fail(`the authorization endpoint answered ${r.status} without a redirect: ${await r.text()}`);
  const back = new URL(loc);
  const code = back.searchParams.get('code');
  out.steps.push({ redirected: { status: r.status, to: back.origin + back.pathname, code: !!code, stateEchoed: back.searchParams.get('state') === store.state, iss: back.searchParams.get('iss') } });
  if (!code) fail('no code in ' + loc);
  const second = await auth(provider, { serverUrl, authorizationCode: code });
  out.steps.push({ auth: second });
  if (second !== 'AUTHORIZED' || !store.tokens?.access_token) fail('no tokens: ' + second);
  const claims = JSON.parse(Buffer.from(store.tokens.access_token.split('.')[1], 'base64url').toString());
  out.steps.push({ token: { token_type: store.tokens.token_type, expires_in: store.tokens.expires_in, refresh_token: !!store.tokens.refresh_token, iss: claims.iss, aud: claims.aud, scope: claims.scope } });
  const client = new Client({ name: 'mcpcheck ts-oauth-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }));
  const tools = await client.listTools();
  out.steps.push({ mcp: { server: client.getServerVersion()?.name, protocolVersion: client.getNegotiatedProtocolVersion?.(), tools: tools.tools.length } });
  await client.close();
  out.ok = true;
  console.log(JSON.stringify(out));
} catch (e) {
  fail(e?.stack || e);
}
