// @mastra/mcp as an application uses it: MCPClient with one server, list
// its tools, disconnect. node mastra.mjs --url URL | -- COMMAND...
import { load, server, bounded } from './lib.mjs';

const s = server();
const { MCPClient } = await load('@mastra/mcp');
const conf = s.url ? { url: new URL(s.url) } : { command: s.command, args: s.args };
await bounded(80000, async () => {
  const client = new MCPClient({ id: 'mcpcheck-census', servers: { mcpcheck: conf }, timeout: 60000 });
  const tools = await (client.listTools ? client.listTools() : client.getTools());
  console.log(`@mastra/mcp: ${Object.keys(tools).length} tools`);
  await client.disconnect();
});
