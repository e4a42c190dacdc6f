#!/usr/bin/env bash
# The shell logic of the mcpcheck GitHub Action (action.yml runs it; a Go
# test, action_test.go, runs it against the reference server with the
# GitHub environment files simulated).
#
# It installs mcpcheck (the binary input, or go install of
# mcpcheck-version, or go build of the action's own checkout), runs
# "mcpcheck server" with the inputs, writes the reports into the output
# directory, appends the Markdown report to the job summary, sets the step
# outputs (exit-code, report-dir and the path of each report) and exits
# with mcpcheck's exit code.
#
# Inputs come as INPUT_* variables (see action.yml); GitHub provides
# RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and GITHUB_PATH.
set -euo pipefail

fail() { # fail CODE MESSAGE: an error annotation, then exit CODE
	echo "::error title=mcpcheck::$2"
	echo "exit-code=$1" >>"$GITHUB_OUTPUT"
	exit "$1"
}

for v in RUNNER_TEMP GITHUB_OUTPUT GITHUB_STEP_SUMMARY; do
	if [ -z "${!v:-}" ]; then
		echo "run.sh: $v is not set; run this script from action.yml (or set it, as action_test.go does)" >&2
		exit 2
	fi
done
ACTION_PATH=${ACTION_PATH:-$(cd "$(dirname "$0")/../.." && pwd)}

stdio=${INPUT_STDIO:-}
url=${INPUT_URL:-}
out=${INPUT_OUT:-}
[ -n "$out" ] || out="$RUNNER_TEMP/mcpcheck"

if [ -n "$stdio" ] && [ -n "$url" ]; then
	fail 2 "give the stdio input or the url input, not both"
fi
if [ -z "$stdio" ] && [ -z "$url" ]; then
	fail 2 "give the server to check: the stdio input (a command line) or the url input (its MCP endpoint)"
fi

# Install.
bin=${INPUT_BINARY:-}
if [ -n "$bin" ]; then
	[ -x "$bin" ] || fail 2 "the binary input $bin is not an executable file"
else
	bindir="$RUNNER_TEMP/mcpcheck-bin"
	mkdir -p "$bindir"
	bin="$bindir/mcpcheck"
	if [ -n "${INPUT_MCPCHECK_VERSION:-}" ]; then
		echo "::group::go install github.com/mcpcheck/mcpcheck/cmd/mcpcheck@$INPUT_MCPCHECK_VERSION"
		GOBIN="$bindir" go install "github.com/mcpcheck/mcpcheck/cmd/mcpcheck@$INPUT_MCPCHECK_VERSION" ||
			fail 3 "go install of mcpcheck $INPUT_MCPCHECK_VERSION failed; check the mcpcheck-version input (a tag such as v0.2.0, or latest)"
	else
		echo "::group::go build ./cmd/mcpcheck in $ACTION_PATH"
		(cd "$ACTION_PATH" && go build -o "$bin" ./cmd/mcpcheck) ||
			fail 3 "go build of mcpcheck in $ACTION_PATH failed; see the log above"
	fi
	echo "::endgroup::"
fi
# Later steps, and a stdio command line naming mcpcheck, find it on PATH.
bindir=$(cd "$(dirname "$bin")" && pwd)
export PATH="$bindir:$PATH"
if [ -n "${GITHUB_PATH:-}" ]; then
	echo "$bindir" >>"$GITHUB_PATH"
fi
"$bin" version

# Run.
formats=${INPUT_FORMATS:-json,junit,sarif,md,html}
case ",$formats," in
*,md,*) ;;
*) formats="$formats,md" ;; # the job summary is the Markdown report
esac
args=(server --format "$formats" --out "$out" --protocol "${INPUT_PROTOCOL:-all}"
	--timeout "${INPUT_TIMEOUT:-10s}" --deadline "${INPUT_DEADLINE:-30m}")
if [ -n "$stdio" ]; then
	args+=(--stdio "$stdio")
else
	args+=(--url "$url" --transport "${INPUT_TRANSPORT:-auto}")
fi
if [ -n "${INPUT_LABEL_FILTER:-}" ]; then
	args+=(--label-filter "$INPUT_LABEL_FILTER")
fi
args+=(--call-tools "${INPUT_CALL_TOOLS:-safe}")
if [ -n "${INPUT_TOOL_ARGS:-}" ]; then
	args+=(--tool-args "$INPUT_TOOL_ARGS")
fi
while IFS= read -r line; do
	line=$(echo "$line" | tr -d '[:space:]')
	case "$line" in
	'' | '#'*) continue ;;
	*:*) args+=(--header-env "$line") ;;
	*) fail 2 "headers input: \"$line\" is not NAME:ENVVAR (one header a line; the value is read from the environment variable ENVVAR)" ;;
	esac
done <<<"${INPUT_HEADERS:-}"
if [ -n "${INPUT_BASELINE:-}" ]; then
	args+=(--baseline "$INPUT_BASELINE")
fi
case "${INPUT_STRICT:-false}" in
true) args+=(--strict) ;;
false | '') ;;
*) fail 2 "strict input: \"$INPUT_STRICT\" is neither true nor false" ;;
esac
# SARIF results are located in a file of the repository: the sarif-path
# input, else the workflow file that runs the action
# (GITHUB_WORKFLOW_REF is owner/repo/.github/workflows/ci.yml@refs/...).
sarif_path=${INPUT_SARIF_PATH:-}
if [ -z "$sarif_path" ] && [ -n "${GITHUB_WORKFLOW_REF:-}" ]; then
	workflow=${GITHUB_WORKFLOW_REF%%@*}
	sarif_path=${workflow#*/*/}
fi
if [ -n "$sarif_path" ]; then
	args+=(--sarif-path "$sarif_path")
fi

mkdir -p "$out"
set +e
"$bin" "${args[@]}"
code=$?
set -e

# Report.
summary="$out/mcpcheck-server.md"
if [ -s "$summary" ]; then
	cat "$summary" >>"$GITHUB_STEP_SUMMARY"
else
	{
		echo "## mcpcheck wrote no report"
		echo
		echo "mcpcheck exited $code before writing a report; the job log says why."
	} >>"$GITHUB_STEP_SUMMARY"
fi
report_dir=$(cd "$out" && pwd)
{
	echo "exit-code=$code"
	echo "report-dir=$report_dir"
	echo "binary=$bin"
	for pair in json:json junit:junit.xml sarif:sarif markdown:md html:html; do
		name=${pair%%:*}
		file="$report_dir/mcpcheck-server.${pair#*:}"
		if [ -f "$file" ]; then
			echo "$name=$file"
		fi
	done
} >>"$GITHUB_OUTPUT"

case $code in
0) echo "mcpcheck: no unexpected failures" ;;
1) echo "::error title=mcpcheck::unexpected failures (a MUST broken) or stale baseline entries; see the job summary" ;;
2) echo "::error title=mcpcheck::usage error: check the action's inputs (the log above says which)" ;;
3) echo "::error title=mcpcheck::the server could not be reached, nothing was judged, or the harness failed; see the log above" ;;
5) echo "::error title=mcpcheck::the run was interrupted (the deadline input or a cancelled job); the reports hold what was judged" ;;
*) echo "::error title=mcpcheck::mcpcheck exited $code" ;;
esac
exit "$code"
