// Package browsertest drives headless Chromium from Go tests with
// chromedp: one browser shared by a test binary's tests, started by the
// first that needs it, driven over a pipe (it opens no port), loading the
// pages from file://. A test fails on anything the page logs as an error
// or a warning, and on an uncaught exception. web's page tests and
// cmd/mnist's use it (docs/web.md, "Tests").
package browsertest
