// Package display holds how reqa shows values to people: text from a
// corpus or a file name made safe for a terminal ([Escape]), text cut to a
// length without splitting a character ([Truncate]), and byte sizes
// ([Bytes]).
package display

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with everything a terminal would act on instead of
// print written out in Go's escape notation: C0 and C1 control characters
// (escape sequences start with ESC, shown as \x1b), DEL, invalid UTF-8
// bytes, and the Unicode format characters that reorder or hide text
// (bidirectional overrides, zero-width characters). Tabs stay tabs;
// newlines stay newlines when keepNewlines is set. Printable text, accents
// and CJK included, is unchanged.
func Escape(s string, keepNewlines bool) string {
	clean := true
	for _, r := range s {
		if needsEscape(r, keepNewlines) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r != utf8.RuneError && needsEscape(r, keepNewlines):
			switch {
			case r < 0x80:
				fmt.Fprintf(&b, `\x%02x`, r)
			case r <= 0xffff:
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsEscape(r rune, keepNewlines bool) bool {
	switch {
	case r == '\t', r == '\n' && keepNewlines:
		return false
	case r == utf8.RuneError:
		return true // possibly an invalid byte: Escape looks closer
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case unicode.Is(unicode.Cf, r):
		return true // bidi overrides, zero-width joiners, soft hyphen, BOM
	case r == 0x2028, r == 0x2029:
		return true // line and paragraph separators
	}
	return false
}

// Truncate returns s cut to at most n bytes, on a character boundary,
// followed by "…" when it was cut.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := max(n, 0)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// Bytes formats a byte count in binary units: "512 B", "4.0 KiB",
// "12.3 MiB", "1.5 GiB".
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// JSONKind says in JSON's words what a Go type is decoded from ("a
// string", "an integer", "a list", "an object"…), so that an error about a
// JSON value never shows a Go type.
func JSONKind(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "another kind of value"
}
