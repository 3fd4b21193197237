package main

import "testing"

// TestReadBlindSources reads the blind benchmark's SOURCES.tsv and split.json
// as committed: one set per document, each in one half, every format.
func TestReadBlindSources(t *testing.T) {
	srcs, err := readBlindSources("blind")
	if err != nil {
		t.Fatal(err)
	}
	halves := map[string]int{}
	for _, s := range srcs.Sets {
		if len(s.Files) != 1 || s.SplitBy != "file" || len(s.LicenseFiles) != 1 {
			t.Errorf("set %s: %+v", s.Name, s)
		}
		halves[s.Files[0].Split]++
	}
	if len(srcs.Sets) < 15 || halves["tune"] == 0 || halves["test"] == 0 {
		t.Fatalf("%d sets, halves %v", len(srcs.Sets), halves)
	}
}
