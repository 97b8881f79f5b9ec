// Package ihmtv1 is the generated IHMT API contract (package ihmt.v1): the
// messages and the MemoryService gRPC client and server spoken between ihmtd
// and its clients (the ihmt-mcp shim, the ihmt CLI, grpcurl).
//
// memory.proto in this directory is the source of truth. memory.pb.go and
// memory_grpc.pb.go are generated from it and committed; do not edit them.
// After changing the .proto, regenerate from the repository root with
//
//	scripts/gen.sh
//
// and commit the result. CI runs scripts/check-gen.sh, which fails if the
// generated code is stale or the change breaks compatibility with the
// descriptor snapshot memory.binpb (refreshed by scripts/gen.sh
// --update-snapshot).
package ihmtv1
