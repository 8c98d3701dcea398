//go:build unix

package runctl

import (
	"errors"
	"syscall"
)

// alive reports whether process pid exists (signal 0 checks without
// sending; EPERM means it exists but belongs to someone else).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
