//go:build !linux && (weaviate || weaviatecluster || weaviatescale)

package weaviate

import "syscall"

// nodeProcAttr puts a node in its own process group.
func nodeProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
