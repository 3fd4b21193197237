// Package server is `reqa serve`: an HTTP server answering questions from
// one index file, with a JSON API (/v1/ask, /v1/stats, /healthz) and a
// single-page UI embedded in the binary.
//
// # Generations
//
// The index is served as a generation: an open [rank.Index], its own file
// descriptor, and the size and modification time the file had when it was
// opened. Requests hold the generation they started on. The index file can
// change in two ways:
//
//   - replaced (reqa index, reqa index --append, mv): the path names a new
//     file. The old generation's mapping still shows the old, complete
//     file, so requests keep being answered from it until [Server.Watch]
//     has checked and opened the new file, switched to it, and closed the
//     old one once its requests are done.
//   - rewritten in place (cp over it, an editor, dd): the open mapping now
//     shows bytes bbolt never wrote together. The generation is poisoned
//     as soon as a request or the watcher sees the file's size or
//     modification time differ from when it was opened; from then on every
//     request is answered 503 and /healthz says so, until the file has
//     stayed unchanged for a short while, passes [store.CheckPages] and
//     opens; then it is served. An answer computed while the file changed
//     is dropped (503), never sent.
//
// bbolt can be left holding its locks by a fault on a truncated mapping, so
// no request waits on the engine without bound: each question runs in its
// own goroutine while the request waits for it, for the generation to be
// poisoned, for its client to leave or for a deadline. A generation whose
// engine does not close (a reader stuck in it) is abandoned, never waited
// for; shutting down never waits on one either.
//
// # Perimeter
//
// Every request's Host header must name the listening address, localhost,
// a loopback address or a name given in [Perimeter.Hosts] (421 otherwise:
// the defence against DNS rebinding). With [Perimeter.Token] set, /v1/
// requires "Authorization: Bearer TOKEN" (401 otherwise); the page and
// /healthz do not. Whether an address may be served without a token is
// decided by [CheckExposure].
package server
