#!/bin/bash -eu
# Runs .clusterfuzzlite/build.sh outside Docker, the way ClusterFuzzLite's
# Go builder does, and leaves the libFuzzer binaries and their seed corpora
# in OUTDIR:
#
#   .clusterfuzzlite/local.sh OUTDIR [TARGET...]
#
# With TARGET names only those are built. Needs go, clang++ with libFuzzer
# (Debian: clang and libclang-rt-14-dev) and the Go module proxy (for
# go-118-fuzz-build and its testing package). It builds in a copy of the
# checkout: build.sh changes go.mod and the tool rewrites files while it
# builds. compile_native_go_fuzzer is played by a script doing what
# OSS-Fuzz's does for a libFuzzer build (find the file declaring the
# target, go-118-fuzz-build -tags gofuzz, link with $LIB_FUZZING_ENGINE).
out=${1:?usage: local.sh OUTDIR [TARGET...]}
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

mkdir -p "$work/src/mcpcheck" "$work/bin"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -cf - -T -) | tar -xf - -C "$work/src/mcpcheck"

version=$(sed -n 's/^GO118FUZZBUILD_VERSION=//p' "$repo/.clusterfuzzlite/build.sh")
GOBIN="$work/bin" GOFLAGS=-mod=mod go install "github.com/AdamKorcz/go-118-fuzz-build@$version"

cat > "$work/bin/compile_native_go_fuzzer" <<'SHIM'
#!/bin/bash -eu
path=$1 function=$2 fuzzer=$3
dir=$(go list -tags gofuzz -f '{{.Dir}}' "$path")
files=$(grep -r -l --include='*.go' -s "$function" "$dir" || true)
if [ "$(echo "$files" | wc -w)" -ne 1 ] || [ "$(grep "func $function" $files | grep -c 'testing.F')" -ne 1 ]; then
  echo "compile_native_go_fuzzer: want func ${function}(f *testing.F) named in one file of $dir, found it in: $files" >&2
  exit 1
fi
go-118-fuzz-build -tags gofuzz -o "$fuzzer.a" -func "$function" "$dir"
$CXX $CXXFLAGS $LIB_FUZZING_ENGINE "$fuzzer.a" -o "$OUT/$fuzzer"
rm -f "$fuzzer.a"
SHIM
chmod +x "$work/bin/compile_native_go_fuzzer"

script="$repo/.clusterfuzzlite/build.sh"
if [ $# -gt 0 ]; then
  # Only the named targets: build.sh's preamble and their target lines.
  script="$work/build.sh"
  { sed -n '1,/^target spec/{/^target spec/!p}' "$repo/.clusterfuzzlite/build.sh"
    for t in "$@"; do grep -E "^target [^ ]+ [^ ]+ $t\$" "$repo/.clusterfuzzlite/build.sh" || { echo "local.sh: build.sh has no target $t" >&2; exit 2; }; done
  } > "$script"
fi

export SRC="$work/src" OUT="$out" WORK="$work" PATH="$work/bin:$PATH"
export CXX="${CXX:-clang++}" CXXFLAGS="${CXXFLAGS:-}" LIB_FUZZING_ENGINE="${LIB_FUZZING_ENGINE:--fsanitize=fuzzer}" SANITIZER=address FUZZING_ENGINE=libfuzzer
export GOFLAGS=-mod=mod
bash -eu "$script"
