// Package testenv holds what the tests of every package share about the
// environment they run in: whether they run in CI (InCI), how a test
// whose prerequisite is missing stops (Skip), and how much of a file the
// test process holds mapped (ResidentKB).
//
// A prerequisite is anything a test needs that a fresh clone does not carry:
// the shared data beside the repository (../shared: the SQuAD ReQA set,
// golden outputs), what `make assets` fetches or copies (tokenizer.json,
// vocab.json, the USE-Lite model, the ONNX Runtime library), and programs
// (node, python3, headless Chromium, unshare). On a development machine a
// missing prerequisite skips the test; under CI=true, where `.ci/run`
// provides all of them, it fails the test with the reason, so that nothing
// CI must test silently does not run.
//
// Tests that skip on purpose (an environment variable opting in to an
// experiment, -short, a condition the test checks its own premise against)
// call tb.Skip directly, with a "// May skip in CI: why" comment on the line
// above; TestPlainSkipsExplained checks every test file of the module for it.
//
// Only test files import this package.
package testenv
