#!/bin/sh
# run.sh: a third-party OAuth client (the TypeScript SDK's) against
# 'mcpcheck authserver'. Starts the authserver and the reference server
# trusting it on loopback ports, runs flow.mjs, stops both, and exits with
# flow.mjs's status.
#
#   MCPCHECK=/path/to/mcpcheck MCP_SDK_DIR=/tmp/lab/npm/node_modules/@modelcontextprotocol/sdk sh run.sh
set -u
: "${MCPCHECK:?set MCPCHECK to an mcpcheck binary}" "${MCP_SDK_DIR:?set MCP_SDK_DIR to @modelcontextprotocol/sdk}"
dir=$(mktemp -d)
"$MCPCHECK" authserver --listen 127.0.0.1:0 2>"$dir/as.log" &
as=$!
i=0
while ! grep -q issuer "$dir/as.log" && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
issuer=$(sed -n 's/.*issuer \([^ ]*\) .*/\1/p' "$dir/as.log")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$MCPCHECK" reference server --http "127.0.0.1:$port" --auth-issuer "$issuer" 2>"$dir/ref.log" &
ref=$!
i=0
while ! python3 -c "import socket; socket.create_connection(('127.0.0.1',$port),1)" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
node "$(dirname "$0")/flow.mjs" "http://127.0.0.1:$port/mcp"
status=$?
kill "$ref" "$as" 2>/dev/null
wait "$ref" "$as" 2>/dev/null
rm -rf "$dir"
exit $status
