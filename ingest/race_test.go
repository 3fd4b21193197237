//go:build race

package ingest

// raceEnabled: the race detector multiplies a program's memory (5–10×
// shadow memory), so peak-RSS bounds are not checked under -race.
const raceEnabled = true
