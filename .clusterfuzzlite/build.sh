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

target spec/schema FuzzValidate FuzzValidate
target spec/jsonrpc FuzzDecode FuzzDecode
target spec/jsonrpc FuzzLineReader FuzzLineReader
target spec/mcp FuzzDecodeEncode FuzzDecodeEncode
target fuzz FuzzSchemaValidate FuzzSchemaValidate
target fuzz FuzzMCPDecode FuzzMCPDecode
target fuzz FuzzJudge FuzzJudge
target fuzz FuzzGeneratedMessages FuzzGeneratedMessages
target fuzz FuzzMinimize FuzzMinimize
target fuzz FuzzClientStage FuzzClientStage
target reference/server FuzzSessionMessages FuzzSessionMessages
target reference/server FuzzHTTPPost FuzzHTTPPost
target reference/client FuzzClientMessages FuzzClientMessages
target reports FuzzPrintable FuzzPrintable
target reports FuzzWriters FuzzWriters
