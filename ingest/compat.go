package ingest

import (
	"context"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/store"
)

// Options is index.Options and Build index.Build, kept here only for the
// tests of packages this change does not edit (rank and
// cmd/reqa/internal/server call ingest.Build); use package index. This
// file goes once those tests call index.Build.
type Options = index.Options

// Build is index.Build (see Options).
func Build(ctx context.Context, c *Corpus, out string, opt Options) (store.Meta, error) {
	return index.Build(ctx, c, out, opt)
}
