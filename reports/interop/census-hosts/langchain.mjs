// @langchain/mcp-adapters as an application uses it: MultiServerMCPClient
// with one server, load its tools, close. node langchain.mjs --url URL | -- COMMAND...
import { load, server, bounded } from './lib.mjs';

const s = server();
const { MultiServerMCPClient } = await load('@langchain/mcp-adapters');
const conf = s.url ? { transport: 'http', url: s.url } : { transport: 'stdio', command: s.command, args: s.args };
await bounded(80000, async () => {
  const client = new MultiServerMCPClient({ mcpServers: { mcpcheck: conf }, throwOnLoadError: true });
  const tools = await client.getTools();
  console.log(`@langchain/mcp-adapters: ${tools.length} tools`);
  await client.close();
});
