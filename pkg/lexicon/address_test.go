package lexicon

import (
	"maps"
	"strings"
	"testing"
)

func TestAddresses(t *testing.T) {
	x := Default()
	tests := []struct {
		text string
		want map[string]string
	}{
		{"The NAS, faro, is at 192.168.1.20 (static DHCP lease on the router).", map[string]string{"nas": "192.168.1.20", "faro": "192.168.1.20"}},
		{"faro is 10.0.10.20, docker-vm 10.0.10.30 and the printer 10.0.10.40.",
			map[string]string{"faro": "10.0.10.20", "vm": "10.0.10.30", "printer": "10.0.10.40"}},
		// A URL's host is an address; its owner is not what is at it; a
		// concept's own word ("docker",
		// "ip", "server") names nothing.
		{"faro's admin UI is at https://192.168.1.20:5001.", map[string]string{"admin": "192.168.1.20", "ui": "192.168.1.20"}},
		{"The server's IP is 10.0.0.5.", map[string]string{}},
		{"Upgraded Postgres to 16.4.1.", map[string]string{}},
		// A light word ("went", "runs") names nothing; an octet over 255 is
		// no address.
		{"faro runs on 192.168.1.5.", map[string]string{"faro": "192.168.1.5"}},
		{"Pi-hole went to 192.168.1.2 after the reinstall.", map[string]string{"pi": "192.168.1.2", "hole": "192.168.1.2"}},
		{"The build is 999.999.999.999 for now.", map[string]string{}},
	}
	for _, tt := range tests {
		if got := x.Addresses(tt.text); !maps.Equal(got, tt.want) {
			t.Errorf("Addresses(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestMayHoldIPv4 checks the prefilter that lets Addresses skip a text:
// it must pass every text ipv4In could find an address in.
func TestMayHoldIPv4(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"faro is 10.0.10.20, docker-vm 10.0.10.30", true},
		{"https://192.168.1.20:5001/admin", true},
		{"the subnet (10.0.10.0/24)", true},
		{"1.2.3.4", true},
		{"We moved to Go 1.22.3. Then v2.1 shipped. Done.", false},
		{"Three dots... and 42 of them. Really.", false},
		{"version 1.2.3 and 4", false},
		{"", false},
	} {
		if got := mayHoldIPv4(c.text); got != c.want {
			t.Errorf("mayHoldIPv4(%q) = %v, want %v", c.text, got, c.want)
		}
		for _, f := range strings.Fields(c.text) {
			if ipv4In(f) != "" && !c.want {
				t.Errorf("%q holds address %q but the prefilter would skip it", c.text, ipv4In(f))
			}
		}
	}
}
