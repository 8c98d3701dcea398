// Package repocheck holds tests about the repository itself rather than any
// package's code: what may be tracked in git. It has no exported API; its
// tests run with the suite (go test ./...) from a git checkout and skip, saying
// why, anywhere else (a source tarball has no index to read).
package repocheck
