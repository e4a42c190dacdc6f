// ts-client.mjs: a short MCP client on the TypeScript SDK
// (@modelcontextprotocol/sdk), one of the clients mcpcheck's interop runs
// check with 'mcpcheck client'. It connects, lists every tool (all pages),
// calls each once with minimal arguments, answers roots, sampling and
// elicitation requests, and exits: the generic flow of mcpcheck's client
// scenarios. The timeouts a scenario asks for in MCP_CONFORMANCE_CONTEXT
// (requestTimeoutMs, maxTotalTimeoutMs) become the SDK's request options.
//
//   node ts-client.mjs URL              streamable HTTP
//   node ts-client.mjs --stdio CMD ARGS stdio (the server command line)
//
// MCP_SDK_DIR names the directory of the @modelcontextprotocol/sdk package.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const sdkDir = process.env.MCP_SDK_DIR;
if (!sdkDir) {
  console.error('ts-client: set MCP_SDK_DIR to the directory of @modelcontextprotocol/sdk');
  process.exit(2);
}
const load = (p) => import(pathToFileURL(path.join(sdkDir, 'dist', 'esm', p)).href);
const { Client } = await load('client/index.js');
const { StdioClientTransport } = await load('client/stdio.js');
const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js');
const types = await load('types.js');

const args = process.argv.slice(2);
if (args.length === 0) {
  console.error('usage: ts-client.mjs URL | --stdio CMD [ARGS...]');
  process.exit(2);
}

const client = new Client(
  { name: 'mcpcheck-interop-ts-client', version: '1.0.0' },
  { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} } },
);
client.setRequestHandler(types.ListRootsRequestSchema, async () => ({
  roots: [{ uri: 'file:///tmp/mcpcheck-interop', name: 'interop' }],
}));
client.setRequestHandler(types.CreateMessageRequestSchema, async () => ({
  role: 'assistant',
  content: { type: 'text', text: 'hello from the TS SDK client' },
  model: 'mcpcheck-interop-model',
  stopReason: 'endTurn',
}));
client.setRequestHandler(types.ElicitRequestSchema, async (req) => {
  const schema = req.params.requestedSchema || { properties: {} };
  const content = {};
  for (const [name, prop] of Object.entries(schema.properties || {})) {
    content[name] = valueFor(prop);
  }
  return { action: 'accept', content };
});

// valueFor picks a value a property's schema accepts: its default, its first
// enum value, or its type's simplest value.
function valueFor(prop) {
  if (prop.default !== undefined) return prop.default;
  if (Array.isArray(prop.enum) && prop.enum.length > 0) return prop.enum[0];
  switch (prop.type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
  }
  return 'mcpcheck';
}

// minimalArgs fills the required properties of an inputSchema.
function minimalArgs(schema) {
  const out = {};
  for (const name of (schema && schema.required) || []) {
    out[name] = valueFor((schema.properties || {})[name] || {});
  }
  return out;
}

// callOptions turns the scenario's timeouts into the SDK's RequestOptions.
function callOptions() {
  let ctx = {};
  try {
    ctx = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}');
  } catch {
    ctx = {};
  }
  const o = {};
  if (ctx.requestTimeoutMs > 0) o.timeout = ctx.requestTimeoutMs;
  if (ctx.maxTotalTimeoutMs > 0) {
    o.maxTotalTimeout = ctx.maxTotalTimeoutMs;
    o.resetTimeoutOnProgress = true;
    o.onprogress = () => {};
  }
  return o;
}

const transport = args[0] === '--stdio'
  ? new StdioClientTransport({ command: args[1], args: args.slice(2), stderr: 'inherit' })
  : new StreamableHTTPClientTransport(new URL(args[0]));

try {
  await client.connect(transport);
  const tools = [];
  let cursor;
  for (let page = 0; page < 100; page++) {
    const res = await client.listTools(cursor ? { cursor } : {});
    tools.push(...res.tools);
    if (res.nextCursor === undefined) break;
    cursor = res.nextCursor;
  }
  for (const tool of tools) {
    try {
      await client.callTool({ name: tool.name, arguments: minimalArgs(tool.inputSchema) }, undefined, callOptions());
    } catch (e) {
      console.error(`calling ${tool.name}: ${e.message}`);
    }
  }
  await client.close();
} catch (e) {
  console.error(`ts-client: ${e.message}`);
  // Let the SDK shut the server down as it does (close stdin, SIGTERM,
  // SIGKILL) rather than exiting under it: what is judged is the SDK.
  await client.close().catch(() => {});
  process.exitCode = 1;
}
