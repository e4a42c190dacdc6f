// server.mjs: an MCP server on the TypeScript SDK protected by the SDK's
// own bearer middleware (requireBearerAuth) and protected resource
// metadata router (mcpAuthMetadataRouter), trusting the access tokens of
// one OAuth issuer, such as 'mcpcheck authserver'. It is the README's
// "configure the TS SDK" recipe, run: the JWTs are verified with jose (a
// dependency of the SDK) against the JWKS the issuer's RFC 8414 metadata
// names, for iss, aud (this server's URL), exp and nbf; the scope claim
// becomes AuthInfo.scopes. A lab peer for mcpcheck's resource-server
// checks (issue 29).
//
//   MCP_SDK_DIR=.../node_modules/@modelcontextprotocol/sdk \
//     node server.mjs --port 3000 --issuer http://127.0.0.1:9000 [--scope mcp]
//   MCP_SDK_DIR=... node server.mjs --port 3000 --mcpcheck BIN [--token-out FILE]
//
// With --mcpcheck it starts 'BIN authserver' itself and trusts it; with
// --token-out it then writes a valid Authorization value for this server
// (an hour's token of the authserver's mint API) to FILE, as the interop
// matrix's authorizationFile wants.
//
// It serves http://127.0.0.1:PORT/mcp (stateless streamable HTTP: a new
// transport per request) with one tool, echo.
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const { values: opt } = parseArgs({ options: { port: { type: 'string' }, issuer: { type: 'string' }, scope: { type: 'string', default: 'mcp' },
  mcpcheck: { type: 'string' }, 'token-out': { type: 'string' } } });
const sdk = process.env.MCP_SDK_DIR;
if (!sdk || !opt.port || !(opt.issuer || opt.mcpcheck)) {
  console.error('usage: MCP_SDK_DIR=DIR node server.mjs --port PORT (--issuer URL | --mcpcheck BIN [--token-out FILE]) [--scope S]');
  process.exit(2);
}
if (opt.mcpcheck) {
  // 'mcpcheck authserver' prints its issuer on its first line of stderr.
  const as = spawn(opt.mcpcheck, ['authserver', '--listen', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const stop = () => as.kill();
  process.on('exit', stop);
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));
  opt.issuer = await new Promise((resolve, reject) => {
    let seen = '';
    as.stderr.on('data', (b) => {
      seen += b;
      const m = /issuer (\S+)/.exec(seen);
      if (m) resolve(m[1].replace(/,$/, ''));
    });
    as.on('exit', (code) => reject(new Error(`mcpcheck authserver exited (${code}): ${seen}`)));
  });
}
const modules = path.join(sdk, '..', '..');
const load = (p) => import(pathToFileURL(path.join(sdk, 'dist/esm', p)).href);
const { McpServer } = await load('server/mcp.js');
const { StreamableHTTPServerTransport } = await load('server/streamableHttp.js');
const { requireBearerAuth } = await load('server/auth/middleware/bearerAuth.js');
const { mcpAuthMetadataRouter, getOAuthProtectedResourceMetadataUrl } = await load('server/auth/router.js');
const { InvalidTokenError } = await load('server/auth/errors.js');
const { createRemoteJWKSet, jwtVerify } = await import(pathToFileURL(path.join(modules, 'jose', 'dist', 'webapi', 'index.js')).href);
const express = (await import(pathToFileURL(path.join(modules, 'express', 'index.js')).href)).default;
const z = await import(pathToFileURL(path.join(modules, 'zod', 'index.js')).href);

const issuer = opt.issuer.replace(/\/$/, '');
const scopes = opt.scope.split(' ').filter(Boolean);
const mcpUrl = new URL(`http://127.0.0.1:${opt.port}/mcp`);

// The issuer's RFC 8414 metadata names its JWKS.
const meta = await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json();
const jwks = createRemoteJWKSet(new URL(meta.jwks_uri));

// sameResource: does the audience aud name this server? Canonical server
// URIs compare their scheme and host without regard to case (jose's
// audience option compares byte for byte), the rest exactly.
function sameResource(aud) {
  const m = /^([^:/?#]+:\/\/[^/?#]*)(.*)$/s.exec(String(aud));
  return m !== null && m[1].toLowerCase() + m[2] === mcpUrl.href;
}

const verifier = {
  async verifyAccessToken(token) {
    let payload;
    try {
      // Signature, iss, exp and nbf, then aud; any failure is an invalid
      // token (401), never a server error.
      ({ payload } = await jwtVerify(token, jwks, { issuer }));
      if (![payload.aud ?? []].flat().some(sameResource)) {
        throw new Error(`the audience ${JSON.stringify(payload.aud)} is not ${mcpUrl.href}`);
      }
    } catch (e) {
      throw new InvalidTokenError(`the token does not verify: ${e.message}`);
    }
    return {
      token,
      clientId: String(payload.client_id ?? payload.azp ?? ''),
      scopes: String(payload.scope ?? '').split(' ').filter(Boolean),
      expiresAt: payload.exp,
      resource: mcpUrl,
    };
  },
};

const app = express();
app.use(express.json());
app.use(mcpAuthMetadataRouter({ oauthMetadata: meta, resourceServerUrl: mcpUrl, scopesSupported: scopes, resourceName: 'ts-bearer-server' }));
app.all('/mcp', requireBearerAuth({ verifier, requiredScopes: scopes, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl), expectedResource: mcpUrl }), async (req, res) => {
  const server = new McpServer({ name: 'ts-bearer-server', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes its text.', inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => { transport.close(); server.close(); });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});
app.listen(Number(opt.port), '127.0.0.1', async () => {
  if (opt['token-out']) {
    const r = await fetch(meta.mcpcheck_mint_endpoint, { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ kind: 'valid', resource: mcpUrl.href, scope: scopes.join(' '), lifetime: 3600 }) });
    const { access_token: tok } = await r.json();
    writeFileSync(opt['token-out'], `Bearer ${tok}`, { mode: 0o600 });
  }
  console.error(`ts-bearer-server: ${mcpUrl.href}, trusting ${issuer}`);
});
