package memlimit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCgroupRoom reads fake cgroup trees: the room is the tightest limit
// minus its usage over the cgroup and its ancestors, and "no limit" (v2's
// "max", v1's huge value) is no limit.
func TestCgroupRoom(t *testing.T) {
	const v1Unlimited = "9223372036854771712\n"
	for _, tc := range []struct {
		name     string
		self     string            // /proc/self/cgroup
		files    map[string]string // relative to the fake /sys/fs/cgroup
		want     int64
		wantSome bool
	}{
		{"v2 limit", "0::/box\n", map[string]string{
			"box/memory.max": "1073741824\n", "box/memory.current": "73741824\n",
		}, 1000000000, true},
		{"v2 max", "0::/box\n", map[string]string{
			"box/memory.max": "max\n", "box/memory.current": "5\n",
		}, 0, false},
		{"v2 parent tighter", "0::/a/b\n", map[string]string{
			"a/b/memory.max": "max\n", "a/b/memory.current": "100\n",
			"a/memory.max": "5000\n", "a/memory.current": "1000\n",
		}, 4000, true},
		{"v2 namespaced: own cgroup at the root", "0::/\n", map[string]string{
			"memory.max": "3000\n", "memory.current": "500\n",
		}, 2500, true},
		{"v2 on a hybrid system, under unified", "0::/box\n", map[string]string{
			"unified/box/memory.max": "2000\n", "unified/box/memory.current": "1500\n",
		}, 500, true},
		{"v1 limit", "4:memory:/docker/abc\n0::/\n", map[string]string{
			"memory/docker/abc/memory.limit_in_bytes": "8000\n", "memory/docker/abc/memory.usage_in_bytes": "2000\n",
			"memory/memory.limit_in_bytes": v1Unlimited, "memory/memory.usage_in_bytes": "99999\n",
		}, 6000, true},
		{"v1 unlimited", "9:name=systemd:/\n4:memory:/process_api/x\n", map[string]string{
			"memory/process_api/x/memory.limit_in_bytes": v1Unlimited, "memory/process_api/x/memory.usage_in_bytes": "5189632\n",
			"memory/memory.limit_in_bytes": v1Unlimited, "memory/memory.usage_in_bytes": "306839552\n",
		}, 0, false},
		{"v1 with other controllers on the line", "3:cpu,memory:/x\n", map[string]string{
			"memory/x/memory.limit_in_bytes": "100\n", "memory/x/memory.usage_in_bytes": "300\n",
		}, 0, true}, // over its limit: no room
		{"usage missing", "0::/box\n", map[string]string{"box/memory.max": "1000\n"}, 0, false},
		{"garbage", "0::/box\n", map[string]string{"box/memory.max": "lots\n", "box/memory.current": "1\n"}, 0, false},
		{"nothing mounted", "0::/box\n", nil, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for name, text := range tc.files {
				p := filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, ok := cgroupRoom(root, tc.self)
			if ok != tc.wantSome || (ok && got != tc.want) {
				t.Errorf("cgroupRoom = %d, %v; want %d, %v", got, ok, tc.want, tc.wantSome)
			}
		})
	}
}
