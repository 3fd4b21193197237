//go:build weaviate || weaviatecluster || weaviatescale

package weaviate

import (
	"testing"

	"github.com/reqa/reqa/index/weaviate/weaviatetest"
)

// The tests run their servers with package weaviatetest.

type node = weaviatetest.Node

// serverBinary returns the weaviate-server that `make weaviate-server`
// builds (or $REQA_WEAVIATE_SERVER); see weaviatetest.Binary.
func serverBinary(t *testing.T) string { return weaviatetest.Binary(t, "../..") }

// newCluster prepares n nodes (not started); see weaviatetest.NewCluster.
func newCluster(t *testing.T, bin string, n int) []*node { return weaviatetest.NewCluster(t, bin, n) }
