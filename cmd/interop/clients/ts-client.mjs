// ts-client.mjs: a short MCP client on the TypeScript SDK
// (@modelcontextprotocol/sdk), one of the clients mcpcheck's interop runs
// check with 'mcpcheck client'. It connects, lists every tool (all pages),
// calls each once with minimal arguments, answers roots, sampling and
// elicitation requests, and exits: the generic flow of mcpcheck's client
// scenarios. The timeouts a scenario asks for in MCP_CONFORMANCE_CONTEXT
// (requestTimeoutMs, maxTotalTimeoutMs) become the SDK's request options.
//
//   node ts-client.mjs [--fault NAME] URL              streamable HTTP
//   node ts-client.mjs [--fault NAME] --stdio CMD ARGS stdio (the server command line)
//
// MCP_SDK_DIR names the directory of the @modelcontextprotocol/sdk package.
//
// With --fault NAME (or MCP_CLIENT_FAULT) the client breaks one client-side
// rule on the wire (FAULTS below; --fault list prints them), so a test can
// hold mcpcheck to catching it on that rule. What the SDK will not let a
// caller break is broken around it: in the transport's send, and over
// HTTP in the fetch it is given. The SDK speaks no 2026-07-28, so the
// faults of that version (batched requests, per-request capabilities,
// server/discover) have no counterpart here.
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

// FAULTS are the rules --fault breaks, by name, with what goes out. The
// names match the reference client's fault switches for the same rule.
const FAULTS = {
  'elicit-content-object': "an accepted elicitation's content values are objects",
  'roots-undeclared': 'initialize declares no roots capability, yet roots/list is answered',
  'sampling-undeclared': 'initialize declares no sampling capability, yet sampling/createMessage is answered',
  'elicitation-undeclared': 'initialize declares no elicitation capability, yet elicitation/create is answered',
  'offer-older-version': 'initialize offers 2024-11-05, older than the latest version the SDK implements',
  'cancel-initialize': 'a notifications/cancelled for initialize goes out while it is unanswered',
  'request-before-initialize-result': 'a tools/list goes out while initialize is unanswered',
  'initialize-no-client-info': 'initialize carries no clientInfo',
  'initialize-no-protocol-version': 'initialize carries no protocolVersion',
  'initialize-no-capabilities': 'initialize carries no capabilities',
  'ping-result-meta-string': 'ping is answered with a result whose _meta is a string',
};

const args = process.argv.slice(2);
let fault = process.env.MCP_CLIENT_FAULT || '';
if (args[0] === '--fault') {
  fault = args[1] || '';
  args.splice(0, 2);
}
if (fault === 'list') {
  for (const [name, what] of Object.entries(FAULTS)) console.log(`${name.padEnd(34)} ${what}`);
  process.exit(0);
}
if (fault !== '' && !(fault in FAULTS)) {
  console.error(`ts-client: unknown fault ${JSON.stringify(fault)}; --fault list prints the known ones`);
  process.exit(2);
}
if (args.length === 0) {
  console.error('usage: ts-client.mjs [--fault NAME] URL | [--fault NAME] --stdio CMD [ARGS...]');
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
if (fault === 'ping-result-meta-string') {
  client.removeRequestHandler('ping');
  client.setRequestHandler(types.PingRequestSchema, async () => ({ _meta: 'mcpcheck' }));
}

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

// initializeSent resolves once the initialize request has gone out: over
// stdio when its line is written, over HTTP when fetch has read its whole
// body (the body is a stream that tells).
let initializeGone;
const initializeSent = new Promise((resolve) => { initializeGone = resolve; });

// fetchNoting is the HTTP transport's fetch: the initialize POST's body is
// a stream that resolves initializeSent once it has been read to its end.
function fetchNoting(url, init) {
  if (init && typeof init.body === 'string' && init.body.includes('"method":"initialize"')) {
    const bytes = new TextEncoder().encode(init.body);
    let given = false;
    const body = new ReadableStream({
      pull(controller) {
        if (!given) {
          given = true;
          controller.enqueue(bytes);
          return;
        }
        controller.close();
        initializeGone();
      },
    });
    return fetch(url, { ...init, body, duplex: 'half' });
  }
  return fetch(url, init);
}

const transport = args[0] === '--stdio'
  ? new StdioClientTransport({ command: args[1], args: args.slice(2), stderr: 'inherit' })
  : new StreamableHTTPClientTransport(new URL(args[0]), fault ? { fetch: fetchNoting } : undefined);
const isHTTP = args[0] !== '--stdio';

// The fault's changes on the way out, around the SDK's send.
if (fault) {
  const send = transport.send.bind(transport);
  const drop = { 'roots-undeclared': 'roots', 'sampling-undeclared': 'sampling', 'elicitation-undeclared': 'elicitation' }[fault];
  transport.send = async (message, options) => {
    if (fault === 'elicit-content-object' && message.result && message.result.action === 'accept') {
      // The SDK checks an accepted form against the requested schema
      // before it answers, so the content is broken on the way out.
      const content = {};
      for (const name of Object.keys(message.result.content || {})) content[name] = { x: true };
      if (Object.keys(content).length === 0) content.x = { x: true };
      return send({ ...message, result: { ...message.result, content } }, options);
    }
    if (message.method !== 'initialize') return send(message, options);
    const params = { ...message.params, capabilities: { ...message.params.capabilities } };
    if (drop) delete params.capabilities[drop];
    if (fault === 'initialize-no-client-info') delete params.clientInfo;
    if (fault === 'initialize-no-protocol-version') delete params.protocolVersion;
    if (fault === 'initialize-no-capabilities') delete params.capabilities;
    if (fault === 'offer-older-version') params.protocolVersion = '2024-11-05';
    const sent = send({ ...message, params }, options);
    if (fault !== 'cancel-initialize' && fault !== 'request-before-initialize-result') return sent;
    if (!isHTTP) {
      await sent;
      initializeGone();
    }
    await Promise.race([initializeSent, sent]);
    const extra = fault === 'cancel-initialize'
      ? { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: message.id, reason: 'mcpcheck fault cancel-initialize' } }
      : { jsonrpc: '2.0', id: 'early-tools-list', method: 'tools/list' };
    // Its answer does not matter: what is judged is that it went out
    // before the initialize result.
    send(extra).catch((e) => console.error(`ts-client: the early ${extra.method}: ${e.message}`));
    return sent;
  };
}

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
