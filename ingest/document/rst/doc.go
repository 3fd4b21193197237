// Package rst reads reStructuredText. No usable Go parser exists, so this
// is reqa's own, after docutils.
//
// Section adornments give the levels in the order they first appear.
// Bullet and enumerated lists, definition, field and option lists, simple
// and grid tables (rows with their header), block quotes and line blocks
// are blocks. Literal blocks ("::"), doctests and code directives are
// code. Sphinx object directives (function, class, option, envvar, any
// domain:directive) are definitions of their signature, with their fields
// and nested objects under it. Admonitions are read without their label.
// Comments, targets, toctrees, images and directive options are dropped.
// Inline markup, roles, links and substitutions are resolved to their
// text by docutils' recognition rules (rst_inline.go).
//
// Bad input is a [*document.Error]; no input makes the reader panic.
//
// [ParseContext] stops between lines or blocks once its context is done,
// returning the context's error wrapped.
package rst
