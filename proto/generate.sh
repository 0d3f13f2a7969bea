#!/usr/bin/env bash
# Regenerates the committed Go code of the transport service. A fresh clone
# builds without running this; run it only after editing a .proto file.
#
# Tools (versions that produced the committed code):
#   protoc                  libprotoc 3.21.12 (Debian: apt-get install protobuf-compiler)
#   protoc-gen-go           google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
#   protoc-gen-connect-go   connectrpc.com/connect/cmd/protoc-gen-connect-go@v1.21.1
#
# Install the two plugins outside the module, e.g.:
#   GOBIN=/tmp/gobin go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
#   GOBIN=/tmp/gobin go install connectrpc.com/connect/cmd/protoc-gen-connect-go@v1.21.1
set -euo pipefail
cd "$(dirname "$0")"
export PATH="${GOBIN:-/tmp/gobin}:$PATH"
protoc -I . \
  --go_out=.. --go_opt=module=github.com/dppub/dppub \
  --connect-go_out=.. --connect-go_opt=module=github.com/dppub/dppub \
  dppub/transport/v1/transport.proto
gofmt -l ../transport/gen
