// Package doctest holds the test helpers the document readers' tests
// share: a flat view of a document's blocks, checks every parsed document
// must pass, and the fuzz harness.
//
// It is imported by tests only. Package document's own tests are an
// external test package (document_test) so that they may import it.
package doctest
