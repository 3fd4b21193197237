//go:build !linux

package weaviatetest

import "syscall"

// nodeProcAttr puts a node in its own process group.
func nodeProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
