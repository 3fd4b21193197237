package encoder

// Embedded returns how many texts e has handed to its model so far.
func Embedded(e *Encoder) int64 { return e.runs.Load() }
