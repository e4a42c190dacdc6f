// A small stdio host (TS SDK Client) that drives a bridge toward mcpcheck's
// HTTP stage (mcp-remote.mjs, supergateway.mjs call it with --url URL).
// The bridge is what is judged: it is the client mcpcheck's stage sees.
import { join } from 'node:path';
import { load, server, bounded } from './lib.mjs';

export async function drive(bridge) {
  const { url } = server();
  const root = process.env.CENSUS_PKG;
  const bin = {
    'mcp-remote': [join(root, 'node_modules', 'mcp-remote', 'dist', 'proxy.js'), url, '--allow-http', '--transport', 'http-only'],
    'supergateway': [join(root, 'node_modules', 'supergateway', 'dist', 'index.js'), '--streamableHttp', url, '--outputTransport', 'stdio', '--logLevel', 'none'],
  }[bridge];
  if (!bin || !url) throw new Error('usage: bridge.mjs --bridge mcp-remote|supergateway --url URL');
  const { Client } = await load('@modelcontextprotocol/sdk', './client/index.js');
  const { StdioClientTransport } = await load('@modelcontextprotocol/sdk', './client/stdio.js');
  await bounded(80000, async () => {
    const client = new Client({ name: 'mcpcheck-census-stdio-host', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: bin, env: process.env, stderr: 'inherit' }));
    const tools = await client.listTools();
    console.log(`${bridge}: ${tools.tools.length} tools`);
    await client.close();
  });
}
