package weaviate

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// EnvAPIKey is the environment variable [Credentials] reads the API key
// from when no key file is named.
const EnvAPIKey = "REQA_WEAVIATE_API_KEY"

// errKeyInURL refuses credentials written into an engine URL (they would
// end up in the index file, in logs and in the process list).
var errKeyInURL = errors.New("credentials do not go in the URL: put the API key in a file named by --engine-key-file or in $" + EnvAPIKey)

// Credentials says how the client proves who it is and whom it trusts.
// [Credentials.Options] reads the files; nothing of them is kept in an
// index file, and the key appears in no error.
type Credentials struct {
	// KeyFile names a file holding the API key (surrounding white space
	// ignored). Empty: the key is $REQA_WEAVIATE_API_KEY, if set.
	KeyFile string
	// CAFile names PEM certificates trusted for https nodes instead of
	// the system's.
	CAFile string
	// CertFile and CertKeyFile name a PEM client certificate and its key
	// (mutual TLS); both or neither.
	CertFile, CertKeyFile string
}

// Options reads the credentials into client options: the API key
// ([WithAPIKey]) and, when a CA or a client certificate is named, a TLS
// configuration ([WithTLS]).
func (cr Credentials) Options() ([]Option, error) {
	var opts []Option
	key, err := cr.apiKey()
	if err != nil {
		return nil, err
	}
	if key != "" {
		opts = append(opts, WithAPIKey(key))
	}
	if cr.CAFile == "" && cr.CertFile == "" && cr.CertKeyFile == "" {
		return opts, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if cr.CAFile != "" {
		pem, err := os.ReadFile(cr.CAFile)
		if err != nil {
			return nil, fmt.Errorf("weaviate: CA file: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("weaviate: CA file %s: no PEM certificate in it", cr.CAFile)
		}
	}
	if (cr.CertFile == "") != (cr.CertKeyFile == "") {
		return nil, errors.New("weaviate: a client certificate needs both its certificate and its key file")
	}
	if cr.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(cr.CertFile, cr.CertKeyFile)
		if err != nil {
			return nil, fmt.Errorf("weaviate: client certificate %s: %w", cr.CertFile, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return append(opts, WithTLS(cfg)), nil
}

// apiKey reads the key file, else the environment.
func (cr Credentials) apiKey() (string, error) {
	if cr.KeyFile == "" {
		return strings.TrimSpace(os.Getenv(EnvAPIKey)), nil
	}
	b, err := os.ReadFile(cr.KeyFile)
	if err != nil {
		return "", fmt.Errorf("weaviate: API key file: %w", err)
	}
	key := strings.TrimSpace(string(b))
	switch {
	case key == "":
		return "", fmt.Errorf("weaviate: API key file %s is empty", cr.KeyFile)
	case strings.ContainsAny(key, "\r\n"):
		return "", fmt.Errorf("weaviate: API key file %s holds more than one line", cr.KeyFile)
	}
	return key, nil
}

// WithTLS sets the TLS configuration of https nodes (trusted CAs, a client
// certificate). Every node must then be https.
func WithTLS(cfg *tls.Config) Option {
	return func(c *Client) {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = cfg
		h := *c.http
		h.Transport = tr
		c.http = &h
		c.tls = true
	}
}

// hasUserinfo reports whether an address or URL holds "user[:password]@"
// before its host.
func hasUserinfo(s string) bool {
	if _, rest, ok := strings.Cut(s, "://"); ok {
		s = rest
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	return strings.Contains(s, "@")
}

// redact replaces the userinfo of an address or URL (see hasUserinfo)
// with "…@".
func redact(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		scheme, rest = "", s
	} else {
		scheme += "://"
	}
	end := len(rest)
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		end = i
	}
	if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
		rest = "…@" + rest[at+1:]
	}
	return scheme + rest
}
