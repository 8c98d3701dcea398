// Package memlimit is the operating system's side of the memory checks:
// how much memory this process may still take (MemAvailable in
// /proc/meminfo, or the room under a container's cgroup limit), a
// -max-memory size (ParseBytes, FormatBytes), the garbage collector's
// setting every estimate counts on (SetGC) and its overhead (WithOverhead),
// and Check, the one check every command runs before a large allocation.
// The estimates themselves belong to whoever allocates (bptt's for
// training, each command's for its own work).
package memlimit
