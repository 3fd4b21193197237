// Package ann is reqa's approximate-nearest-neighbour index: a hierarchical
// navigable small world (HNSW) graph over L2-normalised float32 vectors,
// ranked by dot product.
package ann
