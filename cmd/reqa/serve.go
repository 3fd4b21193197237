package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/reqa/reqa/cmd/reqa/internal/server"
	"github.com/reqa/reqa/rank"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "answer questions over HTTP: a JSON API (/v1/ask, /v1/stats, /healthz) and a web page at /",
		Description: "Serves one index until SIGINT or SIGTERM, then shuts down gracefully (requests in flight finish).\n" +
			"GET /v1/ask?q=QUESTION&k=5&ranker=NAME answers a question; GET /v1/stats describes the index and\n" +
			"its rankers; GET /healthz says 200 while the index can be read, 503 while its file is being\n" +
			"replaced in place. It listens on loopback by default and answers only requests whose Host is\n" +
			"that address, localhost or a name given with --allow-host. Listening beyond loopback needs a\n" +
			"token (--token-file, or REQA_TOKEN; clients send Authorization: Bearer TOKEN) or --no-auth.\n" +
			"When the index file is replaced (reqa index, reqa index --append, mv) it switches to the new\n" +
			"one; requests in flight finish on the old one. A file copied over in place is answered 503\n" +
			"until it is complete and checks out, then served. With --watch DIR it also follows the files the\n" +
			"index was built from: a change is synced in the background (reqa index --sync, its own process)\n" +
			"and served once written; /v1/stats shows the last sync.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "index", Aliases: []string{"i"}, Required: true, Usage: "index file"},
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8080", Usage: "address to listen on (host:port; port 0 picks a free one)"},
			&cli.IntFlag{Name: "max-concurrent", Usage: "questions answered at once; more wait (0: one per core)"},
			&cli.IntFlag{Name: "threads", Usage: "ONNX Runtime threads per question embedding (0: 1)"},
			&cli.StringFlag{Name: "vector-cache", Value: fmt.Sprintf("%dM", rank.DefaultVectorCache>>20), Usage: "answer vectors held in memory at most (e.g. 64M, 1G): read from the index file into a cache this size; off: used in place from its memory map (the process then keeps mapped every vector it has read)"},
			&cli.StringSliceFlag{Name: "watch", Usage: "follow the source files: look at `DIR` (the directory or directories the index was built from; repeatable) and, when its files change, sync the index with them in the background (reqa index --sync) and switch to the result"},
			&cli.DurationFlag{Name: "watch-every", Value: time.Second, Usage: "with --watch: look at the directories this often; a change is synced once it holds still for one more look"},
			&cli.StringSliceFlag{Name: "include", Usage: "with --watch: sync only files matching this glob, as reqa index --include (give what the index was built with; repeatable)"},
			&cli.StringSliceFlag{Name: "exclude", Usage: "with --watch: skip files and directories matching this glob, as reqa index --exclude (repeatable)"},
			&cli.BoolFlag{Name: "follow-symlinks", Usage: "with --watch: follow symbolic links out of the directories, as reqa index --follow-symlinks"},
			&cli.DurationFlag{Name: "reload-every", Value: 2 * time.Second, Usage: "check this often whether the index file was replaced or changed and switch to the new one (0: only when a request notices a change)"},
			&cli.StringSliceFlag{Name: "allow-host", Usage: "also answer requests whose Host header is `NAME` (e.g. the name a proxy forwards; repeatable)"},
			&cli.StringFlag{Name: "token-file", Usage: "require the bearer token in `FILE` (its first line, at least 16 characters) on /v1/ (default: $REQA_TOKEN)"},
			&cli.BoolFlag{Name: "no-auth", Usage: "listen beyond loopback with no authentication (anyone who can reach the port can ask)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no start and shutdown lines on stderr (warnings and errors are still logged)"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON line on stdout when listening ({\"event\":\"listening\",\"addr\":…}) and one when shut down; the log stays on stderr"},
		}, engineAuthFlags()...),
		OnUsageError: onUsage,
		Action:       serveAction,
	}
}

// serveRanker chooses the ranker a request names ("" for the default): the
// one place serve decides it.
func serveRanker(e *rank.Index, name string, opt rank.DenseOptions) (rank.Ranker, error) {
	spec, err := rank.ParseSpec(name)
	if err != nil {
		return nil, err
	}
	spec.Dense = opt
	return e.Resolve(spec)
}

// serveToken returns the bearer token of --token-file, else $REQA_TOKEN;
// it warns about a token file others can read.
func serveToken(c *cli.Context, logger *log.Logger) (string, error) {
	if p := c.String("token-file"); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			return "", fmt.Errorf("serve: --token-file: %w", err)
		}
		if st, err := os.Stat(p); err == nil && st.Mode().Perm()&0o077 != 0 {
			logger.Printf("warning: --token-file %s can be read by other users (mode %v): chmod 600 it", p, st.Mode().Perm())
		}
		line, _, _ := strings.Cut(string(b), "\n")
		if tok := strings.TrimSpace(line); tok != "" {
			return tok, nil
		}
		return "", usagef("serve: --token-file %s: empty", p)
	}
	return strings.TrimSpace(os.Getenv("REQA_TOKEN")), nil
}

// serveOptions checks serve's flags and returns the server's options.
func serveOptions(c *cli.Context, logger *log.Logger) (server.Options, error) {
	if c.NArg() != 0 {
		return server.Options{}, usagef("serve: unexpected argument %q (the index is given with --index)", c.Args().First())
	}
	if c.Int("max-concurrent") < 0 {
		return server.Options{}, usagef("serve: --max-concurrent %d: want ≥ 0", c.Int("max-concurrent"))
	}
	token, err := serveToken(c, logger)
	if err != nil {
		return server.Options{}, err
	}
	addr := c.String("addr")
	if _, err := net.ResolveTCPAddr("tcp", addr); err != nil {
		return server.Options{}, fmt.Errorf("serve: --addr: %w", err)
	}
	switch err := server.CheckExposure(addr, token, c.Bool("no-auth")); {
	case errors.Is(err, server.ErrNeedsAuth):
		return server.Options{}, usagef("serve: --addr %s listens beyond loopback: require a token (--token-file FILE or REQA_TOKEN) or say --no-auth", addr)
	case err != nil:
		return server.Options{}, usagef("serve: %v", err)
	}
	if c.Bool("no-auth") && !server.IsLoopback(addr) {
		logger.Printf("warning: --no-auth: listening on %s, beyond loopback, with no authentication", addr)
	}
	hosts := c.StringSlice("allow-host")
	if h, _, _ := net.SplitHostPort(addr); h != "" {
		hosts = append(hosts, h) // the name given, as clients will use it
	}
	open, err := engineOpenOptions(c)
	if err != nil {
		return server.Options{}, err
	}
	if v := strings.TrimSpace(c.String("vector-cache")); v != "off" {
		if open.VectorCache, err = parseSize(v); err != nil {
			return server.Options{}, usagef("serve: --vector-cache %q: %v (or off)", v, err)
		}
	}
	return server.Options{
		MaxConcurrent: c.Int("max-concurrent"),
		Threads:       c.Int("threads"),
		Log:           logger,
		Ranker:        serveRanker,
		Perimeter:     server.Perimeter{Hosts: hosts, Token: token},
		Version:       version,
		Open:          open,
	}, nil
}

func serveAction(c *cli.Context) error {
	logger := log.New(c.App.ErrWriter, "reqa: ", log.LstdFlags)
	opt, err := serveOptions(c, logger)
	if err != nil {
		return err
	}
	var watch *sourceWatch
	dirs := c.StringSlice("watch")
	for _, f := range []string{"include", "exclude", "follow-symlinks"} {
		if c.IsSet(f) && len(dirs) == 0 {
			return usagef("serve: --%s goes with --watch", f)
		}
	}
	if len(dirs) > 0 {
		if c.Duration("watch-every") <= 0 {
			return usagef("serve: --watch-every %v: want > 0", c.Duration("watch-every"))
		}
		if err := checkWatch(c.String("index"), dirs); err != nil {
			return err
		}
		watch = &sourceWatch{index: c.String("index"), dirs: dirs, every: c.Duration("watch-every"), log: logger}
		for _, p := range c.StringSlice("include") {
			watch.flags = append(watch.flags, "--include", p)
		}
		for _, p := range c.StringSlice("exclude") {
			watch.flags = append(watch.flags, "--exclude", p)
		}
		if c.Bool("follow-symlinks") {
			watch.flags = append(watch.flags, "--follow-symlinks")
		}
		opt.Sync = watch.Status
	}
	e, err := server.OpenWith(c.String("index"), opt.Open)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.String("addr"))
	if err != nil {
		e.Close()
		return fmt.Errorf("serve: %w", err)
	}
	defer ln.Close()
	opt.Perimeter.Listen = ln.Addr().String()
	s, err := server.New(e, opt)
	if err != nil {
		e.Close()
		return err
	}
	defer s.Close()
	wctx, cancel := context.WithCancel(c.Context)
	defer cancel()
	go s.Watch(wctx, c.Duration("reload-every"))
	if watch != nil {
		watch.synced = s.Wake
		go watch.run(wctx)
	}
	_, sentences, _, defaultRanker, rankers := s.Index()
	info := logger
	if c.Bool("quiet") {
		info = log.New(io.Discard, "", 0)
	}
	info.Printf("serving %s (%d sentences, default ranker %s) on http://%s/", c.String("index"), sentences, defaultRanker, ln.Addr())
	if c.Bool("json") {
		err := writeJSONLine(c.App.Writer, serveEvent{Event: "listening", Addr: ln.Addr().String(),
			URL: "http://" + ln.Addr().String() + "/", Index: c.String("index"), Sentences: sentences,
			DefaultRanker: defaultRanker, Rankers: rankers})
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
	}
	if err := server.Serve(c.Context, ln, s.Handler(), logger); err != nil {
		return err
	}
	info.Printf("shut down")
	if c.Bool("json") {
		answered := s.Counters().Answered
		return writeJSONLine(c.App.Writer, serveEvent{Event: "shutdown", Addr: ln.Addr().String(), Index: c.String("index"), Answered: &answered})
	}
	return nil
}

// serveEvent is one line of `reqa serve --json`: "listening" once the
// socket is open (Addr is the real address, useful with port 0) and
// "shutdown" after a graceful shutdown.
type serveEvent struct {
	Event         string   `json:"event"`
	Addr          string   `json:"addr"`
	URL           string   `json:"url,omitempty"`
	Index         string   `json:"index"`
	Sentences     int      `json:"sentences,omitempty"`
	DefaultRanker string   `json:"default_ranker,omitempty"`
	Rankers       []string `json:"rankers,omitempty"`
	Answered      *int64   `json:"answered,omitempty"`
}

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
