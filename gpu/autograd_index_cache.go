package gpu

import (
	"hash/maphash"
	"slices"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/dlca/dlca/autograd"
)

// indexCache holds the index data an AutogradDevice has uploaded: the
// wirings of its gate layers and the offsets of its gathers and scatters,
// each with its reverse index. A training loop applies the same wirings and
// patterns every iteration, so it uploads each once.
//
// An entry is found by a hash of its contents and used only when its
// contents equal the caller's, compared in full with the copy it keeps.
// Where the caller's data lives plays no part: a wiring freed and its
// memory reused for another cannot find a stale entry, nor can a wiring
// changed in place or another of the same size, and two hashes that
// collide cost a miss, never a wrong index. The hash and the compare read
// the data once each, which is cheaper than what a hit saves: the reverse
// index (a counting sort and its allocations), three pooled buffers and
// their writes. (A handle held by the owner, a gates.Layer keeping its
// buffers, would skip even that, but a gather's offsets are computed afresh
// by every autograd call and have no owner, and a Layer's Wiring is an
// exported field whose slices nothing stops a caller from changing.)
//
// The entries' buffers are the pool's, lent to the entry: they return to it
// when the entry is evicted (least recently used first, past
// indexCacheBytes or indexCacheEntries) and the work that reads them has
// been submitted, or go with the pool when the device closes.
type indexCache struct {
	seed    maphash.Seed
	entries map[indexKey][]*cachedIndex
	n       int    // entries
	bytes   uint64 // the entries' device bytes
	clock   uint64 // counts lookups, to find the least recently used
}

// indexCacheBytes and indexCacheEntries bound the cache; a larger index is
// uploaded for its call alone, as if there were no cache.
const (
	indexCacheBytes   = 64 << 20
	indexCacheEntries = 1024
)

// indexKey finds the entries that may hold an index: of one kind (see
// cachedIndex), into a source of src elements, with contents of one hash.
type indexKey struct {
	kind string
	src  int
	sum  uint64
}

// cachedIndex is an Index on the device and the offsets it holds.
type cachedIndex struct {
	ix    *Index
	data  []uint32           // the offsets, compared with every lookup's
	keep  []autograd.Storage // the pooled storage behind ix's buffers
	bytes uint64
	used  uint64 // the cache's clock when last found
}

// cachedIndex returns the Index of offsets data (Outside as 0xffffffff)
// into a source of src elements, with its reverse index, which reverse
// computes, uploading both unless the cache holds an entry of kind
// ("gate wiring", "gather offsets") with these contents. The cache keeps
// data: the caller passes a slice of its own making and leaves it alone.
// The caller keeps the result reachable until its work is recorded.
func (a *AutogradDevice) cachedIndex(kind string, data []uint32, src int, reverse func() (start, pos []uint32)) *cachedIndex {
	c := &a.cache
	if c.entries == nil {
		c.seed, c.entries = maphash.MakeSeed(), map[indexKey][]*cachedIndex{}
	}
	c.clock++
	key := indexKey{kind, src, maphash.Bytes(c.seed, wgpu.ToBytes(data))}
	for _, e := range c.entries[key] {
		if slices.Equal(e.data, data) {
			e.used = c.clock
			return e
		}
	}
	start, pos := reverse()
	e := &cachedIndex{ix: &Index{N: len(data), Src: src}, data: data, used: c.clock}
	var s [3]autograd.Storage
	s[0], e.ix.offs = a.upload(data)
	s[1], e.ix.start = a.upload(start)
	s[2], e.ix.pos = a.upload(pos)
	e.keep = s[:]
	e.bytes = 4 * uint64(len(data)+len(start)+len(pos))
	if a.failed() || e.bytes > indexCacheBytes {
		return e
	}
	c.entries[key] = append(c.entries[key], e)
	c.n++
	c.bytes += e.bytes
	for c.bytes > indexCacheBytes || c.n > indexCacheEntries {
		c.evictOldest()
	}
	return e
}

// evictOldest drops the least recently used entry.
func (c *indexCache) evictOldest() {
	var oldest indexKey
	at, used := -1, c.clock+1
	for key, es := range c.entries {
		for i, e := range es {
			if e.used < used {
				oldest, at, used = key, i, e.used
			}
		}
	}
	e := c.entries[oldest][at]
	if es := slices.Delete(c.entries[oldest], at, at+1); len(es) > 0 {
		c.entries[oldest] = es
	} else {
		delete(c.entries, oldest)
	}
	c.n--
	c.bytes -= e.bytes
}
