package memo

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestBudget: entries that cost bytes stay within the budget while many
// of them are kept; one too large for it is not kept at all (its control,
// one just small enough, is).
func TestBudget(t *testing.T) {
	const budget = 4 << 20
	c := New(budget, func(k, v string) int { return len(k) + len(v) })
	big := strings.Repeat("x", budget/100)
	for i := range 300 {
		c.Put(fmt.Sprint(i), big)
		if _, spent := c.Len(); spent > budget {
			t.Fatalf("after %d entries the map holds %d bytes, over %d", i+1, spent, budget)
		}
	}
	if n, _ := c.Len(); n < 50 {
		t.Errorf("the map keeps only %d entries of %d bytes", n, len(big))
	}
	c.Put("huge", strings.Repeat("x", budget/64))
	if _, ok := c.Get("huge"); ok {
		t.Error("an entry over a 64th of the budget was kept")
	}
	c.Put("fits", strings.Repeat("x", budget/64-10))
	if _, ok := c.Get("fits"); !ok {
		t.Error("control: an entry under a 64th of the budget was not kept")
	}
}

// TestPutAgainAndDelete: putting a key again replaces its cost rather
// than adding to it; DeleteFunc drops what it names and keeps the rest.
func TestPutAgainAndDelete(t *testing.T) {
	c := New[string, int](100, nil)
	for range 10 {
		c.Put("a", 1)
	}
	c.Put("b", 2)
	if n, spent := c.Len(); n != 2 || spent != 2 {
		t.Fatalf("%d entries costing %d, want 2 and 2", n, spent)
	}
	c.DeleteFunc(func(k string) bool { return k == "a" })
	if _, ok := c.Get("a"); ok {
		t.Error("a deleted entry is still there")
	}
	c.Put("c", 3)
	c.Delete("c")
	if _, ok := c.Get("c"); ok {
		t.Error("Delete left the entry")
	}
	if v, ok := c.Get("b"); !ok || v != 2 {
		t.Errorf("the entry kept: %v %v, want 2", v, ok)
	}
	if n, spent := c.Len(); n != 1 || spent != 1 {
		t.Errorf("after the deletes: %d entries costing %d, want 1 and 1", n, spent)
	}
}

// TestPutAgainCostsOnce: an entry put again at another cost, in a full
// map, is counted once at its new cost, whatever the eviction picks.
func TestPutAgainCostsOnce(t *testing.T) {
	for range 200 {
		c := New(640, func(_ int, v string) int { return len(v) })
		for i := range 128 {
			c.Put(i, "xxxxx")
		}
		c.Put(0, "xxxxxxxxxx")
		held := 0
		for i := range 128 {
			if v, ok := c.Get(i); ok {
				held += len(v)
			}
		}
		if _, spent := c.Len(); spent != held || spent > 640 {
			t.Fatalf("spent %d, the entries hold %d (budget 640)", spent, held)
		}
	}
}

// TestConcurrent: readers and writers at once (under -race).
func TestConcurrent(t *testing.T) {
	c := New[int, int](64, nil)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				c.Put(w*1000+i, i)
				c.Get(i)
			}
		}()
	}
	wg.Wait()
	if n, spent := c.Len(); n > 64 || spent != n {
		t.Errorf("%d entries costing %d, want at most 64, one each", n, spent)
	}
}
