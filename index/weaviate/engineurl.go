package weaviate

import (
	"fmt"
	"net/url"
	"strings"
)

// Scheme is the URL scheme of a reqa index kept in Weaviate:
// weaviate://HOST:PORT[,HOST:PORT…]/COLLECTION.
const Scheme = "weaviate"

// Target is where an index lives in Weaviate: the nodes' addresses (as
// [New] takes them) and the collection.
type Target struct {
	Addr       string
	Collection string
}

// String writes t as a weaviate:// URL.
func (t Target) String() string {
	scheme := Scheme
	hosts := strings.Split(t.Addr, ",")
	for i, h := range hosts {
		if rest, ok := strings.CutPrefix(h, "https://"); ok {
			scheme, h = Scheme+"+https", rest
		}
		hosts[i] = strings.TrimPrefix(h, "http://")
	}
	return scheme + "://" + strings.Join(hosts, ",") + "/" + t.Collection
}

// ParseTarget reads "weaviate://HOST:PORT[,HOST:PORT…]/COLLECTION" (https
// with "weaviate+https://"). The collection must be a valid name
// ([CheckName]).
//
// Credentials in the URL ("weaviate://user:key@HOST…") are refused without
// repeating them: the key goes in a file (--engine-key-file) or
// $REQA_WEAVIATE_API_KEY ([Credentials]).
func ParseTarget(s string) (Target, error) {
	if hasUserinfo(s) {
		return Target{}, fmt.Errorf("engine %s: %w", redact(s), errKeyInURL)
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || (scheme != Scheme && scheme != Scheme+"+https") {
		return Target{}, fmt.Errorf("engine %q: want %s://HOST:PORT/COLLECTION", s, Scheme)
	}
	hosts, coll, ok := strings.Cut(rest, "/")
	if !ok || hosts == "" || coll == "" || strings.ContainsAny(coll, "/?#") {
		return Target{}, fmt.Errorf("engine %q: want %s://HOST:PORT/COLLECTION", s, Scheme)
	}
	if err := CheckName(coll); err != nil {
		return Target{}, fmt.Errorf("engine %q: %w", s, err)
	}
	proto := "http://"
	if scheme == Scheme+"+https" {
		proto = "https://"
	}
	var addrs []string
	for _, h := range strings.Split(hosts, ",") {
		u, err := url.Parse(proto + h)
		if err != nil || u.Host != h || u.Port() == "" {
			return Target{}, fmt.Errorf("engine %q: node %q: want HOST:PORT", s, h)
		}
		addrs = append(addrs, proto+h)
	}
	return Target{Addr: strings.Join(addrs, ","), Collection: coll}, nil
}
