package ingest

import (
	"context"

	"github.com/reqa/reqa/index"
	"github.com/reqa/reqa/store"
)

// Options is index.Options, kept only for the tests of packages this
// change does not touch (rank, cmd/reqa/internal/server).
//
// Deprecated: use index.Options; removed once those tests call index.
type Options = index.Options

// Build is index.Build, kept only for the tests of packages this change
// does not touch (rank, cmd/reqa/internal/server).
//
// Deprecated: use index.Build; removed once those tests call index.
func Build(ctx context.Context, c *Corpus, out string, opt Options) (store.Meta, error) {
	return index.Build(ctx, c, out, opt)
}
