//go:build !linux

package ortlib

import "errors"

// memPath reports that there is no memory file outside Linux; Path
// extracts the library to a file instead.
func memPath() (string, error) {
	return "", errors.ErrUnsupported
}
