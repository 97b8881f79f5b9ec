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
//
// Two files beside them are written by hand: this one, and vocab.go, the
// wire's vocabulary — the words people and models use for the enums
// (scope, trust, what a save, search or ingest came to), the one error for
// a word a field does not take, and excerpts — which the shim, the CLI and
// the daemon all use, so that they read and write the same words.
package ihmtv1

// PersonAgent is the agent name of the ihmt command line: the person, as
// opposed to an agent. The daemon lets only it review, restore, purge and
// import, and an agent's correction of what it verified waits for it; the
// MCP shim never passes a client off under this name.
const PersonAgent = "ihmt-cli"
