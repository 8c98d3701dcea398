package memlimit

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// noLimit is where a cgroup limit stops meaning anything: cgroup v1 writes
// "no limit" as the largest page-aligned int64 (9223372036854771712).
const noLimit = 1 << 62

// cgroupRoom returns the memory left under the tightest memory limit that
// applies to a process: procSelf is its /proc/self/cgroup, root the
// directory where the cgroup hierarchies are mounted (/sys/fs/cgroup). It
// looks at the process's cgroup and every ancestor, in cgroup v2
// (memory.max minus memory.current, at root or at root/unified) and in v1
// (memory.limit_in_bytes minus memory.usage_in_bytes under root/memory).
// A cgroup namespace hides the ancestors and shows the process's own cgroup
// as the root, which the walk up reaches too. ok is false when no limit is
// set anywhere (v2's "max", v1's huge value) or nothing can be read.
func cgroupRoom(root, procSelf string) (room int64, ok bool) {
	room = -1
	look := func(dir, limitFile, usageFile string) {
		limit, lok := readCgroupValue(filepath.Join(dir, limitFile))
		usage, uok := readCgroupValue(filepath.Join(dir, usageFile))
		if !lok || !uok || limit >= noLimit {
			return
		}
		if r := max(0, limit-usage); room < 0 || r < room {
			room = r
		}
	}
	for _, line := range strings.Split(procSelf, "\n") {
		// hierarchy-ID:controller-list:cgroup-path
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "": // v2
			for _, mount := range []string{root, filepath.Join(root, "unified")} {
				walkUp(mount, parts[2], func(dir string) { look(dir, "memory.max", "memory.current") })
			}
		case hasController(parts[1], "memory"): // v1
			walkUp(filepath.Join(root, "memory"), parts[2], func(dir string) {
				look(dir, "memory.limit_in_bytes", "memory.usage_in_bytes")
			})
		}
	}
	return room, room >= 0
}

// walkUp calls f on mount/path and each of its parents up to mount.
func walkUp(mount, path string, f func(dir string)) {
	rel := filepath.Clean("/" + path)
	for {
		f(filepath.Join(mount, rel))
		if rel == "/" {
			return
		}
		rel = filepath.Dir(rel)
	}
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// readCgroupValue reads a file holding one number of bytes; "max" (no
// limit) reads as noLimit. ok is false when the file is missing or holds
// anything else.
func readCgroupValue(path string) (v int64, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return noLimit, true
	}
	v, err = strconv.ParseInt(s, 10, 64)
	return v, err == nil && v >= 0
}
