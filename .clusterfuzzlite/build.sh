#!/bin/bash -eu
# Builds every native Go fuzz target of mcpcheck as a libFuzzer binary in
# $OUT, the standard OSS-Fuzz way (compile_native_go_fuzzer, which builds
# the target with go-118-fuzz-build and links it with $LIB_FUZZING_ENGINE),
# each with its seed corpus: $OUT/<name>_seed_corpus.zip holds the target's
# f.Add seeds and its testdata/fuzz/<Target> files, encoded as the
# libFuzzer build decodes them (cmd/fuzzseeds).
#
# ClusterFuzzLite runs it in the image of .clusterfuzzlite/Dockerfile
# (.github/workflows/cflite.yml); .clusterfuzzlite/local.sh runs it without
# Docker (make fuzz-libfuzzer). The list below must name every func
# FuzzXxx(f *testing.F) of the module: the root package's
# TestClusterFuzzLiteBuildsEveryTarget checks it does. Each target's name
# must appear in one .go file of its package only (compile_native_go_fuzzer
# finds the target's file by it).

# The go-118-fuzz-build whose testing package the targets are rewritten to
# use; OSS-Fuzz's builder has that tool at this version.
GO118FUZZBUILD_VERSION=v0.0.0-20250520111509-a70c2aa677fa

cd "$SRC/mcpcheck"
go get "github.com/AdamKorcz/go-118-fuzz-build/testing@$GO118FUZZBUILD_VERSION"

# target PKG FUNC NAME builds $OUT/NAME from func FUNC of ./PKG, with its
# seed corpus. The seeds are recorded with go test first, without cgo (the
# builder's compiler flags are for the fuzz targets).
target() {
  CGO_ENABLED=0 go run ./cmd/fuzzseeds -pkg "./$1" -func "$2" -o "$OUT/$3_seed_corpus.zip"
  compile_native_go_fuzzer "github.com/mcpcheck/mcpcheck/$1" "$2" "$3"
}

target internal/spec/schema FuzzValidate FuzzValidate
target internal/spec/jsonrpc FuzzDecode FuzzDecode
target internal/spec/jsonrpc FuzzLineReader FuzzLineReader
target internal/spec/mcp FuzzDecodeEncode FuzzDecodeEncode
target internal/fuzz FuzzSchemaValidate FuzzSchemaValidate
target internal/fuzz FuzzMCPDecode FuzzMCPDecode
target internal/fuzz FuzzJudge FuzzJudge
target internal/fuzz FuzzGeneratedMessages FuzzGeneratedMessages
target internal/fuzz FuzzMinimize FuzzMinimize
target internal/fuzz FuzzClientStage FuzzClientStage
target internal/reference/server FuzzSessionMessages FuzzSessionMessages
target internal/reference/server FuzzHTTPPost FuzzHTTPPost
target internal/reference/client FuzzClientMessages FuzzClientMessages
target reports FuzzPrintable FuzzPrintable
target reports FuzzWriters FuzzWriters
