//go:build linux

package weaviatetest

import "syscall"

// nodeProcAttr puts a node in its own process group and kills it when the
// test process dies, so no server outlives an interrupted test.
func nodeProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
