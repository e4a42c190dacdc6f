// supergateway (streamable HTTP to stdio) driven toward mcpcheck's HTTP stage by a small stdio host: node supergateway.mjs --url URL.
import { drive } from './bridge.mjs';

await drive('supergateway');
