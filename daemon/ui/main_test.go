package ui_test

import (
	"fmt"
	"os"
	"testing"
)

// fetchEnv, when set, makes the test binary a plain HTTP client: it fetches
// the address it names and reports how that went (TestOtherUserRefused runs
// it as another user).
const fetchEnv = "IHMT_UI_TEST_FETCH"

func TestMain(m *testing.M) {
	if addr := os.Getenv(fetchEnv); addr != "" {
		os.Exit(fetch(addr))
	}
	os.Exit(m.Run())
}

// fetch gets addr without following redirects: exit 0 when the page
// answered, 3 when the connection was refused or cut.
func fetch(addr string) int {
	resp, err := noRedirect.Get(addr)
	if err != nil {
		fmt.Println("no answer:", err)
		return 3
	}
	resp.Body.Close()
	fmt.Println("answered:", resp.Status)
	return 0
}
