// mcp-remote 0.15 driven toward mcpcheck's HTTP stage by a small stdio host: node mcp-remote.mjs --url URL.
import { drive } from './bridge.mjs';

await drive('mcp-remote');
