// Package version names the release every IHMT binary is built from.
//
// The daemon, the shim and the CLI compare their versions on every call so
// that a daemon left running across an upgrade is noticed and named, instead
// of failing in some stranger way later.
package version

// Version is the release of this build. Release builds override it with
// -ldflags "-X github.com/ihmt-dev/ihmt/pkg/version.Version=v1.2.3".
var Version = "0.1.0-dev"

// Header is the gRPC metadata key under which each side sends its Version.
const Header = "ihmt-version"
