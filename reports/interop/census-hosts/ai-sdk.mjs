// @ai-sdk/mcp as an application uses it: createMCPClient, list the tools,
// close. node ai-sdk.mjs --url URL | -- COMMAND...
import { load, server, bounded } from './lib.mjs';

const s = server();
const mcp = await load('@ai-sdk/mcp');
const createMCPClient = mcp.createMCPClient ?? mcp.experimental_createMCPClient;
let transport;
if (s.url) {
  transport = { type: 'http', url: s.url };
} else {
  const { Experimental_StdioMCPTransport } = await load('@ai-sdk/mcp', './mcp-stdio');
  transport = new Experimental_StdioMCPTransport({ command: s.command, args: s.args });
}
await bounded(80000, async () => {
  const client = await createMCPClient({ transport });
  const tools = await client.tools();
  console.log(`@ai-sdk/mcp: ${Object.keys(tools).length} tools`);
  await client.close();
});
