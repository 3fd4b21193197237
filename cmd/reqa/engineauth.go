package main

import (
	"github.com/reqa/reqa/index/weaviate"
	"github.com/reqa/reqa/rank"
	"github.com/urfave/cli/v2"
)

// engineAuthFlags are how index, ask, eval and serve reach an engine that
// wants credentials or TLS: none of them is written into an index file
// (package weaviate reads the files: weaviate.Credentials).
func engineAuthFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "engine-key-file", Usage: "engine (Weaviate) API key: its first line, sent as Authorization: Bearer KEY, never stored in the index (default: $" + weaviate.EnvAPIKey + ")", TakesFile: true},
		&cli.StringFlag{Name: "engine-ca", Usage: "engine over TLS (weaviate+https://): trust the PEM certificates in `FILE` instead of the system's", TakesFile: true},
		&cli.StringFlag{Name: "engine-cert", Usage: "engine over TLS: client certificate (PEM `FILE`), with --engine-cert-key", TakesFile: true},
		&cli.StringFlag{Name: "engine-cert-key", Usage: "engine over TLS: the client certificate's private key (PEM `FILE`)", TakesFile: true},
	}
}

// engineCredentials reads the engine flags' files (and the environment)
// into client options.
func engineCredentials(c *cli.Context) ([]weaviate.Option, error) {
	return weaviate.Credentials{KeyFile: c.String("engine-key-file"), CAFile: c.String("engine-ca"),
		CertFile: c.String("engine-cert"), CertKeyFile: c.String("engine-cert-key")}.Options()
}

// engineOpenOptions are the rank options that carry them.
func engineOpenOptions(c *cli.Context) (rank.OpenOptions, error) {
	opts, err := engineCredentials(c)
	if err != nil {
		return rank.OpenOptions{}, err
	}
	return rank.OpenOptions{Engine: opts}, nil
}

// openIndex opens the index at path as rank.Open does, reaching an engine
// with the command's engine flags; fastStart is rank.OpenOptions.FastStart.
func openIndex(c *cli.Context, path string, fastStart bool) (*rank.Index, error) {
	o, err := engineOpenOptions(c)
	if err != nil {
		return nil, err
	}
	o.FastStart = fastStart
	return rank.OpenWith(path, o)
}
