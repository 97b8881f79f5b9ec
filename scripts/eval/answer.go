package main

// saved is save_memory's structured result (what the run reads of it).
type saved struct {
	ID     string   `json:"id"`
	IDs    []string `json:"ids"`
	Status string   `json:"status"`
}

// answer is search_memory's structured result (what the run reads of it).
type answer struct {
	Status  string `json:"status"`
	Message string `json:"message"`
	Results []struct {
		ID string `json:"id"`
	} `json:"results"`
	Candidates []struct {
		ID string `json:"id"`
	} `json:"candidates"`
}

// ranked is what the answer ranks: its results, else its candidates.
func (a answer) ranked() []string {
	var out []string
	for _, r := range a.Results {
		out = append(out, r.ID)
	}
	if len(out) == 0 {
		for _, c := range a.Candidates {
			out = append(out, c.ID)
		}
	}
	return out
}
