package server

import (
	"fmt"
	"log"
	"sync"
	"time"
)

// repeatEvery is how often a message repeated without pause is reported
// again, with its count.
const repeatEvery = time.Minute

// onceLog writes a message once however often it repeats: the same key
// again is counted, and the count is written when another message comes, at
// most every repeatEvery while it goes on, and at Flush. A damaged index
// answering every request with the same error then writes one line, not
// one per request.
type onceLog struct {
	mu      sync.Mutex
	log     *log.Logger
	key     string
	msg     string
	repeats int
	since   time.Time
}

// Printf logs the message unless it repeats the last key.
func (l *onceLog) Printf(key, format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if key == l.key {
		l.repeats++
		if now.Sub(l.since) >= repeatEvery {
			l.flushLocked(now)
		}
		return
	}
	l.flushLocked(now)
	l.key, l.msg = key, fmt.Sprintf(format, args...)
	l.log.Print(l.msg)
}

// Flush writes the count of the last message's repeats, if any.
func (l *onceLog) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flushLocked(time.Now())
}

func (l *onceLog) flushLocked(now time.Time) {
	if l.repeats > 0 {
		l.log.Printf("%s (repeated %d more times in %s)", l.msg, l.repeats, now.Sub(l.since).Round(time.Millisecond))
	}
	l.repeats, l.since = 0, now
}
